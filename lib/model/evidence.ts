// The ground floor: the evidence a reboot scenario collects, as plain data. Checks are pure functions over it.
// Imports nothing (test/unit/layering.test.ts).
import type { SentinelEvidence } from './sentinels.js';
import type { DisconnectPolicy } from './disconnect.js';
import type { RebootKind } from './kinds.js';

/** What a reboot (or another fault kind) observed. Times are wall-clock epoch milliseconds. */
export interface RebootRecord {
  machine: string;
  kind: RebootKind;
  bootIdBefore: string;
  bootIdAfter: string;
  /** when the reboot was requested */
  requestedAt: number;
  /** first time SSH answered with the new boot id (for kinds without a reboot: when the fault was over) */
  backAt: number;
  /** the moments of the fault in between, for the timeline */
  marks?: FaultMark[];
  /** facts for the report (e.g. agent pids before and after an agent-kill) */
  facts?: Record<string, string>;
}

/** A moment of a fault for the timeline (power off/on, partition applied/healed, agent killed/back). */
export interface FaultMark {
  atMs: number;
  label: string;
  detail?: string;
}

/** The client's named network namespaces and host-side veths (lib/parse/host-observe.ts reads them). */
export interface NetState {
  /** names under /var/run/netns (Nomad names an alloc's namespace by its alloc ID) */
  netns: string[];
  /** host-side veths, with the bridge they are enslaved to */
  veths: { name: string; master: string | undefined }[];
}

/** One task event as seen in the API (`TaskStates[task].Events[]`). */
export interface TaskEventRec {
  type: string;
  /** Unix milliseconds (the API gives nanoseconds) */
  timeMs: number;
  /** DisplayMessage, falling back to Message */
  message: string;
  details: Record<string, string>;
  failsTask: boolean;
  /** the task the event belongs to (set by mergeTaskEvents; absent in older records) */
  task?: string;
}

export interface TaskStateSnap {
  state: string; // pending | running | dead
  failed: boolean;
  restarts: number;
  /** RFC3339 or undefined when zero time */
  startedAt: string | undefined;
  finishedAt: string | undefined;
  events: TaskEventRec[];
}

export interface PortMapping {
  label: string;
  /** host port */
  value: number;
  /** port inside the alloc's network namespace */
  to: number;
  hostIp: string;
}

/** An allocation as the server reported it at one moment. */
export interface AllocSnap {
  id: string;
  name: string;
  nodeId: string;
  jobId: string;
  taskGroup: string;
  clientStatus: string; // pending | running | complete | failed | lost | unknown
  desiredStatus: string; // run | stop | evict
  desiredDescription: string;
  clientDescription: string;
  createIndex: number;
  modifyIndex: number;
  /** Unix ms */
  createTimeMs: number;
  previousAllocation: string | undefined;
  nextAllocation: string | undefined;
  /** FollowupEvalID: a delayed reschedule is coming (absent in older records) */
  followupEvalId?: string;
  /** DesiredTransition.Migrate: a drain asked the scheduler to move it (absent in older records) */
  migrate?: boolean;
  /** the server's record of the alloc's ClientStatus changes (AllocStates: unknown, lost, running again), oldest first */
  clientStatusStates?: { status: string; atMs: number }[];
  /** NetworkStatus.Address: the alloc's address on the bridge */
  address: string | undefined;
  ports: PortMapping[];
  tasks: Record<string, TaskStateSnap>;
}

export interface NodeSnap {
  id: string;
  name: string;
  status: string; // initializing | ready | down | disconnected
  /** Unix seconds */
  statusUpdatedAt: number;
  drivers: Record<string, { detected: boolean; healthy: boolean }>;
  attributes: Record<string, string>;
  events: { message: string; timestamp: string }[];
}

/** One HTTP request made from inside a VM. */
export interface HttpProbe {
  /** who asked (machine role) */
  from: string;
  url: string;
  ok: boolean;
  status: number | undefined;
  error: string | undefined;
  /** which path the probe exercises; when absent the http-reachable check infers it from the URL */
  target?: 'bridge' | 'host-port';
  /** the alloc whose port was probed (absent in older records: the watched alloc) */
  allocId?: string;
  /** the port label probed */
  port?: string;
  /** HTTP GET, or a plain TCP connect (ports that do not serve HTTP); default http */
  kind?: 'http' | 'tcp';
}

/** A listing of one CNI host-local state directory: file name -> content ("" for none). */
export interface CniStateListing {
  dir: string;
  exists: boolean;
  files: Record<string, string>;
}

/** What the harness saw at one moment (before or after the reboot). */
export interface Observation {
  label: string;
  /** wall clock, Unix ms */
  atMs: number;
  bootId: string;
  uptimeS: number | undefined;
  node: NodeSnap | undefined;
  /** the alloc watched across the reboot, looked up by its ID */
  alloc: AllocSnap | undefined;
  /** every alloc of the job (full objects) */
  jobAllocs: AllocSnap[];
  /** every non-terminal alloc on the client node (any job), for the unique-IP check */
  nodeAllocs: AllocSnap[];
  http: HttpProbe[];
  cniState: CniStateListing[];
  /** the client's named network namespaces and veths; absent when not read */
  netState?: NetState;
  /** the client's nat table (CNI chains and DNAT rules); absent when not read */
  firewall?: NatTable;
}

/** One evaluation of a job as Nomad held it (`/v1/job/:id/evaluations`). */
export interface EvalSnap {
  id: string;
  /** pending | blocked | complete | failed | canceled (the last three are terminal) */
  status: string;
  /** why Nomad made it: job-register, alloc-failure, node-update, queued-allocs... */
  triggeredBy: string;
  statusDescription: string;
  /** WaitUntil, Unix ms on the server's clock: the broker holds the eval until then (a delayed reschedule) */
  waitUntilMs: number | undefined;
  createIndex: number;
  modifyIndex: number;
}

/** A job's latest deployment (`/v1/job/:id/deployment`). */
export interface DeploymentSnap {
  id: string;
  /** running | paused | pending | blocked | unblocking | initializing (active), successful | failed | cancelled */
  status: string;
  statusDescription: string;
  modifyIndex: number;
}

/**
 * How the wait after the disruption ended: the job settled (every judged place decided and Nomad with nothing pending
 * for it, confirmed by an unchanged view; or unchanged for the quiet period while Nomad still held something), or not
 * (the deadline ran out; or Nomad reschedules an alloc only after the run's budget).
 */
export interface SettleRecord {
  settled: boolean;
  /** one line: what was seen last */
  reason: string;
  /** the quiet period: the longest wait on Nomad's pending work while nothing changes (ms) */
  quietMs: number;
  /** how it ended (absent in older records: settled or deadline) */
  ending?: SettleEnding;
  /** the confirmation window: how long the view stayed unchanged once Nomad had nothing pending (ms) */
  confirmMs?: number;
}

/** settled: decided and confirmed; quiet: decided, Nomad still holding something, nothing changed for quietMs. */
export type SettleEnding = 'settled' | 'quiet' | 'beyond-budget' | 'deadline';

/** Everything a reboot scenario's checks decide from. */
export interface RebootEvidence {
  jobId: string;
  taskName: string;
  /** the first alloc that was running before the reboot (older records watched only this one) */
  allocId: string;
  /** every alloc of the job that was healthy before the reboot; each is judged (absent: [allocId]) */
  allocIds?: string[];
  /** Nomad's index read just before the disruption: an alloc created after it is new (replacement) */
  disruptionIndex?: number;
  /** the server's heartbeat_grace in this run (explains a node marked down) */
  heartbeatGrace?: string;
  /** how the wait after the reboot ended */
  settle?: SettleRecord;
  /** each task group's policy for a silent client, as the run's Nomad line applies it (absent in older records) */
  disconnect?: DisconnectPolicy[];
  /** false when the fault leaves the tasks running (agent-kill, a short partition); absent: decided by the kind */
  tasksRestart?: boolean;
  /** which probe each mapped port gets, per task group and port label (from the job's meta; see probe-kind.ts) */
  probeKinds?: Record<string, Record<string, 'http' | 'tcp' | 'none'>>;
  /** the task groups in host network mode: no namespace or bridge address of their own (absent: none) */
  hostGroups?: string[];
  before: Observation;
  after: Observation;
  reboot: RebootRecord;
  /** every task event seen per alloc across the run, oldest first, de-duplicated (Nomad keeps only 10) */
  taskEvents: Record<string, TaskEventRec[]>;
  /** client agent log lines from the boot after the reboot */
  clientLog: string[];
  /** the restored allocs' tasks, exec, services and the agent's resources (absent in older records) */
  whole?: WholeAllocEvidence;
  /** every agent's journals and unit, the faults' effects, the servers' own state (absent in older records) */
  sentinels?: SentinelEvidence;
}

// ---- A restored alloc judged whole: its task directories, processes, network environment, exec, services, the agent ----

/** The filesystem holding one task's secrets/ or private/ directory on the client (`findmnt -T`). */
export interface TaskDirMount {
  allocId: string;
  task: string;
  dir: 'secrets' | 'private';
  path: string;
  /** the mount point holding the path: the path itself only when the directory is a mount of its own */
  target: string;
  fstype: string;
  source: string;
  options: string;
}

/**
 * One process of a task on the client, found by NOMAD_ALLOC_ID and NOMAD_TASK_NAME in its environment (any driver).
 * Note: only those two and the alloc-network variables are ever read from the environment (it may hold secrets).
 */
export interface TaskProcess {
  pid: number;
  comm: string;
  allocId: string;
  task: string;
  /** its network namespace (the inode of /proc/<pid>/ns/net) */
  netns: string;
  /** NOMAD_ALLOC_IP_<label>, NOMAD_ALLOC_ADDR_<label>, NOMAD_ALLOC_PORT_<label> as the process was started with */
  allocNetEnv: Record<string, string>;
  /** its /etc/hosts: present, written by Nomad (its first line says so), the non-loopback addresses it names */
  etcHosts: { exists: boolean; byNomad: boolean; addresses: string[] };
  /** its /etc/resolv.conf is present */
  resolvConf: boolean;
}

/** A network namespace on the client: its inode, its names under /var/run/netns, its global IPv4 addresses. */
export interface NetnsRec {
  inode: string;
  names: string[];
  addrs: { ifname: string; cidr: string }[];
}

/** The allocs' tasks as the client host shows them at one moment. */
export interface TaskHostState {
  /** wall clock, Unix ms */
  atMs: number;
  /** the client's alloc dir (<data_dir>/alloc) */
  allocDir: string;
  taskDirs: TaskDirMount[];
  processes: TaskProcess[];
  netns: NetnsRec[];
}

/** One task the harness restarted through the API after the disruption, and its processes once started again. */
export interface TaskRestartRec {
  allocId: string;
  task: string;
  /** Unix ms */
  requestedAtMs: number;
  /** its Started event after the request (Unix ms); absent when it did not start again */
  startedAtMs?: number;
  /** why the restart, or the wait for it, failed */
  error?: string;
}

/** `alloc exec` of a trivial command into one task (through Nomad's exec stream). */
export interface ExecProbeRec {
  allocId: string;
  task: string;
  command: string;
  ok: boolean;
  /** the exit code `nomad alloc exec` returned; undefined when it did not end before its deadline */
  exitCode: number | undefined;
  durationMs: number;
  /** its last output lines when it failed */
  output: string;
}

/** A Nomad-native service (provider "nomad") the job declares, with its checks' names. */
export interface JobServiceRec {
  name: string;
  group: string;
  /** the task a task-level service belongs to */
  task?: string;
  portLabel: string;
  /** its checks' names ("" for one the job left unnamed: Nomad names it) */
  checks: string[];
}

/** One registration of a Nomad-native service (GET /v1/service/<name>). */
export interface ServiceRegRec {
  service: string;
  id: string;
  allocId: string;
  address: string;
  port: number;
}

/** The latest result of one Nomad-native check of an alloc (GET /v1/client/allocation/<id>/checks). */
export interface AllocCheckRec {
  allocId: string;
  service: string;
  check: string;
  /** success | failure | pending */
  status: string;
  output: string;
  /** Unix seconds */
  timestampS: number;
}

/** The job's Nomad-native services and what the API shows of them after the disruption. */
export interface ServicesEvidence {
  declared: JobServiceRec[];
  registrations: ServiceRegRec[];
  checks: AllocCheckRec[];
  /** per alloc or service: why it could not be read */
  errors: Record<string, string>;
  /** how long the harness waited for every registration and passing check (ms), and whether it saw them all */
  waitedMs: number;
  complete: boolean;
}

/** One sample of the client agent's own resources. */
export interface AgentSample {
  /** Unix ms, the client's clock */
  atMs: number;
  pid: number;
  fds: number;
  executors: number;
  logmons: number;
  dockerLoggers: number;
}

/** The parts of a whole-alloc read, for the reasons a part was not read. */
export type WholeAllocPart = 'host' | 'restart' | 'exec' | 'services' | 'agent';

/** Everything the whole-alloc checks decide from; a part is absent when it was not read, with the reason in notRead. */
export interface WholeAllocEvidence {
  notRead: Partial<Record<WholeAllocPart, string>>;
  before?: TaskHostState;
  after?: TaskHostState;
  restarts?: TaskRestartRec[];
  /** the task processes read after the restarts */
  afterRestart?: TaskHostState;
  exec?: ExecProbeRec[];
  services?: ServicesEvidence;
  agent?: { samples: AgentSample[]; intervalS: number };
}

/** One rule of the nat table (`iptables-save -t nat`), with the container (alloc) ID its CNI comment names. */
export interface NatRule {
  chain: string;
  /** the CNI container ID the rule's comment carries (Nomad gives CNI the alloc ID) */
  owner?: string;
  /** the rule as iptables-save prints it */
  text: string;
}

/** The client's nat table: chain names and rules (lib/parse/iptables-nat.ts reads it). */
export interface NatTable {
  chains: string[];
  rules: NatRule[];
}
