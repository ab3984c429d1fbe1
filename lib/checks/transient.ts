// Pure: the event stream's verdict on the restore. An alloc of the job that failed after the fault and then came back
// (restarted) did not restore cleanly, even when it is running by the time the harness looks: alloc-restored fails,
// quoting the failing and the recovering event. A task instance the fault itself ended (a container SIGKILLed by the
// reboot, reported when the client recovers it) is no such failure: alloc-restored says so in its evidence and keeps
// its status. The other checks are left as they are.
import { oneLine } from './result.js';
import { restartsAfter, type EndedByFault, type Transition } from './transitions.js';
import { ALLOC_RESTORED } from './alloc-restored.js';
import type { CheckResult } from '../model/check.js';

/** The check the transient failures are judged under. */
const TRANSIENT_CHECK = ALLOC_RESTORED;

const iso = (ms: number) => new Date(ms).toISOString();

/** One evidence line: which instance the fault ended, its exit code, and the restart that followed. */
function endedByFaultLine(e: EndedByFault, faultName: string): string {
  const code = e.exitCode !== undefined ? `exit ${e.exitCode}, ` : '';
  const restart = e.restart
    ? `; restarted by the restart policy at ${iso(e.restartedAtMs!)} (${e.restart.replace(/^alloc \S+ task \S+: /, '')})`
    : '; not restarted yet';
  return (
    `event stream: alloc ${e.allocId.slice(0, 8)} task ${e.task}: the instance running before the ${faultName} ` +
    `was ended by it (${code}reported ${iso(e.endedAtMs)})${restart}`
  );
}

interface FaultContext {
  /** when the fault was requested (Unix ms) */
  sinceMs: number;
  /** whether the fault ends the tasks (a reboot) or leaves them running (an agent kill, a short partition) */
  endsTasks: boolean;
  /** the fault as people say it: "reboot", "partition", ... */
  name: string;
}

/** `results` with alloc-restored failed when the recorded transitions show a failure that recovered after the fault. */
export function withTransientFailures(
  results: CheckResult[],
  transitions: readonly Transition[],
  fault: FaultContext,
): CheckResult[] {
  const { transient, endedByFault } = restartsAfter(transitions, fault.sinceMs, fault.endsTasks);
  if (!transient.length && !endedByFault.length) return results;
  const endedLines = endedByFault.map((e) => endedByFaultLine(e, fault.name));
  const failedLines = transient.flatMap((f) => [
    `event stream: ${iso(f.failedAtMs)} ${f.failure}`,
    `  then ${iso(f.recoveredAtMs)} ${f.recovery}`,
  ]);
  return results.map((r) => {
    if (r.id !== TRANSIENT_CHECK.id) return r;
    const evidence = [...r.evidence, ...endedLines, ...failedLines];
    if (!transient.length) return { ...r, evidence };
    const first = transient[0]!;
    const seen = 'failed after the fault and was restarted (seen in the event stream)';
    const why = `${seen}: ${first.failure}; then ${first.recovery}`;
    const message = r.status === 'failed' ? `${r.message}; also ${why}` : why;
    return { ...r, status: 'failed', message: oneLine(message), evidence };
  });
}
