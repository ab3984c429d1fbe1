// The building blocks of the reboot scenarios: observe the cluster and the client, settle after a reboot, wait for HTTP.
import type { AllocSnap, NodeSnap, Observation, TaskEventRec, HttpProbe } from '../model/evidence.js';
import type { Lab, RebootRecord } from '../model/lab.js';
import type { Nomad } from '../nomad/client.js';
import type { CheckDef } from '../model/check.js';
import { REBOOT_CHECK_DEFS } from '../checks/reboot.js';
import type { Deadline } from '../run/deadline.js';
import { waitFor, type Probe } from '../run/wait.js';
import { blockingProbe } from '../nomad/wait.js';
import { toAllocSnap, toNodeSnap, mergeTaskEvents } from '../nomad/parse.js';
import { readBootInfo, httpProbe, readAgentLog, readNetState } from '../lab/observe.js';
import { readCniState } from '../cluster/evidence.js';
import { settledState } from './settle.js';

/** The checks of the reboot scenario, in report order (one definition each, in lib/checks). */
export const REBOOT_CHECKS: readonly CheckDef[] = REBOOT_CHECK_DEFS;

export interface ObserveInput {
  label: string;
  nomad: Nomad;
  lab: Lab;
  jobId: string;
  allocId: string;
  nodeId: string;
  /** task-event history, updated in place from every read */
  history: { events: Record<string, TaskEventRec[]> };
}

/** Read everything the checks need at one moment: boot identity, node, allocs, HTTP probes, CNI state, optionally the agent log. */
export async function observe(
  i: ObserveInput,
  d: Deadline,
  { probeHttp = true, clientLog = false }: { probeHttp?: boolean; clientLog?: boolean } = {},
): Promise<Observation & { clientLog: string[] }> {
  const client = i.lab.machines['client']!;
  const boot = await readBootInfo(client, d);
  const node = toNodeSnap((await i.nomad.node(i.nodeId, { signal: d.signal })).body);
  const jobAllocs = await readJobAllocs(i.nomad, i.jobId, d);
  const nodeAllocs = (await i.nomad.nodeAllocations(i.nodeId, { signal: d.signal })).body.map(toAllocSnap);
  i.history.events = mergeTaskEvents(i.history.events, [...jobAllocs, ...nodeAllocs]);
  const alloc = jobAllocs.find((a) => a.id === i.allocId);
  const http = probeHttp && alloc ? await probeAlloc(i.lab, alloc, node, d) : [];
  const cniState = await readCniState(client, { deadline: d });
  const netState = await readNetState(client, d);
  const log = clientLog ? await readAgentLog(client, d) : [];
  return {
    label: i.label, atMs: Date.now(), bootId: boot.bootId, uptimeS: boot.uptimeS,
    node, alloc, jobAllocs, nodeAllocs: nodeAllocs.filter((a) => a.clientStatus === 'running' || a.clientStatus === 'pending'),
    http, cniState, netState, clientLog: log,
  };
}

/** Every alloc of the job as a full object (the list stub has no NetworkStatus or PreviousAllocation). */
export async function readJobAllocs(nomad: Nomad, jobId: string, d: Deadline): Promise<AllocSnap[]> {
  const stubs = (await nomad.jobAllocations(jobId, { signal: d.signal })).body;
  return Promise.all(stubs.map(async (s) => toAllocSnap((await nomad.allocation(s.ID, { signal: d.signal })).body)));
}

/** Probe the alloc's HTTP port two ways: its bridge address from the client, its mapped host port from the server. */
export async function probeAlloc(lab: Lab, alloc: AllocSnap, node: NodeSnap, d: Deadline): Promise<HttpProbe[]> {
  const port = alloc.ports.find((p) => p.label === 'http') ?? alloc.ports[0];
  const probes: HttpProbe[] = [];
  if (!alloc.address) probes.push({ from: 'client', url: '(bridge address)', ok: false, status: undefined, error: 'the alloc reports no NetworkStatus.Address' });
  else probes.push(await httpProbe(lab.machines['client']!, `http://${alloc.address}:${port?.to && port.to > 0 ? port.to : 80}/`, d));
  const hostIp = port?.hostIp || node.attributes['unique.network.ip-address'];
  if (!port || !hostIp) probes.push({ from: 'server', url: '(host port)', ok: false, status: undefined, error: 'the alloc reports no mapped host port' });
  else probes.push(await httpProbe(lab.machines['server']!, `http://${hostIp}:${port.value}/`, d));
  return probes;
}

/** Poll until both HTTP probes answer (python's http.server takes a moment to bind after the task starts). */
export async function waitForHttp(lab: Lab, alloc: AllocSnap, node: NodeSnap, d: Deadline): Promise<HttpProbe[]> {
  return waitFor(`HTTP on alloc ${alloc.id.slice(0, 8)} (bridge address and host port)`, async (dd) => {
    const probes = await probeAlloc(lab, alloc, node, dd);
    const bad = probes.filter((p) => !p.ok);
    return bad.length === 0 ? { done: true, value: probes } : { done: false, reason: bad.map((p) => `${p.from} -> ${p.url}: ${p.error}`).join('; ') };
  }, { deadline: d, intervals: [500, 1000, 2000] });
}

/** Wait (with blocking queries on the job's allocs) until the watched alloc is restored, replaced or failed; returns a one-line description. */
export async function settleAfterReboot(i: Omit<ObserveInput, 'label'> & { reboot: RebootRecord }, d: Deadline): Promise<string> {
  const judge = async (_stubs: unknown, dd: Deadline): Promise<Probe<string>> => {
    const allocs = await readJobAllocs(i.nomad, i.jobId, dd);
    i.history.events = mergeTaskEvents(i.history.events, allocs);
    const state = settledState(allocs, i.allocId, i.reboot.requestedAt);
    return state.settled ? { done: true, value: state.description } : { done: false, reason: state.description };
  };
  return waitFor(`alloc ${i.allocId.slice(0, 8)} to be restored, replaced or failed after the reboot`,
    blockingProbe((q) => i.nomad.jobAllocations(i.jobId, q), judge), { deadline: d, intervals: [50] });
}
