// One CLI run on the stand-ins through the real main(): a fresh test dir, a Nomad stand-in on a timeline, the stand-in
// build and the reports (JUnit, JSON summary) under that dir. The integration files differ only in the scenario, the
// timeline and their own flags.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { main } from '../../lib/cli/main.js';
import type { Timeline } from './fake-nomad/index.js';
import { type StandIn, standIn } from './stand-in-env.js';

/** A check's verdict as the JSON summary holds it. */
export interface SummaryVerdict {
  id: string;
  status: string;
  message: string;
  evidence: string[];
  causedBy?: string;
  perAlloc?: { allocId: string; name: string; status: string; detail: string }[];
}

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

/** Run `extra` on fresh stand-ins; `run0()` reads the summary's first run (a run that ended at exit 2 wrote none). */
export async function runOnStandIns(t: Test, extra: string[], o: StandInRunOptions = {}) {
  const dir = o.dir ?? t.testdir({});
  const s = await standIn(o.timeline ?? 'restored', { cwd: dir, ...(o.token ? { token: o.token } : {}) });
  t.teardown(() => s.nomad.close());
  o.before?.(s);
  const code = await main([...standInRunArgs(dir, o.scenario, o.nomad), ...extra], s.deps);
  const run0 = () => {
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    return summary.runs?.[0] ?? summary;
  };
  const verdict = (id: string): SummaryVerdict => (run0().verdicts as SummaryVerdict[]).find((v) => v.id === id)!;
  const artifact = (name: string) =>
    (run0().artifacts as { name: string; path: string }[]).find((a) => a.name === name);
  return { code, s, dir, run0, verdict, artifact, err: () => s.err.join('') };
}
