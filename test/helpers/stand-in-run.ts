// Scenario runs through the real CLI main() against stand-ins (test/helpers/stand-in-env.ts: the Nomad API stand-in
// and a stand-in lab, no VMs), with the reports (JUnit, JSON summary) in the test's own directory. The integration
// files differ only in the scenario, the timeline or topology and their own flags.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { main } from '../../lib/cli/main.js';
import type { CliDeps } from '../../lib/cli/deps.js';
import type { ClusterEvidence } from '../../lib/model/cluster-evidence.js';
import type { Topology } from '../../lib/model/topology.js';
import type { Timeline } from './fake-nomad/index.js';
import { type StandIn, standIn, standInCluster } from './stand-in-env.js';

/** A check's verdict as the JSON summary holds it (VerdictJson, below). */
export type SummaryVerdict = VerdictJson;

export interface StandInRunOptions {
  timeline?: Timeline;
  scenario?: string;
  /** the build the run installs (a stand-in path; its name can carry a version: /stand-in/nomad-1.9.3) */
  nomad?: string;
  token?: string;
  /** the run's directory when the test wrote files into it first (default: a fresh test dir) */
  dir?: string;
  /** change the stand-ins before the run starts */
  before?: (s: StandIn) => void;
}

/** Where a stand-in run's reports go under `dir` (JUnit, JSON summary, artifacts), with no network namespace. */
export const standInReportArgs = (dir: string): string[] => [
  '--reports-dir',
  join(dir, 'reports'),
  '--junit',
  join(dir, 'junit.xml'),
  '--report-json',
  join(dir, 'summary.json'),
  '--netns',
  '',
];

/** The arguments of a stand-in run before the test's own: the scenario, the build and the report paths under `dir`. */
export const standInRunArgs = (dir: string, scenario = 'bridge-exec-reboot', nomad = '/stand-in/nomad'): string[] => [
  'run',
  scenario,
  '--nomad-binary',
  nomad,
  ...standInReportArgs(dir),
];

/**
 * Run `extra` on fresh stand-ins of the pair (runOnStandIn with the pair's options, the test's own flags only);
 * `run0()` reads the summary's first run (a run that ended at exit 2 wrote none).
 */
export async function runOnStandIns(t: Test, extra: string[], o: StandInRunOptions = {}) {
  const r = await runOnStandIn(
    t,
    (cwd) => standIn(o.timeline ?? 'restored', { cwd, ...(o.token ? { token: o.token } : {}) }),
    o.scenario ?? 'bridge-exec-reboot',
    extra,
    {
      artifacts: false,
      ...(o.dir ? { dir: o.dir } : {}),
      ...(o.nomad ? { nomad: o.nomad } : {}),
      ...(o.before ? { before: o.before } : {}),
    },
  );
  const run0 = () => {
    const summary = JSON.parse(readFileSync(join(r.dir, 'summary.json'), 'utf8'));
    return summary.runs?.[0] ?? summary;
  };
  const verdict = (id: string): SummaryVerdict => (run0().verdicts as SummaryVerdict[]).find((v) => v.id === id)!;
  const artifact = (name: string) =>
    (run0().artifacts as { name: string; path: string }[]).find((a) => a.name === name);
  return { code: r.code, s: r.s, dir: r.dir, run0, verdict, artifact, err: () => r.s.err.join('') };
}

/** A verdict as the JSON summary holds it. */
export interface VerdictJson {
  id: string;
  label: string;
  status: string;
  message: string;
  evidence: string[];
  causedBy?: string;
  perAlloc?:
    | { allocId: string; name: string; status: string; detail: string; nodeBefore?: string; nodeAfter?: string }[]
    | null;
}

/** A run record as the JSON summary holds it (the parts the tests read). */
export interface RunJson {
  runId: string;
  outcome: string;
  properties: Record<string, string>;
  verdicts: VerdictJson[];
  artifacts: { name: string; path: string }[];
}

export interface StandInRun<S> {
  code: number;
  /** the stand-ins, for what they saw (s.lab.rebooted, s.err) */
  s: S;
  dir: string;
  /** the summary's first run; undefined when the run was refused before it started (exit 2) */
  run: RunJson | undefined;
  verdicts: Map<string, VerdictJson>;
  junitPath: string;
}

interface StandInLike {
  nomad: { close(): unknown };
  deps: CliDeps;
  err: string[];
}

/**
 * Make the stand-ins in a fresh test directory or `dir` (`make(dir)`), let `before` change them, run `reboot-harness run <scenario> ...extra` on them with
 * the JUnit, JSON and HTML reports in that directory (every artifact kept unless `artifacts: false`), and read back
 * what it wrote. The verdicts, and on a non-zero exit the tail of stderr, go to the test's comments.
 */
export async function runOnStandIn<S extends StandInLike>(
  t: Test,
  make: (dir: string) => Promise<S>,
  scenario: string,
  extra: readonly string[] = [],
  o: { artifacts?: boolean; dir?: string; nomad?: string; before?: (s: S) => void } = {},
): Promise<StandInRun<S>> {
  const dir = o.dir ?? t.testdir({});
  const s = await make(dir);
  t.teardown(() => s.nomad.close());
  o.before?.(s);
  const junitPath = join(dir, 'junit.xml');
  const summaryPath = join(dir, 'summary.json');
  const code = await main(
    [...standInRunArgs(dir, scenario, o.nomad), ...(o.artifacts === false ? [] : ['--artifacts', 'always']), ...extra],
    s.deps,
  );
  const run = existsSync(summaryPath)
    ? (JSON.parse(readFileSync(summaryPath, 'utf8')).runs?.[0] as RunJson | undefined)
    : undefined;
  const verdicts = new Map((run?.verdicts ?? []).map((v) => [v.id, v]));
  t.comment([...verdicts].map(([id, v]) => `${id}=${v.label}: ${v.message}`).join('\n'));
  if (code !== 0) t.comment(s.err.join('\n').slice(-4000));
  return { code, s, dir, run, verdicts, junitPath };
}

/** A run of `scenario` on a stand-in cluster of `topology` (its Nomad line `nomadVersion`, default 1.9.7; `before` bends the stand-ins). */
export function runOnCluster(
  t: Test,
  scenario: string,
  topology: Topology,
  extra: readonly string[] = [],
  o: {
    nomadVersion?: string;
    electionSteps?: number;
    before?: (s: Awaited<ReturnType<typeof standInCluster>>) => void;
  } = {},
) {
  const { before, ...stand } = o;
  return runOnStandIn(t, (cwd) => standInCluster(topology, { cwd, ...stand }), scenario, extra, {
    ...(before ? { before } : {}),
    // the build's path names its line, so what reads the build's version (known-issue labels) reads the stand-in's
    ...(o.nomadVersion ? { nomad: `/stand-in/nomad-${o.nomadVersion}` } : {}),
  });
}

/** A run of `scenario` on the stand-in pair, its Nomad answering on `timeline`. */
export function runOnPair(
  t: Test,
  scenario: string,
  timeline: Timeline,
  extra: readonly string[] = [],
  o: Omit<Parameters<typeof standIn>[1], 'cwd'> & { artifacts?: boolean } = {},
) {
  const { artifacts, ...pair } = o;
  return runOnStandIn(
    t,
    (cwd) => standIn(timeline, { cwd, ...pair }),
    scenario,
    extra,
    artifacts === undefined ? {} : { artifacts },
  );
}

/** The cluster evidence a cluster run kept as an artifact. */
export function clusterEvidenceOf(run: RunJson | undefined): ClusterEvidence {
  const file = run?.artifacts.find((a) => a.name === 'cluster-evidence.json');
  if (!file) throw new Error(`the run kept no cluster-evidence.json (${run?.artifacts.map((a) => a.name).join(', ')})`);
  return JSON.parse(readFileSync(file.path, 'utf8')) as ClusterEvidence;
}
