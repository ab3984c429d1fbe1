// Pure: has the job settled after a disruption? Every judged alloc's place decided with evidence newer than the
// disruption, and Nomad with nothing pending for the job (no open evaluation, no follow-up eval still to run, no active
// deployment); then how long the view must stay unchanged before the wait ends. And how to describe an alloc in one line.
import type { AllocSnap, DeploymentSnap, EvalSnap, SettleEnding } from '../model/evidence.js';
import { latestOf, replacementOf } from '../model/replacement.js';

/** One line about an alloc: status, task states and its last event. */
export function describeAlloc(a: AllocSnap | undefined): string {
  if (!a) return 'alloc not found';
  const tasks = Object.entries(a.tasks)
    .map(([n, t]) => `${n}=${t.state}`)
    .join(',');
  return `alloc ${a.id.slice(0, 8)} client_status=${a.clientStatus} desired=${a.desiredStatus} tasks[${tasks}] last event: ${lastEventLine(a)}`;
}

function lastEventLine(a: AllocSnap): string {
  const events = Object.values(a.tasks)
    .flatMap((t) => t.events)
    .sort((x, y) => x.timeMs - y.timeMs);
  const e = events[events.length - 1];
  return e ? `"${e.type}: ${e.message}"` : 'none';
}

/** What the job looked like just before the disruption, to tell new evidence from old. */
export interface Disruption {
  /** Nomad's index read just before it: a record with a higher ModifyIndex changed after it */
  index: number;
  /** wall clock (Unix ms) when it was requested: a task Started at or after it started again */
  atMs: number;
}

/** What the disruption is expected to do to the tasks, and what else Nomad holds for the job. */
interface SettleOptions {
  /** false for agent-kill and a partition shorter than heartbeat_grace (the kind's outcome rule, lib/faults/<kind>.ts `outcome`) */
  tasksRestart?: boolean;
  /**
   * the job's evaluations, read after its allocs (so every eval that changed an alloc in the view is in it); undefined:
   * not read, and only the allocs decide (a FollowupEvalID alone then means a reschedule is coming)
   */
  evals?: readonly EvalSnap[];
  /** the job's latest deployment, if any */
  deployment?: DeploymentSnap | undefined;
  /** wall clock of the read (Unix ms), to tell a delayed reschedule that is due from one still to come */
  nowMs?: number;
  /** when the wait's budget ends (Unix ms): a delayed reschedule at or after it is not waited for */
  budgetEndMs?: number;
}

/** A reschedule Nomad holds for later: a failed alloc's follow-up eval, pending until its WaitUntil. */
export interface DelayedReschedule {
  /** the failed alloc */
  allocId: string;
  /** its name without the job's ("api[1]") */
  name: string;
  evalId: string;
  /** WaitUntil (Unix ms, the server's clock); undefined when Nomad set none */
  atMs: number | undefined;
  /** it comes at or after the wait's budget ends: not waited for */
  beyondBudget: boolean;
}

/** One judged alloc's place in the job after the disruption: decided or not, and why. */
interface SlotState {
  allocId: string;
  /** the alloc holding the place now (itself or its replacement), when there is one */
  currentId?: string;
  /** the place is decided: restored, replaced by a running successor, failed with no reschedule coming, or gone */
  settled: boolean;
  description: string;
  /** the alloc holding the place failed and Nomad reschedules it later */
  reschedule?: DelayedReschedule;
  /** decided only because nothing changed (a fault that leaves the tasks running): the quiet period confirms it */
  byAbsence?: boolean;
}

/** The newest alloc that replaced `old` (lib/model/replacement.ts), followed to the end of its chain. */
export function successorOf(
  allocs: AllocSnap[],
  old: AllocSnap | undefined,
  id: string,
  watched: ReadonlySet<string>,
  since: Disruption,
): AllocSnap | undefined {
  const found = replacementOf(allocs, old, id, { watched, createdAfter: (a) => a.createIndex > since.index });
  return found?.alloc && latestOf(allocs, found.alloc);
}

const tasksOf = (a: AllocSnap): AllocSnap['tasks'][string][] => Object.values(a.tasks);
const allTasksRunning = (a: AllocSnap): boolean =>
  tasksOf(a).length > 0 && tasksOf(a).every((t) => t.state === 'running');
const startedSince = (a: AllocSnap, ms: number): boolean =>
  tasksOf(a).length > 0 &&
  tasksOf(a).every(
    (t) =>
      (t.startedAt !== undefined && Date.parse(t.startedAt) >= ms) ||
      t.events.some((e) => e.type === 'Started' && e.timeMs >= ms),
  );

/** Eval statuses that will still change (nomad/structs Evaluation.TerminalStatus: complete, failed, canceled). */
const EVAL_OPEN = new Set(['pending', 'blocked']);
/** Deployment statuses Nomad is still working on (nomad/structs Deployment.Active). */
const DEPLOYMENT_ACTIVE = new Set(['running', 'paused', 'pending', 'blocked', 'unblocking', 'initializing']);
/** Whether Nomad is still working on a deployment with this status. */
export const deploymentActive = (status: string): boolean => DEPLOYMENT_ACTIVE.has(status);
/** "deployment 1a2b3c4d running ("Deployment is running")". */
export const deploymentLine = (d: DeploymentSnap): string =>
  `deployment ${d.id.slice(0, 8)} ${d.status}${d.statusDescription ? ` ("${d.statusDescription}")` : ''}`;

/** "03:34:10": a wall-clock time of day, UTC (Nomad's WaitUntil is UTC). */
export const clockOf = (ms: number): string => new Date(ms).toISOString().slice(11, 19);
/** An alloc's name without its job's ("api[1]" for "shop.api[1]"). */
const shortName = (a: AllocSnap): string =>
  a.name.startsWith(`${a.jobId}.`) ? a.name.slice(a.jobId.length + 1) : a.name;
const evalLine = (e: EvalSnap, nowMs: number | undefined): string => {
  const until =
    e.waitUntilMs !== undefined && (nowMs === undefined || e.waitUntilMs > nowMs)
      ? ` until ${clockOf(e.waitUntilMs)}`
      : '';
  return `eval ${e.id.slice(0, 8)} (${e.triggeredBy}) ${e.status}${until}${e.statusDescription ? `: ${e.statusDescription}` : ''}`;
};

/** "api[1] failed; Nomad reschedules it at 03:34:10 (follow-up eval e9c7975e): waiting", and its variants. */
function rescheduleLine(
  who: string,
  r: DelayedReschedule,
  nowMs: number | undefined,
  budgetEndMs: number | undefined,
): string {
  const ev = `follow-up eval ${r.evalId.slice(0, 8)}`;
  if (r.atMs === undefined) return `${who} failed; Nomad reschedules it (${ev} pending): waiting`;
  const at = clockOf(r.atMs);
  if (r.beyondBudget)
    return `${who} failed; Nomad reschedules it at ${at} (${ev}), after this wait's budget ends at ${clockOf(budgetEndMs!)}: not waited for`;
  if (nowMs !== undefined && r.atMs <= nowMs)
    return `${who} failed; Nomad's reschedule was due at ${at} (${ev}, still pending): waiting`;
  return `${who} failed; Nomad reschedules it at ${at} (${ev}): waiting`;
}

/**
 * Has one judged alloc's place settled after the disruption? Only evidence newer than it counts: the alloc (or its
 * replacement) changed after the disruption's index, a running alloc's tasks started since. A lost or stopped alloc
 * without a replacement is not an end (the replacement comes once the node is back); nor is a failed alloc Nomad may
 * still reschedule: its follow-up eval (FollowupEvalID) not yet run, or an eval of the job about to run.
 */
export function slotState(
  allocs: AllocSnap[],
  id: string,
  watched: ReadonlySet<string>,
  since: Disruption,
  opts: SettleOptions = {},
): SlotState {
  const { tasksRestart = true, evals, nowMs, budgetEndMs } = opts;
  const old = allocs.find((a) => a.id === id);
  const succ = successorOf(allocs, old, id, watched, since);
  const cur = succ ?? old;
  const at = cur ? { currentId: cur.id } : {};
  const no = (description: string): SlotState => ({ allocId: id, ...at, settled: false, description });
  const yes = (description: string): SlotState => ({ allocId: id, ...at, settled: true, description });
  if (!cur) return yes(`alloc ${id.slice(0, 8)} is gone from the job`);
  const who = succ ? `${old?.name ?? cur.name} replaced by ${cur.id.slice(0, 8)}` : `${cur.name} ${cur.id.slice(0, 8)}`;
  const line = `${who}: ${describeAlloc(cur).replace(/^alloc \S+ /, '')}`;
  // A fault that leaves the tasks running (agent-kill, a short partition): the alloc running on, unchanged, is its end.
  if (!tasksRestart && !succ && cur.clientStatus === 'running' && cur.desiredStatus === 'run' && allTasksRunning(cur)) {
    return { ...yes(`${who}: running, its tasks kept running (no restart expected)`), byAbsence: true };
  }
  if (cur.modifyIndex <= since.index) return no(`${line} (unchanged since before the disruption)`);
  if (cur.desiredStatus !== 'run') return no(`${line} (stopped by the server; waiting for its replacement)`);
  switch (cur.clientStatus) {
    case 'running':
      if (!allTasksRunning(cur)) return no(`${line} (not every task runs)`);
      if (!succ && !startedSince(cur, since.atMs)) return no(`${line} (tasks not started since the disruption)`);
      return yes(succ ? `${who}: running` : `${who}: running with tasks started after the disruption`);
    case 'failed': {
      if (!evals) {
        if (cur.followupEvalId && !cur.nextAllocation) return no(`${line} (a reschedule is pending)`);
        return yes(`${who}: failed`);
      }
      // Note: an eval missing from the list read after the allocs was garbage-collected, which Nomad does to terminal ones only.
      const followUp = cur.followupEvalId ? evals.find((e) => e.id === cur.followupEvalId) : undefined;
      if (followUp && EVAL_OPEN.has(followUp.status)) {
        const atMs = followUp.waitUntilMs;
        const beyondBudget = atMs !== undefined && budgetEndMs !== undefined && atMs >= budgetEndMs;
        const r: DelayedReschedule = { allocId: cur.id, name: shortName(cur), evalId: followUp.id, atMs, beyondBudget };
        const name = succ ? `${old ? shortName(old) : r.name} (replacement ${cur.id.slice(0, 8)})` : r.name;
        return { ...no(rescheduleLine(name, r, nowMs, budgetEndMs)), reschedule: r };
      }
      // The client's failed update and Nomad's alloc-failure eval come in one write; the scheduler then places a
      // replacement or makes the follow-up eval. Until that eval has run, a reschedule may still come.
      const due = evals.find(
        (e) =>
          e.status === 'pending' && (e.waitUntilMs === undefined || (nowMs !== undefined && e.waitUntilMs <= nowMs)),
      );
      if (due) return no(`${line} (${evalLine(due, nowMs)}: Nomad may still reschedule it)`);
      return yes(`${who}: failed; no reschedule coming`);
    }
    case 'complete':
      return yes(`${who}: complete`);
    default: // pending, lost, unknown
      return no(line);
  }
}

/** The job's settle state: every judged place, what Nomad still holds for the job, and one line saying what is open. */
interface JobSettleState {
  /** every judged place decided and Nomad has nothing pending for the job */
  settled: boolean;
  /** every judged place decided, or waiting only for a reschedule after the wait's budget (Nomad may hold more) */
  decided: boolean;
  slots: SlotState[];
  /** what Nomad still holds for the job besides the judged places (open evals, an active deployment, pending allocs) */
  pending: string[];
  /** the judged places Nomad reschedules later */
  reschedules: DelayedReschedule[];
  description: string;
}

/**
 * The job has settled when every judged alloc's place is decided and Nomad has nothing pending for the job: no
 * evaluation pending or blocked (a delayed reschedule is a pending eval with WaitUntil), no alloc whose follow-up eval
 * has not run, no active deployment, no other alloc meant to run still pending.
 */
export function jobSettleState(
  allocs: AllocSnap[],
  watched: readonly string[],
  since: Disruption,
  opts: SettleOptions = {},
): JobSettleState {
  const set = new Set(watched);
  const slots = watched.map((id) => slotState(allocs, id, set, since, opts));
  const judged = new Set([...watched, ...slots.flatMap((s) => (s.currentId ? [s.currentId] : []))]);
  const reschedules = slots.flatMap((s) => (s.reschedule ? [s.reschedule] : []));
  const waitedEvals = new Set(reschedules.map((r) => r.evalId));
  const pendingAllocs = allocs.filter(
    (a) => a.desiredStatus === 'run' && a.clientStatus === 'pending' && !judged.has(a.id),
  );
  const openEvals = (opts.evals ?? []).filter((e) => EVAL_OPEN.has(e.status) && !waitedEvals.has(e.id));
  const followedBy = (e: EvalSnap): string => {
    const of = allocs.filter((a) => a.followupEvalId === e.id).map((a) => `${shortName(a)} ${a.id.slice(0, 8)}`);
    return of.length ? `, the follow-up of ${of.join(', ')}` : '';
  };
  const d = opts.deployment;
  const pending = [
    ...pendingAllocs.map((a) => `${describeAlloc(a)} (pending)`),
    ...openEvals.sort((a, b) => a.createIndex - b.createIndex).map((e) => `${evalLine(e, opts.nowMs)}${followedBy(e)}`),
    ...(d && deploymentActive(d.status) ? [deploymentLine(d)] : []),
  ];
  const allSettled = slots.every((s) => s.settled);
  const decided = slots.every((s) => s.settled || s.reschedule?.beyondBudget);
  const settled = allSettled && pending.length === 0;
  const head = allSettled
    ? `all ${slots.length} allocs settled: ${slots.map((s) => s.description).join('; ')}`
    : slots
        .filter((s) => !s.settled)
        .map((s) => s.description)
        .join('; ');
  const description =
    pending.length === 0
      ? head
      : allSettled
        ? `${head}; Nomad still holds for the job: ${pending.join('; ')}`
        : [head, ...pending].join('; ');
  return { settled, decided, slots, pending, reschedules, description };
}

/** When the wait judges: the view's read time and since when it has been unchanged, with the two windows. */
interface SettleTiming {
  nowMs: number;
  /** when the view (allocs, evals, deployment) was first seen exactly as it is now (Unix ms) */
  unchangedSinceMs: number;
  /** once nothing is pending: how long the view must stay unchanged (the allocs and evals are two reads, not one) */
  confirmMs: number;
  /** once every place is decided but Nomad still holds something: how long the view may stay unchanged before the wait ends anyway */
  quietMs: number;
}

type SettleDecision =
  | { done: true; ending: Exclude<SettleEnding, 'deadline'>; settled: boolean; reason: string }
  | {
      done: false;
      reason: string /** when the decision can change without a change in Nomad (Unix ms) */;
      wakeAtMs: number | undefined;
    };

const secs = (ms: number): string => `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)}s`;

/**
 * Is the wait over? Decided with nothing pending: once the view stayed unchanged for the confirmation window (settled,
 * or not when a place waits only for a reschedule after the budget). A place decided only because nothing changed (the
 * tasks were to keep running) has no event of Nomad's to confirm it: the quiet period does. Decided while Nomad still
 * holds something (a blocked eval, a deployment): once nothing changed for the quiet period. Otherwise not yet.
 */
export function settleDecision(s: JobSettleState, t: SettleTiming): SettleDecision {
  const still = Math.max(0, t.nowMs - t.unchangedSinceMs);
  if (s.decided && s.pending.length === 0) {
    const ending = s.settled ? 'settled' : 'beyond-budget';
    const confirmMs = s.slots.some((x) => x.byAbsence) ? Math.max(t.confirmMs, t.quietMs) : t.confirmMs;
    if (still >= confirmMs) return { done: true, ending, settled: s.settled, reason: s.description };
    return {
      done: false,
      reason: `${s.description}; confirming: unchanged for ${secs(still)} of ${secs(confirmMs)}`,
      wakeAtMs: t.unchangedSinceMs + confirmMs,
    };
  }
  if (s.decided) {
    const allSettled = s.slots.every((x) => x.settled);
    if (still >= t.quietMs)
      return {
        done: true,
        ending: 'quiet',
        settled: allSettled,
        reason: `${s.description}; nothing changed for ${secs(t.quietMs)} (settle quiet period)`,
      };
    return {
      done: false,
      reason: `${s.description}; unchanged for ${secs(still)} of ${secs(t.quietMs)}`,
      wakeAtMs: t.unchangedSinceMs + t.quietMs,
    };
  }
  const next = s.reschedules.flatMap((r) =>
    !r.beyondBudget && r.atMs !== undefined && r.atMs > t.nowMs ? [r.atMs] : [],
  );
  return { done: false, reason: s.description, wakeAtMs: next.length ? Math.min(...next) : undefined };
}

/**
 * The wait's end: `endMs`, moved on to `windowMs` after a delayed reschedule inside the budget (the replacement is
 * placed and started only then), never past the budget.
 */
export function settleEndMs(s: JobSettleState, endMs: number, windowMs: number, budgetEndMs: number): number {
  const later = s.reschedules.flatMap((r) => (!r.beyondBudget && r.atMs !== undefined ? [r.atMs + windowMs] : []));
  return Math.min(budgetEndMs, Math.max(endMs, ...later));
}

/** What changes when anything about the job changes: the allocs, the evals and the deployment, by index and status. */
export function viewFingerprint(
  allocs: readonly AllocSnap[],
  evals: readonly EvalSnap[] = [],
  deployment?: DeploymentSnap,
): string {
  return [
    ...allocs.map((a) => `a:${a.id}:${a.modifyIndex}`),
    ...evals.map((e) => `e:${e.id}:${e.status}:${e.modifyIndex}`),
    ...(deployment ? [`d:${deployment.id}:${deployment.status}:${deployment.modifyIndex}`] : []),
  ]
    .sort()
    .join(',');
}
