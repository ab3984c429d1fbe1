// The building blocks of the reboot scenarios: the checks' list, observe the cluster and the client at one moment.
import type { AllocSnap, Observation, TaskEventRec } from '../checks/types.js';
import type { Lab } from '../lab/types.js';
import type { Nomad } from '../nomad/client.js';
import type { CheckInfo } from '../run/scenario.js';
import type { Deadline } from '../run/deadline.js';
import { toAllocSnap, toNodeSnap, mergeTaskEvents } from '../nomad/parse.js';
import { readBootInfo, readAgentLog, readNetState } from '../lab/observe.js';
import { readCniState } from '../cluster/evidence.js';

/** The checks of the reboot scenario, in report order. */
export const REBOOT_CHECKS: CheckInfo[] = [
  { id: 'client-rebooted', title: 'client rebooted', passesWhen: 'boot_id differs before and after; uptime reset' },
  { id: 'node-back', title: 'node back', passesWhen: 'the same node ID is ready again' },
  { id: 'alloc-restored', title: 'alloc restored', passesWhen: 'every alloc healthy before the reboot runs again under the same ID on the same node, not replaced (per alloc: restored, replaced and why, failed with its failing event, or unknown when the wait ran out)' },
  { id: 'task-restarted', title: 'task restarted', passesWhen: 'every task of every alloc has a Started event (or a newer StartedAt) after the reboot and is running' },
  { id: 'http-reachable', title: 'HTTP reachable', passesWhen: "every mapped port of every alloc answers on its bridge address (from the client) and its host port (from the server): HTTP, or a TCP connect where the job's meta says so" },
  { id: 'no-duplicate-ip', title: 'no duplicate-IP error', passesWhen: 'no task event of any alloc and no client log line contains "duplicate allocation is not allowed"' },
  { id: 'unique-ips', title: 'unique IPs', passesWhen: 'no two live (running) allocs on the node share an address' },
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

/** Read everything the checks need at one moment: boot identity, node, allocs, CNI state, optionally the agent log (probes: job-steps.ts). */
export async function observe(
  i: ObserveInput,
  d: Deadline,
  { clientLog = false }: { clientLog?: boolean } = {},
): Promise<Observation & { clientLog: string[] }> {
  const client = i.lab.machines['client']!;
  const boot = await readBootInfo(client, d);
  const node = toNodeSnap((await i.nomad.node(i.nodeId, { signal: d.signal })).body);
  const jobAllocs = await readJobAllocs(i.nomad, i.jobId, d);
  const nodeAllocs = (await i.nomad.nodeAllocations(i.nodeId, { signal: d.signal })).body.map(toAllocSnap);
  i.history.events = mergeTaskEvents(i.history.events, [...jobAllocs, ...nodeAllocs]);
  const alloc = jobAllocs.find((a) => a.id === i.allocId);
  const cniState = await readCniState(client, { deadline: d });
  const netState = await readNetState(client, d);
  const log = clientLog ? await readAgentLog(client, d) : [];
  return {
    label: i.label, atMs: Date.now(), bootId: boot.bootId, uptimeS: boot.uptimeS,
    node, alloc, jobAllocs, nodeAllocs: nodeAllocs.filter((a) => a.clientStatus === 'running' || a.clientStatus === 'pending'),
    http: [], cniState, netState, clientLog: log,
  };
}

/** Every alloc of the job as a full object (the list stub has no NetworkStatus or PreviousAllocation). */
export async function readJobAllocs(nomad: Nomad, jobId: string, d: Deadline): Promise<AllocSnap[]> {
  const stubs = (await nomad.jobAllocations(jobId, { signal: d.signal })).body;
  return Promise.all(stubs.map(async (s) => toAllocSnap((await nomad.allocation(s.ID, { signal: d.signal })).body)));
}
