// Pure: Nomad API JSON -> the snapshot types the checks read (lib/checks/types.ts). No I/O.
import { HarnessError } from '../errors.js';
import type {
  AllocSnap,
  DeploymentSnap,
  EvalSnap,
  NodeSnap,
  PortMapping,
  TaskEventRec,
  TaskStateSnap,
} from '../model/evidence.js';
import type {
  ApiAllocListStub,
  ApiAllocation,
  ApiAllocState,
  ApiDeployment,
  ApiEvaluation,
  ApiNode,
  ApiNodeListStub,
  ApiTaskEvent,
  ApiTaskState,
} from './api-types.js';

/** Go's zero time.Time as the API prints it: means "never". */
const ZERO_TIME = '0001-01-01T00:00:00Z';

/** An RFC3339 time, or undefined for Go's zero time / empty. */
export function nomadTime(s: string | undefined | null): string | undefined {
  return !s || s === ZERO_TIME || s.startsWith('0001-01-01T') ? undefined : s;
}

/** Unix nanoseconds (the API's int64) -> Unix milliseconds. */
function nsToMs(ns: number): number {
  return Math.floor(ns / 1e6);
}

/** One API task event -> TaskEventRec (ms time; DisplayMessage falling back to Message). */
export function toTaskEvent(e: ApiTaskEvent): TaskEventRec {
  expectObject(e, 'a task event', ['Type', 'string'], ['Time', 'number']);
  const details = { ...(e.Details ?? {}) };
  return {
    type: e.Type,
    timeMs: nsToMs(e.Time),
    message: e.DisplayMessage || e.Message || '',
    details,
    failsTask: e.FailsTask ?? details.fails_task === 'true',
  };
}

/** One API TaskState -> TaskStateSnap (events oldest first, as Nomad stores them). */
function toTaskState(s: ApiTaskState): TaskStateSnap {
  return {
    state: s.State,
    failed: s.Failed,
    restarts: s.Restarts ?? 0,
    startedAt: nomadTime(s.StartedAt),
    finishedAt: nomadTime(s.FinishedAt),
    events: (s.Events ?? []).map(toTaskEvent),
  };
}

/** A full Allocation or an AllocListStub -> AllocSnap; stub-only reads leave address/previous undefined. */
export function toAllocSnap(a: ApiAllocation | ApiAllocListStub): AllocSnap {
  expectObject(a, 'an allocation', ['ID', 'string'], ['ClientStatus', 'string'], ['NodeID', 'string']);
  const full = a as Partial<ApiAllocation>;
  const tasks: Record<string, TaskStateSnap> = {};
  for (const [name, st] of Object.entries(a.TaskStates ?? {})) tasks[name] = toTaskState(st);
  return {
    id: a.ID,
    name: a.Name,
    nodeId: a.NodeID,
    jobId: a.JobID,
    taskGroup: a.TaskGroup,
    clientStatus: a.ClientStatus,
    desiredStatus: a.DesiredStatus,
    desiredDescription: a.DesiredDescription ?? '',
    clientDescription: a.ClientDescription ?? '',
    createIndex: a.CreateIndex,
    modifyIndex: a.ModifyIndex,
    createTimeMs: nsToMs(a.CreateTime ?? 0),
    previousAllocation: full.PreviousAllocation || undefined,
    nextAllocation: a.NextAllocation || undefined,
    ...(a.FollowupEvalID ? { followupEvalId: a.FollowupEvalID } : {}),
    ...(a.DesiredTransition?.Migrate ? { migrate: true } : {}),
    ...clientStatusStates(full.AllocStates),
    address: full.NetworkStatus?.Address || undefined,
    ports: (full.AllocatedResources?.Shared?.Ports ?? []).map(toPort),
    tasks,
  };
}

/** AllocStates' ClientStatus entries (Field 0), oldest first; nothing when the alloc has none (a stub never has). */
function clientStatusStates(states: ApiAllocState[] | null | undefined): Pick<AllocSnap, 'clientStatusStates'> {
  const own = (states ?? []).filter((s) => s.Field === 0 && typeof s.Value === 'string');
  if (!own.length) return {};
  return { clientStatusStates: own.map((s) => ({ status: s.Value, atMs: Date.parse(s.Time) })) };
}

function toPort(p: { Label: string; Value: number; To: number; HostIP: string }): PortMapping {
  // Note: To = -1 or 0 means "same as the host port" (nomad-reference §2.5).
  return { label: p.Label, value: p.Value, to: p.To > 0 ? p.To : p.Value, hostIp: p.HostIP ?? '' };
}

/** A full Node or a NodeListStub -> NodeSnap (the stub has no StatusUpdatedAt, Attributes or Events). */
export function toNodeSnap(n: ApiNode | ApiNodeListStub): NodeSnap {
  expectObject(n, 'a node', ['ID', 'string'], ['Status', 'string']);
  const full = n as Partial<ApiNode>;
  const drivers: NodeSnap['drivers'] = {};
  for (const [name, d] of Object.entries(n.Drivers ?? {})) drivers[name] = { detected: d.Detected, healthy: d.Healthy };
  return {
    id: n.ID,
    name: n.Name,
    status: n.Status,
    statusUpdatedAt: full.StatusUpdatedAt ?? 0,
    drivers,
    attributes: { ...(full.Attributes ?? {}) },
    events: (full.Events ?? []).map((e) => ({ message: e.Message, timestamp: e.Timestamp })),
  };
}

/** An Evaluation -> EvalSnap (WaitUntil as Unix ms; Nomad leaves it out while zero). */
export function toEvalSnap(e: ApiEvaluation): EvalSnap {
  expectObject(e, 'an evaluation', ['ID', 'string'], ['Status', 'string']);
  const until = Date.parse(nomadTime(e.WaitUntil) ?? '');
  return {
    id: e.ID,
    status: e.Status,
    triggeredBy: e.TriggeredBy ?? '',
    statusDescription: e.StatusDescription ?? '',
    waitUntilMs: Number.isFinite(until) ? until : undefined,
    createIndex: e.CreateIndex ?? 0,
    modifyIndex: e.ModifyIndex ?? 0,
  };
}

/** A Deployment -> DeploymentSnap. */
export function toDeploymentSnap(d: ApiDeployment): DeploymentSnap {
  expectObject(d, 'a deployment', ['ID', 'string'], ['Status', 'string']);
  return { id: d.ID, status: d.Status, statusDescription: d.StatusDescription ?? '', modifyIndex: d.ModifyIndex ?? 0 };
}

/** Add the task events seen in `allocs` to `history` (per alloc ID, all tasks), de-duplicated by
 * (type, time, message), oldest first. Needed because Nomad keeps only the last 10 per task. */
export function mergeTaskEvents(
  history: Readonly<Record<string, readonly TaskEventRec[]>>,
  allocs: readonly AllocSnap[],
): Record<string, TaskEventRec[]> {
  const out: Record<string, TaskEventRec[]> = {};
  for (const [id, evs] of Object.entries(history)) out[id] = [...evs];
  for (const a of allocs) {
    const list = out[a.id] ?? [];
    out[a.id] = list;
    const seen = new Set(list.map(eventKey));
    for (const [name, task] of Object.entries(a.tasks)) {
      for (const e of task.events) {
        const k = eventKey({ ...e, task: name });
        if (!seen.has(k)) {
          seen.add(k);
          list.push({ ...e, task: name });
        }
      }
    }
    list.sort((x, y) => x.timeMs - y.timeMs); // stable: equal times keep the order Nomad gave
  }
  return out;
}

function eventKey(e: TaskEventRec): string {
  return `${e.task ?? ''}\u0000${e.type}\u0000${e.timeMs}\u0000${e.message}`;
}

// Reject input that is not the object we expect, with what was expected and an excerpt of what came.
function expectObject(v: unknown, what: string, ...fields: [string, 'string' | 'number'][]): void {
  const bad =
    v === null || typeof v !== 'object'
      ? 'not an object'
      : fields
          .filter(([k, t]) => typeof (v as Record<string, unknown>)[k] !== t)
          .map(([k, t]) => `${k} (${t})`)
          .join(', ');
  if (bad) throw new HarnessError(`expected ${what} from the Nomad API, missing or wrong: ${bad}; got ${excerpt(v)}`);
}

function excerpt(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}
