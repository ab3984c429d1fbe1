// The evidence the always-on sentinel checks judge, recorded the same way by every Nomad scenario: each agent's
// journal over the boots the run covers and its systemd unit state, what each fault was seen to cause, and the
// servers' own state read from each server side by side. The judges are pure over this recorded text and data.
import type { RebootKind } from './kinds.js';

/** One boot's journal of the Nomad unit on one machine, as read (`journalctl -u nomad -b <boot> -o short-iso-precise`). */
export interface AgentBootJournal {
  /** journalctl's boot offset: "0" the current boot, "-1" the boot a reboot ended, and so on */
  boot: string;
  /** the journal lines, as printed (journalctl's own `-- ...` lines left out) */
  lines: string[];
  /** why the journal of this boot could not be read */
  error?: string;
}

/** One machine's Nomad agent across the run: its journals and its unit's state at the end. */
export interface AgentJournalRead {
  /** the machine's slot name (server-1, client) */
  machine: string;
  role: string;
  boots: AgentBootJournal[];
  /** `systemctl show nomad -p NRestarts -p ExecMainStatus -p ExecMainStartTimestamp -p ActiveState`, as printed */
  unitShow?: string;
  /** why nothing could be read (the machine did not answer) */
  error?: string;
}

/** A fault as it was requested and what was seen of its effect, for the vacuity rule. */
export interface FaultEffectSeen {
  /** the machine's slot name */
  machine: string;
  role: string;
  kind: RebootKind;
  requestedAt: number;
  backAt: number;
  bootIdBefore: string;
  bootIdAfter: string;
  /** the fault's own facts (agent-kill: agent.restarts, agent.pid.before/after; partition: partition.seconds) */
  facts?: Record<string, string>;
  /** the labels of the fault's own moments (RebootRecord.marks: "powered off", "partition healed") */
  marks?: string[];
  /** the node's statuses the servers reported after the fault was requested, in order (clients only) */
  nodeStatuses?: string[];
  /** the server's heartbeat_grace in ms (a partition shorter than it need not change the node) */
  heartbeatGraceMs?: number;
  /** the machine's Nomad journal lines after the fault (clients: where a restore attempt is logged) */
  agentLogAfter?: string[];
  /** the target ran allocs the fault should make the client restore (a client with the job's allocs) */
  hadAllocs?: boolean;
}

/** The user's additions to the shipped agent-log invariants (config `agent_log.never` and `.allowed`). */
interface AgentLogRules {
  /** substrings that must never appear in an agent's journal after the fault */
  never: string[];
  /** substrings that excuse a line the never-list matched */
  allowed: string[];
}

/** The resources compared across servers, read with `stale=true` from each server's own state store. */
export const SERVER_STATE_KINDS = ['jobs', 'allocs', 'nodes', 'deployments', 'variables'] as const;
export type ServerStateKind = (typeof SERVER_STATE_KINDS)[number];

/** One server's own view, read from that server (not forwarded to the leader). */
export interface ServerRead {
  /** the server machine's slot name */
  server: string;
  /** Unix ms the read started */
  atMs: number;
  /** the Raft configuration's voters (`/v1/operator/raft/configuration`), by node name, sorted */
  voters?: string[];
  /** Raft stats of `/v1/agent/self`: last log index and term, applied index */
  lastIndex?: number;
  lastTerm?: number;
  appliedIndex?: number;
  /** the applied index read again after the state reads: equal to appliedIndex when they saw one state */
  appliedIndexAfter?: number;
  /** keyring ready: at least one active key listed by `/v1/operator/keyring/keys`; the detail says what was seen */
  keyring?: { ready: boolean; detail: string };
  /** per resource, one line per object: `<id> <modify index>`, sorted */
  state?: Partial<Record<ServerStateKind, string[]>>;
  /** reads that failed, one line each */
  errors: string[];
}

/** The servers' reads: the last round, and how many rounds it took them to agree (or the bound ran out). */
export interface ServersRead {
  reads: ServerRead[];
  rounds: number;
  /** how long the reads were repeated until the servers converged */
  boundMs: number;
  /** when: after a fault on a server, or the end of the run */
  when: string;
}

/** Everything the sentinel checks judge. Every Nomad scenario's evidence carries it as `sentinels`. */
export interface SentinelEvidence {
  /**
   * Unix ms the agents were up and ready: crashes and systemd restarts from here on count (not the installation's
   * own restarts, nor what an earlier run left in a warm lab's journal)
   */
  watchFromMs: number;
  /** Unix ms of the first fault's request: the agent-log invariants apply after it */
  faultAtMs?: number;
  agents: AgentJournalRead[];
  faults: FaultEffectSeen[];
  logRules: AgentLogRules;
  /** cluster runs only */
  servers?: ServersRead;
  /** each server's own state read again right after every wave of faults that hit a server, in run order */
  serversAfterFaults?: ServersRead[];
}

/** The part of a scenario's evidence the sentinel checks read. */
export interface WithSentinels {
  sentinels?: SentinelEvidence;
}
