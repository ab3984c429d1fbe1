// Pure: the event stream's verdict on the restore. An alloc of the job that failed after the fault and then came back
// (restarted) did not restore cleanly, even when it is running by the time the harness looks: alloc-restored fails,
// quoting the failing and the recovering event. The other checks are left as they are.
import { oneLine } from './result.js';
import { transientFailures, type Transition } from './transitions.js';
import type { CheckResult } from '../model/check.js';

/** The check the transient failures are judged under. */
export const TRANSIENT_CHECK_ID = 'alloc-restored';

/** `results` with alloc-restored failed when the recorded transitions show a failure that recovered after `sinceMs`. */
export function withTransientFailures(
  results: CheckResult[],
  transitions: readonly Transition[],
  sinceMs: number,
): CheckResult[] {
  const found = transientFailures(transitions, sinceMs);
  if (!found.length) return results;
  const lines = found.flatMap((f) => [
    `event stream: ${new Date(f.failedAtMs).toISOString()} ${f.failure}`,
    `  then ${new Date(f.recoveredAtMs).toISOString()} ${f.recovery}`,
  ]);
  const first = found[0]!;
  const seen = 'failed after the fault and was restarted (seen in the event stream)';
  const why = `${seen}: ${first.failure}; then ${first.recovery}`;
  return results.map((r) => {
    if (r.id !== TRANSIENT_CHECK_ID) return r;
    const message = r.status === 'failed' ? `${r.message}; also ${why}` : why;
    return { ...r, status: 'failed', message: oneLine(message), evidence: [...r.evidence, ...lines] };
  });
}
