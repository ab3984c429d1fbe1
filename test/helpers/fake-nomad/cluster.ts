// Part of the Nomad API stand-in (not Nomad): the state one server holds about one client node,
// with a raft-like index that increases on every change, and the client agent's journal.
import type { ApiAllocation, ApiEvaluation, ApiJob, ApiNode, ApiTaskEvent } from '../../../lib/nomad/api-types.js';
import {
  MAX_TASK_EVENTS,
  newAllocation,
  newEvaluation,
  newNode,
  nowNs,
  nowRfc3339,
  taskEvent,
  uuid,
} from './payloads.js';
import { eventsOfCommit, type EventFrame } from './events.js';
import { deploymentProgress, type StandInDeployment } from './deployments.js';
import type { StandInHostVolume } from './host-volumes.js';

export type Table = 'nodes' | 'jobs' | 'allocs' | 'evals' | 'deployments' | 'volumes';
/**
 * The raft message type of a commit, which real Nomad gives every event of it (nomad@v1.9.3:nomad/state/events.go
 * MsgTypeEvents); undefined = the table's usual one (client alloc update, node status, job register, eval update).
 */
export type CommitType =
  | 'PlanResult'
  | 'AllocationUpdated'
  | 'AllocationUpdateDesiredStatus'
  | 'NodeRegistration'
  | 'NodeStreamEvent'
  | 'NodeDrain'
  | 'NodeEligibility'
  | 'JobRegistered'
  | 'JobDeregistered'
  | 'EvaluationUpdated'
  | 'DeploymentStatusUpdate'
  | 'HostVolumeRegistered'
  | 'HostVolumeDeleted';

/**
 * The raft write that creates an eval of a trigger, whose Type its event carries: the job register or deregister writes
 * the job and its eval at once, the client's alloc update its alloc-failure eval (nomad/job_endpoint.go Register,
 * nomad/node_endpoint.go UpdateAlloc); other evals come from an eval update (EvaluationUpdated, e.g. node-update).
 * Real 1.9.7-2.0.5 event captures: Evaluation JobRegistered/pending, never EvaluationUpdated for a job-register eval.
 */
const EVAL_WRITTEN_BY: Record<string, CommitType> = {
  'job-register': 'JobRegistered',
  'job-deregister': 'JobDeregistered',
  'alloc-failure': 'AllocationUpdated',
};

/** A group's reschedule policy as the parsed job holds it (durations in ns). */
interface ReschedulePolicy {
  Attempts?: number;
  Unlimited?: boolean;
  Delay?: number;
  DelayFunction?: string;
  MaxDelay?: number;
}

/** Memory (MB) one alloc of the group asks for: the sum of its tasks' resources. */
export function groupMemoryMb(job: ApiJob | undefined, group: string): number {
  const g = job?.TaskGroups?.find((x) => x.Name === group);
  return (g?.Tasks ?? []).reduce(
    (s, t) => s + Number((t['Resources'] as { MemoryMB?: number } | undefined)?.MemoryMB ?? 0),
    0,
  );
}

/** host-local state dirs of Nomad's bridge network: on disk up to 1.9.3, on tmpfs since 1.9.4 (GH-24650). */
export const CNI_OLD_DIR = '/var/lib/cni/networks/nomad';
export const CNI_NEW_DIR = '/var/run/cni/nomad';

/** The in-memory cluster behind the stand-in's HTTP API. */
export class Cluster {
  /** the raft index: bumped by every commit */
  index = 10;
  readonly tableIndex: Record<Table, number> = {
    nodes: 10,
    jobs: 10,
    allocs: 10,
    evals: 10,
    deployments: 10,
    volumes: 10,
  };
  readonly node: ApiNode;
  /** further client nodes (nodes.ts addClientNode): registered and ready, no timeline of their own */
  readonly otherNodes: ApiNode[] = [];
  /** the server's node name, as its Serf member and Raft peer are named (nodes.ts) */
  serverName = 'server';
  /** Unix ms until which the server, back from a reboot, is a Raft non-voter (autopilot's stabilization) */
  nonVoterUntilMs = 0;
  /** where the scheduler places new allocs; default the client node (a drain moves it to another node) */
  placementNode: ApiNode | undefined;
  /** for tests: place a job's allocs round-robin over these nodes (as a spread block would), unless placementNode is set */
  placementSpread: ApiNode[] | undefined;
  readonly jobs = new Map<string, ApiJob>();
  readonly allocs = new Map<string, ApiAllocation>();
  readonly evals = new Map<string, ApiEvaluation>();
  /** each service job's latest deployment (deployments.ts), by job ID */
  readonly deployments = new Map<string, StandInDeployment>();
  /** dynamic host volumes (1.10+, host-volumes.ts), by ID */
  readonly hostVolumes = new Map<string, StandInHostVolume>();
  /** for tests: while set, the clients do not make a dynamic host volume (it stays pending, not in the node's HostVolumes) */
  hostVolumesHeld = false;
  /** is the client agent running (heartbeating)? */
  agentUp = true;
  /** journal lines of the client agent since its last start */
  journal: string[] = [];
  /** host-local state on the client: directory -> (file name -> content), as the CNI listing shows it */
  readonly cni = new Map<string, Map<string, string>>();
  /** the host-local dataDir/network the running client build uses (the tmpfs one since 1.9.4, GH-24650) */
  cniDir: string = CNI_NEW_DIR;
  /** every commit as the event stream sends it: one frame per index that changed a node, job, alloc or eval */
  readonly eventLog: EventFrame[] = [];
  private waiters: (() => void)[] = [];
  /** what later() and at() hold, in the order it runs: by due time, then by when it was scheduled */
  private queue: { dueMs: number; seq: number; fn: () => void }[] = [];
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private pid = 612;

  constructor(
    nodeName: string,
    readonly version: string,
    readonly stepMs: number,
  ) {
    this.node = newNode(nodeName, version);
    this.node.CreateIndex = this.node.ModifyIndex = 9;
    this.agentStarted();
  }

  /** Apply one change at a new index, log it as stream events of `type`, and wake blocked queries on `tables`. */
  commit(tables: Table[], mutate: (index: number) => void, type?: CommitType): number {
    const idx = ++this.index;
    const jobsBefore = new Set(this.jobs.keys());
    mutate(idx);
    for (const t of tables) this.tableIndex[t] = idx;
    const frame = eventsOfCommit(this, idx, tables, type, jobsBefore);
    if (frame) this.eventLog.push(frame);
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
    return idx;
  }

  /** Highest index of the given tables (what X-Nomad-Index reports for a query over them). */
  indexOf(tables: Table[]): number {
    return Math.max(...tables.map((t) => this.tableIndex[t]));
  }

  /** The client node, then the others. */
  allNodes(): ApiNode[] {
    return [this.node, ...this.otherNodes];
  }

  /** Resolves on the next commit. */
  changed(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }

  /** Run `fn` after `steps` × stepMs unless closed. */
  later(steps: number, fn: () => void): void {
    this.schedule(performance.now() + steps * this.stepMs, fn);
  }

  /** Run `fn` at wall-clock time `atMs` (Unix ms) unless closed: what Nomad holds until a WaitUntil. */
  at(atMs: number, fn: () => void): void {
    this.schedule(performance.now() + Math.max(0, atMs - Date.now()), fn);
  }

  // Note: one timer for the whole queue, not one setTimeout per change. After a stall (a loaded machine), Node runs
  // expired timers list by list (one list per duration), so a step-3 change can run before a step-2 one scheduled
  // with it: an alloc failed by the reboot, then set back to pending, forever. The queue keeps Nomad's order.
  private schedule(dueMs: number, fn: () => void): void {
    if (this.closed) return;
    const e = { dueMs, seq: this.seq++, fn };
    let i = this.queue.length;
    while (i > 0 && this.queue[i - 1]!.dueMs > dueMs) i--;
    this.queue.splice(i, 0, e);
    if (i === 0) this.arm();
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const first = this.queue[0];
    if (first) this.timer = setTimeout(() => this.fire(), Math.max(0, first.dueMs - performance.now()));
  }

  /** Run every change that is due, in order (one a change schedules runs in the same pass if it is due too). */
  private fire(): void {
    this.timer = undefined;
    while (!this.closed && this.queue.length && this.queue[0]!.dueMs <= performance.now()) this.queue.shift()!.fn();
    if (!this.closed) this.arm();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.queue = [];
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** A journal line of hclog output as the harness reads it (`journalctl -u nomad -o short-iso`, real VM run r386bw21c1b022). */
  log(
    level: 'INFO' | 'WARN' | 'ERROR' | 'DEBUG',
    sub: string,
    msg: string,
    kv: Record<string, string | number | boolean> = {},
  ): void {
    const pairs = Object.entries(kv).map(
      ([k, v]) => `${k}=${typeof v === 'string' && /[\s"=]/.test(v) ? JSON.stringify(v) : String(v)}`,
    );
    const text = pairs.length ? `${msg}: ${pairs.join(' ')}` : msg;
    this.raw(`    ${new Date().toISOString()} [${level}]${' '.repeat(5 - level.length)} ${sub}: ${text}`);
  }

  /** A journal line as it is: `<short-iso time> <host> nomad[<pid>]: <text>` (or systemd[1] for the unit's own lines). */
  raw(text: string, ident = `nomad[${this.pid}]`): void {
    this.journal.push(`${new Date().toISOString().slice(0, 19)}+0000 ${this.node.Name} ${ident}: ${text}`);
  }

  /** The client agent (re)started: new journal, new pid, the agent's banner lines and first hclog lines as a real 1.9.x client prints them. */
  agentStarted(): void {
    this.agentUp = true;
    this.journal = [];
    this.pid += 7;
    this.raw('Started nomad.service - Nomad.', 'systemd[1]');
    this.raw('==> Loaded configuration from /etc/nomad.d/nomad.hcl');
    this.raw('==> Starting Nomad agent...');
    this.raw('==> Nomad agent started! Log data will stream in below:');
    this.log('INFO', 'client', 'using state directory', { state_dir: '/var/lib/nomad/client' });
  }

  /** Set the node's status as the server would (StatusUpdatedAt in Unix seconds, optional node event). */
  setNodeStatus(status: string, event?: string, type?: CommitType): void {
    this.commit(
      ['nodes'],
      (idx) => {
        this.node.Status = status;
        // Note: Unix seconds; a real reboot takes longer than a second, the stand-in's milliseconds, so each status change
        // moves it on by at least one second as it would in a real run (the scenario requires a newer one after a reboot).
        this.node.StatusUpdatedAt = Math.max(Math.floor(Date.now() / 1000), this.node.StatusUpdatedAt + 1);
        this.node.ModifyIndex = idx;
        // state_store.go updateNodeStatusTxn: LastMissedHeartbeatIndex = index when the node goes down, 0 when it is ready again
        const n = this.node as ApiNode & { LastMissedHeartbeatIndex?: number };
        if (status === 'down') n.LastMissedHeartbeatIndex = idx;
        else if (status === 'ready') n.LastMissedHeartbeatIndex = 0;
        if (event)
          this.node.Events = [
            ...(this.node.Events ?? []),
            {
              Message: event,
              Subsystem: 'Cluster',
              Details: null,
              Timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
              CreateIndex: idx,
            },
          ].slice(-10);
      },
      type,
    );
  }

  /** Mutate one alloc at a new index. */
  updateAlloc(id: string, mutate: (a: ApiAllocation, idx: number) => void, type?: CommitType): void {
    const a = this.allocs.get(id);
    if (!a) return;
    this.commit(
      ['allocs'],
      (idx) => {
        mutate(a, idx);
        a.ModifyIndex = idx;
        a.ModifyTime = nowNs();
      },
      type,
    );
    // an alloc that fails while the job's deployment runs fails it (the deployment watcher, on unhealthy allocs)
    if (a.ClientStatus === 'failed') deploymentProgress(this, a.JobID);
  }

  /** Append a task event (keeping the last 10) and journal it like the task runner does. */
  appendEvent(a: ApiAllocation, task: string, ev: ApiTaskEvent, journal = true): void {
    const st = a.TaskStates?.[task];
    if (!st) return;
    st.Events = [...(st.Events ?? []), ev].slice(-MAX_TASK_EVENTS);
    if (this.agentUp && journal)
      this.log('INFO', 'client.alloc_runner.task_runner', 'Task event', {
        alloc_id: a.ID,
        task,
        type: ev.Type,
        msg: ev.DisplayMessage ?? '',
        failed: ev.FailsTask ?? false,
      });
  }

  /**
   * Whether the alloc's group is in bridge mode (a host-mode alloc has no bridge address: NetworkStatus stays null, as
   * Nomad's network hook sets it only for a network namespace). An alloc of a job the stand-in does not hold: bridge.
   */
  bridged(a: ApiAllocation): boolean {
    const g = this.jobs.get(a.JobID)?.TaskGroups?.find((x) => x.Name === a.TaskGroup);
    return !g || (g.Networks?.[0]?.Mode ?? 'host') === 'bridge';
  }

  /**
   * Lowest address of the bridge subnet 172.26.64.0/20 with no reservation file in the client's current state dir
   * (host-local IPAM order), reserved for `owner` as host-local writes it: `<id>\r\neth0`, no trailing newline.
   */
  allocateAddress(owner = ''): string {
    const dir = this.cni.get(this.cniDir) ?? new Map<string, string>();
    this.cni.set(this.cniDir, dir);
    for (let i = 2; ; i++) {
      const ip = `172.26.${64 + Math.floor(i / 256)}.${i % 256}`;
      if (!dir.has(ip)) {
        dir.set(ip, `${owner}\r\neth0`);
        dir.set('last_reserved_ip.0', ip);
        dir.set('lock', '');
        return ip;
      }
    }
  }

  /**
   * Namespaces only a task process still holds (its alloc was given a new namespace by an upgraded agent), as the client
   * host would list them; a reboot clears them. Real v1.9.3 -> v1.9.5 (run r8gf7j3e742de2, host-netns-after.txt).
   */
  orphanNetns: { allocId: string; address: string; pid: number }[] = [];
  /** Allocs the upgraded agent re-networks on restore, after the allocs placed meanwhile got their addresses (real 1.9.5). */
  renetworkLater: string[] = [];

  /** The host rebooted: /var/run is tmpfs, so the state there is gone (the pre-1.9.4 dir on disk stays). */
  resetIpam(): void {
    this.cni.delete(CNI_NEW_DIR);
  }

  /** Create an evaluation at a new index. */
  createEval(job: ApiJob, triggeredBy: string, status = 'complete', extra: Partial<ApiEvaluation> = {}): ApiEvaluation {
    const id = uuid();
    let ev!: ApiEvaluation;
    this.commit(
      ['evals'],
      (idx) => {
        ev = { ...newEvaluation({ id, job, triggeredBy, index0: idx }), Status: status, ...extra };
        this.evals.set(id, ev);
      },
      EVAL_WRITTEN_BY[triggeredBy],
    );
    return ev;
  }

  /**
   * The client reported the alloc failed. When the group's reschedule policy allows another attempt Nomad makes an
   * alloc-failure eval in the same write (nomad@v1.9.7:nomad/node_endpoint.go UpdateAlloc); the scheduler then holds
   * the reschedule in a follow-up eval pending until WaitUntil (the failure + the policy's delay) and marks the alloc
   * with it (scheduler/reconcile.go createRescheduleLaterEvals); at that time it places the replacement (linked both
   * ways, with a RescheduleTracker) and stops the failed alloc. As real 1.9.3 did (test/fixtures/nomad/real-1.9.3/settle):
   * failed + eval, follow-up eval, FollowupEvalID, eval complete; at WaitUntil the replacement, follow-up complete.
   * No attempt left (the shipped jobs: attempts = 0): no eval at all, as real 1.9.3 (netns-missing/after-restart).
   */
  allocFailed(id: string): void {
    const failed = this.allocs.get(id);
    const job = failed && this.jobs.get(failed.JobID);
    if (!failed || !job || job.Stop) return;
    const policy = job.TaskGroups?.find((g) => g.Name === failed.TaskGroup)?.ReschedulePolicy as
      | ReschedulePolicy
      | undefined;
    const tracker = (failed as ApiAllocation & { RescheduleTracker?: { Events?: unknown[] } | null }).RescheduleTracker;
    const done = tracker?.Events?.length ?? 0;
    if (!policy || (!policy.Unlimited && done >= (policy.Attempts ?? 0))) return;
    const failedAtMs = Date.now();
    const first = this.createEval(job, 'alloc-failure', 'pending');
    const base = (policy.Delay ?? 30e9) / 1e6;
    const delayMs =
      policy.DelayFunction === 'constant' ? base : Math.min(base * 2 ** done, (policy.MaxDelay ?? 3600e9) / 1e6);
    this.later(1, () => {
      // allocs failing within 5 s of each other share one follow-up eval (reconcile.go batchedFailedAllocWindowSize)
      const shared = [...this.evals.values()].find(
        (e) =>
          e.JobID === job.ID &&
          e.Status === 'pending' &&
          e.WaitUntil &&
          Math.abs(Date.parse(e.WaitUntil) - (failedAtMs + delayMs)) < 5000,
      );
      const followUp =
        shared ??
        this.createEval(job, 'alloc-failure', 'pending', {
          StatusDescription: 'created for delayed rescheduling',
          WaitUntil: new Date(failedAtMs + delayMs).toISOString(),
          PreviousEval: first.ID,
        });
      this.updateAlloc(id, (x) => (x.FollowupEvalID = followUp.ID), 'PlanResult');
      this.commit(['evals'], (idx) => Object.assign(first, { Status: 'complete', ModifyIndex: idx }));
      if (!shared) this.at(failedAtMs + delayMs, () => this.runFollowUp(job, followUp, delayMs));
    });
  }

  /** A follow-up eval's time came: replace every failed alloc it holds, each linked to its replacement both ways. */
  private runFollowUp(job: ApiJob, followUp: ApiEvaluation, delayMs: number): void {
    const held = [...this.allocs.values()].filter(
      (a) => a.FollowupEvalID === followUp.ID && a.ClientStatus === 'failed' && a.DesiredStatus === 'run',
    );
    if (!job.Stop && held.length) {
      const live = [...this.allocs.values()].filter(
        (a) =>
          a.JobID === job.ID && a.DesiredStatus === 'run' && !['complete', 'failed', 'lost'].includes(a.ClientStatus),
      );
      for (const repl of this.placeAllocs(job, followUp.ID, held, new Set(live.map((a) => a.Name)))) {
        const prev = held.find((p) => p.ID === repl.PreviousAllocation);
        const tracker = (prev as (ApiAllocation & { RescheduleTracker?: { Events?: unknown[] } | null }) | undefined)
          ?.RescheduleTracker;
        const event = {
          RescheduleTime: Date.now() * 1e6,
          PrevAllocID: prev?.ID,
          PrevNodeID: prev?.NodeID,
          Delay: delayMs * 1e6,
        };
        Object.assign(repl, {
          RescheduleTracker: { Events: [...(tracker?.Events ?? []), event], LastReschedule: 'ok' },
        });
      }
      for (const a of held)
        this.updateAlloc(
          a.ID,
          (x) =>
            Object.assign(x, { DesiredStatus: 'stop', DesiredDescription: 'alloc was rescheduled because it failed' }),
          'PlanResult',
        );
    }
    this.commit(['evals'], (idx) =>
      Object.assign(followUp, { Status: 'complete', StatusDescription: '', ModifyIndex: idx }),
    );
  }

  /** Memory (MB) the allocs meant to run on the node ask for (the scheduler's view of what is used). */
  usedMemoryMb(): number {
    const live = [...this.allocs.values()].filter(
      (a) => a.DesiredStatus === 'run' && !['complete', 'failed', 'lost'].includes(a.ClientStatus),
    );
    return live.reduce((s, a) => s + groupMemoryMb(this.jobs.get(a.JobID), a.TaskGroup), 0);
  }

  /**
   * Place `count` allocs per group on the client node and run them: pending, set up, running. Names in `keep` are already
   * live (a scale-up). An alloc that does not fit the node's memory is not placed: its group gets the AllocMetric a real
   * scheduler writes into the eval's FailedTGAllocs (`failures`), as nomad@v1.9.x does for "Dimension memory exhausted".
   * `linkPrevious: false` places replacements without PreviousAllocation/NextAllocation (real 1.9.7 after a node-down).
   */
  placeAllocs(
    job: ApiJob,
    evalId: string,
    previous: ApiAllocation[] = [],
    keep: ReadonlySet<string> = new Set(),
    failures: Record<string, unknown> = {},
    linkPrevious = true,
  ): ApiAllocation[] {
    const placed: ApiAllocation[] = [];
    const capacity =
      (this.node as ApiNode & { NodeResources?: { Memory?: { MemoryMB?: number } } }).NodeResources?.Memory?.MemoryMB ??
      Infinity;
    let used =
      this.usedMemoryMb() -
      previous.reduce((s, p) => s + (p.DesiredStatus === 'run' ? groupMemoryMb(job, p.TaskGroup) : 0), 0);
    this.commit(
      ['allocs', 'jobs'],
      (idx) => {
        for (const g of job.TaskGroups ?? []) {
          for (let i = 0; i < g.Count; i++) {
            if (keep.has(`${job.ID}.${g.Name}[${i}]`)) continue;
            const need = groupMemoryMb(job, g.Name);
            if (used + need > capacity) {
              failures[g.Name] ??= {
                NodesEvaluated: 1,
                NodesFiltered: 0,
                NodesInPool: 1,
                NodesAvailable: { dc1: 1 },
                ClassFiltered: null,
                ConstraintFiltered: null,
                NodesExhausted: 0,
                ClassExhausted: null,
                DimensionExhausted: {},
                QuotaExhausted: null,
                ResourcesExhausted: null,
                Scores: null,
                AllocationTime: 41233,
                CoalescedFailures: -1,
                ScoreMetaData: null,
              };
              const f = failures[g.Name] as {
                NodesExhausted: number;
                DimensionExhausted: Record<string, number>;
                CoalescedFailures: number;
              };
              f.NodesExhausted = 1;
              f.DimensionExhausted = { memory: 1 };
              f.CoalescedFailures++;
              continue;
            }
            used += need;
            const ports = (g.Networks?.[0]?.DynamicPorts ?? []).map((p) => ({
              label: p.Label,
              value: this.hostPort(),
              to: p.To,
            }));
            const a = newAllocation({
              id: uuid(),
              evalId,
              job,
              group: g.Name,
              index: i,
              node:
                this.placementNode ??
                (this.placementSpread?.length
                  ? this.placementSpread[placed.length % this.placementSpread.length]!
                  : this.node),
              index0: idx,
              ports,
            });
            const prev = previous.find((p) => p.TaskGroup === g.Name && p.Name === a.Name);
            if (prev && linkPrevious) {
              a.PreviousAllocation = prev.ID;
              prev.NextAllocation = a.ID;
              prev.ModifyIndex = idx;
            }
            this.allocs.set(a.ID, a);
            placed.push(a);
          }
        }
        // real getJobStatus (nomad/state/state_store.go) in the plan's own transaction: a job with a non-terminal
        // alloc is running, so the plan's Job event is PlanResult/running (1.10.5-2.0.5 event captures)
        const live = [...this.allocs.values()].some(
          (a) =>
            a.JobID === job.ID && a.DesiredStatus === 'run' && !['complete', 'failed', 'lost'].includes(a.ClientStatus),
        );
        job.Status = live ? 'running' : 'pending';
        job.ModifyIndex = idx;
      },
      'PlanResult',
    );
    for (const a of placed) this.runFresh(a.ID);
    // real 1.9.5 after the in-place upgrade: the restored allocs got their new namespaces' addresses after the new allocs
    const again = this.renetworkLater.splice(0);
    this.later(2, () => {
      for (const id of again.filter((x) => this.bridged(this.allocs.get(x)!)))
        this.updateAlloc(
          id,
          (a) =>
            (a.NetworkStatus = {
              InterfaceName: 'eth0',
              Address: this.allocateAddress(a.ID),
              AddressIPv6: '',
              DNS: null,
            }),
        );
    });
    return placed;
  }

  /** The client picks a new alloc up: Received + Task Setup (network set up), then Started. */
  private runFresh(id: string): void {
    this.later(1, () =>
      this.updateAlloc(id, (a) => {
        if (this.bridged(a))
          a.NetworkStatus = { InterfaceName: 'eth0', Address: this.allocateAddress(a.ID), AddressIPv6: '', DNS: null };
        for (const t of Object.keys(a.TaskStates ?? {})) {
          this.appendEvent(a, t, taskEvent('Received', 'Task received by client'));
          this.appendEvent(
            a,
            t,
            taskEvent('Task Setup', 'Building Task Directory', {
              Message: 'Building Task Directory',
              Details: { message: 'Building Task Directory' },
            }),
          );
        }
      }),
    );
    this.later(2, () => this.startTasks(id));
  }

  /** Alloc names (job.group[i]) whose tasks fail to start with this driver error (a broken task), for tests. */
  readonly failStart = new Map<string, string>();

  /** All tasks of the alloc start: Started event, StartedAt now, ClientStatus running (or a Driver Failure, see failStart). */
  startTasks(id: string): void {
    const broken = this.failStart.get(this.allocs.get(id)?.Name ?? '');
    if (broken !== undefined) {
      this.updateAlloc(id, (a) => {
        for (const [t, st] of Object.entries(a.TaskStates ?? {})) {
          this.appendEvent(
            a,
            t,
            taskEvent('Driver Failure', broken, {
              DriverError: broken,
              FailsTask: true,
              Details: { driver_error: broken, fails_task: 'true' },
            }),
          );
          this.appendEvent(a, t, taskEvent('Not Restarting', 'Error was unrecoverable', { FailsTask: true }));
          Object.assign(st, { State: 'dead', Failed: true, FinishedAt: nowRfc3339() });
        }
        Object.assign(a, { ClientStatus: 'failed', ClientDescription: 'Failed tasks' });
      });
      this.allocFailed(id);
      return;
    }
    this.updateAlloc(id, (a) => {
      for (const [t, st] of Object.entries(a.TaskStates ?? {})) {
        this.appendEvent(a, t, taskEvent('Started', 'Task started by client'));
        st.State = 'running';
        st.StartedAt = nowRfc3339();
      }
      a.ClientStatus = 'running';
      a.ClientDescription = 'Tasks are running';
    });
    const job = this.jobs.get(this.allocs.get(id)?.JobID ?? '');
    // a job some placement left pending: the client's update makes it running (real Nomad: setJobStatuses in the
    // AllocationUpdated transaction; a job is running from its plan on, so this rarely fires)
    if (job && job.Status !== 'running' && !job.Stop)
      this.commit(['jobs'], (idx) => Object.assign(job, { Status: 'running', ModifyIndex: idx }), 'AllocationUpdated');
    if (job) deploymentProgress(this, job.ID);
  }

  private hostPort(): number {
    const used = new Set(
      [...this.allocs.values()].flatMap((a) => (a.AllocatedResources?.Shared?.Ports ?? []).map((p) => p.Value)),
    );
    for (;;) {
      const p = 20000 + Math.floor(Math.random() * 12001);
      if (!used.has(p)) return p;
    }
  }
}
