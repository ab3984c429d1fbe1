// Check: the task was started again after the reboot and is running now.
import { watchedAllocAfter } from './alloc-outcome.js';
import { eventLine, eventsOf, iso, parseTime, result, show } from './result.js';
import type { RebootEvidence } from '../model/evidence.js';
import type { CheckDef, CheckResult } from '../model/check.js';

export const TASK_RESTARTED: CheckDef = {
  id: 'task-restarted',
  title: 'Task restarted',
  passesWhen: 'a Started event (or a newer StartedAt) after the reboot, task running',
};

/**
 * Passes when a `Started` event at or after the reboot request (or a task StartedAt after it) is seen and the task is `running`.
 * Note: e.taskEvents is keyed by alloc, not task; for single-task groups (our jobs) that is the same thing.
 */
export function checkTaskRestarted(e: RebootEvidence): CheckResult {
  const { id, title } = TASK_RESTARTED;
  const task = e.taskName;
  const since = e.reboot.requestedAt;
  const alloc = watchedAllocAfter(e);
  const state = alloc?.tasks[task];
  const events = eventsOf(e.taskEvents[e.allocId], state?.events ?? []);
  const afterReboot = events.filter((ev) => ev.timeMs >= since);
  const started = afterReboot.find((ev) => ev.type === 'Started');
  const startedAtMs = parseTime(state?.startedAt);
  const startedAfter = startedAtMs !== undefined && startedAtMs > since;
  const evidence = [
    `reboot requested at ${iso(since)}`,
    `task ${task} of alloc ${e.allocId}: state=${show(state?.state)} failed=${show(state ? String(state.failed) : undefined)} restarts=${show(state?.restarts)} startedAt=${show(state?.startedAt)}`,
    afterReboot.length ? `task events since the reboot (${afterReboot.length}):` : 'no task event since the reboot',
    ...afterReboot.map((ev) => `  ${eventLine(ev)}`),
  ];
  if (!alloc) return result(id, title, 'failed', `alloc ${e.allocId} was not observed after the reboot`, evidence);
  if (!state) return result(id, title, 'failed', `alloc ${e.allocId} has no state for task ${task}`, evidence);
  if (!started && !startedAfter) {
    return result(id, title, 'failed', `task ${task} was not started after the reboot (no Started event since ${iso(since)}, StartedAt ${show(state.startedAt)})`, evidence);
  }
  const how = started ? `Started event at ${iso(started.timeMs)}` : `StartedAt ${state.startedAt}`;
  if (state.state !== 'running') return result(id, title, 'failed', `task ${task} was started after the reboot (${how}) but is ${state.state} now`, evidence);
  return result(id, title, 'passed', `task ${task} started again after the reboot (${how}) and is running`, evidence);
}
