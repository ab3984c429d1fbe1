// e2e tier: the whole-cluster fault kinds on real VMs with REAL Nomad builds (NOMAD_BINARIES: the first build for
// power-loss-all, the second, or the first again, for leader-partition):
// - `rolling-reboot --servers 3 --clients 2 --reboot power-loss-all --target client-1 --drain=false`: every machine
//   off at once, quorum lost, back servers first; a leader again, every alloc of the spread job followed, the servers
//   agree afterwards (servers-agree reads every server side by side), no agent crashed;
// - `server-reboot --servers 3 --clients 1 --reboot leader-partition`: the leader alone cut off; another leads in
//   time, nothing disturbed, the servers agree after the heal.
// CLUSTER_FAULTS picks one of the two (power-loss-all, leader-partition). Skips visibly without a build or the lab.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import {
  buildsFromEnv,
  e2eRunFlags,
  kindsFromEnv,
  NO_SUCH_JOB_CHECKS,
  reportsDirFor,
  runCli,
  verdictsOf,
} from '../helpers/real-nomad.js';
import { checkIds } from '../helpers/check-ids.js';
import { seconds } from '../../lib/checks/continuity.js';

t.setTimeout(150 * 60_000);
const builds = buildsFromEnv();
const skip = builds.length ? (vmSkipReason() ?? false) : 'no Nomad build given: set NOMAD_BINARIES=/path/a[,/path/b]';
const FAULTS = kindsFromEnv(['power-loss-all', 'leader-partition'] as const, 'CLUSTER_FAULTS');

/**
 * Every check of rolling-reboot after power-loss-all on 3+2, as the real run showed it (docs/findings.md,
 * cluster-faults: 2.0.5 on b27ecf3, exit 0): service-continuity and untouched-allocs skipped by the whole-lab rule, the
 * job-type and volume checks skipped (the shipped job has none of it), every other check passed. A check that stops
 * running, or fails, shows here.
 */
const POWER_LOSS_ALL_SKIPS: Readonly<Record<string, string>> = {
  'service-continuity': 'a fault on every machine leaves no instance to serve: the outage is measured, not judged',
  'untouched-allocs': 'a whole-lab fault leaves no client alone',
  ...Object.fromEntries(NO_SUCH_JOB_CHECKS.map((id) => [id, 'the shipped job has none of it'])),
};

type Run = { outcome: string; properties: Record<string, string>; verdicts: never[] };

async function runOne(t: Test, args: string[], build: (typeof builds)[number]) {
  const dir = reportsDirFor(t);
  const { flags, junit, summary } = e2eRunFlags(build, dir);
  const started = Date.now();
  const r = await runCli(t, ['run', ...args, ...flags]);
  const run = JSON.parse(readFileSync(summary, 'utf8')).runs?.[0] as Run;
  const v = verdictsOf(run as never);
  t.comment(`run ${r.runIds.join(', ')}: exit ${r.code} after ${seconds(Date.now() - started)}`);
  t.comment([...v.values()].map((x) => `${x.id}=${x.label}: ${x.message}`).join('\n'));
  validateJUnit(t, junit);
  return { r, run, v };
}

t.test('whole-cluster faults', { skip }, async (t) => {
  if (FAULTS.includes('power-loss-all')) {
    const b = builds[0]!;
    // rolling-reboot spreads its job over both clients and follows every alloc; one turn (client-1, no drain): the
    // kind itself cuts every machine. (bridge-exec-reboot judges the one client it reboots: on 3+2 its one alloc may
    // sit on the other client, which that scenario refuses as nothing to judge.)
    await t.test(`power-loss-all on 3+2, Nomad ${b.version}`, async (t) => {
      const { r, run, v } = await runOne(
        t,
        [
          'rolling-reboot',
          '--servers',
          '3',
          '--clients',
          '2',
          '--reboot',
          'power-loss-all',
          '--power-order',
          'servers-first',
          '--target',
          'client-1',
          '--drain=false',
        ],
        b,
      );
      const ids = checkIds('rolling-reboot');
      t.same([...v.keys()].sort(), [...ids].sort(), "the scenario's checks");
      for (const id of ids) {
        const why = POWER_LOSS_ALL_SKIPS[id];
        t.equal(
          v.get(id)?.status,
          why ? 'skipped' : 'passed',
          `${id} ${why ? `skipped (${why})` : 'passed'}: ${v.get(id)?.message}`,
        );
      }
      t.equal(r.code, 0, 'exit 0');
      t.equal(run.properties['lab.topology'], '3+2', 'three servers, two clients');
      t.match(
        v.get('fault-exercised')?.evidence.join('\n') ?? '',
        /every machine powered off/,
        'the whole lab lost power',
      );
      for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
    });
  }
  if (FAULTS.includes('leader-partition')) {
    const b = builds[1] ?? builds[0]!;
    await t.test(`leader-partition on 3+1, Nomad ${b.version}`, async (t) => {
      const { r, run, v } = await runOne(
        t,
        ['server-reboot', '--servers', '3', '--clients', '1', '--reboot', 'leader-partition'],
        b,
      );
      t.equal(r.code, 0, 'exit 0: every check passed');
      const ids = checkIds('server-reboot');
      t.same([...v.keys()].sort(), [...ids].sort(), "the scenario's checks");
      for (const id of ids)
        if (NO_SUCH_JOB_CHECKS.includes(id))
          t.equal(v.get(id)?.status, 'skipped', `${id} skipped, the shipped job has none of it: ${v.get(id)?.message}`);
        else t.equal(v.get(id)?.status, 'passed', `${id}: ${v.get(id)?.message}`);
      t.equal(run.properties['lab.topology'], '3+1', 'three servers, one client');
      t.comment(
        `leader before: ${run.properties['leader.before']}; after: ${run.properties['leader.after']}; fault: ${run.properties['fault.1.target']}`,
      );
      t.match(run.properties['fault.1.target'] ?? '', /^server-\d \(leader/, 'the fault hit the leader');
      t.not(run.properties['leader.after'], run.properties['leader.before'], 'another server leads');
      for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
    });
  }
});
