// The JSON we read from Nomad's HTTP API: only the fields the harness uses, spelled as the API
// spells them (PascalCase). Shapes from docs/nomad-reference.md §1-2 (nomad api/*.go, structs.go).

/** One task event (`TaskStates[task].Events[]`). `Time` is Unix nanoseconds. */
export interface ApiTaskEvent {
  Type: string;
  Time: number;
  DisplayMessage?: string;
  Message?: string;
  Details?: Record<string, string> | null;
  FailsTask?: boolean;
  SetupError?: string;
  DriverError?: string;
  KillReason?: string;
  RestartReason?: string;
}

/** `TaskStates[task]`: times are RFC3339Nano strings; "never" is null (1.9.3 capture) or Go's zero time. */
export interface ApiTaskState {
  State: string;
  Failed: boolean;
  Restarts: number;
  LastRestart: string | null;
  StartedAt: string | null;
  FinishedAt: string | null;
  Events: ApiTaskEvent[] | null;
}

/** `AllocatedResources.Shared.Ports[]`: Value = host port, To = port inside the netns. */
export interface ApiPortMapping {
  Label: string;
  Value: number;
  To: number;
  HostIP: string;
}

export interface ApiAllocatedResources {
  Shared?: { DiskMB?: number; Ports?: ApiPortMapping[] | null; Networks?: unknown[] | null } | null;
  Tasks?: Record<string, unknown> | null;
}

/** `NetworkStatus`: the alloc's address on the bridge (from the CNI result). */
export interface ApiNetworkStatus {
  InterfaceName: string;
  Address: string;
  AddressIPv6?: string;
  DNS?: unknown;
}

/** AllocListStub (`/v1/job/:id/allocations`): no PreviousAllocation, no NetworkStatus.
 * Note: Nomad omits empty strings (a 1.9.3 capture has no DesiredDescription/NextAllocation keys). */
export interface ApiAllocListStub {
  ID: string;
  EvalID: string;
  Name: string;
  Namespace: string;
  NodeID: string;
  NodeName: string;
  JobID: string;
  JobType?: string;
  JobVersion?: number;
  TaskGroup: string;
  DesiredStatus: string;
  DesiredDescription?: string;
  ClientStatus: string;
  ClientDescription?: string;
  TaskStates: Record<string, ApiTaskState> | null;
  FollowupEvalID?: string;
  NextAllocation?: string;
  /** what the server wants of the alloc: Migrate is set by a drain (nomad/structs DesiredTransition) */
  DesiredTransition?: {
    Migrate?: boolean | null;
    Reschedule?: boolean | null;
    ForceReschedule?: boolean | null;
  } | null;
  CreateIndex: number;
  ModifyIndex: number;
  /** Unix nanoseconds */
  CreateTime: number;
  /** Unix nanoseconds */
  ModifyTime: number;
}

/** Full Allocation (`/v1/allocation/:id`, `/v1/node/:id/allocations`). */
export interface ApiAllocation extends ApiAllocListStub {
  PreviousAllocation?: string;
  NetworkStatus: ApiNetworkStatus | null;
  AllocatedResources: ApiAllocatedResources | null;
  Job?: ApiJob | null;
  /** changes of the whole alloc (lost, unknown, reconnected): Field 0 is ClientStatus; left out while empty */
  AllocStates?: ApiAllocState[] | null;
}

/** One `AllocStates[]` entry (nomad/structs AllocState): Field is a number (0 = ClientStatus), Time RFC3339. */
export interface ApiAllocState {
  Field: number;
  Value: string;
  Time: string;
}

/** A node's driver fingerprint (`Drivers[name]`). */
export interface ApiDriverInfo {
  Detected: boolean;
  Healthy: boolean;
  HealthDescription?: string;
  UpdateTime?: string;
  Attributes?: Record<string, string> | null;
}

/** `Events[]` of a node: Timestamp is RFC3339. */
export interface ApiNodeEvent {
  Message: string;
  Subsystem: string;
  Details: Record<string, string> | null;
  Timestamp: string;
  CreateIndex: number;
}

/** NodeListStub (`/v1/nodes`): no StatusUpdatedAt, no Events. */
export interface ApiNodeListStub {
  ID: string;
  Name: string;
  Address: string;
  Datacenter: string;
  NodePool?: string;
  Version: string;
  Drain: boolean;
  SchedulingEligibility: string;
  Status: string;
  StatusDescription: string;
  Drivers: Record<string, ApiDriverInfo> | null;
  CreateIndex: number;
  ModifyIndex: number;
}

/** Full Node (`/v1/node/:id`). StatusUpdatedAt is Unix seconds. */
export interface ApiNode {
  ID: string;
  Name: string;
  Datacenter: string;
  HTTPAddr: string;
  Status: string;
  StatusDescription: string;
  StatusUpdatedAt: number;
  SchedulingEligibility: string;
  /** set while a drain runs, null once it is done or cancelled */
  DrainStrategy?: ApiDrainStrategy | null;
  /** the last drain's outcome (Nomad >= 1.2): Status draining | complete | canceled */
  LastDrain?: { Status: string; StartedAt?: string; UpdatedAt?: string } | null;
  Drivers: Record<string, ApiDriverInfo> | null;
  Attributes: Record<string, string> | null;
  Events: ApiNodeEvent[] | null;
  /** the host volumes the node offers, by name: static ones from its config; dynamic ones (1.10+) carry their ID */
  HostVolumes?: Record<string, ApiClientHostVolume> | null;
  CreateIndex: number;
  ModifyIndex: number;
}

/** structs.ClientHostVolumeConfig: ID (1.10+) is set for a dynamic host volume only. */
export interface ApiClientHostVolume {
  Name: string;
  Path: string;
  ReadOnly: boolean;
  ID?: string;
}

/**
 * A dynamic host volume (1.10+; api.HostVolume): created on one node by a plugin (the built-in `mkdir` makes
 * `<data_dir>/host_volumes/<ID>`). State is "pending" in the create answer, "ready" once its client made it;
 * Allocations, in a read of one volume, are the allocs that use it (captures real-1.10.5/dynamic-host-volume).
 */
export interface ApiHostVolume {
  Namespace: string;
  ID: string;
  Name: string;
  PluginID: string;
  NodePool: string;
  NodeID: string;
  HostPath: string;
  State: string;
  CapacityBytes: number;
  Parameters?: Record<string, string> | null;
  Allocations?: ApiAllocListStub[] | null;
  CreateIndex: number;
  ModifyIndex: number;
}

/** What a host volume create asks for (api.HostVolumeCreateRequest's Volume, the fields the harness sets). */
export interface ApiHostVolumeSpec {
  Name: string;
  Namespace?: string;
  PluginID: string;
  NodeID: string;
  RequestedCapabilities: { AttachmentMode: string; AccessMode: string }[];
  Parameters?: Record<string, string>;
}

/** A node's running drain: Deadline in ns (0 = none, < 0 = force), ForceDeadline when it ends at the latest (RFC3339). */
export interface ApiDrainStrategy {
  Deadline: number;
  IgnoreSystemJobs: boolean;
  ForceDeadline?: string;
  StartedAt?: string;
}

/** PUT /v1/node/:id/drain and /eligibility answer with the evals they created. */
export interface ApiNodeUpdateResponse {
  NodeModifyIndex: number;
  EvalIDs?: string[] | null;
  EvalCreateIndex?: number;
  Index?: number;
}

/** One Serf member (`/v1/agent/members`): Name is "<node name>.<region>". */
export interface ApiAgentMember {
  Name: string;
  Addr: string;
  Port: number;
  Status: string;
  Tags: Record<string, string> | null;
}

/** `/v1/operator/raft/configuration`: the Raft peers (Node is the server's node name). */
export interface ApiRaftConfiguration {
  Index: number;
  Servers: { ID: string; Node: string; Address: string; Leader: boolean; Voter: boolean; RaftProtocol?: string }[];
}

/** The server-side lists compared across servers (lib/model/sentinels.ts SERVER_STATE_KINDS). */
export type ServerListKind = 'jobs' | 'allocs' | 'nodes' | 'deployments' | 'variables';

/** The fields every list stub shares that the comparison reads (a variable has Path instead of ID). */
export interface ApiListStub {
  ID?: string;
  Path?: string;
  Namespace?: string;
  ModifyIndex?: number;
}

/** One key of `/v1/operator/keyring/keys`. */
export interface ApiKeyringKey {
  KeyID: string;
  Algorithm?: string;
  CreateTime?: number;
  /** "active", "inactive", "rekeying", "deprecated" */
  State?: string;
}

/** The subset of `/v1/agent/self` we read (top-level keys are lowercase in the API). */
export interface ApiAgentSelf {
  config: {
    Region?: string;
    Datacenter?: string;
    NodeName?: string;
    Version: { Version: string; VersionPrerelease: string; Revision: string };
    Server?: { Enabled: boolean } | null;
    Client?: {
      Enabled: boolean;
      CNIPath?: string;
      CNIConfigDir?: string;
      BridgeNetworkName?: string;
      BridgeNetworkSubnet?: string;
    } | null;
  };
  member: { Name: string; Addr: string; Port: number; Status: string; Tags: Record<string, string> };
  stats: Record<string, Record<string, string>>;
}

/** A job as parse/read return it; only the fields we touch are typed. */
export interface ApiJob {
  ID: string;
  Name: string;
  Namespace?: string;
  Type: string;
  Status?: string;
  Stop?: boolean;
  TaskGroups: ApiTaskGroup[] | null;
  CreateIndex?: number;
  ModifyIndex?: number;
  JobModifyIndex?: number;
  [key: string]: unknown;
}

export interface ApiTaskGroup {
  Name: string;
  Count: number;
  Tasks: { Name: string; Driver: string; [key: string]: unknown }[] | null;
  Networks?:
    | {
        Mode: string;
        DynamicPorts?: { Label: string; Value: number; To: number }[] | null;
        ReservedPorts?: unknown[] | null;
      }[]
    | null;
  [key: string]: unknown;
}

/** Response of `POST /v1/jobs`. */
export interface ApiJobRegisterResponse {
  EvalID: string;
  EvalCreateIndex: number;
  JobModifyIndex: number;
  Warnings: string;
  Index: number;
}

/** Response of `DELETE /v1/job/:id`. */
export interface ApiJobDeregisterResponse {
  EvalID: string;
  EvalCreateIndex: number;
  JobModifyIndex: number;
}

/** An evaluation (`/v1/evaluations`, `/v1/evaluation/:id`). */
export interface ApiEvaluation {
  ID: string;
  Namespace: string;
  Priority: number;
  Type: string;
  TriggeredBy: string;
  JobID: string;
  NodeID?: string;
  Status: string;
  StatusDescription: string;
  BlockedEval?: string;
  /** the eval this one follows (a delayed reschedule's follow-up names the alloc-failure eval that made it) */
  PreviousEval?: string;
  NextEval?: string;
  /** RFC3339Nano: the broker holds the eval until then (a delayed reschedule); omitted while zero */
  WaitUntil?: string | null;
  FailedTGAllocs?: Record<string, unknown> | null;
  CreateIndex: number;
  ModifyIndex: number;
}

/** One registration of a Nomad-native service (`/v1/service/:name`, nomad/structs/service_registration.go). */
export interface ApiServiceRegistration {
  ID: string;
  ServiceName: string;
  Namespace: string;
  NodeID: string;
  Datacenter: string;
  JobID: string;
  AllocID: string;
  Tags: string[] | null;
  Address: string;
  Port: number;
  CreateIndex: number;
  ModifyIndex: number;
}

/** One Nomad-native check's latest result (`/v1/client/allocation/:id/checks`, keyed by check ID; nomad/structs/checks.go). */
export interface ApiCheckQueryResult {
  ID: string;
  /** healthiness | readiness */
  Mode: string;
  /** success | failure | pending */
  Status: string;
  StatusCode?: number;
  Output: string;
  /** Unix seconds */
  Timestamp: number;
  Group: string;
  Task?: string;
  Service: string;
  Check: string;
}

/** A deployment (`/v1/job/:id/deployment`, the job's latest). */
export interface ApiDeployment {
  ID: string;
  Namespace: string;
  JobID: string;
  JobVersion: number;
  /** running, paused, pending, blocked, unblocking, initializing (active); successful, failed, cancelled */
  Status: string;
  StatusDescription: string;
  CreateIndex: number;
  ModifyIndex: number;
}
