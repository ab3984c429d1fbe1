// e2e tier: a partition past heartbeat_grace on REAL Nomad builds and real VMs, with a job that has Nomad-native
// services (examples/jobs/whole-alloc.nomad.hcl), twice per build on one warm lab (heartbeat_grace 30s, partition 90s):
// - the job as shipped (no disconnect policy): the node is marked down and the alloc lost; with one client the
//   replacement can only be placed once the node is back, and the settle must wait for it rather than end on the lost
//   alloc; the replacement registers the services itself;
// - the same job with `disconnect { lost_after = "10m", replace = false }`: the node is marked disconnected, the alloc
//   unknown, and it runs on in place once the node is back, its services still registered.
// `services` passes in both on every build, before GH-26424's fix (1.10.4) too: the server deleted a node's
// registrations when it marked the node `down` (never `disconnected`), and they stayed deleted only when the node came
// back before its allocs were marked lost ("recovered before allocs were migrated"), a window of one eval that a
// partition of fixed length does not hit (nomad/heartbeat.go, state_store.go updateNodeStatusTxn at v1.10.3). Each run
// is held, check by check, to expectedVerdicts (nothing fails; the per-task checks skip, as a partition restores
// nothing in place); `services` must show whose registration it read: the replacement's as shipped, the same alloc's
// with the policy, so a pass is about the alloc that holds the slot. The recorded event stream shows the order Nomad
// did things in.
// Skips visibly without builds or the lab.
import t, { type Test } from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import {
  assertVerdicts,
  buildsFromEnv,
  changelogFailures,
  expectArgs,
  expectedVerdicts,
  reportArgs,
  reportsDirFor,
  runCli,
  skipReason,
  verdictsOf,
  warmWorkDir,
  type Build,
  type Verdict,
} from '../helpers/real-nomad.js';
import { checkIds } from '../helpers/check-ids.js';

t.setTimeout(120 * 60_000);
// Note: every build of the open-source lines from 1.8 on reads the disconnect block; the e2e builds start at 1.9.
const builds = buildsFromEnv();
const skip = skipReason(builds);
const GRACE_S = 30;
const PARTITION_S = 90;
const JOB = fileURLToPath(new URL('../../examples/jobs/whole-alloc.nomad.hcl', import.meta.url));
const CHECKS = checkIds('bridge-exec-reboot');

/** The shipped job with a disconnect policy that outlasts the partition and places no replacement meanwhile. */
function withDisconnect(hcl: string): string {
  const out = hcl.replace(
    /^( {2}group "web" \{\n)/m,
    '$1    disconnect {\n      lost_after = "10m"\n      replace    = false\n    }\n\n',
  );
  if (out === hcl) throw new Error(`${JOB}: no 'group "web" {' line to add the disconnect block to`);
  return out;
}

interface Event {
  Topic: string;
  Type: string;
  Index: number;
  Payload: Record<string, { ID?: string; Status?: string; ClientStatus?: string }>;
}
interface Run {
  outcome: string;
  properties: Record<string, string>;
  verdicts: Verdict[];
  artifacts: { name: string; path: string }[];
}

async function partition(t: Test, b: Build, lab: string[], job: string, disconnect: boolean) {
  const dir = reportsDirFor(t);
  const { args, junit, summary } = reportArgs(dir);
  const r = await runCli(
    t,
    [
      'run',
      'bridge-exec-reboot',
      '--nomad',
      b.path,
      '--job',
      job,
      '--reboot',
      'partition',
      '--partition-for',
      String(PARTITION_S),
      '--heartbeat-grace',
      `${GRACE_S}s`,
      '--memory',
      '1024',
      ...args,
      ...expectArgs(b, 'partition'),
      ...lab,
    ],
    undefined,
    { HARNESS_WARM: '1' },
  );
  validateJUnit(t, junit);
  const run = JSON.parse(readFileSync(summary, 'utf8')).runs?.[0] as Run;
  const events = readFileSync(run.artifacts.find((a) => a.name === 'events.ndjson')!.path, 'utf8')
    .trim()
    .split('\n')
    .flatMap((l) => (JSON.parse(l) as { Events?: Event[] }).Events ?? []);
  const at = `${b.version} partition ${PARTITION_S}s${disconnect ? ' (disconnect policy)' : ''}`;
  const v = verdictsOf(run);
  const expected = changelogFailures(b, 'partition');
  const failed = CHECKS.filter((id) => v.get(id)?.status === 'failed');
  t.comment(`${at}: run ${r.runIds.join(', ')}, failed [${failed.join(', ')}], changelog [${expected.join(', ')}]`);
  t.equal(r.code, 0, `${at}: exit 0, every check as the CHANGELOG predicts (${expected.join(', ') || 'no failure'})`);
  assertVerdicts(t, at, v, expectedVerdicts(b, 'partition', CHECKS, {}));
  t.match(
    v.get('services')?.evidence.join('\n'),
    disconnect
      ? /^bridge-whole-alloc\.web\[0\] [0-9a-f]{8}:$/m
      : /^bridge-whole-alloc\.web\[0\] [0-9a-f]{8} \(as its replacement [0-9a-f]{8}\):$/m,
    `${at}: services read the registrations of ${disconnect ? 'the same alloc, reconnected in place' : 'the replacement'}`,
  );
  for (const name of ['whole-alloc-http', 'whole-alloc-admin'])
    t.match(
      v.get('services')?.evidence.join('\n'),
      new RegExp(`ok {3}service ${name}: registered at [\\d.]+:\\d+; checks: \\S+ success`),
      `${at}: ${name} registered again with its check passing`,
    );
  for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
  const nodeStatuses = events.filter((e) => e.Topic === 'Node' && e.Type === 'NodeStreamEvent');
  const down = nodeStatuses.find((e) => ['down', 'disconnected'].includes(e.Payload['Node']?.Status ?? ''));
  const back = nodeStatuses.find((e) => down && e.Index > down.Index && e.Payload['Node']?.Status === 'ready');
  t.ok(down && back, `${at}: the node went ${down?.Payload['Node']?.Status ?? '?'} and came back ready (event stream)`);
  return { run, v, events, at, down, back, stderr: r.stderr };
}

for (const b of builds) {
  t.test(
    `partition past heartbeat_grace on ${b.version} (${b.keepsServicesThroughDown ? 'keeps' : 'deletes'} a down node's services, GH-26424): replaced after the node is back, or reconnected in place`,
    { skip: skip ?? false, timeout: 110 * 60_000 },
    async (t) => {
      const { lab, warmLabs } = warmWorkDir(t, 'nrh-e2e-partition-');
      const variant = join(t.testdir({}), 'whole-alloc-disconnect.nomad.hcl');
      writeFileSync(variant, withDisconnect(readFileSync(JOB, 'utf8')));

      await t.test('the job as shipped: lost, the replacement placed once the node is back', async (t) => {
        const { run, v, events, at, down, back } = await partition(t, b, lab, JOB, false);
        t.equal(down?.Payload['Node']?.Status, 'down', `${at}: the node was marked down`);
        t.match(
          v.get('alloc-restored')?.message,
          new RegExp(`^replaced, as expected \\(partition of ${PARTITION_S}s > heartbeat_grace ${GRACE_S}s\\)`),
          `${at}: replaced, and the verdict says it was expected`,
        );
        // the settle's decision names the replacement it waited for, not the lost alloc
        t.match(
          run.properties['job.settled'],
          /^yes: all 1 allocs settled: bridge-whole-alloc\.web\[0\] replaced by [0-9a-f]{8}: running/,
          `${at}: settled on the running replacement`,
        );
        const lost = events.find((e) => e.Topic === 'Allocation' && e.Payload['Allocation']?.ClientStatus === 'lost');
        t.ok(lost, `${at}: the alloc was marked lost (event stream)`);
        const original = lost?.Payload['Allocation']?.ID;
        const placed = events.find(
          (e) =>
            e.Topic === 'Allocation' &&
            e.Type === 'PlanResult' &&
            e.Payload['Allocation']?.ID !== original &&
            e.Index > (lost?.Index ?? Infinity),
        );
        t.ok(placed, `${at}: a replacement was placed after the loss`);
        t.ok(
          placed && back && placed.Index > back.Index,
          `${at}: the replacement was placed only after the node was ready again (index ${placed?.Index} > ${back?.Index})`,
        );
      });

      await t.test('with a disconnect policy: unknown, then running on in place', async (t) => {
        const { run, v, events, at, down } = await partition(t, b, lab, variant, true);
        t.equal(down?.Payload['Node']?.Status, 'disconnected', `${at}: the node was disconnected, not down`);
        t.ok(
          events.some((e) => e.Topic === 'Allocation' && e.Payload['Allocation']?.ClientStatus === 'unknown'),
          `${at}: the alloc went unknown (event stream)`,
        );
        t.notOk(
          events.some((e) => e.Topic === 'Allocation' && e.Payload['Allocation']?.ClientStatus === 'lost'),
          `${at}: the alloc was never marked lost`,
        );
        t.equal(v.get('alloc-restored')?.status, 'passed', `${at}: ${v.get('alloc-restored')?.message}`);
        t.match(v.get('alloc-restored')?.message, /went unknown at .*then reconnected in place/);
        t.match(run.properties['job.settled'], /^yes: /, `${at}: settled: ${run.properties['job.settled']}`);
      });

      t.equal(warmLabs().length, 1, `${b.version}: one warm lab for both runs`);
    },
  );
}
