// The building blocks of the reboot scenarios: observe the cluster and the client at one moment.
import type { AllocSnap, Observation, TaskEventRec } from '../model/evidence.js';
import { firstOf, type Lab } from '../model/lab.js';
import type { Nomad } from '../nomad/client.js';
import type { Deadline } from '../time/deadlines.js';
import { toAllocSnap, toNodeSnap, mergeTaskEvents } from '../nomad/parse.js';
import { readBootInfo, readAgentLog, readNetState } from '../lab/observe.js';
import { readNatTable } from '../lab/task-host.js';
import { readCniState } from '../cluster/evidence.js';
import { agentWarningEvents, agentWarnings, agentWarningsFact } from '../checks/agent-warnings.js';
import type { RunContext } from '../run/context.js';

interface ObserveInput {
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
  const client = firstOf(i.lab, 'client').machine;
  // Note: the API reads and the client host's reads are independent; all at once they show one moment more closely
  // and take as long as the slowest (each SSH read is a channel of its own on the one connection).
  const [boot, node, jobAllocs, nodeAllocs, cniState, netState, firewall, log] = await Promise.all([
    readBootInfo(client, d),
    i.nomad.node(i.nodeId, { signal: d.signal }).then((r) => toNodeSnap(r.body)),
    readJobAllocs(i.nomad, i.jobId, d),
    i.nomad.nodeAllocations(i.nodeId, { signal: d.signal }).then((r) => r.body.map(toAllocSnap)),
    readCniState(client, { deadline: d }),
    readNetState(client, d),
    readNatTable(client, d),
    clientLog ? readAgentLog(client, d) : Promise.resolve([]),
  ]);
  i.history.events = mergeTaskEvents(i.history.events, [...jobAllocs, ...nodeAllocs]);
  const alloc = jobAllocs.find((a) => a.id === i.allocId);
  return {
    label: i.label,
    atMs: Date.now(),
    bootId: boot.bootId,
    uptimeS: boot.uptimeS,
    node,
    alloc,
    jobAllocs,
    nodeAllocs: nodeAllocs.filter((a) => a.clientStatus === 'running' || a.clientStatus === 'pending'),
    http: [],
    cniState,
    netState,
    ...(firewall ? { firewall } : {}),
    clientLog: log,
  };
}

/** Every alloc of the job as a full object (the list stub has no NetworkStatus or PreviousAllocation). */
export async function readJobAllocs(nomad: Nomad, jobId: string, d: Deadline): Promise<AllocSnap[]> {
  const stubs = (await nomad.jobAllocations(jobId, { signal: d.signal })).body;
  return Promise.all(stubs.map(async (s) => toAllocSnap((await nomad.allocation(s.ID, { signal: d.signal })).body)));
}

/**
 * The client agent's own WARN and ERROR lines since the fault (`sinceMs`, the first fault's request): a fact with
 * their count, and each (the first MAX_AGENT_LINES) on the timeline of `machine` with its time, so the JSON summary and
 * the HTML page list them.
 */
export function recordAgentWarnings(ctx: RunContext, log: readonly string[], sinceMs: number, machine: string): void {
  const lines = agentWarnings(log, sinceMs);
  ctx.fact(`${machine}.agent.warnings`, agentWarningsFact(lines));
  for (const ev of agentWarningEvents(lines, machine)) ctx.mark(ev);
}
