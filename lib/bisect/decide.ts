// The arithmetic of a flake-aware bisect, pure: how many passing tries a "pass" needs given the failing endpoint's
// reproduction rate, what a commit's tries decide, the confidence of the whole answer, and the culprit's flags.
// Like syzbot's bisection and ktest's BISECT_TRIES: a reproduced failure is trusted at once (a check does not fail
// by chance on a build without the bug), a pass is trusted only after enough tries that a build with the bug would
// have shown it. And the words a decision and a failure are told in.
import type { BisectDirection, BisectTry, CommitInfo, CulpritFlags, StepDecision } from '../model/bisect.js';

/** The answer is inconclusive below this confidence. */
export const MIN_CONFIDENCE = 0.66;
/** A passing verdict must leave at most this chance that the failure was there but did not show. */
const MISS_BOUND = 0.05;

/**
 * Passing tries a "pass" needs: the smallest k with (1-p)^k <= 0.05, at most `cap` (--tries); 1 when p is 1.
 * p is the failing endpoint's reproduction rate (fails / tries).
 */
export function passesNeeded(p: number, cap: number): number {
  if (!(p > 0)) return cap;
  if (p >= 1) return 1;
  const k = Math.ceil(Math.log(MISS_BOUND) / Math.log(1 - p));
  return Math.max(1, Math.min(cap, k));
}

/** The probability that k passes are right about a commit that would fail with rate p on each try. */
export function passConfidence(p: number, k: number): number {
  return 1 - (1 - p) ** k;
}

/** Which verdict the bug shows as: the check fails on the new side of a regression and on the old side of a fix. */
export function failingSide(direction: BisectDirection): Exclude<StepDecision, 'skip'> {
  return direction === 'regression' ? 'new' : 'old';
}

/** The direction from the endpoints' first verdicts; undefined when they agree (no flip to bisect). */
export function directionOf(oldFails: boolean, newFails: boolean): BisectDirection | undefined {
  if (oldFails === newFails) return undefined;
  return newFails ? 'regression' : 'fix';
}

/** What a commit's tries so far decide: a side, skip, or "try again". */
type TriesOutcome =
  | { done: true; decision: StepDecision; probability: number; reason: string }
  | { done: false; reason: string };

/**
 * Decide a commit from its tries: one reproduced failure puts it on the failing side; `k` passes on the passing side;
 * a try with no verdict (the run broke, the check skipped) makes it a skip at once, as git bisect's 125.
 */
export function decideTries(
  tries: readonly Pick<BisectTry, 'verdict' | 'message'>[],
  o: { direction: BisectDirection; p: number; k: number },
): TriesOutcome {
  const failing = failingSide(o.direction);
  const passing = failing === 'new' ? 'old' : 'new';
  const fail = tries.findIndex((t) => t.verdict === 'failed');
  if (fail !== -1)
    return { done: true, decision: failing, probability: 1, reason: `the check failed on try ${fail + 1}` };
  const broken = tries.find((t) => t.verdict !== 'passed');
  if (broken)
    return { done: true, decision: 'skip', probability: 1, reason: `no verdict: ${broken.verdict}: ${broken.message}` };
  if (tries.length >= o.k) {
    const probability = passConfidence(o.p, tries.length);
    return {
      done: true,
      decision: passing,
      probability,
      reason: `passed ${tries.length} of ${tries.length} tries (a build with the bug fails ${pct(o.p)} of runs: ${pct(probability)} sure)`,
    };
  }
  return { done: false, reason: `passed ${tries.length} of ${o.k} tries needed` };
}

/** The product of every decision's probability: the chance that no decision sent the bisect the wrong way. */
export function confidenceOf(probabilities: readonly number[]): number {
  return probabilities.reduce((a, b) => a * b, 1);
}

export const pct = (x: number): string => `${Math.round(x * 1000) / 10}%`;

/** Paths that change no code Nomad runs: documentation, the changelog, tests, CI and the web UI's tests. */
const NOT_CODE = [
  /^website\//,
  /^docs?\//,
  /^\.changelog\//,
  /^\.github\//,
  /^\.semgrep\//,
  /^e2e\//,
  /(^|\/)testdata\//,
  /_test\.go$/,
  /\.md$/,
  /^CHANGELOG/,
];

/** The culprit's flags from what git says of it and whether its build equals its parent's. Pure. */
export function culpritFlags(c: CommitInfo, sameBinaryAsParent: boolean | undefined): CulpritFlags {
  return {
    ...(sameBinaryAsParent !== undefined ? { sameBinaryAsParent } : {}),
    merge: c.parents.length > 1,
    docsOrTestsOnly: c.files.length > 0 && c.files.every((f) => NOT_CODE.some((re) => re.test(f))),
  };
}

/** How people read a decision: good/bad for a regression, unfixed/fixed for a fix. */
export function termOf(decision: StepDecision, direction: BisectDirection | undefined): string {
  if (decision === 'skip') return 'skip';
  if (direction === 'fix') return decision === 'new' ? 'fixed' : 'unfixed';
  return decision === 'new' ? 'bad' : 'good';
}

/**
 * What went wrong, in one line: the error's first line (with the line after it when it ends with ":", as "last lines:"
 * does), and where its whole log is. A build error ends with "full log: <file>", so its last line alone says nothing.
 */
export function reasonOf(s: string | undefined): string {
  const lines = (s ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const log = lines.length > 1 && /^(full log|its logs?):/.test(lines.at(-1)!) ? lines.pop() : undefined;
  const head = lines[0] ?? '';
  const what = head.endsWith(':') && lines[1] ? `${head} ${lines[1]}` : head;
  return log ? `${what} (${log})` : what;
}
