// The whole job across a disruption: wait until every alloc is healthy (or say why it cannot be), probe every mapped
// port of every alloc, and wait until the job has settled after the disruption with evidence newer than it.
import { performance } from 'node:perf_hooks';
import type { AllocSnap, HttpProbe, NodeSnap, SettleRecord, TaskEventRec } from '../model/evidence.js';
import { probeKindOf, type ProbeKinds } from '../checks/probe-kind.js';
import type { Lab } from '../model/lab.js';
import { httpProbe, tcpProbe } from '../lab/observe.js';
import type { ApiAllocListStub } from '../nomad/api-types.js';
import type { Nomad } from '../nomad/client.js';
import { mergeTaskEvents } from '../nomad/parse.js';
import { placementFailureMessage, type ApiAllocMetric, type LabSize } from '../nomad/parse-placement.js';
import { blockingProbe } from '../nomad/wait.js';
import { TimeoutError } from '../errors.js';
import type { Deadline } from '../run/deadline.js';
import { waitFor, type Probe } from '../run/wait.js';
import { jobSettleState, type Disruption } from './settle.js';
import { readJobAllocs } from './reboot-steps.js';

/** A task-event history shared by the steps of one run (Nomad keeps only the last 10 events per task). */
export interface History {
  events: Record<string, TaskEventRec[]>;
}

/** "task web dead (last events: A / B / C)" for every task of an alloc. */
function taskLine(a: ApiAllocListStub): string {
  return Object.entries(a.TaskStates ?? {}).map(([n, t]) => {
    const evs = (t.Events ?? []).slice(-3).map((e) => `${e.Type}: ${e.DisplayMessage || e.Message || ''}`).join(' / ');
    return `task ${n} ${t.State}${evs ? ` (last events: ${evs})` : ''}`;
  }).join('; ');
}

/** One line per alloc with its last events, for a job that never became healthy. */
export function describeJobAllocs(allocs: ApiAllocListStub[]): string {
  return allocs.map((a) => {
    const desired = a.DesiredStatus !== 'run' ? `/${a.DesiredStatus}` : '';
    return `${a.Name} ${a.ID.slice(0, 8)} ${a.ClientStatus}${desired}: ${taskLine(a) || 'no task state'}`;
  }).join('; ');
}

const healthy = (a: ApiAllocListStub): boolean =>
  a.ClientStatus === 'running' && Object.values(a.TaskStates ?? {}).every((t) => t.State === 'running');
const ENDED = new Set(['failed', 'lost', 'complete']);

/** Nomad's placement failure for the job when it has a blocked eval and an eval with FailedTGAllocs; else undefined. */
async function placementFailure(nomad: Nomad, jobId: string, lab: LabSize, d: Deadline): Promise<string | undefined> {
  const evals = (await nomad.evaluations({ signal: d.signal })).body.filter((e) => e.JobID === jobId);
  const failed = evals
    .filter((e) => e.FailedTGAllocs && Object.keys(e.FailedTGAllocs).length)
    .sort((a, b) => b.ModifyIndex - a.ModifyIndex)[0];
  if (!failed || !evals.some((e) => e.Status === 'blocked')) return undefined;
  return placementFailureMessage(jobId, failed.FailedTGAllocs as Record<string, ApiAllocMetric>, lab);
}

/**
 * Wait until every alloc the job asks for (`expected`) runs with every task running; returns them as full allocs.
 * Fails at once when an alloc failed (naming each alloc and its last events) or Nomad could not place the job (its
 * placement failure and the flag that fixes it): both before any reboot, never as a verdict.
 */
export async function waitForJobHealthy(nomad: Nomad, jobId: string, expected: number, lab: LabSize, d: Deadline): Promise<AllocSnap[]> {
  const judge = async (allocs: ApiAllocListStub[], dd: Deadline): Promise<Probe<ApiAllocListStub[]>> => {
    const live = allocs.filter((a) => a.DesiredStatus === 'run');
    const ok = live.filter(healthy);
    if (ok.length >= expected && live.length === ok.length) return { done: true, value: ok };
    const state = `${ok.length} of ${expected} allocs healthy; ${describeJobAllocs(allocs) || 'no alloc yet'}`;
    if (live.some((a) => ENDED.has(a.ClientStatus))) return { done: false, terminal: true, reason: `job "${jobId}" never became healthy: ${state}` };
    const unplaced = live.length < expected ? await placementFailure(nomad, jobId, lab, dd) : undefined;
    return unplaced ? { done: false, terminal: true, reason: unplaced } : { done: false, reason: state };
  };
  const probe = blockingProbe((q) => nomad.jobAllocations(jobId, q), judge);
  const ok = await waitFor(`every alloc of job "${jobId}" (${expected}) running`, probe, { deadline: d, intervals: [50] });
  const ids = new Set(ok.map((a) => a.ID));
  return (await readJobAllocs(nomad, jobId, d)).filter((a) => ids.has(a.id));
}

/** One probe of one port: HTTP GET or a TCP connect, from `from` to host:port. */
async function probeOne(lab: Lab, from: string, kind: 'http' | 'tcp', host: string, port: number, d: Deadline): Promise<HttpProbe> {
  const m = lab.machines[from]!;
  return kind === 'http' ? httpProbe(m, `http://${host}:${port}/`, d) : tcpProbe(m, host, port, d);
}

/**
 * Probe every mapped port of one alloc (but those the job marks `none`): its bridge address from the client, its host
 * port from the server.
 */
export async function probeAllocPorts(lab: Lab, alloc: AllocSnap, node: NodeSnap | undefined, kinds: ProbeKinds | undefined, d: Deadline): Promise<HttpProbe[]> {
  const out: HttpProbe[] = [];
  const tag = (p: HttpProbe, port: string, target: 'bridge' | 'host-port', kind: 'http' | 'tcp'): HttpProbe =>
    ({ ...p, allocId: alloc.id, port, target, kind });
  for (const m of alloc.ports) {
    const kind = probeKindOf(kinds, alloc.taskGroup, m.label);
    if (kind === 'none') continue;
    if (alloc.address) out.push(tag(await probeOne(lab, 'client', kind, alloc.address, m.to, d), m.label, 'bridge', kind));
    const hostIp = m.hostIp || node?.attributes['unique.network.ip-address'];
    const noHost: HttpProbe = { from: 'server', url: `(host port ${m.value})`, ok: false, status: undefined, error: 'no host address for the mapped port' };
    out.push(tag(hostIp ? await probeOne(lab, 'server', kind, hostIp, m.value, d) : noHost, m.label, 'host-port', kind));
  }
  return out;
}

/** Probe every running alloc's ports once. */
export async function probeAllocs(lab: Lab, allocs: AllocSnap[], node: NodeSnap | undefined, kinds: ProbeKinds | undefined, d: Deadline): Promise<HttpProbe[]> {
  const out: HttpProbe[] = [];
  for (const a of allocs.filter((x) => x.clientStatus === 'running')) out.push(...(await probeAllocPorts(lab, a, node, kinds, d)));
  return out;
}

/** Poll until every probe of every given alloc answers (a server takes a moment to bind after its task starts). */
export async function waitForReachable(lab: Lab, allocs: AllocSnap[], node: NodeSnap | undefined, kinds: ProbeKinds | undefined, d: Deadline): Promise<HttpProbe[]> {
  const what = `every mapped port of ${allocs.length} alloc${allocs.length === 1 ? '' : 's'} to answer (bridge address and host port)`;
  return waitFor(what, async (dd) => {
    const probes = await probeAllocs(lab, allocs, node, kinds, dd);
    const bad = probes.filter((p) => !p.ok).map((p) => `${p.allocId?.slice(0, 8)} ${p.port} ${p.from} -> ${p.url}: ${p.error}`);
    return bad.length === 0 ? { done: true, value: probes } : { done: false, reason: bad.join('; ') };
  }, { deadline: d, intervals: [500, 1000, 2000] });
}

export interface SettleInput {
  nomad: Nomad;
  jobId: string;
  /** the allocs healthy before the disruption */
  watched: string[];
  since: Disruption;
  history: History;
  quietMs: number;
  /** false when the fault leaves the tasks running (agent-kill, a short partition): no restart is awaited */
  tasksRestart?: boolean;
}

/**
 * Wait until the job has settled after the disruption: every judged alloc's place settled with evidence newer than the
 * disruption (slotState), no alloc meant to run pending, and no alloc of the job changed for `quietMs`. Never "the
 * first read after the node is back". When the deadline comes first, returns settled=false with the last state (the
 * verdict then calls what is still changing "unknown").
 */
export async function waitForJobSettled(i: SettleInput, d: Deadline): Promise<SettleRecord & { allocs: AllocSnap[]; noticedAtMs: Record<string, number> }> {
  // When each judged place was first seen settled (Unix ms): the restore-notice latency (lib/scenario/restore-latency.ts)
  const noticedAtMs: Record<string, number> = {};
  let fingerprint = '';
  let changedAt = performance.now();
  let last: AllocSnap[] = [];
  let lastReason = 'no read yet';
  const judge = async (_stubs: unknown, dd: Deadline): Promise<Probe<AllocSnap[]>> => {
    const allocs = await readJobAllocs(i.nomad, i.jobId, dd);
    i.history.events = mergeTaskEvents(i.history.events, allocs);
    last = allocs;
    const fp = allocs.map((a) => `${a.id}:${a.modifyIndex}`).sort().join(',');
    if (fp !== fingerprint) [fingerprint, changedAt] = [fp, performance.now()];
    const state = jobSettleState(allocs, i.watched, i.since, { tasksRestart: i.tasksRestart ?? true });
    const seenAt = Date.now();
    for (const s of state.slots) if (s.settled && s.currentId === s.allocId) noticedAtMs[s.allocId] ??= seenAt;
    const quietFor = performance.now() - changedAt;
    if (state.settled && quietFor >= i.quietMs) return { done: true, value: allocs };
    const quiet = `quiet for ${(quietFor / 1000).toFixed(1)}s of ${(i.quietMs / 1000).toFixed(0)}s`;
    lastReason = state.settled ? `${state.description}; ${quiet}` : state.description;
    return { done: false, reason: lastReason };
  };
  const quietS = (i.quietMs / 1000).toFixed(0);
  const what = `job "${i.jobId}" to settle after the disruption (${i.watched.length} allocs; quiet for ${quietS}s, none pending)`;
  // Note: each blocking read returns after a quarter of the quiet period at most, so quiet is noticed soon after it began.
  const probe = blockingProbe((q) => i.nomad.jobAllocations(i.jobId, q), judge, Math.max(250, i.quietMs / 4));
  try {
    const allocs = await waitFor(what, probe, { deadline: d, intervals: [50] });
    return { settled: true, reason: jobSettleState(allocs, i.watched, i.since, { tasksRestart: i.tasksRestart ?? true }).description, quietMs: i.quietMs, allocs, noticedAtMs };
  } catch (err) {
    if (!(err instanceof TimeoutError)) throw err;
    return { settled: false, reason: lastReason, quietMs: i.quietMs, allocs: last, noticedAtMs };
  }
}
