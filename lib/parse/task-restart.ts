// Pure: has a task restarted through the API (POST /v1/client/allocation/<id>/restart) started again? Read from its
// state before the request and now, on the client's own clock only (event times are the client's; the guest's clock
// may be off from the harness's by seconds).
import type { TaskEventRec, TaskStateSnap } from '../model/evidence.js';

/** What a restart looks like so far: started again (with the Started event's time), or not yet and why. */
type RestartProgress = { started: true; startedAtMs: number } | { started: false; reason: string };

/**
 * The restart of real 1.9.7 (test/fixtures/whole-alloc/real-1.9.7): `Restart Signaled` "User requested task to
 * restart", `Terminated`, `Restarting`, `Started`, Restarts + 1. Started means: a `Restart Signaled` newer than every
 * event seen before the request, a `Started` after it, and the task running.
 */
export function restartProgress(before: TaskStateSnap | undefined, now: TaskStateSnap | undefined): RestartProgress {
  if (!now) return { started: false, reason: 'the task has no state' };
  const newest = Math.max(0, ...(before?.events ?? []).map((e) => e.timeMs));
  const last = (type: string, after: number): TaskEventRec | undefined =>
    [...now.events].reverse().find((e) => e.type === type && e.timeMs > after);
  const signaled = last('Restart Signaled', newest);
  if (!signaled)
    return { started: false, reason: `no Restart Signaled event yet (task ${now.state}, restarts ${now.restarts})` };
  const started = last('Started', signaled.timeMs);
  if (!started)
    return {
      started: false,
      reason: `signaled, not started again yet (task ${now.state}; last event ${now.events.at(-1)?.type ?? 'none'})`,
    };
  if (now.state !== 'running') return { started: false, reason: `started again but ${now.state} now` };
  return { started: true, startedAtMs: started.timeMs };
}
