// The ground floor: one session (a run, a compare or a matrix shard) as reporters see it. Built once, never patched.
import type { Verdict } from './check.js';
import type { RunRecord } from './run.js';
import type { ResolvedBuild } from './build.js';

/** A build as a session used it: the spec as given, the binary, its sha256, what `nomad version` said, its origin. */
export type BuildInfo = ResolvedBuild;

/**
 * How a suite that missed its expectations is re-run (repro.sh). The plan decides it; the repro reporter only reads it,
 * so no reporter asks which command made the session.
 */
export interface Rerun {
  /** 'suite': one repro per suite; 'session': one repro for every suite of this scope together (a comparison) */
  scope: 'suite' | 'session';
  /** the arguments after the CLI entry that name what is re-run: ['run', <scenario>], ['matrix', <file>, '--cell', <key>] */
  argv: string[];
  /** pass the session's own input flags on (output places dropped, the builds replaced by the ones below) */
  keepArgs: boolean;
  /** a run property holding a build's path, and the flag that passes it (no flag: only its checksum is checked) */
  builds: { property: string; flag?: '--nomad' | '--upgrade-to' | '--before' | '--after' }[];
  /** how the repro names what it re-runs (default: the suite's name and run id) */
  title?: string;
}

/** `run --repeat N`: which attempt of N a suite is, and the group (the cell repeated) it is judged with. */
export interface RepeatOf {
  group: string;
  attempt: number;
  of: number;
}

/** How one attempt of a repeated cell ended, in a form two attempts can be compared by. */
export interface AttemptSummary {
  runId: string;
  outcome: RunRecord['outcome'];
  /** what went wrong: the unmet verdicts' ids, or the error's step; "" when it passed */
  signature: string;
}

/** The attempts of one repeated cell judged together: a repeated failure is a verdict, one that comes and goes a flake. */
export interface FlakeVerdict {
  /** the repeated cell's key (RepeatOf.group) */
  group: string;
  scenario: string;
  /** the suites of the attempts, in run order */
  suites: string[];
  attempts: AttemptSummary[];
  /** passed: every attempt passed; failed: every attempt failed the same way; flaky: anything else */
  verdict: 'passed' | 'failed' | 'flaky';
  /** attempts that did not pass / attempts */
  flakeRate: number;
  /** one line for people */
  message: string;
}

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
  /** how to re-run it when it misses its expectations */
  rerun: Rerun;
  /** run --repeat N: this suite is one attempt of a repeated cell (judged in SessionReport.repeats) */
  repeat?: RepeatOf;
}

/** One check on both builds of a comparison; undefined where that run produced no verdict for it. */
export interface ComparisonRow {
  id: string;
  title: string;
  before: Pick<Verdict, 'label' | 'met' | 'message'> | undefined;
  after: Pick<Verdict, 'label' | 'met' | 'message'> | undefined;
  /** the label or met changed between the builds (or the check exists on one side only) */
  flipped: boolean;
  /** a flip a known issue's fix explains: one build has the fix, the other does not (lib/report/compare.ts) */
  explainedBy?: { issue: string; url: string; fixedIn: string; has: 'before' | 'after' };
}

export interface SessionReport {
  /** what the person ran, for readers of the JSON; nothing branches on it (the fields below carry each decision) */
  command: 'run' | 'compare' | 'matrix' | 'merge';
  startedAtMs: number;
  durationMs: number;
  suites: SuiteReport[];
  /** a signal stopped the session */
  interrupted: boolean;
  exitCode: number;
  /** builds by path */
  builds: BuildInfo[];
  comparison?: { scenario: string; beforeName: string; afterName: string; rows: ComparisonRow[] };
  /** run --repeat N: each repeated cell's attempts judged together (empty without repeats) */
  repeats: FlakeVerdict[];
  matrix?: { file: string; path: string; shard: string; cellsInMatrix: number };
  /** runs kept by --keep, with what was kept */
  kept: { runId: string; what: string[] }[];
}
