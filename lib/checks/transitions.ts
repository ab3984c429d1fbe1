// Pure: Nomad's stream events -> the transitions of each alloc, node and job (what changed, when, quoted), and
// the transient failures among them: an alloc or task that failed and then came back (restarted), which a
// before/after read cannot see. The recorder (lib/steps/event-recorder.ts) feeds it; checks may quote it.

/** The fields of a Nomad stream event read here (lib/parse/event-stream-frames.ts StreamEvent has them all). */
interface EventRecord {
  Topic: string;
  Type: string;
  Key: string;
  Index: number;
  Payload: Record<string, unknown>;
}

/** One event as the harness received it. */
export interface ReceivedEvent {
  /** wall clock, Unix ms, when the frame arrived */
  receivedAtMs: number;
  event: EventRecord;
}

/** One change of one object. */
export interface Transition {
  /** wall clock, Unix ms: the alloc's ModifyTime when it has one, else when it arrived */
  atMs: number;
  index: number;
  kind: 'alloc' | 'task' | 'node' | 'job';
  /** alloc, node or job ID */
  id: string;
  /** Nomad's event Type (PlanResult, AllocationUpdated, NodeStreamEvent, ...) */
  type: string;
  /** status before (undefined for the first event of the object) and after; for a task: its event type */
  from: string | undefined;
  to: string;
  /** task name for kind task */
  task?: string;
  /** one line for people: what changed and why */
  detail: string;
  /** task events and descriptions that fail (Setup Failure, Driver Failure, FailsTask, Terminated with a code) */
  failing: boolean;
  /** a task's `Terminated`: its exit code as Nomad reported it */
  exitCode?: string;
}

const FAILING_TASK_EVENTS = new Set([
  'Setup Failure',
  'Driver Failure',
  'Failed Validation',
  'Terminated',
  'Not Restarting',
  'Failed Artifact Download',
]);
const RECOVERY_TASK_EVENTS = new Set(['Restarting', 'Started']);

type Obj = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const short = (id: string) => id.slice(0, 8);

/** Every transition in the events, in arrival order; an object's repeated status (no change) is not one. */
export function transitionsFrom(events: readonly ReceivedEvent[]): Transition[] {
  const out: Transition[] = [];
  const last = new Map<string, string>();
  const seenTaskEvents = new Set<string>();
  for (const { receivedAtMs, event: e } of events) {
    const p = e.Payload;
    if (e.Topic === 'Allocation' && p['Allocation']) {
      const a = p['Allocation'] as Obj;
      const modified = typeof a['ModifyTime'] === 'number' ? a['ModifyTime'] : 0;
      const at = modified > 0 ? Math.floor(modified / 1e6) : receivedAtMs;
      const status = `${str(a['ClientStatus'])}/${str(a['DesiredStatus'])}`;
      const prev = last.get(`alloc:${e.Key}`);
      if (prev !== status) {
        last.set(`alloc:${e.Key}`, status);
        const why = [str(a['DesiredDescription']), str(a['ClientDescription'])].filter(Boolean).join('; ');
        const [next, previous] = [str(a['NextAllocation']), str(a['PreviousAllocation'])];
        const link = next ? `, replaced by ${short(next)}` : previous ? `, replaces ${short(previous)}` : '';
        out.push({
          atMs: at,
          index: e.Index,
          kind: 'alloc',
          id: e.Key,
          type: e.Type,
          from: prev,
          to: status,
          detail: `alloc ${short(e.Key)} ${prev ?? '(new)'} -> ${status} (${e.Type}${why ? `: ${why}` : ''}${link})`,
          failing: str(a['ClientStatus']) === 'failed',
        });
      }
      for (const [task, st] of Object.entries((a['TaskStates'] ?? {}) as Record<string, Obj>)) {
        for (const ev of (st['Events'] ?? []) as Obj[]) {
          const time = typeof ev['Time'] === 'number' ? ev['Time'] : 0;
          const key = `${e.Key}\u0000${task}\u0000${str(ev['Type'])}\u0000${time}`;
          if (seenTaskEvents.has(key)) continue;
          seenTaskEvents.add(key);
          const type = str(ev['Type']);
          const msg = str(ev['DisplayMessage']) || str(ev['Message']);
          const details = (ev['Details'] ?? {}) as Record<string, string>;
          const exitCode = details['exit_code'];
          const cleanExit = type === 'Terminated' && exitCode === '0';
          const failing = ev['FailsTask'] === true || (FAILING_TASK_EVENTS.has(type) && !cleanExit);
          out.push({
            atMs: time ? Math.floor(time / 1e6) : at,
            index: e.Index,
            kind: 'task',
            id: e.Key,
            type: e.Type,
            from: undefined,
            to: type,
            task,
            detail: `alloc ${short(e.Key)} task ${task}: ${type}${msg ? `: ${msg}` : ''}`,
            failing,
            ...(type === 'Terminated' && exitCode !== undefined ? { exitCode } : {}),
          });
        }
      }
    } else if (e.Topic === 'Node' && p['Node']) {
      const n = p['Node'] as Obj;
      const status = str(n['Status']);
      const prev = last.get(`node:${e.Key}`);
      if (prev === status) continue;
      last.set(`node:${e.Key}`, status);
      const why = str(n['StatusDescription']);
      const name = str(n['Name']) || short(e.Key);
      out.push({
        atMs: receivedAtMs,
        index: e.Index,
        kind: 'node',
        id: e.Key,
        type: e.Type,
        from: prev,
        to: status,
        detail: `node ${name} ${prev ?? '(first seen)'} -> ${status} (${e.Type}${why ? `: ${why}` : ''})`,
        failing: false,
      });
    } else if (e.Topic === 'Job' && p['Job']) {
      const j = p['Job'] as Obj;
      const status = e.Type === 'JobDeregistered' ? 'deregistered' : str(j['Status']);
      const prev = last.get(`job:${e.Key}`);
      if (prev === status) continue;
      last.set(`job:${e.Key}`, status);
      const detail = `job ${e.Key} ${prev ?? '(new)'} -> ${status} (${e.Type})`;
      const base = { atMs: receivedAtMs, index: e.Index, kind: 'job', id: e.Key, type: e.Type } as const;
      out.push({ ...base, from: prev, to: status, detail, failing: false });
    }
  }
  return out;
}

/** An alloc (or one of its tasks) that failed after `sinceMs` and later came back. */
interface TransientFailure {
  allocId: string;
  task?: string;
  failedAtMs: number;
  /** the failing transition, quoted */
  failure: string;
  recoveredAtMs: number;
  recovery: string;
}

/**
 * A task instance that was running before the fault and was ended by it: its `Terminated` arrives only when the client
 * recovers the task after the fault (a reboot's shutdown SIGKILLs a docker container; the driver reports exit 137 on
 * recovery), before the task's first `Started` after the fault. That is the fault's own effect, not a failure after it.
 */
export interface EndedByFault {
  allocId: string;
  task: string;
  endedAtMs: number;
  /** the `Terminated` transition, quoted */
  ended: string;
  exitCode: string | undefined;
  /** the restart that followed (`Restarting` or `Started`), if one did */
  restartedAtMs?: number;
  restart?: string;
}

/**
 * Failures after `sinceMs` that were followed by a recovery of the same alloc: the alloc went `failed` and later
 * `running` again, or a task had a failing event and then `Restarting`/`Started`. A restore that needed such a
 * restart did not restore cleanly, even if the alloc is running by the time anyone looks.
 */
export function transientFailures(
  transitions: readonly Transition[],
  sinceMs: number,
  faultEndsTasks = true,
): TransientFailure[] {
  return restartsAfter(transitions, sinceMs, faultEndsTasks).transient;
}

/** What followed the fault, task by task and alloc by alloc (restartsAfter). */
interface RestartsAfter {
  /** failures after the fault that the same alloc or task recovered from: a restore that needed a restart */
  transient: TransientFailure[];
  /** task instances the fault itself ended, reported only when the client recovered them: not failures */
  endedByFault: EndedByFault[];
}

/**
 * One pass over the transitions after the fault. When the fault ends the tasks (a reboot: `faultEndsTasks`), a
 * task's termination counts as a failure only once the task has started after the fault: before that, the instance it
 * ends is the one the fault killed. Other failing events (Setup Failure, Driver Failure, ...) before the post-fault
 * start are failures of that start and still count. A fault that leaves tasks running (an agent kill, a short
 * partition) ends no instance, so every termination after it is a failure.
 */
export function restartsAfter(
  transitions: readonly Transition[],
  sinceMs: number,
  faultEndsTasks: boolean,
): RestartsAfter {
  const transient: TransientFailure[] = [];
  const ended: EndedByFault[] = [];
  const open = new Map<string, Transition>();
  const startedAfter = new Set<string>();
  const preFaultEnded = new Map<string, EndedByFault>();
  for (const t of transitions) {
    if (t.atMs < sinceMs && !(t.kind === 'alloc' && open.has(t.id))) continue;
    const key = t.kind === 'task' ? `${t.id}\u0000${t.task}` : t.kind === 'alloc' ? t.id : undefined;
    if (key === undefined) continue;
    if (t.kind === 'task') {
      const prior = preFaultEnded.get(key);
      if (prior && prior.restart === undefined && RECOVERY_TASK_EVENTS.has(t.to)) {
        Object.assign(prior, { restartedAtMs: t.atMs, restart: t.detail });
      }
      if (faultEndsTasks && t.to === 'Terminated' && t.failing && !startedAfter.has(key) && !preFaultEnded.has(key)) {
        const e: EndedByFault = {
          allocId: t.id,
          task: t.task!,
          endedAtMs: t.atMs,
          ended: t.detail,
          exitCode: t.exitCode,
        };
        preFaultEnded.set(key, e);
        ended.push(e);
        continue;
      }
      if (t.to === 'Started') startedAfter.add(key);
    }
    const failed = open.get(key);
    const recovered = t.kind === 'alloc' ? t.to.startsWith('running/') : RECOVERY_TASK_EVENTS.has(t.to);
    if (failed && recovered) {
      const task = t.task ? { task: t.task } : {};
      const failure = { failedAtMs: failed.atMs, failure: failed.detail };
      transient.push({ allocId: t.id, ...task, ...failure, recoveredAtMs: t.atMs, recovery: t.detail });
      open.delete(key);
    } else if (t.failing && t.atMs >= sinceMs && !failed) open.set(key, t);
  }
  return { transient, endedByFault: ended };
}
