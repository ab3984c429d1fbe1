// Check: every task of every alloc was started again after the reboot and is running now. Under a fault that leaves the
// tasks running (agent-kill, a short partition) it judges the opposite: kept running, not started again; under a
// partition longer than heartbeat_grace, the replacement's task running; under a fault that restarts the tasks in
// place (executor-kill, docker-restart), as after a reboot.
import {
  allocAfter,
  allocBefore,
  allocEvents,
  allocLabel,
  classifyAllocOutcome,
  watchedAllocAfter,
  watchedIds,
} from './alloc-outcome.js';
import { defineCheck } from './define.js';
import { eventLine, iso, judgement, parseTime, show, withStatus } from './result.js';
import type { RebootEvidence } from '../model/evidence.js';
import type { AllocDetail, CheckResult, FaultSeen, Judgement } from '../model/check.js';

export const TASK_RESTARTED = defineCheck<RebootEvidence>({
  id: 'task-restarted',
  title: 'Task restarted',
  passesWhen:
    'every task of every alloc started again after the reboot (a `Started` event or a newer `StartedAt`) and is running',
  details:
    'every task of every alloc has a `Started` event (or a newer `StartedAt`) after the reboot and is running; restarts per task before -> after. Failing only for replaced allocs, it is a consequence of `alloc-restored`',
  judge: judgeRestarted,
  // a fault that restarts the tasks in place (executor-kill, docker-restart) is judged like a reboot: started again
  underFault: (r, e, f) => (f.replaced ? replacementRunning(r, e, f) : f.restartsTasks ? r : taskKeptRunning(r, e, f)),
});

/**
 * Passes when, for every judged alloc, each task has a `Started` event at or after the reboot request (or a task
 * StartedAt after it) and is `running`. A replaced alloc fails here: its tasks did not come back, a new alloc's did.
 */
function judgeRestarted(e: RebootEvidence): Judgement {
  const evidence = [`reboot requested at ${iso(e.reboot.requestedAt)}`];
  const perAlloc: AllocDetail[] = [];
  let failedTasks = 0;
  let totalTasks = 0;
  let firstBad = '';
  for (const watchedId of watchedIds(e)) {
    // a replacement the group's disconnect policy asks for is judged in the old alloc's place: its tasks are the new ones
    const byPolicy = classifyAllocOutcome(e, watchedId);
    const allocId = byPolicy.expectedByPolicy && byPolicy.replacementId ? byPolicy.replacementId : watchedId;
    const alloc = allocAfter(e, allocId);
    const name = alloc?.name ?? allocBefore(e, allocId)?.name ?? '';
    const label = allocLabel({ allocId, name });
    const tasks = Object.keys(
      alloc?.tasks ?? allocBefore(e, allocId)?.tasks ?? (e.taskName ? { [e.taskName]: 0 } : {}),
    );
    const outcome = byPolicy;
    const verdicts = tasks.map((t) => judgeTask(e, allocId, t));
    const afterReboot = allocEvents(e, alloc, allocId).filter((ev) => ev.timeMs >= e.reboot.requestedAt);
    evidence.push(`${label}: ${alloc ? '' : 'not observed after the reboot; '}${outcome.outcome}`);
    evidence.push(...verdicts.map((v) => `  ${v.ok ? 'ok  ' : 'FAIL'} ${v.line}`));
    evidence.push(
      afterReboot.length
        ? `  task events since the reboot (${afterReboot.length}):`
        : '  no task event since the reboot',
    );
    evidence.push(...afterReboot.map((ev) => `    ${ev.task ? `[${ev.task}] ` : ''}${eventLine(ev)}`));
    const bad = !alloc
      ? [{ ok: false, line: `alloc ${allocId} was not observed after the reboot` }]
      : verdicts.filter((v) => !v.ok);
    if (!alloc || !tasks.length) failedTasks++;
    totalTasks += tasks.length;
    failedTasks += verdicts.filter((v) => !v.ok).length;
    const replaced =
      outcome.outcome === 'replaced' && allocId === watchedId ? `; replaced by ${outcome.replacementId}` : '';
    const inPlaceOf = allocId !== watchedId ? `replacement ${allocId} (as the disconnect policy asks): ` : '';
    const detail = `${inPlaceOf}${
      bad.length ? `${bad.map((v) => v.line).join('; ')}${replaced}` : verdicts.map((v) => v.line).join('; ')
    }`;
    if (bad.length && !firstBad) firstBad = `${label}: ${detail}`;
    perAlloc.push({
      allocId: watchedId,
      name,
      status: bad.length || !tasks.length ? 'failed' : 'passed',
      detail: detail || 'no task seen',
    });
  }
  const n = perAlloc.length;
  const badAllocs = perAlloc.filter((p) => p.status === 'failed').length;
  if (badAllocs) {
    const msg =
      n === 1 && totalTasks <= 1
        ? firstBad.replace(/^[^:]+: /, '')
        : `${badAllocs} of ${n} allocs have a task not started again after the reboot (${failedTasks} of ${totalTasks} tasks); first: ${firstBad}`;
    return judgement('failed', msg, evidence, perAlloc);
  }
  const msg =
    n === 1 && totalTasks === 1
      ? perAlloc[0]!.detail.replace(/^task /, 'task ')
      : `all ${totalTasks} tasks of ${n} allocs started again after the reboot and are running`;
  return judgement('passed', msg, evidence, perAlloc);
}

interface TaskVerdict {
  ok: boolean;
  line: string;
}

/** One task of one alloc: a Started event at or after the reboot (or StartedAt after it), and running now. */
function judgeTask(e: RebootEvidence, allocId: string, task: string): TaskVerdict {
  const since = e.reboot.requestedAt;
  const alloc = allocAfter(e, allocId);
  const state = alloc?.tasks[task];
  const events = allocEvents(e, alloc, allocId).filter((ev) => ev.task === undefined || ev.task === task);
  const started = events.find((ev) => ev.type === 'Started' && ev.timeMs >= since);
  const startedAtMs = parseTime(state?.startedAt);
  const startedAfter = startedAtMs !== undefined && startedAtMs > since;
  const before = allocBefore(e, allocId)?.tasks[task]?.restarts;
  const restarts = `restarts ${show(before)} -> ${show(state?.restarts)}`;
  if (!state) return { ok: false, line: `task ${task}: no state after the reboot` };
  if (!started && !startedAfter)
    return {
      ok: false,
      line: `task ${task}: ${state.state}, not started after the reboot (no Started event since ${iso(since)}, StartedAt ${show(state.startedAt)}), ${restarts}`,
    };
  const how = started ? `Started event at ${iso(started.timeMs)}` : `StartedAt ${state.startedAt}`;
  if (state.state !== 'running')
    return { ok: false, line: `task ${task}: started after the reboot (${how}) but ${state.state} now, ${restarts}` };
  return { ok: true, line: `task ${task}: started again after the reboot (${how}) and running, ${restarts}` };
}

/** Expected when the fault leaves the tasks alone: the task runs through it and is NOT started again. */
function taskKeptRunning(r: CheckResult, e: RebootEvidence, f: FaultSeen): CheckResult {
  const alloc = watchedAllocAfter(e);
  const state = alloc?.tasks[e.taskName];
  const since = e.reboot.requestedAt;
  const started = (e.taskEvents[e.allocId] ?? []).filter((ev) => ev.type === 'Started' && ev.timeMs >= since);
  const startedAt = parseTime(state?.startedAt);
  const lines = [`expected for ${f.kind}: the task keeps running and is not restarted (${f.why})`];
  const task = e.taskName;
  const kind = f.kind;
  const fail = (message: string) => withStatus(r, 'failed', message, lines);
  if (!state) return fail(`alloc ${e.allocId} has no state for task ${task} after the fault`);
  if (started.length || (startedAt !== undefined && startedAt > since)) {
    const at = started[0] ? iso(started[0].timeMs) : show(state.startedAt);
    return fail(`task ${task} was restarted (started at ${at}), which ${kind} should not cause: ${f.why}`);
  }
  if (state.state !== 'running') {
    return fail(`task ${task} is ${state.state} after ${kind} (expected running, not restarted)`);
  }
  const since2 = `StartedAt ${show(state.startedAt)}, before the fault`;
  return withStatus(r, 'passed', `task ${task} kept running through ${kind} (${since2}), as expected`, lines);
}

/** Expected under a long partition: a replacement whose task is running. */
function replacementRunning(r: CheckResult, e: RebootEvidence, f: FaultSeen): CheckResult {
  const c = classifyAllocOutcome(e);
  const state = c.replacement ? Object.values(c.replacement.tasks)[0]?.state : undefined;
  if (state === 'running') {
    const ok = `the replacement ${c.replacementId}'s task is running`;
    return withStatus(r, 'passed', `expected a replacement (${f.why}); ${ok}`);
  }
  const seen = `replacement: ${show(c.replacementId)}, task state ${show(state)}`;
  return withStatus(r, 'failed', `expected a replacement (${f.why}) with its task running; ${seen}`);
}
