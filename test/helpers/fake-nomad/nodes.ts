// Part of the Nomad API stand-in (not Nomad): more than one client node, and a node drain as Nomad's drainer runs it
// (nomad@v1.9.7:nomad/drainer): the node gets a DrainStrategy and turns ineligible (NodeDrain), its service allocs get
// DesiredTransition.Migrate (AllocationUpdateDesiredStatus), the scheduler places each one's replacement on another
// eligible node, linked both ways, and stops the old one ("alloc is being migrated", PlanResult); the client stops it
// (complete); one alloc at a time (max_parallel 1), the next only once the last one's replacement is healthy; once
// nothing of the drain is left the DrainStrategy is cleared and LastDrain says complete.
// Note: Nomad's drainer migrates the next alloc only once the replacement is healthy (migrate.min_healthy_time, 10 s
// by default), so a probe of the service sees the replacement answer long before the next alloc stops. With a lab
// that probes allocs (fake-cluster-lab.ts) "healthy" is "answered one of the harness's probes": on a few 20 ms steps
// instead, a loaded machine read the probe targets before the replacement ran and probed them after the other alloc
// had stopped, and measured a gap the stand-in's timeline only made by racing the harness.
import type { ApiAllocation, ApiJob, ApiNode } from '../../../lib/nomad/api-types.js';
import type { Cluster } from './cluster.js';
import { newNode, nowRfc3339, taskEvent } from './payloads.js';
import { drainBatchAlloc, drainOrder, placeSystemOnEligible, stopSystemAllocs } from './job-types.js';
import { NODE_ELIGIBILITY_EVENT_SINCE, lineAtLeast } from './lines.js';

const TERMINAL = new Set(['complete', 'failed', 'lost']);
/** An alloc's DesiredTransition with nothing asked (real 1.9.7 list stub). */
const NO_TRANSITION = { Migrate: null, Reschedule: null, ForceReschedule: null, NoShutdownDelay: null };

/** The allocs a lab's probe reached, by cluster; present only when a lab probes allocs (healthByProbe). */
const answered = new WeakMap<Cluster, Set<string>>();
/** A drain waits at most this many steps for a replacement's first answer (then goes on, as a drain deadline would). */
const HEALTHY_WAIT_STEPS = 500;

/** A lab that probes the job's allocs calls this: a drain then waits for each replacement to answer a probe. */
export function healthByProbe(c: Cluster): void {
  if (!answered.has(c)) answered.set(c, new Set());
}

/** A probe of the lab reached alloc `id` and it answered. */
export function allocAnswered(c: Cluster, id: string): void {
  answered.get(c)?.add(id);
}

/** An alloc a lab's probe can reach: it maps a port (a batch or sysbatch alloc usually maps none). */
const probeable = (a: ApiAllocation): boolean => (a.AllocatedResources?.Shared?.Ports ?? []).length > 0;

/**
 * Run `fn` once every alloc of `replacements` a probe can reach answered one (at once when no lab probes, or none was
 * placed). A replacement that maps no port never answers: it counts healthy once placed and started, as Nomad's
 * task-state health has it, instead of holding the drain for HEALTHY_WAIT_STEPS.
 */
function whenHealthy(
  c: Cluster,
  replacements: readonly ApiAllocation[],
  fn: () => void,
  left = HEALTHY_WAIT_STEPS,
): void {
  const seen = answered.get(c);
  if (!seen || left <= 0 || replacements.filter(probeable).every((a) => seen.has(a.ID))) fn();
  else c.later(1, () => whenHealthy(c, replacements, fn, left - 1));
}

/** Register another client node, ready, with its own address. */
export function addClientNode(c: Cluster, name: string, address: string): ApiNode {
  const n = newNode(name, c.version);
  n.Attributes = { ...n.Attributes, 'unique.network.ip-address': address };
  c.commit(['nodes'], (idx) => {
    n.CreateIndex = n.ModifyIndex = idx;
    c.otherNodes.push(n);
  });
  return n;
}

export function nodeById(c: Cluster, id: string): ApiNode | undefined {
  return c.allNodes().find((n) => n.ID === id);
}

/**
 * One change of a node's drain or eligibility at a new index, with the node event Nomad writes for it (real 2.0.5
 * drain capture: Subsystem Drain or Cluster, RFC3339 with nanoseconds, unlike the registration event's seconds).
 */
function touch(
  c: Cluster,
  n: ApiNode,
  type: 'NodeDrain' | 'NodeEligibility',
  mutate: (n: ApiNode) => void,
  event?: { Message: string; Subsystem: 'Drain' | 'Cluster' },
): number {
  return c.commit(
    ['nodes'],
    (idx) => {
      mutate(n);
      n.ModifyIndex = idx;
      if (event)
        n.Events = [...(n.Events ?? []), { ...event, Details: null, Timestamp: nowRfc3339(), CreateIndex: idx }].slice(
          -10,
        );
    },
    type,
  );
}

/** LastDrain as real Nomad writes it without ACLs (1.9.7-2.0.5 captures: AccessorID and Meta always present). */
const lastDrain = (o: { Status: string; StartedAt?: string; UpdatedAt: string }) => ({
  StartedAt: o.StartedAt ?? nowRfc3339(),
  UpdatedAt: o.UpdatedAt,
  Status: o.Status,
  AccessorID: 'token:acls-disabled',
  Meta: null,
});

const liveOn = (c: Cluster, nodeId: string): ApiAllocation[] =>
  [...c.allocs.values()].filter(
    (a) => a.NodeID === nodeId && a.DesiredStatus === 'run' && !TERMINAL.has(a.ClientStatus),
  );

/** PUT /v1/node/:id/drain with a DrainSpec: start the drain; `DrainSpec: null` cancels it. */
export function drainNode(c: Cluster, n: ApiNode, spec: { Deadline?: number } | null): number {
  if (!spec) {
    return touch(
      c,
      n,
      'NodeDrain',
      (x) => {
        x.DrainStrategy = null;
        x.LastDrain = lastDrain({ Status: 'canceled', StartedAt: x.LastDrain?.StartedAt, UpdatedAt: nowRfc3339() });
      },
      { Message: 'Node drain strategy cleared', Subsystem: 'Drain' },
    );
  }
  const deadlineNs = spec.Deadline ?? 0;
  const index = touch(
    c,
    n,
    'NodeDrain',
    (x) => {
      x.DrainStrategy = {
        Deadline: deadlineNs,
        IgnoreSystemJobs: false,
        ForceDeadline: deadlineNs > 0 ? new Date(Date.now() + deadlineNs / 1e6).toISOString() : '0001-01-01T00:00:00Z',
        StartedAt: nowRfc3339(),
      };
      x.SchedulingEligibility = 'ineligible';
      x.LastDrain = lastDrain({ Status: 'draining', UpdatedAt: nowRfc3339() });
    },
    { Message: 'Node drain strategy set', Subsystem: 'Drain' },
  );
  // the system scheduler's allocs last: a drain stops them once the others have moved (IgnoreSystemJobs false)
  const { first, last } = drainOrder(c, liveOn(c, n.ID));
  c.later(1, () => drainNext(c, n, first, last));
  return index;
}

/**
 * One alloc at a time, as a migrate block's default max_parallel = 1 (and the shipped rolling job's) has it: mark it
 * for migration, let the scheduler move it, and take the next once its replacement had time to run. With none left
 * the drain is complete.
 */
function drainNext(c: Cluster, n: ApiNode, queue: ApiAllocation[], system: ApiAllocation[] = []): void {
  const a = queue.shift();
  if (!a && system.length) {
    stopSystemAllocs(c, system);
    c.later(2, () => drainNext(c, n, queue));
    return;
  }
  if (!a) {
    touch(
      c,
      n,
      'NodeDrain',
      (x) => {
        x.DrainStrategy = null;
        x.LastDrain = lastDrain({ Status: 'complete', StartedAt: x.LastDrain?.StartedAt, UpdatedAt: nowRfc3339() });
      },
      { Message: 'Node drain complete', Subsystem: 'Drain' },
    );
    return;
  }
  c.commit(
    ['allocs'],
    // every DesiredTransition key is sent, null while unset (the line may add some: lines.ts)
    (idx) =>
      Object.assign(a, {
        DesiredTransition: { ...NO_TRANSITION, ...a.DesiredTransition, Migrate: true },
        ModifyIndex: idx,
      }),
    // real Nomad's Type for the AllocUpdateDesiredTransition raft message (nomad/state/events.go MsgTypeEvents)
    'AllocationUpdateDesiredStatus',
  );
  c.later(1, () => {
    const batch = drainBatchAlloc(c, a, (job, previous) => {
      const to = c
        .allNodes()
        .find(
          (x) => x.ID !== n.ID && x.Status === 'ready' && x.SchedulingEligibility === 'eligible' && !x.DrainStrategy,
        );
      const keep = new Set(
        [...c.allocs.values()]
          .filter(
            (x) =>
              x.JobID === job.ID && !previous.includes(x) && x.DesiredStatus === 'run' && !TERMINAL.has(x.ClientStatus),
          )
          .map((x) => x.Name),
      );
      return to ? placeOn(c, to, job, previous, keep) : [];
    });
    const placed = batch.handled ? batch.placed : migrate(c, n, [a]);
    // the replacement is placed, set up and started within three steps (cluster.ts runFresh), then healthy
    c.later(4, () => whenHealthy(c, placed, () => drainNext(c, n, queue, system)));
  });
}

/** The scheduler's answer to a migrate transition: the replacement elsewhere, the old alloc stopped; the replacements. */
function migrate(c: Cluster, from: ApiNode, draining: ApiAllocation[]): ApiAllocation[] {
  const placed: ApiAllocation[] = [];
  const to = c
    .allNodes()
    .find(
      (x) => x.ID !== from.ID && x.Status === 'ready' && x.SchedulingEligibility === 'eligible' && !x.DrainStrategy,
    );
  // With no node to take them, the scheduler still stops the migrating allocs; their places wait in a blocked eval
  // until a node is eligible again (the last client of a lab drained: the service is down meanwhile).
  if (!to) blocked.set(c, [...(blocked.get(c) ?? []), ...draining]);
  for (const jobId of new Set(draining.map((a) => a.JobID))) {
    const job = c.jobs.get(jobId);
    if (!job) continue;
    const mine = draining.filter((a) => a.JobID === jobId);
    const keep = new Set(
      [...c.allocs.values()]
        .filter((a) => a.JobID === jobId && a.DesiredStatus === 'run' && !TERMINAL.has(a.ClientStatus))
        .filter((a) => !mine.includes(a))
        .map((a) => a.Name),
    );
    if (to) placed.push(...placeOn(c, to, job, mine, keep));
    for (const a of mine)
      c.updateAlloc(
        a.ID,
        (x) => Object.assign(x, { DesiredStatus: 'stop', DesiredDescription: 'alloc is being migrated' }),
        'PlanResult',
      );
  }
  c.later(1, () => {
    for (const a of draining)
      c.updateAlloc(a.ID, (x) => {
        for (const [t, st] of Object.entries(x.TaskStates ?? {})) {
          if (st.State === 'dead') continue;
          c.appendEvent(x, t, taskEvent('Killing', 'Sent interrupt. Waiting 5s before force killing'));
          c.appendEvent(x, t, taskEvent('Killed', 'Task successfully killed'));
          Object.assign(st, { State: 'dead', FinishedAt: nowRfc3339() });
        }
        x.ClientStatus = 'complete';
      });
  });
  return placed;
}

/** Place `job`'s missing allocs on `n` (the replacements of `previous`, linked to them); returns them. */
function placeOn(
  c: Cluster,
  n: ApiNode,
  job: ApiJob,
  previous: ApiAllocation[],
  keep: Set<string>,
  linkPrevious = true,
): ApiAllocation[] {
  c.placementNode = n;
  try {
    return c.placeAllocs(job, '', previous, keep, {}, linkPrevious);
  } finally {
    c.placementNode = undefined;
  }
}

/** Migrating allocs that found no node, by cluster: the blocked eval places them once a node is eligible again. */
const blocked = new WeakMap<Cluster, ApiAllocation[]>();

/** PUT /v1/node/:id/eligibility: an eligible node lets the blocked placements through. */
export function setEligibility(c: Cluster, n: ApiNode, eligibility: string): number {
  const was = n.SchedulingEligibility;
  const idx = touch(
    c,
    n,
    lineAtLeast(c.version, NODE_ELIGIBILITY_EVENT_SINCE) ? 'NodeEligibility' : 'NodeDrain',
    (x) => {
      x.SchedulingEligibility = eligibility;
    },
    was === eligibility
      ? undefined
      : {
          Message: `Node marked as ${eligibility === 'eligible' ? 'eligible' : 'ineligible'} for scheduling`,
          Subsystem: 'Cluster',
        },
  );
  // the system scheduler places the node's missing system allocs once it is eligible again
  if (eligibility === 'eligible' && n.Status === 'ready') c.later(1, () => placeSystemOnEligible(c));
  const waiting = blocked.get(c) ?? [];
  if (eligibility !== 'eligible' || n.Status !== 'ready' || waiting.length === 0) return idx;
  blocked.delete(c);
  c.later(1, () => {
    for (const jobId of new Set(waiting.map((a) => a.JobID))) {
      const job = c.jobs.get(jobId);
      if (!job || job.Stop) continue;
      const mine = waiting.filter((a) => a.JobID === jobId);
      const keep = new Set(
        [...c.allocs.values()]
          .filter((a) => a.JobID === jobId && a.DesiredStatus === 'run' && !TERMINAL.has(a.ClientStatus))
          .map((a) => a.Name),
      );
      // the blocked eval places a new alloc: no PreviousAllocation, the drained one gets no NextAllocation (real 1.9.7
      // drain on one node, release-build/events: only the system alloc's replacement is linked)
      placeOn(c, n, job, mine, keep, false);
    }
  });
  return idx;
}

/**
 * GET /v1/agent/members: one server, the stand-in itself, under the name its machine has (Cluster.serverName), with
 * the keys and Serf tags of a real bootstrap_expect = 1 server (real-<line>/reboot-sim/initial/agent-members.json).
 */
export function members(c: Cluster): unknown {
  return {
    ServerName: c.serverName,
    ServerRegion: 'global',
    ServerDC: 'dc1',
    Members: [
      {
        Name: `${c.serverName}.global`,
        Addr: '127.0.0.1',
        Port: 4648,
        Tags: {
          role: 'nomad',
          dc: 'dc1',
          revision: '0000000000000000000000000000000000000000',
          rpc_addr: '127.0.0.1',
          expect: '1',
          vsn: '1',
          raft_vsn: '3',
          port: '4647',
          id: 'a1b2c3d4-0000-4000-8000-000000000001',
          bootstrap: '1',
          region: 'global',
          build: c.version,
        },
        Status: 'alive',
        ProtocolMin: 1,
        ProtocolMax: 5,
        ProtocolCur: 2,
        DelegateMin: 2,
        DelegateMax: 5,
        DelegateCur: 4,
      },
    ],
  };
}

/**
 * GET /v1/operator/raft/configuration: the one server, leader, and back from a reboot a non-voter for a while (a
 * server down longer than autopilot's reconcile is pruned, and added back as a non-voter until it has been stable:
 * real-<line>/cluster/leader-back). `Index` is 0 as real Nomad sends it.
 */
export function raftConfiguration(c: Cluster): unknown {
  return {
    Index: 0,
    Servers: [
      {
        ID: 'a1b2c3d4-0000-4000-8000-000000000001',
        Node: `${c.serverName}.global`,
        Address: '127.0.0.1:4647',
        Leader: true,
        Voter: Date.now() >= c.nonVoterUntilMs,
        RaftProtocol: '3',
      },
    ],
  };
}

/** Another client node's host rebooted: its agent registers again (initializing, then ready), a newer status time. */
export function otherNodeRestarted(c: Cluster, n: ApiNode): void {
  const set = (status: string) =>
    c.commit(
      ['nodes'],
      (idx) => {
        n.Status = status;
        n.StatusUpdatedAt = Math.max(Math.floor(Date.now() / 1000), n.StatusUpdatedAt + 1);
        n.ModifyIndex = idx;
      },
      'NodeStreamEvent',
    );
  set('initializing');
  c.later(2, () => set('ready'));
}
