// The ground floor: one session (a run, a compare or a matrix shard) as reporters see it. Built once, never patched.
import type { Verdict } from './check.js';
import type { RunRecord } from './run.js';
import type { ResolvedBuild } from './build.js';

/** A build as a session used it: the spec as given, the binary, its sha256, what `nomad version` said, its origin. */
export type BuildInfo = ResolvedBuild;

/** One JUnit suite: a cell of the plan and its attempts (a retry after an infrastructure error is a second attempt). */
export interface SuiteReport {
  /** `<scenario>@<build>[/<variant>]` */
  name: string;
  /** the cell's stable address: matrix cell name (what --cell takes), or scenario (and compare side) */
  key: string;
  scenario: string;
  side?: 'before' | 'after';
  /** false for compare's before build: shown, not judged for the exit code */
  counts: boolean;
  /** first first; the last one is the suite's result; empty when the cell never started (interrupted) */
  attempts: RunRecord[];
}

/** One check on both builds of a comparison; undefined where that run produced no verdict for it. */
export interface ComparisonRow {
  id: string;
  title: string;
  before: Pick<Verdict, 'label' | 'met' | 'message'> | undefined;
  after: Pick<Verdict, 'label' | 'met' | 'message'> | undefined;
  /** the label or met changed between the builds (or the check exists on one side only) */
  flipped: boolean;
}

export interface SessionReport {
  command: 'run' | 'compare' | 'matrix';
  startedAtMs: number;
  durationMs: number;
  suites: SuiteReport[];
  /** a signal stopped the session */
  interrupted: boolean;
  exitCode: number;
  /** builds by path */
  builds: BuildInfo[];
  comparison?: { scenario: string; beforeName: string; afterName: string; rows: ComparisonRow[] };
  matrix?: { file: string; path: string; shard: string; cellsInMatrix: number };
  /** runs kept by --keep, with what was kept */
  kept: { runId: string; what: string[] }[];
}
