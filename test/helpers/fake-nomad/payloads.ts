// Part of the Nomad API stand-in (not Nomad): real-shaped payloads built from the samples in
// test/fixtures/nomad/ (PascalCase keys, nanosecond times, zero times for "never").
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type {
  ApiAgentSelf,
  ApiAllocListStub,
  ApiAllocation,
  ApiEvaluation,
  ApiJob,
  ApiNode,
  ApiNodeListStub,
  ApiTaskEvent,
  ApiTaskState,
} from '../../../lib/nomad/api-types.js';
import { PLAN_ANNOTATIONS_SINCE, forLine, lineAtLeast } from './lines.js';

/** Each sample's text, read once: the stand-in builds payloads from them on every request (alloc, node, agent). */
const sampleText = new Map<string, string>();

/** Read one sample from test/fixtures/nomad/ (a fresh copy each time; the file itself is read once a process). */
export function fixture<T>(name: string): T {
  let text = sampleText.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`../../fixtures/nomad/${name}`, import.meta.url), 'utf8');
    sampleText.set(name, text);
  }
  return JSON.parse(text) as T;
}

export const ZERO_TIME = '0001-01-01T00:00:00Z';
/** Nomad keeps the latest 10 events per task (task_runner.go defaultMaxEvents). */
export const MAX_TASK_EVENTS = 10;

export const nowNs = (): number => Date.now() * 1e6;
export const nowRfc3339 = (): string => new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
export const uuid = (): string => randomUUID();

/** A task event with every field the API sends, like the samples. */
export function taskEvent(
  type: string,
  display: string,
  extra: Partial<ApiTaskEvent> & Record<string, unknown> = {},
): ApiTaskEvent {
  const tmpl = fixture<ApiAllocation>('alloc-running.json').TaskStates!.web!.Events![0]!;
  return {
    ...tmpl,
    Type: type,
    Time: nowNs(),
    DisplayMessage: display,
    Message: '',
    Details: {},
    FailsTask: false,
    ...extra,
  };
}

/** A fresh pending task state. */
export function pendingTaskState(): ApiTaskState {
  // Note: a Nomad 1.9.3 capture shows null (not Go's zero time) for times that never happened
  // Paused and TaskHandle are in every real 1.9.3/1.9.7 TaskState ("" and null for an exec task)
  const st = {
    State: 'pending',
    Failed: false,
    Restarts: 0,
    LastRestart: null,
    StartedAt: null,
    FinishedAt: null,
    Paused: '',
    TaskHandle: null,
    Events: [],
  };
  return st;
}

/** A full allocation object from the sample, with identity fields replaced. */
export function newAllocation(o: {
  id: string;
  evalId: string;
  job: ApiJob;
  group: string;
  index: number;
  node: ApiNode;
  index0: number;
  ports: { label: string; value: number; to: number }[];
}): ApiAllocation {
  const a = fixture<ApiAllocation>('alloc-running.json');
  const tg = o.job.TaskGroups?.find((g) => g.Name === o.group);
  const hostIp = o.node.Attributes?.['unique.network.ip-address'] ?? '';
  const shared = a.AllocatedResources!.Shared as {
    Networks: { IP: string; DynamicPorts: unknown[]; Mode?: string }[];
    Ports: unknown[];
  };
  shared.Networks[0]!.Mode = tg?.Networks?.[0]?.Mode || 'host';
  shared.Networks[0]!.IP = hostIp;
  shared.Networks[0]!.DynamicPorts = o.ports.map((p) => ({
    Label: p.label,
    Value: p.value,
    To: p.to,
    HostNetwork: 'default',
    IgnoreCollision: false,
  }));
  shared.Ports = o.ports.map((p) => ({ Label: p.label, Value: p.value, To: p.to, HostIP: hostIp }));
  const states: Record<string, ApiTaskState> = {};
  for (const t of tg?.Tasks ?? []) states[t.Name] = pendingTaskState();
  return {
    ...a,
    ID: o.id,
    EvalID: o.evalId,
    Name: `${o.job.ID}.${o.group}[${o.index}]`,
    Namespace: o.job.Namespace ?? 'default',
    NodeID: o.node.ID,
    NodeName: o.node.Name,
    JobID: o.job.ID,
    JobType: o.job.Type,
    JobVersion: 0,
    TaskGroup: o.group,
    DesiredStatus: 'run',
    DesiredDescription: '',
    ClientStatus: 'pending',
    ClientDescription: 'No tasks have started',
    TaskStates: states,
    DeploymentStatus: null,
    NetworkStatus: null,
    PreviousAllocation: '',
    NextAllocation: '',
    FollowupEvalID: '',
    CreateIndex: o.index0,
    ModifyIndex: o.index0,
    CreateTime: nowNs(),
    ModifyTime: nowNs(),
  } as ApiAllocation;
}

/** Drop the listed keys whose value is "" (a helper for payloads that omit empty strings). */
export function omitEmpty<T extends object>(a: T): T {
  return Object.fromEntries(Object.entries(a).filter(([k, v]) => !(v === '' && OMIT_EMPTY.has(k)))) as T;
}
const OMIT_EMPTY = new Set([
  'DesiredDescription',
  'ClientDescription',
  'NextAllocation',
  'PreviousAllocation',
  'FollowupEvalID',
  'PreemptedByAllocation',
  'DeploymentID',
]);

/** Go's zero value as the API shows it: "", 0, false, null, {} or a struct of zero values. */
export function isZero(v: unknown): boolean {
  if (v === '' || v === 0 || v === false || v === null || v === undefined) return true;
  if (Array.isArray(v)) return false;
  return typeof v === 'object' && Object.values(v as object).every(isZero);
}

/** Keys of a full Allocation in every real capture (1.9.3 and 1.9.7, /v1/allocation/:id and /v1/node/:id/allocations). */
export const ALLOC_ALWAYS = new Set([
  'AllocModifyIndex',
  'AllocatedResources',
  'ClientDescription',
  'ClientStatus',
  'CreateIndex',
  'CreateTime',
  'DeploymentID',
  'DesiredStatus',
  'EvalID',
  'ID',
  'Job',
  'JobID',
  'Metrics',
  'ModifyIndex',
  'ModifyTime',
  'Name',
  'Namespace',
  'NetworkStatus',
  'NodeID',
  'NodeName',
  'Resources',
  'SharedResources',
  'SigningKeyID',
  'TaskGroup',
  'TaskResources',
  'TaskStates',
]);
/** Fields of the Allocation struct that real Nomad leaves out while they hold Go's zero value. */
const ALLOC_OMIT_ZERO = new Set([
  'DesiredDescription',
  'PreviousAllocation',
  'NextAllocation',
  'FollowupEvalID',
  'PreemptedByAllocation',
  'DeploymentStatus',
  'DesiredTransition',
  'RescheduleTracker',
  'PreemptedAllocations',
  'AllocStates',
]);

/**
 * A full Allocation as real Nomad serializes it (1.9.3/1.9.7 captures): with its Job, zero-valued optional fields left
 * out (no DesiredDescription, NextAllocation... while empty) and no JobType/JobVersion/Services (AllocListStub-only).
 */
export function fullAlloc(a: ApiAllocation, job: ApiJob | null, version: string): ApiAllocation {
  const src = { ...a, Job: job, TaskStates: statesForLine(a.TaskStates, version) } as unknown as Record<
    string,
    unknown
  >;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src))
    if (ALLOC_ALWAYS.has(k) || (ALLOC_OMIT_ZERO.has(k) && !isZero(v))) out[k] = v;
  return out as unknown as ApiAllocation;
}

/** Each task's state with the keys of `version`'s line. */
function statesForLine(states: ApiAllocation['TaskStates'], version: string): ApiAllocation['TaskStates'] {
  return states && Object.fromEntries(Object.entries(states).map(([k, v]) => [k, forLine('taskState', version, v)]));
}

/** A job (parse output or stored job) with the keys of `version`'s line, its groups' and tasks' too. */
export function jobForLine(j: ApiJob, version: string): ApiJob {
  const job = forLine('job', version, j);
  if (!job.TaskGroups) return job;
  return {
    ...job,
    TaskGroups: job.TaskGroups.map((g) => {
      const tg = forLine('taskGroup', version, g);
      const vols = (tg as { Volumes?: Record<string, unknown> | null }).Volumes;
      const withVols = vols
        ? {
            ...tg,
            Volumes: Object.fromEntries(
              Object.entries(vols).map(([k, v]) => [k, forLine('volumeRequest', version, v)]),
            ),
          }
        : tg;
      return withVols.Tasks ? { ...withVols, Tasks: withVols.Tasks.map((t) => forLine('task', version, t)) } : withVols;
    }),
  };
}

/** The AllocListStub view with the real stub's keys, empty strings and nulls included (1.9.3/1.9.7 captures). */
export function allocStub(a: ApiAllocation, version: string): ApiAllocListStub {
  const tmpl = fixture<Record<string, unknown>>('alloc-stub-running.json');
  const full = { ...a, TaskStates: statesForLine(a.TaskStates, version) } as unknown as Record<string, unknown>;
  const stub = Object.fromEntries(
    Object.keys(tmpl).map((k) => [
      k,
      full[k] ?? (typeof tmpl[k] === 'string' ? '' : k === 'DesiredTransition' ? tmpl[k] : null),
    ]),
  );
  stub.DesiredTransition = forLine('desiredTransition', version, stub.DesiredTransition);
  return forLine('allocStub', version, stub) as unknown as ApiAllocListStub;
}

/** Keys of an Evaluation in the real /v1/evaluations capture; the rest are left out while zero (Go omitempty). */
const EVAL_ALWAYS = new Set([
  'CreateIndex',
  'CreateTime',
  'DeploymentID',
  'ID',
  'JobID',
  'JobModifyIndex',
  'ModifyIndex',
  'ModifyTime',
  'Namespace',
  'Priority',
  'QueuedAllocations',
  'SnapshotIndex',
  'Status',
  'TriggeredBy',
  'Type',
]);

/** An Evaluation as the real API serializes it. */
export function evalOut(e: ApiEvaluation, c: { version: string; allocs: Map<string, ApiAllocation> }): ApiEvaluation {
  const out = Object.fromEntries(Object.entries(e).filter(([k, v]) => EVAL_ALWAYS.has(k) || !isZero(v)));
  // an eval the scheduler has not taken yet (pending, no blocked/wait follow-up) has no DeploymentID, QueuedAllocations
  // or SnapshotIndex: the scheduler writes them (real 1.9.7-2.0.5 event streams: Evaluation JobRegistered/pending)
  if (e.Status === 'pending' && !e.WaitUntil)
    for (const k of ['QueuedAllocations', 'SnapshotIndex', ...(out['DeploymentID'] ? [] : ['DeploymentID'])])
      delete out[k];
  if (e.Status === 'complete' && lineAtLeast(c.version, PLAN_ANNOTATIONS_SINCE))
    out.PlanAnnotations = planAnnotations(e, c);
  return forLine('eval', c.version, out) as unknown as ApiEvaluation;
}

/**
 * What the scheduler decided for a processed evaluation, per group (1.11+). The stand-in counts only placements (the
 * allocs the eval created); the other counts (Ignore, Stop, Migrate ...) stay 0: the harness reads none of them.
 */
function planAnnotations(e: ApiEvaluation, c: { allocs: Map<string, ApiAllocation> }) {
  const zero = {
    Ignore: 0,
    Place: 0,
    Migrate: 0,
    Stop: 0,
    InPlaceUpdate: 0,
    DestructiveUpdate: 0,
    Canary: 0,
    Preemptions: 0,
    Disconnect: 0,
    Reconnect: 0,
    RescheduleNow: 0,
    RescheduleLater: 0,
  };
  const groups = Object.keys((e as { QueuedAllocations?: Record<string, number> }).QueuedAllocations ?? {});
  const placed = [...c.allocs.values()].filter((a) => a.EvalID === e.ID);
  return {
    DesiredTGUpdates: Object.fromEntries(
      groups.map((g) => [g, { ...zero, Place: placed.filter((a) => a.TaskGroup === g).length }]),
    ),
    PreemptedAllocs: null,
  };
}

/** The client node, from the sample, renamed. */
export function newNode(name: string, version: string): ApiNode {
  const n = fixture<ApiNode>('node-ready.json');
  n.ID = uuid();
  n.Name = name;
  n.Attributes = { ...n.Attributes, 'nomad.version': version, 'unique.hostname': name };
  n.StatusUpdatedAt = Math.floor(Date.now() / 1000) - 120; // registered two minutes ago
  n.Events = [
    {
      Message: 'Node registered',
      Subsystem: 'Cluster',
      Details: null,
      Timestamp: new Date(Date.now() - 120_000).toISOString().replace(/\.\d+Z$/, 'Z'),
      CreateIndex: 0,
    },
  ];
  // a node with no host volume: null up to 1.9 (the samples), {} from 1.10 (real-1.10.5 reboot-sim and
  // dynamic-host-volume node.json, real-2.0.5 dynamic-host-volume node.json)
  if (lineAtLeast(version, HOST_VOLUMES_EMPTY_SINCE)) n.HostVolumes = {};
  return forLine('node', version, n);
}

/** The first line whose node holds `HostVolumes: {}` rather than null when it has none. */
const HOST_VOLUMES_EMPTY_SINCE = '1.10.0';

/** The NodeListStub view of a node. */
export function nodeStub(n: ApiNode): ApiNodeListStub {
  const s = fixture<ApiNodeListStub[]>('nodes-list.json')[0]!;
  const full = n as unknown as Record<string, unknown>;
  const out = Object.fromEntries(
    Object.keys(s).map((k) => [k, full[k] ?? (s as unknown as Record<string, unknown>)[k]]),
  ) as unknown as ApiNodeListStub;
  out.Address = n.Attributes?.['unique.network.ip-address'] ?? '';
  out.Version = n.Attributes?.['nomad.version'] ?? '';
  return forLine('nodeStub', out.Version, out);
}

/** An evaluation from the sample. */
export function newEvaluation(o: {
  id: string;
  job: ApiJob;
  triggeredBy: string;
  index0: number;
  nodeId?: string;
}): ApiEvaluation {
  const e = fixture<ApiEvaluation>('evaluation.json');
  const queued = Object.fromEntries((o.job.TaskGroups ?? []).map((g) => [g.Name, 0]));
  return {
    ...e,
    ID: o.id,
    JobID: o.job.ID,
    Namespace: o.job.Namespace ?? 'default',
    Type: o.job.Type,
    TriggeredBy: o.triggeredBy,
    NodeID: o.nodeId ?? '',
    Status: 'pending',
    QueuedAllocations: queued,
    CreateIndex: o.index0,
    ModifyIndex: o.index0,
    CreateTime: nowNs(),
    ModifyTime: nowNs(),
  } as ApiEvaluation;
}

/** /v1/agent/self of the server agent, with the configured version. */
export function agentSelf(version: string): ApiAgentSelf {
  const s = fixture<ApiAgentSelf>('agent-self-server.json');
  s.config.Version.Version = version;
  s.member.Tags.build = version;
  s.member.Addr = '127.0.0.1';
  const config = forLine('agentConfig', version, s.config);
  config.Client = forLine('agentClient', version, config.Client);
  return { ...s, config };
}
