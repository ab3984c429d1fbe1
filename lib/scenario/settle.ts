// Pure: has the job settled after a disruption (every judged alloc's place, with evidence newer than it), and how to
// describe an alloc in one line.
import type { AllocSnap } from '../model/evidence.js';

/** One line about an alloc: status, task states and its last event. */
export function describeAlloc(a: AllocSnap | undefined): string {
  if (!a) return 'alloc not found';
  const tasks = Object.entries(a.tasks).map(([n, t]) => `${n}=${t.state}`).join(',');
  return `alloc ${a.id.slice(0, 8)} client_status=${a.clientStatus} desired=${a.desiredStatus} tasks[${tasks}] last event: ${lastEventLine(a)}`;
}

function lastEventLine(a: AllocSnap): string {
  const events = Object.values(a.tasks).flatMap((t) => t.events).sort((x, y) => x.timeMs - y.timeMs);
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

/** What the disruption is expected to do to the tasks: restart them (a reboot), or leave them running (issue 15). */
export interface SettleOptions {
  /** false for agent-kill and a partition shorter than heartbeat_grace (lib/config/faults.ts faultRestartsTasks) */
  tasksRestart?: boolean;
}

/** One judged alloc's place in the job after the disruption: settled or not, and why. */
export interface SlotState {
  allocId: string;
  /** the alloc holding the place now (itself or its replacement), when there is one */
  currentId?: string;
  settled: boolean;
  description: string;
}

/** The newest alloc that replaced `old`: by Nomad's links, else same job, group and name created after the disruption. */
export function successorOf(
  allocs: AllocSnap[], old: AllocSnap | undefined, id: string, watched: ReadonlySet<string>, since: Disruption,
): AllocSnap | undefined {
  const linked = allocs.find((a) => a.id !== id && (a.previousAllocation === id || old?.nextAllocation === a.id));
  const sameSlot = (a: AllocSnap): boolean => !!old && a.jobId === old.jobId && a.taskGroup === old.taskGroup && a.name === old.name;
  const byName = old && allocs
    .filter((a) => !watched.has(a.id) && sameSlot(a) && a.createIndex > since.index)
    .sort((a, b) => b.createIndex - a.createIndex)[0];
  let cur = linked ?? byName;
  for (let i = 0; cur && i < 20; i++) {
    const c: AllocSnap = cur;
    const next = allocs.find((a) => a.id !== c.id && (a.previousAllocation === c.id || c.nextAllocation === a.id));
    if (!next) break;
    cur = next;
  }
  return cur;
}

const tasksOf = (a: AllocSnap): AllocSnap['tasks'][string][] => Object.values(a.tasks);
const allTasksRunning = (a: AllocSnap): boolean => tasksOf(a).length > 0 && tasksOf(a).every((t) => t.state === 'running');
const startedSince = (a: AllocSnap, ms: number): boolean => tasksOf(a).length > 0 && tasksOf(a).every((t) =>
  (t.startedAt !== undefined && Date.parse(t.startedAt) >= ms) || t.events.some((e) => e.type === 'Started' && e.timeMs >= ms));

/**
 * Has one judged alloc's place settled after the disruption? Only evidence newer than it counts: the alloc (or its
 * replacement) changed after the disruption's index, a running alloc's tasks started since. A lost or stopped alloc
 * without a replacement is not an end (the replacement comes once the node is back); nor is a failed alloc with a
 * reschedule pending (FollowupEvalID).
 */
export function slotState(allocs: AllocSnap[], id: string, watched: ReadonlySet<string>, since: Disruption, { tasksRestart = true }: SettleOptions = {}): SlotState {
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
    return yes(`${who}: running, its tasks kept running (no restart expected)`);
  }
  if (cur.modifyIndex <= since.index) return no(`${line} (unchanged since before the disruption)`);
  if (cur.desiredStatus !== 'run') return no(`${line} (stopped by the server; waiting for its replacement)`);
  switch (cur.clientStatus) {
    case 'running':
      if (!allTasksRunning(cur)) return no(`${line} (not every task runs)`);
      if (!succ && !startedSince(cur, since.atMs)) return no(`${line} (tasks not started since the disruption)`);
      return yes(succ ? `${who}: running` : `${who}: running with tasks started after the disruption`);
    case 'failed':
      if (cur.followupEvalId && !cur.nextAllocation) return no(`${line} (a reschedule is pending)`);
      return yes(`${who}: failed`);
    case 'complete':
      return yes(`${who}: complete`);
    default: // pending, lost, unknown
      return no(line);
  }
}

/** The job's settle state: every judged place, and the description of what is still open. */
export interface JobSettleState {
  settled: boolean;
  slots: SlotState[];
  description: string;
}

/** The job has settled when every judged alloc's place has and no other alloc meant to run is pending (quiet: the caller's). */
export function jobSettleState(allocs: AllocSnap[], watched: readonly string[], since: Disruption, opts: SettleOptions = {}): JobSettleState {
  const set = new Set(watched);
  const slots = watched.map((id) => slotState(allocs, id, set, since, opts));
  const judged = new Set([...watched, ...slots.flatMap((s) => (s.currentId ? [s.currentId] : []))]);
  const pending = allocs.filter((a) => a.desiredStatus === 'run' && a.clientStatus === 'pending' && !judged.has(a.id));
  const open = slots.filter((s) => !s.settled);
  const settled = open.length === 0 && pending.length === 0;
  const description = settled
    ? `all ${slots.length} allocs settled: ${slots.map((s) => s.description).join('; ')}`
    : [...open.map((s) => s.description), ...pending.map((a) => `${describeAlloc(a)} (pending)`)].join('; ');
  return { settled, slots, description };
}
