// Part of the Nomad API stand-in (not Nomad): a silent client whose job's groups keep their allocs through a disconnect
// (`disconnect { lost_after }`, `max_client_disconnect` before 1.10; lib/model/disconnect.ts reads them per line).
// Real Nomad (v1.10.5 source): the node TTL runs out and the node is marked `disconnected` (nomad/heartbeat.go), not
// down; the scheduler marks each such alloc `unknown` (ClientDescription "alloc is unknown since its node is
// disconnected", an AllocStates entry, a FollowupEvalID whose eval waits until lost_after) and, with replace = true,
// tries to place a replacement: with no other client the eval is blocked (scheduler/reconcile.go
// appendUnknownDisconnectingUpdates). On reconnect the alloc is `running` again (AllocStates: running, FollowupEvalID
// cleared, a `Reconnected` task event) and the blocked and timeout evals are cancelled, as a real 1.10.5 server and
// client on loopback did (test/fixtures/nomad/real-1.10.5/disconnect). Past lost_after the node goes down and the
// alloc is lost.
import type { ApiAllocation, ApiJob } from '../../../lib/nomad/api-types.js';
import { disconnectLine, effectiveDisconnect } from '../../../lib/model/disconnect.js';
import { groupDisconnectFields } from '../../../lib/parse/job-disconnect.js';
import type { Cluster } from './cluster.js';
import { taskEvent } from './payloads.js';
import { markNodeDown } from './timelines.js';

/** ClientDescription of an alloc whose node is disconnected (scheduler/generic_sched.go allocUnknown). */
const ALLOC_UNKNOWN = 'alloc is unknown since its node is disconnected';
/** StatusDescription of the follow-up eval that loses the alloc at lost_after (scheduler/reconcile.go). */
const TIMEOUT_EVAL_DESC = 'created for delayed disconnect timeout';
const TERMINAL = new Set(['complete', 'failed', 'lost']);

type WithStates = ApiAllocation & { AllocStates?: { Field: number; Value: string; Time: string }[] | null };

/** The group's lost_after in ms as the stand-in's Nomad version reads the job (0: lost at once). */
export function lostAfterMs(c: Cluster, job: ApiJob | undefined, group: string): number {
  const g = job?.TaskGroups?.find((x) => x.Name === group);
  const line = disconnectLine(c.version);
  if (!g || !line) return 0;
  return effectiveDisconnect(group, groupDisconnectFields(g as Record<string, unknown>), line).lostAfterMs;
}

/** The allocs on the node that would go `unknown` rather than `lost`. */
function keptAllocs(c: Cluster): ApiAllocation[] {
  return [...c.allocs.values()].filter(
    (a) =>
      a.NodeID === c.node.ID &&
      a.DesiredStatus === 'run' &&
      !TERMINAL.has(a.ClientStatus) &&
      lostAfterMs(c, c.jobs.get(a.JobID), a.TaskGroup) > 0,
  );
}

const appendState = (a: ApiAllocation, value: string): void => {
  const x = a as WithStates;
  x.AllocStates = [...(x.AllocStates ?? []), { Field: 0, Value: value, Time: new Date().toISOString() }];
};

/**
 * The node's TTL ran out. When some alloc on it keeps through a disconnect: node `disconnected`, those allocs
 * `unknown` with a timeout eval each, a blocked eval for their replacements, and the node down at the shortest
 * lost_after; true. Otherwise nothing here (false): the caller marks the node down as before.
 */
export function markNodeDisconnected(c: Cluster): boolean {
  const kept = keptAllocs(c);
  if (!kept.length || c.node.Status !== 'ready') return false;
  c.setNodeStatus('disconnected', 'Node heartbeat missed');
  for (const jobId of new Set(kept.map((a) => a.JobID))) {
    const job = c.jobs.get(jobId)!;
    const mine = kept.filter((a) => a.JobID === jobId);
    const waitMs = Math.min(...mine.map((a) => lostAfterMs(c, job, a.TaskGroup)));
    const timeout = c.createEval(job, 'max-disconnect-timeout', 'pending', {
      StatusDescription: TIMEOUT_EVAL_DESC,
      WaitUntil: new Date(Date.now() + waitMs).toISOString(),
    });
    for (const a of mine)
      c.updateAlloc(
        a.ID,
        (x) => {
          Object.assign(x, { ClientStatus: 'unknown', ClientDescription: ALLOC_UNKNOWN, FollowupEvalID: timeout.ID });
          appendState(x, 'unknown');
        },
        'PlanResult',
      );
    // replace = true (the default): a replacement is wanted, and with no other client the eval is blocked
    c.createEval(job, 'queued-allocs', 'blocked');
    c.createEval(job, 'node-update', 'complete', { NodeID: c.node.ID });
    c.at(Date.now() + waitMs, () => {
      if (c.node.Status !== 'disconnected') return;
      // the timeout eval runs: the blocked one gives way to the node-down rule's own (one blocked eval per job)
      for (const e of c.evals.values())
        if (e.JobID === jobId && (e === timeout || e.Status === 'blocked'))
          c.commit(['evals'], (idx) => Object.assign(e, { Status: 'complete', ModifyIndex: idx }));
      markNodeDown(c, { agentRunning: true });
    });
  }
  return true;
}

/** Heartbeats reach the server again while the node is `disconnected`: its unknown allocs run again in place. */
export function reconnect(c: Cluster): void {
  // real 1.10.5: disconnected -> ready writes no node event (down -> ready does: "Node reregistered by heartbeat")
  c.setNodeStatus('ready');
  const unknown = [...c.allocs.values()].filter((a) => a.NodeID === c.node.ID && a.ClientStatus === 'unknown');
  c.later(1, () => {
    for (const a of unknown)
      c.updateAlloc(a.ID, (x) => {
        Object.assign(x, { ClientStatus: 'running', ClientDescription: 'Tasks are running', FollowupEvalID: '' });
        appendState(x, 'running');
        for (const t of Object.keys(x.TaskStates ?? {}))
          c.appendEvent(x, t, taskEvent('Reconnected', 'Client reconnected'));
      });
    for (const jobId of new Set(unknown.map((a) => a.JobID))) {
      for (const e of c.evals.values()) {
        if (e.JobID !== jobId || !['pending', 'blocked'].includes(e.Status)) continue;
        c.commit(['evals'], (idx) => Object.assign(e, { Status: 'canceled', ModifyIndex: idx }));
      }
    }
  });
}
