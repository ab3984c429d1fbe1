// The building blocks of the reboot scenarios: observe the cluster and the client, settle after a reboot, wait for HTTP.
import type { AllocSnap, NodeSnap, Observation, TaskEventRec, HttpProbe } from '../checks/types.js';
import type { Lab, RebootRecord } from '../lab/types.js';
import type { Nomad } from '../nomad/client.js';
import type { CheckInfo } from '../run/scenario.js';
import type { Deadline } from '../run/deadline.js';
import { waitFor, type Probe } from '../run/wait.js';
import { blockingProbe } from '../nomad/wait.js';
import { toAllocSnap, toNodeSnap, mergeTaskEvents } from '../nomad/parse.js';
import { readBootInfo, httpProbe, readAgentLog, readNetState } from '../lab/observe.js';
import { readCniState } from '../cluster/evidence.js';
import { settledState } from './settle.js';

/** The checks of the reboot scenario, in report order. */
export const REBOOT_CHECKS: CheckInfo[] = [
  { id: 'client-rebooted', title: 'client rebooted', passesWhen: 'boot_id differs before and after; uptime reset' },
  { id: 'node-back', title: 'node back', passesWhen: 'the same node ID is ready again' },
  { id: 'alloc-restored', title: 'alloc restored', passesWhen: 'the same alloc ID is running on the same node; no replacement was created' },
  { id: 'task-restarted', title: 'task restarted', passesWhen: 'a Started event (or a newer StartedAt) after the reboot, task running' },
  { id: 'http-reachable', title: 'HTTP reachable', passesWhen: 'the task answers on its bridge address (from the client) and on its mapped host port (from the server)' },
  { id: 'no-duplicate-ip', title: 'no duplicate-IP error', passesWhen: 'no task event and no client log line contains "duplicate allocation is not allowed"' },
  { id: 'unique-ips', title: 'unique IPs', passesWhen: 'no two live allocs on the node share an address' },
  { id: 'no-leaks', title: 'no leaked network state', passesWhen: 'every host-local reservation and alloc network namespace belongs to a live alloc, and the nomad bridge has no more veths than live allocs' },
];

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
export async function settleAfterReboot(i: Omit<ObserveInput, 'label'> & { reboot: RebootRecord; tasksRestart?: boolean; awaitReplacement?: boolean }, d: Deadline): Promise<string> {
  const judge = async (_stubs: unknown, dd: Deadline): Promise<Probe<string>> => {
    const allocs = await readJobAllocs(i.nomad, i.jobId, dd);
    i.history.events = mergeTaskEvents(i.history.events, allocs);
    const state = settledState(allocs, i.allocId, i.reboot.requestedAt, { tasksRestart: i.tasksRestart ?? true, awaitReplacement: i.awaitReplacement ?? false });
    return state.settled ? { done: true, value: state.description } : { done: false, reason: state.description };
  };
  return waitFor(`alloc ${i.allocId.slice(0, 8)} to be restored, replaced or failed after the reboot`,
    blockingProbe((q) => i.nomad.jobAllocations(i.jobId, q), judge), { deadline: d, intervals: [50] });
}
