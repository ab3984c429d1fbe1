// The e2e tier's inputs: real Nomad builds from NOMAD_BINARIES / NOMAD_BINARY, their versions, and what Nomad's
// history says each one must do (nomad-reference.md §4): the tmpfs fix landed in 1.9.4, the state migration in 1.9.7.
import type { Test } from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAULTS } from '../../lib/faults/registry.js';
import type { RebootKind } from '../../lib/model/kinds.js';
import { notInPlaceReason } from '../../lib/checks/whole-alloc.js';
import { SENTINEL_CHECKS } from '../../lib/steps/sentinel-steps.js';
import { runCli } from './cli-child.js';
import { vmSkipReason } from './vm-prereqs.js';

export interface Build {
  path: string;
  /** e.g. v1.9.3 */
  version: string;
  /** before 1.9.4: host-local state on disk, a reboot fails the restore with the duplicate-IP error */
  beforeTmpfsFix: boolean;
  /** 1.9.7 and later: the client migrates the on-disk state to tmpfs on its first start */
  migratesState: boolean;
  /** 1.9.5 and later (GH-24658): a restored alloc whose namespace exists gets a CNI CHECK, and a re-setup when it fails (the docker fix) */
  checksOnRestore: boolean;
  /** 2.0.5 and later (GH-28345): a restored task's secrets/ and private/ are mounted as tmpfs again */
  remountsTaskDirs: boolean;
  /** 1.11.0 and later (GH-26699): a task restarted after an agent restart gets its network environment */
  restoresNetworkStatus: boolean;
  /** 2.0.0 and later (GH-27825): the executor survives SIGPIPE after an agent restart, so alloc exec works */
  executorSurvivesRestart: boolean;
  /** 2.0.1 and later (GH-27885): plugin clients do not leak fds when the agent restarts */
  noFdLeakOnRestart: boolean;
  /**
   * 1.10.4 and later (GH-26424): a node marked down keeps its Nomad service registrations until its allocs are marked
   * lost; before, they were deleted at once and never registered again when the node came back in time
   */
  keepsServicesThroughDown: boolean;
}

/** [major, minor, patch] of "v1.9.3" / "1.9.3-dev"; zeros when unparsable. */
export function versionParts(version: string): [number, number, number] {
  const [a = 0, b = 0, c = 0] = version.replace(/^v/, '').split(/[.+-]/).map(Number);
  return [a || 0, b || 0, c || 0];
}

const atLeast = (v: string, [x, y, z]: [number, number, number]): boolean => {
  const [a, b, c] = versionParts(v);
  return a !== x ? a > x : b !== y ? b > y : c >= z;
};

export function classify(path: string, version: string): Build {
  return {
    path,
    version,
    beforeTmpfsFix: !atLeast(version, [1, 9, 4]),
    migratesState: atLeast(version, [1, 9, 7]),
    checksOnRestore: atLeast(version, [1, 9, 5]),
    remountsTaskDirs: atLeast(version, [2, 0, 5]),
    restoresNetworkStatus: atLeast(version, [1, 11, 0]),
    executorSurvivesRestart: atLeast(version, [2, 0, 0]),
    noFdLeakOnRestart: atLeast(version, [2, 0, 1]),
    keepsServicesThroughDown: atLeast(version, [1, 10, 4]),
  };
}

/**
 * The whole-alloc checks Nomad's CHANGELOG says fail on build `b` after fault `kind` (the open-source lines; the
 * checks themselves never look at a version: this is what an e2e run is held to, and docs/findings.md records what
 * the runs showed). A host reboot loses the tmpfs mounts, which only 2.0.5 remounts; an agent restart loses the
 * task network status (before 1.11) and leaks plugin fds (before 2.0.1). A partition fails nothing: GH-26424 (Nomad
 * services deleted when a node is marked down, fixed in 1.10.4) needs the node back before its allocs are marked lost,
 * and a partition of a fixed length is far longer than that window (then the replacement registers the services), or,
 * with a disconnect policy, the node is marked `disconnected`, which never deleted them (nomad/heartbeat.go,
 * state_store.go updateNodeStatusTxn at v1.10.3). changelogMayFail lists what can fail too.
 */
export function changelogFailures(b: Build, kind: string): string[] {
  if (FAULTS.kinds.find((k) => k.name === kind)?.rebootsHost) return b.remountsTaskDirs ? [] : ['task-dirs'];
  if (kind !== 'agent-kill') return [];
  return [...(b.restoresNetworkStatus ? [] : ['task-env']), ...(b.noFdLeakOnRestart ? [] : ['agent-resources'])];
}

/**
 * What Nomad's history predicts fails for a docker alloc after a graceful reboot: before 1.9.5 (GH-24292) the restored
 * alloc's namespace has no interface but lo, so nothing answers, the alloc's address is not in its namespace and a task
 * started again gets no network variables (real 1.9.3: "missing NOMAD_ALLOC_IP_http"); and changelogFailures (before
 * 2.0.5, GH-28345, the task's secrets/ and private/ come back on the root disk, as for exec).
 */
export function dockerFailures(b: Build): string[] {
  return [
    ...(b.checksOnRestore ? [] : ['http-reachable', 'task-netns', 'task-env']),
    ...changelogFailures(b, 'graceful'),
  ];
}

/**
 * Failures the CHANGELOG makes possible but not certain: before 2.0 an executor dies of SIGPIPE after an agent
 * restart only when it writes to the dead agent's pipe (GH-27825), so `alloc exec` fails on some runs and not on
 * others (real 1.11.3 agent-kill run r6riqo85cd2592: exec answered in both tasks; a 1.9.7 capture: "plugin is shut
 * down"). Before 1.11.0 the network status the client did not restore (GH-26699) can reach the API as none: real 1.10.5
 * agent-kill run r0bepv916473a7 reported no address for the alloc (task-netns: "the API's address (none)"), a 1.9.7
 * capture kept it. An e2e run holds these neither way.
 */
export function changelogMayFail(b: Build, kind: string): string[] {
  if (kind !== 'agent-kill') return [];
  return [...(b.restoresNetworkStatus ? [] : ['task-netns']), ...(b.executorSurvivesRestart ? [] : ['alloc-exec'])];
}

/**
 * The CLI flags (`--expect <id>=fail` each) that hold a run of build `b` after fault `kind` to changelogFailures, so
 * a run that matches the CHANGELOG exits 0. Only for a run whose allocs are restored in place: where the restore
 * itself fails (exec before 1.9.4 after a host reboot) the whole-alloc checks are skipped, and a check expected to
 * fail but skipped does not meet its expectation.
 */
export function expectArgs(b: Build, kind: string): string[] {
  return changelogFailures(b, kind).flatMap((id) => ['--expect', `${id}=fail`]);
}

/**
 * The checks of job types and volumes the cluster scenarios' shipped service job has none of: skipped, each saying so
 * (seen on 1.11.3: server-reboot under leader-partition; 2.0.5: rolling-reboot under power-loss-all).
 */
export const NO_SUCH_JOB_CHECKS: readonly string[] = [
  'system-allocs',
  'batch-outcome',
  'no-extra-alloc',
  'volume-data',
  'volume-state',
];

/** The checks of bridge-exec-reboot the shipped exec job leaves skipped, with why. */
export const SHIPPED_JOB_SKIP_WHY: Readonly<Record<string, string>> = {
  services: 'the shipped job declares no Nomad-native service',
};
/** The checks of bridge-exec-reboot the shipped exec job leaves skipped: it declares no Nomad-native service. */
export const SHIPPED_JOB_SKIPS: readonly string[] = Object.keys(SHIPPED_JOB_SKIP_WHY);

/**
 * The label check `id` gets on build `b` after fault `kind` in a run given expectArgs(b, kind): 'expected failure'
 * for a failure the CHANGELOG predicts, 'skipped' for one of `skipped`, 'passed' otherwise.
 */
export function expectedLabel(
  b: Build,
  kind: string,
  id: string,
  skipped: readonly string[] = [],
): 'expected failure' | 'skipped' | 'passed' {
  return changelogFailures(b, kind).includes(id) ? 'expected failure' : skipped.includes(id) ? 'skipped' : 'passed';
}

/**
 * One check's verdict as a run must show it: a status (with why), or, where Nomad itself varies from run to run, either
 * passed or failed (with why both are right, and what a failure's evidence must quote to be that variation and not
 * another defect). Skipped is a status like the others: a check that silently stops running fails the comparison.
 */
export type Want =
  | { status: 'passed' | 'failed' | 'skipped'; why: string }
  | { either: true; why: string; whenFailed: RegExp };

/** Host reboots of an exec job before 1.9.4: the restore itself fails with the duplicate-IP error. */
export const restoreFails = (b: Build, kind: string): boolean =>
  b.beforeTmpfsFix && !!FAULTS.kinds.find((k) => k.name === kind)?.rebootsHost;

/** A 1.9.3 leftover of the alloc whose restore failed: its reservation on persistent disk, or its namespace. */
export const STALE_LEFTOVER =
  /reservation 172\.26\.64\.\d+ in \/var\/lib\/cni\/networks\/nomad names \w{8}, which is not a live alloc|network namespace [0-9a-f-]{36} has no live alloc/;

/** What a failure of a changelogMayFail check quotes: the variation the CHANGELOG describes. */
const MAY_FAIL_EVIDENCE: Record<string, RegExp> = {
  'alloc-exec': /plugin is shut down|exit|failed/,
  // the network status not restored (GH-26699): the API reports no address for the alloc
  'task-netns': /the API's address \(none\)|holding \(no address\)/,
};

/**
 * The sentinels every Nomad scenario ends with (no agent crashed, no forbidden log line, the fault took effect, the
 * servers agree): no fault and no build of this tier is meant to break them, so each must pass; a failure is a finding.
 */
const SENTINELS: readonly string[] = SENTINEL_CHECKS.map((c) => c.id);

/** The checks judged per restored task (and the agent's own resources): a fault that restores nothing skips them. */
const IN_PLACE_ONLY = ['task-dirs', 'task-netns', 'task-env', 'alloc-exec', 'agent-resources'];

/**
 * The full verdict map an exec job's run of build `b` after fault `kind` must show, check by check (`ids` in report
 * order): `jobSkips` the checks the job itself leaves skipped, with why (the shipped job: services). What the real
 * runs in docs/findings.md showed, and Nomad's history:
 * - a host reboot before 1.9.4: the restore fails (duplicate IP), so the alloc, its task and HTTP fail with it; nothing
 *   was restored in place, so the per-task checks and unique-ips (no live alloc holds an address) are skipped; no-leaks
 *   varies (1.9.3 sometimes has already torn the failed alloc's state down when the run looks, sometimes not);
 * - the sentinels (no-agent-crash, agent-log-invariants, fault-exercised, servers-agree) pass after every fault;
 * - a fault that restores nothing in place (a partition): the per-task checks and agent-resources are skipped;
 * - otherwise changelogFailures fail, changelogMayFail vary, everything else passes.
 */
export function expectedVerdicts(
  b: Build,
  kind: string,
  ids: readonly string[],
  jobSkips: Readonly<Record<string, string>>,
): Map<string, Want> {
  const out = new Map<string, Want>();
  const fails = changelogFailures(b, kind);
  const may = changelogMayFail(b, kind);
  const notInPlace = FAULTS.kinds.some((k) => k.name === kind) && notInPlaceReason(kind as RebootKind);
  for (const id of ids) {
    const skipWhy = jobSkips[id];
    if (skipWhy) out.set(id, { status: 'skipped', why: skipWhy });
    else if (SENTINELS.includes(id))
      out.set(id, {
        status: 'passed',
        why: `a sentinel: no fault or build of the e2e tier is meant to break it (${kind})`,
      });
    else if (restoreFails(b, kind)) {
      if (['alloc-restored', 'task-restarted', 'http-reachable', 'no-duplicate-ip'].includes(id))
        out.set(id, { status: 'failed', why: 'the restore fails with the duplicate-IP error before 1.9.4' });
      else if (id === 'no-leaks')
        out.set(id, {
          either: true,
          why: "1.9.3 releases the failed alloc's reservation and namespace at a time of its own: before the run looks, or after",
          whenFailed: STALE_LEFTOVER,
        });
      else if (id === 'unique-ips' || (IN_PLACE_ONLY.includes(id) && id !== 'agent-resources'))
        out.set(id, { status: 'skipped', why: 'nothing was restored in place (the restore failed)' });
      else out.set(id, { status: 'passed', why: 'not affected by the failed restore' });
    } else if (notInPlace && IN_PLACE_ONLY.includes(id)) out.set(id, { status: 'skipped', why: notInPlace });
    else if (fails.includes(id))
      out.set(id, { status: 'failed', why: `the CHANGELOG predicts it for ${b.version} ${kind}` });
    else if (may.includes(id))
      out.set(id, {
        either: true,
        why: `the CHANGELOG makes it possible, not certain, for ${b.version} ${kind} (changelogMayFail)`,
        whenFailed: MAY_FAIL_EVIDENCE[id] ?? /./,
      });
    else out.set(id, { status: 'passed', why: `nothing predicts a failure for ${b.version} ${kind}` });
  }
  return out;
}

/**
 * Hold run `at`'s verdicts (by id) to `want`, check by check: every check present with its status, a varying one
 * judged (passed or failed, never skipped) and, when it failed, quoting the variation. Returns the varying checks'
 * outcomes ("alloc-exec=failed"), for the reader and for counting.
 */
export function assertVerdicts(
  t: Test,
  at: string,
  v: ReadonlyMap<string, Verdict>,
  want: ReadonlyMap<string, Want>,
): string[] {
  t.same([...v.keys()].sort(), [...want.keys()].sort(), `${at}: exactly the scenario's checks were judged`);
  const varied: string[] = [];
  for (const [id, w] of want) {
    const got = v.get(id);
    if ('status' in w) {
      t.equal(got?.status, w.status, `${at}: ${id} ${w.status} (${w.why}): ${got?.message}`);
      continue;
    }
    t.match(got?.status ?? '(absent)', /^(passed|failed)$/, `${at}: ${id} judged, passed or failed (${w.why})`);
    varied.push(`${id}=${got?.status}`);
    t.comment(`${at}: ${id} ${got?.status} this time (${w.why}): ${got?.message}`);
    if (got?.status === 'failed')
      t.match(
        [got.message, ...got.evidence].join('\n'),
        w.whenFailed,
        `${at}: ${id}'s failure is the known variation, not another defect`,
      );
  }
  return varied;
}

/** The builds the e2e tier was given (in the order given), each asked for its version. */
export function buildsFromEnv(env: NodeJS.ProcessEnv = process.env): Build[] {
  const paths = (env['NOMAD_BINARIES'] ?? env['NOMAD_BINARY'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return paths.map((p) =>
    classify(p, /Nomad (v\d+\.\d+\.\d+\S*)/.exec(execFileSync(p, ['version'], { encoding: 'utf8' }))?.[1] ?? 'unknown'),
  );
}

/**
 * The fault kinds an e2e file runs: `all`, or the ones the environment variable `name` lists (comma-separated), to run
 * only the cells a finding needs. Throws naming the variable, the unknown kinds and the allowed ones.
 */
export function kindsFromEnv<K extends string>(all: readonly K[], name: string, env = process.env): K[] {
  const value = env[name] ?? '';
  const asked = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!asked.length) return [...all];
  const bad = asked.filter((k) => !(all as readonly string[]).includes(k));
  if (bad.length) throw new Error(`${name}=${value}: ${bad.join(', ')} is not one of ${all.join(', ')}`);
  return all.filter((k) => asked.includes(k));
}

/**
 * Where a test's run writes its reports: its tap test dir (removed when the test ends), or, with E2E_KEEP_DIR set, a
 * directory under it named after the test, kept as the evidence docs/findings.md quotes.
 */
export function reportsDirFor(t: Test, env = process.env): string {
  const keep = env['E2E_KEEP_DIR'];
  if (!keep) return t.testdir({});
  const name = `${t.fullname.replace(/[^\w.-]+/g, '-').slice(-100)}-${Date.now()}`;
  const dir = join(keep, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The report flags of an e2e run writing into `dir`: JUnit, the JSON summary, every artifact kept. */
export function reportArgs(dir: string): { args: string[]; junit: string; summary: string } {
  const junit = join(dir, 'junit.xml');
  const summary = join(dir, 'summary.json');
  const args = ['--junit', junit, '--report-json', summary, '--reports-dir', join(dir, 'reports')];
  return { args: [...args, '--artifacts', 'always'], junit, summary };
}

/** Why an e2e test on VMs skips: no build given, or the VM lab missing (vmSkipReason); undefined when it runs. */
export function skipReason(builds: readonly Build[]): string | undefined {
  if (!builds.length) return 'no Nomad build given: set NOMAD_BINARIES=/path/a,/path/b (or NOMAD_BINARY)';
  return vmSkipReason();
}

export const NETNS = process.env['HARNESS_NETNS'] || 'nrh-lab';

/** Why an e2e file that needs builds cannot run: none given (NOMAD_BINARIES / NOMAD_BINARY), else undefined. */
export const noBuildReason = (builds: readonly Build[]): string | undefined =>
  builds.length === 0 ? 'no Nomad build given: set NOMAD_BINARIES=/path/a,/path/b (or NOMAD_BINARY)' : undefined;

/** Why an e2e file that runs builds on VMs cannot run: no build, else no VM lab here (vm-prereqs), else undefined. */
export const e2eSkipReason = (builds: readonly Build[]): string | undefined => noBuildReason(builds) ?? vmSkipReason();

/** An e2e run's report paths under `dir` and the flags that send the reports there. */
export function e2eReports(dir: string) {
  const junit = join(dir, 'junit.xml');
  const summary = join(dir, 'summary.json');
  const reportFlags = ['--junit', junit, '--report-json', summary, '--reports-dir', join(dir, 'reports')];
  return { junit, summary, reportFlags };
}
export { runCli, type CliResult } from './cli-child.js';

/**
 * bridge-exec-reboot as a matrix file `<name>.yaml` of every build x `kinds`, one cell at a time, each build's cells
 * on its warm lab (HARNESS_WARM=1), `defaults` the file's defaults lines: the CLI's result, the JUnit file, every
 * run of the summary and the run of one build x kind cell.
 */
export async function warmMatrix<R extends { properties: Record<string, string> }>(
  t: Test,
  o: {
    dir: string;
    lab: string[];
    builds: readonly Build[];
    kinds: readonly string[];
    name: string;
    defaults: string[];
  },
) {
  const nomad = o.builds.map((b) => `{ name: "${b.version.replace(/^v/, '')}", binary: ${JSON.stringify(b.path)} }`);
  const yaml = [
    'scenario: bridge-exec-reboot',
    'axes:',
    `  nomad: [${nomad.join(', ')}]`,
    `  reboot: [${o.kinds.join(', ')}]`,
    'parallel: 1',
    'defaults:',
    ...o.defaults,
    '',
  ].join('\n');
  const file = join(o.dir, `${o.name}.yaml`);
  writeFileSync(file, yaml);
  const { junit, summary, reportFlags } = e2eReports(o.dir);
  const r = await runCli(t, ['matrix', file, ...o.lab, ...reportFlags], undefined, { HARNESS_WARM: '1' });
  let read: R[] | undefined;
  const runs = () => (read ??= JSON.parse(readFileSync(summary, 'utf8')).runs as R[]);
  const cell = (b: Build, kind: string) =>
    runs().find(
      (x) => x.properties['matrix.reboot'] === kind && x.properties['matrix.nomad'] === b.version.replace(/^v/, ''),
    );
  return { r, junit, runs, cell };
}

/** One run's verdicts from a JSON summary, by check id. */
export interface Verdict {
  id: string;
  label: string;
  status: string;
  message: string;
  evidence: string[];
  perAlloc?: { allocId: string; name: string; status: string; detail: string }[] | null;
}
export function verdictsOf(run: { verdicts?: Verdict[] } | undefined): Map<string, Verdict> {
  return new Map((run?.verdicts ?? []).map((v) => [v.id, v]));
}

/**
 * A work dir for an e2e file's warm labs, outside the test dir (tap removes a test dir before later teardowns run; a
 * teardown that then found no work dir left the warm labs' domains behind), with the CLI flags that use it and a
 * teardown that destroys every warm lab in it.
 */
export function warmWorkDir(t: Test, prefix: string): { work: string; lab: string[]; warmLabs: () => string[] } {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const lab = ['--netns', NETNS, '--work-dir', work];
  const warmLabs = () => (existsSync(work) ? readdirSync(work).filter((f) => f.startsWith('warm-')) : []);
  t.teardown(async () => {
    if (warmLabs().length) await runCli(t, ['destroy', '--warm', ...lab]);
    rmSync(work, { recursive: true, force: true });
  });
  return { work, lab, warmLabs };
}

/**
 * The CLI flags of an e2e run of `build` whose reports go to `dir` (JUnit, JSON summary, HTML, every artifact kept), in
 * the lab's netns, and where to read them back.
 */
export function e2eRunFlags(build: Build, dir: string): { flags: string[]; junit: string; summary: string } {
  const junit = join(dir, 'junit.xml');
  const summary = join(dir, 'summary.json');
  const reports = ['--junit', junit, '--report-json', summary, '--reports-dir', join(dir, 'reports')];
  return {
    flags: ['--nomad-binary', build.path, '--netns', NETNS, ...reports, '--artifacts', 'always'],
    junit,
    summary,
  };
}
