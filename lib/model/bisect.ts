// The ground floor: a bisect as its log, its reports and its driver see it: the endpoints, each step's build and tries,
// the decision of each commit, and the answer (a culprit with its flags and a confidence, or the range left).

/** What one try of one commit said about the check: its status as observed, or why there was none. */
type TryVerdict = 'passed' | 'failed' | 'skipped' | 'error' | 'interrupted';

/** Which side of the flip a commit is on, in git bisect's old/new terms; `skip` is git bisect's 125. */
export type StepDecision = 'old' | 'new' | 'skip';

/** regression: the check passes on the older ref and fails on the newer; fix: the other way round. */
export type BisectDirection = 'regression' | 'fix';

/** One try: a normal run of the scenario on the commit's build. */
export interface BisectTry {
  verdict: TryVerdict;
  /** the check's one-line message, or the run's error */
  message: string;
  runId?: string;
  /** the run's report folder, relative to the bisect folder */
  reportDir?: string;
  /** the run's exit code */
  exitCode?: number;
  ms: number;
  /** the run's phases (bring-up or revert, install, the scenario's steps), by step name and id (STEP_IDS), in ms */
  phases?: { name: string; id?: string; ms: number }[];
}

/** A commit's build as a step used it. */
export interface BisectBuild {
  ok: boolean;
  ms: number;
  path?: string;
  sha256?: string;
  /** the binary's sha256 with the commit id it embeds blanked out: equal for two commits whose code built the same */
  codeSha256?: string;
  version?: string;
  /** why it failed (the compiler's last lines) */
  error?: string;
}

/** What git says of a commit, for people and for the culprit's flags. */
export interface CommitInfo {
  sha: string;
  subject: string;
  /** the PR number the subject (or the body's backport line) names, `#28357` */
  pr?: string;
  /** the public issues its `.changelog/<n>.txt` entries name */
  changelog: string[];
  authorDate: string;
  parents: string[];
  /** paths changed against the first parent */
  files: string[];
}

/** One commit tested: why (an endpoint, the merge base, a bisect step, the culprit's parent), its build, its tries. */
export interface BisectStep {
  n: number;
  role: 'old-endpoint' | 'new-endpoint' | 'merge-base' | 'step' | 'parent';
  commit: CommitInfo;
  build: BisectBuild;
  tries: BisectTry[];
  decision: StepDecision;
  /** the probability that the decision is right (1 for a reproduced failure; 1-(1-p)^k for k passes) */
  probability: number;
  /** one line: why this decision */
  reason: string;
  /** candidates left after this step (the first new commit is among them) */
  left: number;
}

/** The culprit's flags: reasons the flip may have come from elsewhere. */
export interface CulpritFlags {
  /** its binary equals its parent's but for the embedded commit id; undefined when the parent did not build */
  sameBinaryAsParent?: boolean;
  merge: boolean;
  /** every path it changes is documentation, changelog or tests */
  docsOrTestsOnly: boolean;
}

export interface BisectResult {
  /**
   * found: one commit with enough confidence; inconclusive: below it, or skips hide the answer; aborted: too many
   * skips in a row; broken: an endpoint gave no verdict; no-flip: the endpoints agree; interrupted: Ctrl-C or SIGTERM
   */
  status: 'found' | 'inconclusive' | 'aborted' | 'broken' | 'interrupted' | 'no-flip';
  direction?: BisectDirection;
  /** the first new commit, when one is left */
  culprit?: CommitInfo & { flags: CulpritFlags };
  /** the commits the first new commit is among (the culprit alone when found) */
  range: string[];
  /** product of every decision's probability */
  confidence: number;
  /** reproduction rate of the failing endpoint, and the passes a passing verdict needs */
  reproduction?: { fails: number; tries: number; k: number };
  message: string;
}
