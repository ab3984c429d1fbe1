// Part of the Nomad API stand-in (not Nomad): the event stream. Every commit of the stand-in's cluster becomes one
// frame `{"Index":N,"Events":[...]}` with Nomad's event shapes (nomad@v1.9.3:nomad/state/events.go eventFromChange):
//   Allocation: Key = alloc ID, FilterKeys = [JobID, DeploymentID], Namespace, Payload {"Allocation": alloc, no Job}
//   Node:       Key = node ID, no FilterKeys, no Namespace, Payload {"Node": node}
//   Job:        Key = job ID, Namespace, Payload {"Job": job}
//   Evaluation: Key = eval ID, FilterKeys = [JobID, DeploymentID], Payload {"Evaluation": eval}
// GET /v1/event/stream writes NDJSON with `{}` heartbeats (on connect and every heartbeatMs), honours `index`
// (the first buffered frame at or after it; nomad/stream/event_buffer.go StartAtClosest) and repeated `topic` filters.
import type { ServerResponse } from 'node:http';
import type { Cluster, CommitType, Table } from './cluster.js';
import type { ApiAllocation } from '../../../lib/nomad/api-types.js';
import { evalOut, fullAlloc, isZero } from './payloads.js';

export interface StreamEventOut {
  Topic: string;
  Type: string;
  Key: string;
  Namespace: string;
  FilterKeys: string[] | null;
  Index: number;
  Payload: Record<string, unknown>;
}
export interface EventFrame {
  Index: number;
  Events: StreamEventOut[];
}

/**
 * An Allocation or Evaluation as the stream sends it, unlike the HTTP API: no key whose value is empty ("", 0, false,
 * null, {}, []) and no unset DesiredTransition (a struct value); a NetworkStatus or QueuedAllocations of empty values
 * stays (a pointer, a map with entries). Every Allocation and Evaluation event of the 1.9.7-2.0.5 whole streams.
 */
const withoutEmpty = <T extends object>(o: T): T =>
  Object.fromEntries(
    Object.entries(o).filter(([k, v]) => {
      if (k === 'DesiredTransition') return !isZero(v);
      if (v === null || typeof v !== 'object') return !isZero(v);
      return Object.keys(v).length > 0;
    }),
  ) as T;

const DEFAULT_TYPE: Record<Table, CommitType> = {
  allocs: 'AllocationUpdated',
  nodes: 'NodeStreamEvent',
  jobs: 'JobRegistered',
  evals: 'EvaluationUpdated',
  deployments: 'DeploymentStatusUpdate',
  volumes: 'HostVolumeRegistered',
};

/** The frame of one commit: every object of `tables` whose ModifyIndex is `idx` (or a job removed by it). */
export function eventsOfCommit(
  c: Cluster,
  idx: number,
  tables: Table[],
  type: CommitType | undefined,
  jobsBefore: Set<string>,
): EventFrame | undefined {
  const events: StreamEventOut[] = [];
  type Payload = Record<string, unknown>;
  const ev = (table: Table, topic: string, key: string, ns: string, filterKeys: string[] | null, payload: Payload) => {
    const t = type ?? DEFAULT_TYPE[table];
    const Payload = structuredClone(payload);
    events.push({ Topic: topic, Type: t, Key: key, Namespace: ns, FilterKeys: filterKeys, Index: idx, Payload });
  };
  const nodeChanged = tables.includes('nodes') && c.node.ModifyIndex === idx;
  if (nodeChanged) ev('nodes', 'Node', c.node.ID, '', null, { Node: c.node });
  if (tables.includes('nodes'))
    for (const n of c.otherNodes) if (n.ModifyIndex === idx) ev('nodes', 'Node', n.ID, '', null, { Node: n });
  if (tables.includes('jobs')) {
    for (const j of c.jobs.values()) {
      if (j.ModifyIndex === idx) ev('jobs', 'Job', j.ID, j.Namespace ?? 'default', null, { Job: j });
    }
    for (const id of jobsBefore) if (!c.jobs.has(id)) ev('jobs', 'Job', id, 'default', null, { Job: { ID: id } });
  }
  if (tables.includes('allocs')) {
    const jobs = new Set<string>();
    for (const a of c.allocs.values()) {
      if (a.ModifyIndex !== idx) continue;
      // Note: real Nomad sets alloc.Job = nil "to help keep size of alloc event down"; the payload has no Job key
      const { Job: _job, ...alloc } = fullAlloc(a, null, c.version) as ApiAllocation & { Job?: unknown };
      // a placement as the plan wrote it: no client has touched it yet, so no TaskStates, NetworkStatus or
      // ClientDescription (real 1.9.7 and 2.0.5 PlanResult events)
      const placed = alloc as Partial<ApiAllocation>;
      if ((type ?? DEFAULT_TYPE.allocs) === 'PlanResult' && a.CreateIndex === idx)
        for (const k of ['TaskStates', 'NetworkStatus', 'ClientDescription'] as const) delete placed[k];
      ev('allocs', 'Allocation', a.ID, a.Namespace, [a.JobID, ''], { Allocation: withoutEmpty(alloc) });
      jobs.add(a.JobID);
    }
    // As in the real capture (test/fixtures/nomad/event-stream/real-1.9.3-*): the same transaction also touches the
    // node (a client update) or the job (a plan), which are sent too, with the transaction's Type.
    const t = type ?? DEFAULT_TYPE.allocs;
    if (jobs.size && t === 'AllocationUpdated' && !nodeChanged)
      ev('allocs', 'Node', c.node.ID, '', null, { Node: c.node });
    if (jobs.size && t === 'PlanResult') {
      for (const id of jobs) {
        const j = c.jobs.get(id);
        if (j && j.ModifyIndex !== idx) ev('allocs', 'Job', j.ID, j.Namespace ?? 'default', null, { Job: j });
      }
    }
  }
  if (tables.includes('evals')) {
    for (const e of c.evals.values()) {
      if (e.ModifyIndex !== idx) continue;
      ev('evals', 'Evaluation', e.ID, e.Namespace, [e.JobID, ''], { Evaluation: withoutEmpty(evalOut(e, c)) });
    }
  }
  if (tables.includes('deployments'))
    for (const d of c.deployments.values())
      if (d.ModifyIndex === idx) ev('deployments', 'Deployment', d.ID, d.Namespace, [d.JobID], { Deployment: d });
  return events.length ? { Index: idx, Events: events } : undefined;
}

/** Does `e` pass the `topic` params (`Topic`, `Topic:*`, `Topic:<key or filter key>`)? No topic = every event. */
export function matchesTopics(e: StreamEventOut, topics: string[]): boolean {
  if (topics.length === 0) return true;
  return topics.some((t) => {
    const [topic, key = '*'] = t.split(':', 2) as [string, string?];
    if (topic !== '*' && topic !== e.Topic) return false;
    return key === '*' || e.Key === key || (e.FilterKeys ?? []).includes(key);
  });
}

/** Open streams of one stand-in, so a test can cut them (the server or the tunnel dropping). */
export interface StreamControl {
  open: Set<ServerResponse>;
  /** heartbeat interval (Nomad: 30 s) */
  heartbeatMs: number;
}

/** Serve GET /v1/event/stream on `res` until the client goes away or the stand-in cuts it. */
export function serveEventStream(c: Cluster, query: URLSearchParams, res: ServerResponse, ctl: StreamControl): void {
  const raw = query.get('index') ?? '0';
  if (!/^\d+$/.test(raw)) {
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`Unable to parse index: strconv.Atoi: parsing ${JSON.stringify(raw)}: invalid syntax`);
    return;
  }
  const from = Number(raw);
  const topics = query.getAll('topic');
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache', vary: 'Accept-Encoding' });
  ctl.open.add(res);
  // Note: the first buffered frame at or after `index`; index 0 = the head of the buffer (the oldest kept)
  let next = c.eventLog.findIndex((f) => f.Index >= from);
  if (next < 0) next = c.eventLog.length;
  const write = (line: string) => void (!res.destroyed && res.write(`${line}\n`));
  write('{}');
  const beat = setInterval(() => write('{}'), ctl.heartbeatMs);
  let stopped = false;
  const pump = async () => {
    while (!stopped && !res.destroyed) {
      for (; next < c.eventLog.length; next++) {
        const f = c.eventLog[next]!;
        const events = f.Events.filter((e) => matchesTopics(e, topics));
        if (events.length) write(JSON.stringify({ Index: f.Index, Events: events }));
      }
      await c.changed();
    }
  };
  const end = () => {
    stopped = true;
    clearInterval(beat);
    ctl.open.delete(res);
  };
  res.on('close', end);
  void pump();
}

/** Cut every open stream; with `midLine`, first write half of a frame (a line cut off by the drop). */
export function dropStreams(ctl: StreamControl, { midLine = false } = {}): number {
  const n = ctl.open.size;
  for (const res of [...ctl.open]) {
    if (midLine) res.write('{"Index":999999,"Events":[{"Topic":"Allocation","Ty');
    res.socket?.destroy();
    res.destroy();
  }
  return n;
}
