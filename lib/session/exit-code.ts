// The session's exit code, from its suites. Pure.
import { EXIT, type ExitCode } from '../errors.js';
import { exitCodeOf } from '../report/outcome.js';
import type { SuiteReport } from '../model/session.js';

/**
 * 130 when interrupted (or a counted suite never started); else the code of the counted suites' final attempts
 * (compare counts only its after build). A matrix shard with no cells proved nothing and broke nothing: 0.
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
