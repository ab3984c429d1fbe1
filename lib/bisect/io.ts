// What the bisect loop talks to and records: git's answers, the step runner (build a commit, run one try), the log's
// events, the inputs and the outcome. The loop itself is driver.ts.
import type { BisectBuild, BisectResult, BisectStep, BisectTry, CommitInfo } from '../model/bisect.js';

/** The questions the bisect asks git (lib/git/history.ts, bound to the source tree). */
interface BisectHistory {
  isAncestor(a: string, b: string): Promise<boolean>;
  mergeBase(a: string, b: string): Promise<string | undefined>;
  bisectOrder(newest: string, olds: readonly string[]): Promise<string[]>;
  commitInfo(sha: string): Promise<CommitInfo>;
}

/** Building and running one commit: the real ones build from the tree and run the scenario on the lab. */
export interface StepRunner {
  build(commit: string, signal: AbortSignal): Promise<BisectBuild>;
  /** one try; `label` names the try's report folder (unique in the bisect) */
  run(commit: string, build: BisectBuild, label: string, signal: AbortSignal): Promise<BisectTry>;
}

/** What the log holds: every event in order. */
export type BisectEvent =
  | { e: 'build'; commit: string; build: BisectBuild }
  | { e: 'try'; commit: string; label: string; try: BisectTry }
  | { e: 'step'; step: BisectStep }
  | { e: 'note'; message: string }
  | { e: 'end'; result: BisectResult };

export interface BisectSetup {
  /** the commits --good and --bad name, and the refs as given */
  good: { ref: string; sha: string };
  bad: { ref: string; sha: string };
  check: string;
  /** --tries: the failing endpoint's runs, and the cap on passes a pass needs */
  tries: number;
  /** abort after this many skips in a row */
  maxSkips: number;
}

export interface BisectIO {
  history: BisectHistory;
  runner: StepRunner;
  /** appends one event to the log (and flushes it) */
  record(event: BisectEvent): Promise<void>;
  /** events of an earlier bisect of the same inputs (resume, replay): their builds and tries are reused */
  earlier: readonly BisectEvent[];
  /** one line for people, as each thing ends */
  say(line: string): void;
  signal: AbortSignal;
}

export interface BisectOutcome {
  result: BisectResult;
  steps: BisectStep[];
  /** the two endpoints in old/new order, as bisected */
  old: string;
  new: string;
}
