// Part of the Nomad API stand-in (not Nomad): a network partition between the client and the server while
// the client host and its agent keep running. The server stops hearing heartbeats: past heartbeat_grace it marks the
// node down and its allocs lost (nomad-reference §3.2); when the partition heals, the next heartbeat brings the node
// back ("Node reregistered by heartbeat", nomad/node_endpoint.go), the client stops the lost alloc's tasks and the
// blocked eval places a replacement. Within the grace nothing changes: the tasks never stopped. A job with a
// disconnect block (lost_after) sees the node disconnected and its allocs unknown instead (disconnect.ts).
import type { Cluster } from './cluster.js';
import { nowRfc3339, taskEvent } from './payloads.js';
import { markNodeDown } from './timelines.js';
import { markNodeDisconnected, reconnect } from './disconnect.js';

/** Partition state of one stand-in cluster. */
const state = new WeakMap<Cluster, { timer: NodeJS.Timeout | undefined }>();

/** Cut the client off; the server marks the node down after `downAfterMs` (its TTL + heartbeat_grace). */
export function clientPartition(c: Cluster, downAfterMs: number): void {
  if (state.has(c)) throw new Error('fake-nomad: clientPartition() while already partitioned');
  // a job that keeps its allocs through a disconnect (lost_after) sees the node disconnected first (disconnect.ts)
  const down = () => markNodeDisconnected(c) || markNodeDown(c, { agentRunning: true });
  const timer = Number.isFinite(downAfterMs) ? setTimeout(down, downAfterMs) : undefined;
  state.set(c, { timer });
}

/** Heal: heartbeats reach the server again. */
export function clientHeal(c: Cluster): void {
  const s = state.get(c);
  if (!s) throw new Error('fake-nomad: clientHeal() without clientPartition()');
  clearTimeout(s.timer);
  state.delete(c);
  if (c.node.Status === 'disconnected') {
    reconnect(c);
    return;
  }
  if (c.node.Status !== 'down') return;
  c.setNodeStatus('ready', 'Node reregistered by heartbeat');
  const lost = [...c.allocs.values()].filter((a) => a.NodeID === c.node.ID && a.ClientStatus === 'lost');
  c.later(1, () => {
    for (const a of lost) {
      c.updateAlloc(a.ID, (x) => {
        for (const [t, st] of Object.entries(x.TaskStates ?? {})) {
          if (st.State === 'dead') continue;
          c.appendEvent(x, t, taskEvent('Killing', 'Sent interrupt. Waiting 5s before force killing'));
          c.appendEvent(x, t, taskEvent('Killed', 'Task successfully killed'));
          Object.assign(st, { State: 'dead', FinishedAt: nowRfc3339() });
        }
        // real 1.9.3 (VM run rcbbaw40749dc1): the client's update overwrites lost: running/stop, then complete/stop
        x.ClientStatus = 'complete';
      });
      // stopping the alloc tears its network down: CNI DEL releases its host-local reservation
      for (const files of c.cni.values()) {
        for (const [f, owner] of files) if (owner.startsWith(`${a.ID}\r\n`)) files.delete(f);
      }
    }
    // real 1.9.3 (same run): the blocked eval places the replacement as a new alloc, with no Previous/NextAllocation
    for (const jobId of new Set(lost.map((a) => a.JobID))) {
      const job = c.jobs.get(jobId);
      const blocked = [...c.evals.values()].find((e) => e.JobID === jobId && e.Status === 'blocked');
      if (blocked) c.commit(['evals'], (idx) => Object.assign(blocked, { Status: 'complete', ModifyIndex: idx }));
      if (job && !job.Stop) c.placeAllocs(job, blocked?.ID ?? '');
    }
  });
}
