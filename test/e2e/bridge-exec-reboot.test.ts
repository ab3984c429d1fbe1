// e2e tier: bridge-exec-reboot against REAL Nomad builds on real VMs, with the verdicts Nomad's history predicts.
// Builds come from NOMAD_BINARIES (comma-separated paths) or NOMAD_BINARY; without them every test skips visibly.
// When a build from before the tmpfs fix (< 1.9.4) and one after it are given, the first pair runs as
// `compare --before A --after B` (which also is the bridge-exec-reboot run of both); every other build runs alone.
// From 1.9.4 the alloc is restored, and every check passes but what Nomad's CHANGELOG says still fails after a host
// reboot (changelogFailures: task-dirs before 2.0.5, GH-28345), given to the CLI as `--expect task-dirs=fail` so such
// a run still exits 0; services is skipped (the shipped job declares no Nomad-native service).
// Whether 1.9.3 still holds the failed alloc's state when no-leaks looks varies from run to run (its teardown runs at
// a time of its own), so a build before 1.9.4 also runs NO_LEAKS_RUNS times on one warm lab, each held to its full
// verdict map (no-leaks judged, and when it fails naming only the failed alloc's leftovers), with the count printed.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { domainsMatching } from '../helpers/vm-prereqs.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import {
  assertVerdicts,
  buildsFromEnv,
  expectArgs,
  expectedVerdicts,
  STALE_LEFTOVER,
  warmWorkDir,
  expectedLabel,
  runCli,
  verdictsOf,
  SHIPPED_JOB_SKIP_WHY,
  NETNS,
  SHIPPED_JOB_SKIPS,
  type Build,
  type Verdict,
  e2eReports,
  e2eSkipReason,
} from '../helpers/real-nomad.js';
import { checkIds } from '../helpers/check-ids.js';
import { CLIENT_REBOOTED } from '../../lib/checks/client-rebooted.js';
import { NODE_BACK } from '../../lib/checks/node-back.js';
import { SERVICES } from '../../lib/checks/services.js';
import { AGENT_RESOURCES } from '../../lib/checks/agent-resources.js';
import { NO_LEAKS } from '../../lib/checks/no-leaks.js';
import { SENTINEL_CHECKS } from '../../lib/steps/sentinel-steps.js';

// Note: tap's per-file timeout (package.json) is far below a real VM run; this file sets its own.
t.setTimeout(180 * 60_000);

const builds = buildsFromEnv();
const skip = e2eSkipReason(builds);
const REBOOT_CHECKS = checkIds('bridge-exec-reboot');
/**
 * What must flip between a build before the tmpfs fix and one after it; client-rebooted and node-back pass on both,
 * services is skipped on both (the shipped job declares no Nomad-native service), agent-resources passes on both (the
 * agent's own fds and plugin processes are judged whether or not an alloc was restored), and so do the sentinels (no
 * crash, no forbidden log line, the fault seen, the servers agreeing: a failed restore is none of these).
 * no-leaks may flip or not: real 1.9.3 sometimes still holds the failed alloc's stale reservation or namespace when
 * the run looks and sometimes has already torn it down (both seen on the same build); what it must never do is name
 * a leftover of an alloc that is not the failed one.
 */
const FLIP_ACROSS_FIX = checkIds('bridge-exec-reboot', [
  CLIENT_REBOOTED,
  NODE_BACK,
  SERVICES,
  AGENT_RESOURCES,
  NO_LEAKS,
  ...SENTINEL_CHECKS,
]);
/** How many times a build before 1.9.4 runs alone to see how often its failed alloc's state outlives the run's look. */
const NO_LEAKS_RUNS = 3;
const DUPLICATE = /has been allocated to [0-9a-f-]+, duplicate allocation is not allowed/;

const before = builds.find((b) => b.beforeTmpfsFix);
const after = builds.find((b) => !b.beforeTmpfsFix);
const pair = before && after ? { before, after } : undefined;
const alone = builds.filter((b) => b !== pair?.before && b !== pair?.after);

t.test(
  `compare bridge-exec-reboot --before ${pair?.before.version ?? '(< 1.9.4)'} --after ${pair?.after.version ?? '(>= 1.9.4)'}: exactly the checks the tmpfs fix changes flip`,
  {
    skip: skip ?? (pair ? false : 'needs one build before 1.9.4 and one from 1.9.4 on in NOMAD_BINARIES'),
    timeout: 70 * 60_000,
  },
  async (t) => {
    const { before: a, after: b } = pair!;
    const dir = t.testdir({});
    const { junit, summary, reportFlags } = e2eReports(dir);
    const r = await runCli(t, [
      'compare',
      'bridge-exec-reboot',
      '--before',
      a.path,
      '--after',
      b.path,
      '--netns',
      NETNS,
      ...reportFlags,
      '--artifacts',
      'always',
      ...expectArgs(b, 'graceful'),
    ]);
    t.equal(r.code, 0, `exit 0: the after build (${b.version}) met its expectations (what the CHANGELOG predicts)`);
    validateJUnit(t, junit);
    const s = JSON.parse(readFileSync(summary, 'utf8'));
    const [vb, va] = [verdictsOf(s.runs?.[0]), verdictsOf(s.runs?.[1])];
    t.equal(vb.get('no-duplicate-ip')?.label, 'failed', `${a.version}: the restore failed with the duplicate-IP error`);
    t.match(
      vb.get('no-duplicate-ip')?.evidence.join('\n') ?? '',
      DUPLICATE,
      `${a.version}: the evidence quotes the real host-local error`,
    );
    t.equal(vb.get('alloc-restored')?.label, 'failed', `${a.version}: the alloc was not restored`);
    assertStaleOrClean(t, a.version, vb.get('no-leaks'), 'failed');
    assertVerdicts(t, a.version, vb, expectedVerdicts(a, 'graceful', REBOOT_CHECKS, SHIPPED_JOB_SKIP_WHY));
    for (const id of REBOOT_CHECKS) {
      const want = expectedLabel(b, 'graceful', id, SHIPPED_JOB_SKIPS);
      t.equal(va.get(id)?.label, want, `${b.version}: ${id} ${want}: ${va.get(id)?.message}`);
    }
    const flipped = [...(s.comparison?.flipped ?? [])].filter((id: string) => id !== NO_LEAKS.id);
    t.same(flipped.sort(), [...FLIP_ACROSS_FIX].sort(), 'exactly these checks flipped (no-leaks as 1.9.3 left it)');
    t.equal(
      (s.comparison?.flipped ?? []).includes(NO_LEAKS.id),
      vb.get(NO_LEAKS.id)?.label !== 'passed',
      'no-leaks flipped exactly when 1.9.3 left something over',
    );
    t.same(
      [s.comparison?.before?.suiteName, s.comparison?.after?.suiteName],
      [`bridge-exec-reboot@${a.version.replace(/^v/, '')}`, `bridge-exec-reboot@${b.version.replace(/^v/, '')}`],
      'one suite per build, named by its version',
    );
    for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
  },
);

for (const build of alone) {
  t.test(
    `bridge-exec-reboot on Nomad ${build.version} (${build.path})${build.beforeTmpfsFix ? '' : ', rebooted twice'}`,
    { skip: skip ?? false, timeout: 45 * 60_000 },
    (t) => runAlone(t, build),
  );
}
if (alone.length === 0)
  t.test(
    'bridge-exec-reboot on every build not compared above',
    { skip: skip ?? 'every build given ran in the compare above' },
    async () => {},
  );

const oldBuild = builds.find((b) => b.beforeTmpfsFix);
t.test(
  `bridge-exec-reboot on Nomad ${oldBuild?.version ?? '(< 1.9.4)'} ${NO_LEAKS_RUNS} times: every check as the duplicate-IP error leaves it, no-leaks judged each time`,
  {
    skip: skip ?? (oldBuild ? false : 'needs a build before 1.9.4 in NOMAD_BINARIES'),
    timeout: 60 * 60_000,
  },
  async (t) => {
    const b = oldBuild!;
    const { lab } = warmWorkDir(t, 'nrh-e2e-noleaks-');
    const stale: boolean[] = [];
    for (let k = 1; k <= NO_LEAKS_RUNS; k++)
      await t.test(`run ${k} of ${NO_LEAKS_RUNS}`, async (t) => {
        const { summary, reportFlags } = e2eReports(t.testdir({}));
        const r = await runCli(t, [
          'run',
          'bridge-exec-reboot',
          '--nomad-binary',
          b.path,
          ...lab,
          ...reportFlags,
          '--expect',
          'no-duplicate-ip=fail',
        ]);
        t.equal(r.code, 0, `${b.version}: exit 0, the duplicate-IP error expected and its consequences linked to it`);
        const v = verdictsOf(JSON.parse(readFileSync(summary, 'utf8')).runs?.[0]);
        assertVerdicts(
          t,
          `${b.version} run ${k}`,
          v,
          expectedVerdicts(b, 'graceful', REBOOT_CHECKS, SHIPPED_JOB_SKIP_WHY),
        );
        t.match(v.get('no-duplicate-ip')?.evidence.join('\n') ?? '', DUPLICATE, 'the real host-local error quoted');
        stale.push(v.get(NO_LEAKS.id)?.status === 'failed');
      });
    const n = stale.filter(Boolean).length;
    t.equal(stale.length, NO_LEAKS_RUNS, 'every run ran');
    // The bound is on what does not vary: no-leaks was judged every time, and a failure named only the failed alloc's
    // leftovers (above). How often teardown came first is Nomad's timing, reported, not bounded.
    t.comment(
      `${b.version}: the failed alloc's state was still there when no-leaks looked in ${n} of ${stale.length} runs (released in ${stale.length - n})`,
    );
  },
);

async function runAlone(t: Test, build: Build): Promise<void> {
  const dir = t.testdir({});
  const { summary, reportFlags } = e2eReports(dir);
  // A build with the fix is rebooted twice: restored after each reboot, and nothing leaked after the second; what the
  // CHANGELOG says still fails after a host reboot is expected to.
  const expect = build.beforeTmpfsFix
    ? ['--expect', 'no-duplicate-ip=fail']
    : ['--reboots', '2', ...expectArgs(build, 'graceful')];
  const r = await runCli(t, [
    'run',
    'bridge-exec-reboot',
    '--nomad-binary',
    build.path,
    '--netns',
    NETNS,
    ...reportFlags,
    '--artifacts',
    'always',
    ...expect,
  ]);
  t.equal(r.code, 0, `the verdicts match Nomad's history for ${build.version}`);
  const run = JSON.parse(readFileSync(summary, 'utf8')).runs?.[0];
  const v = verdictsOf(run);
  if (build.beforeTmpfsFix) {
    t.equal(v.get('no-duplicate-ip')?.label, 'expected failure', 'the duplicate-IP error was observed');
    assertStaleOrClean(t, build.version, v.get(NO_LEAKS.id), 'expected failure');
    assertVerdicts(t, build.version, v, expectedVerdicts(build, 'graceful', REBOOT_CHECKS, SHIPPED_JOB_SKIP_WHY));
    t.match(v.get('no-duplicate-ip')?.evidence.join('\n') ?? '', DUPLICATE);
  } else {
    for (const id of REBOOT_CHECKS) {
      const want = expectedLabel(build, 'graceful', id, SHIPPED_JOB_SKIPS);
      t.equal(v.get(id)?.label, want, `${id} ${want}: ${v.get(id)?.message}`);
    }
    t.equal(run?.properties?.['reboots'], '2 of 2', 'rebooted twice');
    t.not(
      run?.properties?.['client.boot_id.after.1'],
      run?.properties?.['client.boot_id.after.2'],
      'two different boots',
    );
  }
  for (const id of r.runIds) t.same(domainsMatching(id), [], `no libvirt domain of ${id} left`);
}

/**
 * 1.9.3's no-leaks verdict: either clean (its teardown already ran) or naming only the failed alloc's reservation or
 * namespace, labelled `whenStale` (failed in a compare's before run; a consequence of the duplicate IP when expected).
 */
function assertStaleOrClean(t: Test, version: string, v: Verdict | undefined, whenStale: string): void {
  if (v?.label === 'passed') {
    t.pass(`${version}: no-leaks passed: teardown had already released the failed alloc's state (${v.message})`);
    return;
  }
  t.equal(v?.label, whenStale, `${version}: no-leaks ${whenStale}: the failed alloc's leftovers`);
  t.match(v?.message ?? '', STALE_LEFTOVER, `${version}: the leftover is the failed alloc's reservation or namespace`);
}
