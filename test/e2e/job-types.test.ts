// e2e tier: the jobs people run, on REAL Nomad builds (NOMAD_BINARIES) and real VMs, through rolling-reboot with the
// examples in examples/jobs. Three cases (JOB_TYPES_CASES selects, comma-separated; all by default), each on every
// build given:
// - mixed: a rolling drain-reboot of 3 servers and 2 clients with a service in two bridge groups, a host-network
//   service, a system job and a batch job together: every alloc of every job followed, the system job back on each
//   client after it was eligible again (GH-27499), the batch allocs ending as the build's line documents under a drain
//   (see drainBehaviour), never an extra alloc (GH-28018);
// - batch-drain: 1 server and 2 clients, the batch job alone under the drain: the line's documented behaviour, named;
// - volumes: 1+1, the lab host volume, a sticky ephemeral disk and (1.10+) a dynamic host volume across a graceful
//   reboot without a drain: each alloc restored in place and finding the marker it wrote before the reboot, each
//   volume ready on the node.
// The drain deadline is short (--drain-deadline): Nomad leaves a drained batch alloc to run until the deadline, and
// the batch job sleeps 20 minutes. Skips visibly without a build or the lab. Run under `flock /work/vm.lock`.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import {
  buildsFromEnv,
  e2eRunFlags,
  kindsFromEnv,
  reportsDirFor,
  runCli,
  verdictsOf,
  versionParts,
  type Build,
} from '../helpers/real-nomad.js';
import { checkIds } from '../helpers/check-ids.js';
import type { ClusterEvidence } from '../../lib/model/cluster-evidence.js';
import type { AllocSnap } from '../../lib/model/evidence.js';
import type { Test } from 'tap';

t.setTimeout(150 * 60_000);
const builds = buildsFromEnv();
const skip = builds.length ? vmSkipReason() : 'no Nomad build given: set NOMAD_BINARIES=/path/a,/path/b';
const CASES = kindsFromEnv(['mixed', 'batch-drain', 'volumes'] as const, 'JOB_TYPES_CASES');
const CHECKS = checkIds('rolling-reboot');
const ex = (f: string) => fileURLToPath(new URL(`../../examples/jobs/${f}`, import.meta.url));
/** Long enough for Nomad's drainer to see the batch allocs running, far below the 20 minutes they sleep. */
const DRAIN_DEADLINE = '90s';

/**
 * What a drained batch alloc does on a line, from Nomad's history (the fetched hashicorp/nomad): the drainer leaves a
 * batch alloc to run until the drain's deadline on every line, then 1.10.x (with dfa07e10ed's behaviour, #26025, in
 * 1.10.5's tree) fails its task and reschedules it elsewhere; 1.11.0 and later (3a20db3426, #26961) stop it without a
 * replacement (MigrateDisablePlacement): complete/stop on its node, killed (seen on 2.0.5, docs/findings.md).
 */
function drainBehaviour(b: Build): string {
  const [maj, min] = versionParts(b.version);
  return maj > 1 || min >= 11 ? 'stopped-at-deadline' : 'fail-and-reschedule';
}

/** Dynamic host volumes (created through the API with the mkdir plugin) exist from Nomad 1.10. */
function dynamicVolumes(b: Build): boolean {
  const [maj, min] = versionParts(b.version);
  return maj > 1 || min >= 10;
}

interface Ran {
  code: number;
  v: ReturnType<typeof verdictsOf>;
  props: Record<string, string>;
  evidence: ClusterEvidence;
  runIds: string[];
}

async function rolling(t: Test, b: Build, args: string[]): Promise<Ran> {
  const dir = reportsDirFor(t);
  const { flags, junit, summary } = e2eRunFlags(b, dir);
  const started = Date.now();
  // Note: a cold 3+2 roll with two drains ran past the default 30-minute budget under emulation on a loaded host
  const r = await runCli(t, ['run', 'rolling-reboot', '--timeout', '75m', ...args, ...flags]);
  const run = JSON.parse(readFileSync(summary, 'utf8')).runs?.[0];
  const v = verdictsOf(run);
  t.comment(
    `run ${r.runIds.join(', ')} on ${b.version}: exit ${r.code} after ${Math.round((Date.now() - started) / 1000)} s`,
  );
  t.comment([...v.values()].map((x) => `${x.id}=${x.label}: ${x.message}`).join('\n'));
  validateJUnit(t, junit);
  t.same([...v.keys()], CHECKS, "rolling-reboot's checks, in its order");
  for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
  const file = (run?.artifacts ?? []).find((a: { name: string }) => a.name === 'cluster-evidence.json');
  t.ok(file, 'the cluster evidence is an artifact');
  // Note: a run that broke before its checks has no evidence to judge: say so with its error, not a TypeError
  if (!file)
    throw new Error(`run ${r.runIds.join(', ')} exit ${r.code}: no cluster evidence (${run?.error ?? 'no error'})`);
  const evidence = JSON.parse(readFileSync(file.path, 'utf8')) as ClusterEvidence;
  return {
    code: r.code ?? -1,
    v,
    props: (run?.properties ?? {}) as Record<string, string>,
    evidence,
    runIds: r.runIds,
  };
}

const passed = (t: Test, r: Ran, id: string) => t.equal(r.v.get(id)?.label, 'passed', `${id}: ${r.v.get(id)?.message}`);

/** Each batch alloc's row of batch-outcome names the line's behaviour under the drain. */
function assertBatchDrained(t: Test, r: Ran, b: Build) {
  const want = drainBehaviour(b);
  passed(t, r, 'batch-outcome');
  t.match(r.v.get('batch-outcome')?.message ?? '', `under the drain: ${want}`, `${b.version}: ${want}`);
  const rows = r.v.get('batch-outcome')?.perAlloc ?? [];
  t.equal(rows.length, 2, 'both batch allocs judged');
  for (const p of rows) t.match(p.detail, new RegExp(`^${want}: drained`), `${p.name}: ${p.detail}`);
  const batch = r.evidence.after.filter((a) => a.jobId === 'batch-sleep');
  if (want !== 'stopped-at-deadline') {
    t.ok(
      batch.some((a) => a.previousAllocation),
      'a drained batch alloc failed and was rescheduled: its replacement names it',
    );
    passed(t, r, 'no-extra-alloc');
    return;
  }
  const [maj, min, patch] = versionParts(b.version);
  const fixed28018 = maj > 2 || (maj === 2 && (min > 0 || patch >= 4));
  const extra = batch.filter((a) => a.desiredStatus === 'run');
  if (fixed28018) {
    t.equal(batch.length, 2, 'no alloc placed where a drained batch alloc was stopped (MigrateDisablePlacement)');
    passed(t, r, 'no-extra-alloc');
    return;
  }
  // Before 2.0.4 a node made eligible again stops counting its drained batch alloc, and the scheduler may place a new
  // one in that place (GH-28018), on any node: measured on 1.11.3 in 1 of 2 places of each of two rolls, once on the
  // node made eligible, once on the other client (whose own drain then stopped it too; docs/findings.md). Either way
  // is this line's behaviour; which one was seen is measured from the allocs themselves (a place that ran more than
  // one alloc, whatever became of the later one), and a failure must be the known issue.
  const x = r.v.get('no-extra-alloc');
  const first = new Map<string, AllocSnap>();
  for (const a of [...batch].sort((p, q) => p.createIndex - q.createIndex))
    if (!first.has(a.name)) first.set(a.name, a);
  const later = batch.filter((a) => first.get(a.name) !== a);
  t.comment(
    `${b.version}: ${later.length} batch alloc(s) placed after the first of their place (${extra.length} still running): ${later.map((a) => `${a.name} ${a.id.slice(0, 8)} create index ${a.createIndex}`).join(', ') || 'none'}`,
  );
  if (later.length === 0) passed(t, r, 'no-extra-alloc');
  else {
    t.equal(x?.label, 'expected failure', `no-extra-alloc: ${x?.message}`);
    const label = (x as { knownIssue?: unknown } | undefined)?.knownIssue;
    t.match(label, { kind: 'known', issue: 'GH-28018' }, 'labelled with the public issue');
    // Note: the window opens when the node is made eligible again; the turn's eligibleAt is taken after that call
    // returned (real 1.11.3 placed the later alloc 2.1 s before it), so the bound used is the node back from its
    // reboot, which the mark follows, and after its drain had stopped the first alloc
    t.ok(
      later.every((a) => {
        const held = first.get(a.name)!;
        return r.evidence.turns.some(
          (u) =>
            u.nodeId === held.nodeId &&
            a.createTimeMs >= u.reboot.backAt &&
            a.createTimeMs >= (u.drain?.doneAt ?? Number.POSITIVE_INFINITY),
        );
      }),
      'each later alloc was placed once the node that held its place was back from its drain and reboot (the GH-28018 window)',
    );
  }
}

t.test('the jobs people run, on real builds', { skip: skip ?? false }, async (t) => {
  for (const b of builds) {
    if (CASES.includes('mixed'))
      await t.test(
        `${b.version}: rolling drain-reboot of 3+2 with a two-group service, a host-network service, a system and a batch job`,
        async (t) => {
          const r = await rolling(t, b, [
            '--servers',
            '3',
            '--clients',
            '2',
            '--drain',
            '--drain-deadline',
            DRAIN_DEADLINE,
            ...['two-groups', 'host-network', 'system', 'batch'].flatMap((j) => ['--job', ex(`${j}.nomad.hcl`)]),
            // two-groups' groups run one alloc each: a drain stops the only one before its replacement answers, so
            // their service is down during each drain by construction (measured on 2.0.5: gaps of 6-310 s, each on
            // "refused" or "no running alloc"); what is asserted is that every gap rests on such evidence
            '--expect',
            'service-continuity=fail',
            '--known-issues',
            'expect',
          ]);
          t.equal(r.props['lab.topology'], '3+2');
          t.equal(
            r.props['job.types'],
            'bridge-two-groups=service host-network=service node-agent=system batch-sleep=batch',
            'every job registered, each with its type',
          );
          t.same(
            r.evidence.jobs?.map((j) => [j.id, j.expectedAllocs]),
            [
              ['bridge-two-groups', 2],
              ['host-network', 2],
              ['node-agent', 2],
              ['batch-sleep', 2],
            ],
            'the allocs each job means to run on two clients',
          );
          t.match(r.v.get('targets-hit')?.message ?? '', /every target hit: client-1, client-2$/);
          passed(t, r, 'allocs-followed');
          passed(t, r, 'system-allocs');
          const agents = r.v.get('system-allocs')?.perAlloc ?? [];
          t.same(
            agents.map((p) => p.name),
            ['node-agent on client-1', 'node-agent on client-2'],
          );
          for (const p of agents)
            t.match(
              p.detail,
              /drained, graceful, eligible again: \w+ started \d+\.\ds after the node was eligible again/,
              `${p.name}: back after the node was eligible again (GH-27499)`,
            );
          assertBatchDrained(t, r, b);
          t.ok(
            r.evidence.series?.services.includes('agent/http'),
            `the system job's port probed: ${r.evidence.series?.services.join(', ')}`,
          );
          const sc = r.v.get('service-continuity');
          t.equal(sc?.label, 'expected failure', `service-continuity measured: ${sc?.message}`);
          const gaps = (sc?.evidence ?? []).filter((l) => l.startsWith('gap '));
          t.ok(gaps.length > 0, 'the drains of the one-alloc groups left measured gaps');
          // a gap rests on a refusal, on no running alloc, or on a silence past the series' bound (20 s, said in the
          // series line), never on the harness giving up (the rule rolling-reboot.test.ts holds too)
          for (const g of gaps) {
            t.match(
              g,
              /Couldn't connect|refused|no running alloc of it|silent throughout/,
              `a gap: ${g.slice(0, 160)}`,
            );
            t.notMatch(g, /gave up after|deadline reached/, 'not the harness giving up');
          }
          t.equal(r.code, 0, 'exit 0: every check met its expectation');
        },
      );
    if (CASES.includes('batch-drain'))
      await t.test(`${b.version}: a batch job under a rolling drain of 1+2`, async (t) => {
        const r = await rolling(t, b, [
          '--servers',
          '1',
          '--clients',
          '2',
          '--drain',
          '--drain-deadline',
          DRAIN_DEADLINE,
          '--job',
          ex('batch.nomad.hcl'),
        ]);
        assertBatchDrained(t, r, b);
        t.equal(r.v.get('system-allocs')?.label, 'skipped', 'no system job');
        t.equal(r.code, 0, 'exit 0');
      });
    if (CASES.includes('volumes'))
      await t.test(
        `${b.version}: the lab host volume and a sticky ephemeral disk across a graceful reboot`,
        async (t) => {
          const r = await rolling(t, b, [
            '--servers',
            '1',
            '--clients',
            '1',
            '--drain=false',
            '--reboot',
            'graceful',
            // six allocs on one client: the default VM memory fits four (measured: "Dimension memory exhausted")
            '--memory',
            '1536',
            '--job',
            ex('host-volume.nomad.hcl'),
            '--job',
            ex('sticky-disk.nomad.hcl'),
            ...(dynamicVolumes(b) ? ['--job', ex('dynamic-host-volume.nomad.hcl')] : []),
          ]);
          t.equal(r.props['reboot.drain'], 'false');
          passed(t, r, 'allocs-followed');
          passed(t, r, 'volume-data');
          const rows = r.v.get('volume-data')?.perAlloc ?? [];
          t.equal(rows.length, dynamicVolumes(b) ? 6 : 4, 'two allocs of each job');
          if (dynamicVolumes(b))
            t.match(r.props['volumes.dynamic'] ?? '', /harness-data/, 'the dynamic volume created on the client');
          for (const p of rows) t.match(p.detail, /marker "[0-9a-f-]+" kept/, `${p.name}: ${p.detail}`);
          passed(t, r, 'volume-state');
          t.equal(r.code, 0, 'exit 0');
        },
      );
  }
});
