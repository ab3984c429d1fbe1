// What a fault on a cluster leaves for the checks: each turn of the fault (which machine, named how, drained or not),
// the job's allocs before and after with the machine each node is, the probe series over the fault window, and the
// leader before and after. Pure data.
import type { AllocSnap, RebootRecord } from './evidence.js';
import type { SentinelEvidence } from './sentinels.js';
import type { JobType } from './kinds.js';

/** One drain of a client's node before its fault. */
interface DrainSeen {
  nodeId: string;
  /** Unix ms */
  requestedAt: number;
  /** Unix ms: Nomad cleared the node's DrainStrategy */
  doneAt: number;
  /** LastDrain.Status (complete, canceled) */
  status: string;
  /** allocs of the node Nomad meant to run when the drain began */
  allocsOnNode: string[];
}

/** One turn of the fault: one machine hit (alone when rolling, with the others of its wave otherwise). */
export interface FaultTurn {
  /** slot name: "client-2", "server-1", "client" in a pair */
  machine: string;
  role: 'server' | 'client';
  /** how --target named it: the machine itself, "leader", "clients", "servers" */
  targetedAs: string;
  /** a leader turn: how the leader's address was read back to this machine */
  resolvedHow?: string;
  /** a client's Nomad node */
  nodeId?: string;
  drain?: DrainSeen;
  reboot: RebootRecord;
  /** Unix ms: the node was marked eligible again after its drain */
  eligibleAt?: number;
}

/** One probe of one port of one alloc at one tick of the series. */
export interface ProbeSample {
  /** Unix ms the probe started */
  atMs: number;
  /** the tick this probe belongs to (all probes of a tick start together) */
  tick: number;
  /** what must keep answering: "<group>/<port label>" */
  service: string;
  /** the alloc and address probed, for the reader: "a1b2c3d4 10.199.0.21:25431" */
  target: string;
  /** the machine the probe ran from */
  from: string;
  ok: boolean;
  error?: string;
  /** ms from sending the probe to its answer, or to giving up on it (absent in records before it was kept) */
  latencyMs?: number;
  /**
   * What the probe says of the service: `answered`; `down` (immediate evidence: refused, reset, unreachable, an HTTP
   * error, no alloc of it on a live client); `silent` (no answer within the probe's deadline, or the probe could not
   * be made: no evidence either way). Absent in older records: lib/checks/continuity.ts reads it from `error`.
   */
  outcome?: ProbeOutcome;
}

export type ProbeOutcome = 'answered' | 'down' | 'silent';

/** The probe series over the fault window. */
export interface ProbeSeries {
  intervalMs: number;
  /** Unix ms: the first tick, just before the first fault */
  startMs: number;
  /** Unix ms: the last tick, once the last machine is back and the job settled */
  endMs: number;
  samples: ProbeSample[];
  /** the services meant to answer throughout (every group/port the job maps and probes) */
  services: string[];
  /** how long the harness waited for one probe's answer (absent in records before probes overlapped) */
  probeTimeoutMs?: number;
}

/** The leader around a server's fault. */
export interface LeaderSeen {
  /** slot name of the leader before the fault */
  before: string;
  /** slot name of the leader elected meanwhile, when one was seen */
  elected?: string;
  /** ms from the fault's request to the first answer naming a leader other than the old one */
  electedAfterMs?: number;
  /** the bound a new leader must be elected within */
  boundMs: number;
  /** the old leader is a voting member again after its fault (serf alive, a raft peer) */
  oldRejoined: boolean;
  /** what was seen of the old leader at the end, one line */
  oldState: string;
  /** the lab has one server: the leader can only come back with it (the bound then runs from its return) */
  single: boolean;
  /** /v1/status/leader as a live machine saw it during the fault, read back to machines ("" = none, "?" = no answer) */
  observed: { atMs: number; leader: string; from: string }[];
}

/** One job run on the cluster, with what its type promises across the fault depends on. */
export interface ClusterJob {
  id: string;
  expectedAllocs: number;
  /** Nomad's job type (absent in older records: service) */
  type?: JobType;
  /** its groups whose reschedule policy allows no reschedule (attempts = 0, unlimited = false) */
  noReschedule?: string[];
  /** its groups with ephemeral_disk { sticky or migrate }: their data is judged (volume-data) */
  keptDisks?: { group: string; sticky: boolean; migrate: boolean }[];
  /** its groups that mount a host volume (the lab's static LAB_HOST_VOLUME or a dynamic one the run created): their
   * data is judged (volume-data) */
  hostVolumes?: string[];
  /** the host volume each of those groups mounts, by group (absent in older records: LAB_HOST_VOLUME) */
  volumeNames?: Record<string, string>;
}

/**
 * One host volume on one client node as Nomad reports it after the fault: a static one from the node's HostVolumes
 * (declared in the client's config: no state or claims of its own, ready when the node declares it and is ready); a
 * dynamic one (Nomad 1.10+, created through the API) is in the node's HostVolumes with its ID, and GET
 * /v1/volume/host/:id gives its own State and the allocs that claim it (claims, where read).
 */
export interface VolumeStateRead {
  name: string;
  nodeId: string;
  kind: 'static' | 'dynamic';
  /** a dynamic volume's ID */
  id?: string;
  /** "ready", or what keeps it from being: "absent" (the node does not declare it), "node down", a dynamic State */
  state: string;
  /** its directory on the client */
  path?: string;
  /** a dynamic volume: the IDs of the allocs Nomad holds as its claims (its Allocations) */
  claims?: string[];
  /** why it was not read */
  error?: string;
}

/** The marker of one alloc as read through Nomad (GET /v1/client/fs/cat): its text, or why it was not read. */
export interface MarkerRead {
  content?: string;
  error?: string;
}

export interface ClusterEvidence {
  /** "1+1", "3+2" */
  topology: string;
  /** the job's ID; with several jobs, the first's (`jobs` has each) */
  jobId: string;
  /** how many allocs the job means to run (with several jobs: all of them) */
  expectedAllocs: number;
  /** each job run, with the allocs it means to run (absent in older records: the one job above) */
  jobs?: ClusterJob[];
  /** Nomad node ID -> machine slot name */
  nodeNames: Record<string, string>;
  turns: FaultTurn[];
  /**
   * what the target named, planned before the first fault, in turn order: each machine's slot name, or "leader" for a
   * turn resolved when it starts (absent in records before it was kept). A roll that stops early hits fewer.
   */
  targeted?: string[];
  /** the raft index read before the first fault: allocs created after it came of the fault */
  disruptionIndex: number;
  /** the job's allocs healthy before the first fault */
  before: AllocSnap[];
  /** every alloc of the job after the last turn settled, terminal ones too */
  after: AllocSnap[];
  drain: boolean;
  series?: ProbeSeries;
  /** the longest gap a service may have (0: none) */
  maxGapMs: number;
  leader?: LeaderSeen;
  /** every agent's journals and unit, the faults' effects, the servers' own state (absent in older records) */
  sentinels?: SentinelEvidence;
  /** the disk markers (DISK_MARKER) of the allocs of keptDisks groups, by alloc ID, before the first fault and after */
  markers?: { before: Record<string, MarkerRead>; after: Record<string, MarkerRead> };
  /** the host volumes as Nomad reports them after the fault, on each node that ran or runs an alloc mounting one */
  volumeStates?: VolumeStateRead[];
  /** the host volume markers of the allocs of hostVolumes groups (read on the alloc's client), by alloc ID */
  volumeMarkers?: { before: Record<string, MarkerRead>; after: Record<string, MarkerRead> };
}
