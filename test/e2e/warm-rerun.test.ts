// e2e tier, warm reruns on REAL Nomad (issue 14 part 3): bridge-exec-reboot twice with one build from 1.9.4 on, in a work
// dir of its own. The first run is cold and takes its key's snapshot once the agents are ready; the second reverts to
// it, skips the install, and still meets every reboot check's expectation: each passes but what Nomad's CHANGELOG says
// still fails after a host reboot (changelogFailures: task-dirs before 2.0.5, given as `--expect task-dirs=fail`) and
// services, skipped (the shipped job has no Nomad-native service); `destroy --warm` removes the warm lab at the end.
// Builds come from NOMAD_BINARIES / NOMAD_BINARY; without one from 1.9.4 on it skips visibly.
import t from 'tap';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vmSkipReason, domainsMatching } from '../helpers/vm-prereqs.js';
import {
  buildsFromEnv,
  expectArgs,
  expectedLabel,
  runCli,
  verdictsOf,
  NETNS,
  reportsDirFor,
  SHIPPED_JOB_SKIPS,
  type Verdict,
} from '../helpers/real-nomad.js';
import { checkIds } from '../helpers/check-ids.js';

t.setTimeout(60 * 60_000);
const build = buildsFromEnv().find((b) => !b.beforeTmpfsFix);
const skip = build ? vmSkipReason() : 'needs a Nomad build from 1.9.4 on in NOMAD_BINARIES (or NOMAD_BINARY)';
const WARM = { HARNESS_WARM: '1' };
type Run = {
  outcome: string;
  durationMs: number;
  properties: Record<string, string>;
  steps: { name: string; durationMs: number }[];
  verdicts: Verdict[];
};
const runOf = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { runs: Run[] }).runs[0]!;

t.test(
  `bridge-exec-reboot on ${build?.version ?? '(>= 1.9.4)'}: a cold run, then a warm rerun from its snapshot`,
  { skip: skip ?? false, timeout: 55 * 60_000 },
  async (t) => {
    const dir = reportsDirFor(t);
    // Note: outside the test dir, which tap removes before later teardowns run (a warm lab would outlive a failed test)
    const work = mkdtempSync(join(tmpdir(), 'nrh-e2e-warm-'));
    const lab = ['--netns', NETNS, '--work-dir', work];
    t.teardown(async () => {
      if (existsSync(work) && readdirSync(work).some((f) => f.startsWith('warm-')))
        await runCli(t, ['destroy', '--warm', ...lab]);
      rmSync(work, { recursive: true, force: true });
    });
    const args = (name: string) => [
      'run',
      'bridge-exec-reboot',
      '--nomad',
      build!.path,
      ...lab,
      '--reports-dir',
      join(dir, 'reports'),
      '--report-json',
      join(dir, `${name}.json`),
      ...expectArgs(build!, 'graceful'),
    ];
    const labels = (r: Run, name: string) => {
      const v = verdictsOf(r);
      for (const id of checkIds('bridge-exec-reboot')) {
        const want = expectedLabel(build!, 'graceful', id, SHIPPED_JOB_SKIPS);
        t.equal(v.get(id)?.label, want, `${name}: ${id} ${want}: ${v.get(id)?.message}`);
      }
    };
    const first = await runCli(t, args('cold'), undefined, WARM);
    t.equal(first.code, 0, 'the cold run met every expectation');
    const cold = runOf(join(dir, 'cold.json'));
    labels(cold, 'cold');
    t.match(cold.properties['lab.snapshot.created'], /^yes/, 'the cold run took the snapshot');
    const key = cold.properties['lab.snapshot.key']!;
    const second = await runCli(t, args('warm'), undefined, WARM);
    t.equal(second.code, 0, 'the warm rerun met every expectation');
    const warm = runOf(join(dir, 'warm.json'));
    labels(warm, 'warm');
    t.equal(warm.properties['lab.warm'], 'yes');
    t.equal(warm.properties['lab.snapshot.key'], key);
    t.equal(warm.properties['nomad.version'], cold.properties['nomad.version'], "the snapshot's Nomad is the build's");
    t.not(
      warm.properties['client.boot_id.before'],
      warm.properties['client.boot_id.after'],
      'the client really rebooted',
    );
    const step = (r: Run, re: RegExp) => r.steps.find((s) => re.test(s.name))?.durationMs ?? NaN;
    t.ok(step(warm, /^bring up/) < step(cold, /^bring up/) / 2, 'bring-up is at most half as long warm');
    t.ok(step(warm, /^install Nomad/) < step(cold, /^install Nomad/), 'no install warm');
    const gone = await runCli(t, ['destroy', '--warm', ...lab]);
    t.equal(gone.code, 0);
    t.same(domainsMatching(`warm-${key}`), [], 'no domain of the warm lab is left');
  },
);
