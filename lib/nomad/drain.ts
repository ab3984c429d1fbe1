// A node's drain through the API, as `nomad node drain -enable` and `nomad node eligibility -enable` do it: enable,
// wait until Nomad says it is done (the node's DrainStrategy gone), and later mark the node eligible again. Each wait
// blocks on the node's index and names the last state seen when its deadline passes.
import type { Deadline } from '../time/deadlines.js';
import { waitFor, type Probe } from '../time/wait-for.js';
import type { ApiAllocation, ApiNode } from './api-types.js';
import type { Nomad } from './client.js';
import { blockingProbe, type WaitOpts } from './wait.js';

/** What a drain did, for the evidence: when it was asked, when Nomad called it done, what it said then. */
interface DrainRecord {
  nodeId: string;
  nodeName: string;
  /** Unix ms */
  requestedAt: number;
  /** Unix ms */
  doneAt: number;
  /** LastDrain.Status when the node has it (complete, canceled), else "complete" by DrainStrategy gone */
  status: string;
  /** the allocs of the node that were running when the drain began */
  allocsOnNode: string[];
}

/** The node's drain state in one line: what a timeout names. Pure. */
function drainState(n: Pick<ApiNode, 'Name' | 'DrainStrategy' | 'SchedulingEligibility' | 'LastDrain'>): string {
  const d = n.DrainStrategy;
  const running = d
    ? `draining (deadline ${d.Deadline > 0 ? `${Math.round(d.Deadline / 1e9)}s` : d.Deadline < 0 ? 'forced' : 'none'}${d.ForceDeadline && !d.ForceDeadline.startsWith('0001') ? `, forced at ${d.ForceDeadline}` : ''})`
    : 'no drain running';
  const last = n.LastDrain ? `, last drain ${n.LastDrain.Status}` : '';
  return `node ${n.Name}: ${running}, ${n.SchedulingEligibility}${last}`;
}

/** Allocs of the node Nomad still means to run (DesiredStatus run, not terminal): what a drain waits on. */
function stillThere(allocs: ApiAllocation[]): ApiAllocation[] {
  return allocs.filter((a) => a.DesiredStatus === 'run' && !['complete', 'failed', 'lost'].includes(a.ClientStatus));
}

/**
 * Enable a drain of `nodeId` and wait until Nomad has finished it: DrainStrategy null on the node (Nomad clears it once
 * every alloc has migrated, or at the deadline). `deadlineMs` is the drain's own deadline given to Nomad; `opts.deadline`
 * bounds the wait (give it more than the drain's deadline so Nomad's forced stop is seen).
 */
export async function drainNode(
  nomad: Nomad,
  nodeId: string,
  drainDeadlineMs: number,
  { deadline, onReason, maxBlockMs }: WaitOpts,
): Promise<DrainRecord> {
  const { body: before } = await nomad.node(nodeId, { signal: deadline.signal });
  const allocsOnNode = stillThere((await nomad.nodeAllocations(nodeId, { signal: deadline.signal })).body).map(
    (a) => a.ID,
  );
  const requestedAt = Date.now();
  await nomad.drainNode(nodeId, { deadlineMs: drainDeadlineMs, signal: deadline.signal });
  const judge = async (n: ApiNode, d: Deadline): Promise<Probe<ApiNode>> => {
    if (!n.DrainStrategy) return { done: true, value: n };
    const left = stillThere((await nomad.nodeAllocations(nodeId, { signal: d.signal })).body);
    const names = left.map((a) => `${a.Name} ${a.ID.slice(0, 8)} ${a.ClientStatus}`).join(', ');
    return {
      done: false,
      reason: `${drainState(n)}; ${left.length ? `still on it: ${names}` : 'no alloc left on it'}`,
    };
  };
  const done = await waitFor(
    `the drain of node ${before.Name} (${nodeId.slice(0, 8)}) to finish`,
    blockingProbe((q) => nomad.node(nodeId, q), judge, maxBlockMs),
    { deadline, onReason, intervals: [50] },
  );
  return {
    nodeId,
    nodeName: before.Name,
    requestedAt,
    doneAt: Date.now(),
    status: done.LastDrain?.Status ?? 'complete',
    allocsOnNode,
  };
}

/** Mark the node eligible again and wait until the server's view says so. */
export async function markEligible(nomad: Nomad, nodeId: string, { deadline, onReason }: WaitOpts): Promise<ApiNode> {
  await nomad.setEligibility(nodeId, true, { signal: deadline.signal });
  return waitFor(
    `node ${nodeId.slice(0, 8)} eligible for placements`,
    blockingProbe(
      (q) => nomad.node(nodeId, q),
      (n) =>
        n.SchedulingEligibility === 'eligible' && !n.DrainStrategy
          ? { done: true, value: n }
          : { done: false, reason: drainState(n) },
    ),
    { deadline, onReason, intervals: [50] },
  );
}
