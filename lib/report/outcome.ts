// One place that turns verdicts and errors into a run outcome, and runs into the CLI exit code.
import { EXIT, type ExitCode } from '../errors.js';
import type { Verdict } from '../model/check.js';
import { SCENARIO_EXPECTED_FAILURE } from '../checks/verdict.js';
import type { RunOutcome, RunRecord } from '../model/run.js';
import type { SuiteReport } from '../model/session.js';

/**
 * The outcome of one run:
 * - `error` when it was interrupted, when it broke before any verdict (nothing was proved), or when it broke
 *   after the checks and every verdict was met (e.g. teardown failed: the lab is broken, not Nomad);
 * - `failed` when a verdict did not meet its expectation (even if something broke afterwards);
 * - `passed` otherwise.
 */
export function outcomeOf(verdicts: readonly Verdict[], error?: unknown, interrupted?: boolean): RunOutcome {
  if (interrupted || verdicts.length === 0) return 'error';
  // A check that was judged and missed its expectation is a verdict even if the lab broke afterwards; a check the
  // run never reached (skipped) or "expected to fail but nothing failed" proves nothing about a run that broke.
  const judgedMiss = verdicts.some((v) => !v.met && v.label !== 'skipped' && v.id !== SCENARIO_EXPECTED_FAILURE);
  if (judgedMiss) return 'failed';
  if (error) return 'error';
  return verdicts.some((v) => !v.met) ? 'failed' : 'passed';
}

/**
 * The process exit code for a set of runs: 130 if any was interrupted, else 3 if any errored (the lab broke,
 * so a verdict may be missing), else 1 if any failed, else 0. No runs at all is an error too: nothing was proved.
 */
export function exitCodeOf(runs: readonly Pick<RunRecord, 'outcome' | 'interrupted'>[]): ExitCode {
  if (runs.length === 0) return EXIT.INFRA;
  if (runs.some((r) => r.interrupted)) return EXIT.INTERRUPTED;
  if (runs.some((r) => r.outcome === 'error')) return EXIT.INFRA;
  if (runs.some((r) => r.outcome === 'failed')) return EXIT.CHECK_FAILED;
  return EXIT.OK;
}

interface VerdictCounts {
  total: number;
  passed: number;
  expectedFailures: number;
  /** every verdict that did not meet its expectation (failed, unexpected pass, skipped-but-expected-to-fail) */
  failed: number;
  /** skipped and met */
  skipped: number;
}

/** Count verdicts the way every reporter prints them. */
export function countVerdicts(verdicts: readonly Verdict[]): VerdictCounts {
  const c: VerdictCounts = { total: verdicts.length, passed: 0, expectedFailures: 0, failed: 0, skipped: 0 };
  for (const v of verdicts) {
    if (!v.met) c.failed++;
    else if (v.label === 'expected failure') c.expectedFailures++;
    else if (v.label === 'skipped') c.skipped++;
    else c.passed++;
  }
  return c;
}

/**
 * A session's exit code, from its suites: 130 when interrupted (or a counted suite never started); else the code of
 * the counted suites' final attempts (compare counts only its after build). A matrix shard with no cells proved
 * nothing and broke nothing: 0.
 */
export function sessionExitCode(
  suites: readonly Pick<SuiteReport, 'counts' | 'attempts'>[],
  interrupted: boolean,
): ExitCode {
  const counted = suites.filter((s) => s.counts);
  if (suites.length === 0) return EXIT.OK;
  if (interrupted || counted.some((s) => s.attempts.length === 0)) return EXIT.INTERRUPTED;
  return exitCodeOf(counted.flatMap((s) => s.attempts.slice(-1)));
}
