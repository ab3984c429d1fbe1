// The harness configuration: one typed object with every default in one place.
import type { Expectation } from '../model/check.js';
import type { ServerCount } from '../model/topology.js';
import type { ArtifactsPolicy, PowerOrder, RebootKind, TaskDriver, UpgradeMode } from '../model/kinds.js';
import type { TargetSpec } from '../model/target.js';
import type { KnownIssuePolicy } from '../model/known-issue.js';

/**
 * Every lab.provider: libvirt and virtualbox (VMs made by Vagrant), ssh (machines that already exist). Each is one
 * folder under lib/lab, registered in lib/lab/providers.ts (tsc fails while a name here has no provider there).
 */
export const PROVIDER_NAMES = ['libvirt', 'virtualbox', 'ssh'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** One existing machine (lab.provider: ssh); what is missing is reported by resolveConfig. */
export interface HostSpec {
  address: string | undefined;
  user: string | undefined;
  /** private key file */
  key: string | undefined;
  port: number;
  /** `[user@]host[:port]` of a jump host, reached with the same key */
  jump: string | undefined;
}

export interface HarnessConfig {
  /** scenario to run (positional argument of `run`) */
  scenario: string;
  /** a directory of user scenario files (*.ts), loaded next to the shipped ones (docs/scenarios.md) */
  scenariosDir: string | undefined;
  /** path of the Nomad binary installed in the VMs (linux/amd64 ELF); required by Nomad scenarios */
  nomadBinary: string | undefined;
  /** the build the client is upgraded to in place (upgrade-in-place scenario) */
  upgradeTo: string | undefined;
  upgrade: { mode: UpgradeMode };
  /** where version specs are downloaded from and the key their SHA256SUMS must be signed with (lib/builds) */
  builds: { releasesUrl: string; releasesKey: string | undefined };
  nomad: {
    /** ACL token for the lab's Nomad API (never logged or reported) */
    token: string | undefined;
    /** server heartbeat_grace written into the server agent config: longer than a reboot so the node is not marked down */
    heartbeatGrace: string;
    /** how long one Nomad API call keeps being retried while Nomad answers 5xx (0: not retried) */
    retryForS: number;
  };
  lab: {
    /** libvirt / virtualbox: VMs made by Vagrant; ssh: machines that already exist (lab.hosts) */
    provider: ProviderName;
    /**
     * the existing machines of lab.provider: ssh: `servers` and `clients` in slot order; `server`/`client` are the
     * older one-host keys (read both forms through hostsOf, lib/config/hosts.ts)
     */
    hosts: { servers: HostSpec[]; clients: HostSpec[]; server: HostSpec; client: HostSpec };
    /** how many Nomad servers (1, 3 or 5: one Raft cluster) and clients (1 to 8) the lab has */
    servers: ServerCount;
    clients: number;
    /** argv of the power reset of an existing host ({role}, {address} substituted); hard reboots need it */
    hardResetCommand: string[] | undefined;
    /** lab.provider ssh: the existing network namespace the hosts are reached from ("" = where the CLI runs) */
    hostsNetns: string;
    box: string;
    cpus: number;
    memoryMb: number;
    /**
     * libvirt domain type: "qemu" = software emulation (TCG), "kvm" = hardware virtualization, "auto" = KVM when a
     * probe proves KVM boots the box's kernel, emulation otherwise (lib/lab/kvm/accel.ts)
     */
    libvirtDriver: 'auto' | 'kvm' | 'qemu';
    /** QEMU translation-cache cap per VM in MiB (TCG only); 0 = QEMU's default (1 GiB) */
    tbCacheMb: number;
    cpuModel: string;
    /** run libvirtd and the lab inside this network namespace ("" = use the host network namespace) */
    netns: string;
    /** /24 for the private server<->client network */
    privateSubnet: string;
    /** /24 for vagrant-libvirt's management (SSH) network */
    managementSubnet: string;
    bootTimeoutS: number;
    /** where each run's Vagrant directory is created */
    workDir: string;
    /** warm reruns (a provider with snapshot/restore): start from a snapshot of the prepared lab of the same key (lib/lab/warm/warm-lab.ts) */
    warm: boolean;
    /** after-nomad: the snapshot holds ready agents (the build is in its key); before-nomad: VMs only, any build */
    warmSnapshot: 'after-nomad' | 'before-nomad';
  };
  /** the job's task driver (bridge-exec-reboot) */
  task: { driver: TaskDriver };
  /**
   * the user's own jobs (HCL files) for the scenarios that take them, in the order given, and their HCL variables;
   * none = the scenario's shipped job
   */
  job: { files: string[]; vars: Record<string, string | number | boolean> };
  /**
   * kind of fault (lib/faults/registry.ts); count: how many times bridge-exec-reboot reboots the client in one run;
   * settleQuietS: after a reboot, once every alloc's place is decided but Nomad still holds something for the job, how
   * long nothing may change before the wait ends anyway; settleConfirmS: once every place is decided and Nomad has
   * nothing pending for the job, how long the job must stay unchanged (at most settleQuietS);
   * offForS: how long power-off keeps the VM off; partitionForS: how long partition cuts the client off the server;
   * deadlineS: how long the client may take to answer SSH again after the fault (after power-on, after the heal)
   */
  reboot: {
    kind: RebootKind;
    count: number;
    settleQuietS: number;
    settleConfirmS: number;
    offForS: number;
    partitionForS: number;
    /** link-flap: how many cuts, each down for flapDownForS, up for flapUpForS between them */
    flapCount: number;
    flapDownForS: number;
    flapUpForS: number;
    /** link-loss: the share of packets dropped toward the servers (percent), the delay added (ms), for how long */
    lossPercent: number;
    lossDelayMs: number;
    lossForS: number;
    /** power-loss-all: which machines are powered on first */
    powerOrder: PowerOrder;
    deadlineS: number;
    /** restart one task per restored alloc after the fault and judge its environment (task-env) */
    restartTask: boolean;
    /** how long the client agent's resources are sampled after the fault (agent-resources); 0 = not sampled */
    resourcesWindowS: number;
    /** the machines the fault hits (lib/model/target.ts); undefined = the first client */
    target: TargetSpec | undefined;
    /**
     * several targets: one at a time (the next once the previous is back and the job settled), else all at once;
     * undefined = the scenario's default (rolling-reboot: rolling)
     */
    rolling: boolean | undefined;
    /**
     * drain each client's node before its fault (respecting the job's migrate block) and mark it eligible after;
     * undefined = the scenario's default (rolling-reboot: drained)
     */
    drain: boolean | undefined;
    /** the drain's deadline given to Nomad (allocs still there are stopped then); the harness waits a little longer */
    drainDeadlineS: number;
    /** service continuity: the longest gap the job's ports may have during the fault window (0 = none) */
    maxGapS: number;
    /** service continuity: how often the job's ports are probed during the fault window (Go duration) */
    probeInterval: string;
    /** new-leader: how soon after the leader's fault another server must lead (Go duration) */
    leaderWithin: string;
    /**
     * a fault schedule (YAML file, lib/faults/schedule.ts): several faults with targets and waits, run in place of
     * reboot.kind by the cluster scenarios; undefined = one fault of reboot.kind
     */
    faults: string | undefined;
    /** the seed of a schedule's picks (any-client, any-server); undefined = the file's, else a new one, recorded */
    seed: number | undefined;
  };
  expect: { scenario: Expectation | undefined; perCheck: Record<string, Expectation> };
  /** agent-log-invariants: texts no agent may log after a fault (added to the shipped ones), and texts that excuse a line */
  agentLog: { never: string[]; allowed: string[] };
  /** keep the VMs after the run and print how to reach and destroy them */
  keep: boolean | 'on-failure';
  /** run each scenario this many times and judge the attempts together (flaky vs a verdict) */
  repeat: number;
  reports: {
    dir: string;
    junit: string | undefined;
    json: string | undefined;
    artifacts: ArtifactsPolicy;
    /**
     * `[[ATTACHMENT|...]]` paths in JUnit: from the JUnit file's folder, from the project directory (GitLab:
     * $CI_PROJECT_DIR), or absolute (Jenkins); auto = project under GitLab CI, else relative
     */
    attachmentPaths: 'auto' | 'relative' | 'project' | 'absolute';
  };
  /** whole-run budget in seconds; every step's deadline is cut from it */
  timeoutS: number;
  /** the public issues a failed check reproduces: labelled, expected (a known failure is an expected failure), or off */
  knownIssues: KnownIssuePolicy;
  /** the user's own rows, added to the shipped table or replacing its rows of the same id */
  knownIssuesFile: string | undefined;
  output: { json: boolean; verbose: boolean; quiet: boolean };
}

/** Defaults, each with the reason for its value. */
export const DEFAULTS: HarnessConfig = {
  scenario: 'bridge-exec-reboot',
  scenariosDir: undefined,
  nomadBinary: undefined,
  upgradeTo: undefined,
  // the GH-25093 case itself: swap the build under running allocs
  upgrade: { mode: 'upgrade' },
  // the official layout; a mirror (Artifactory, an air-gapped copy) is one flag away
  builds: { releasesUrl: 'https://releases.hashicorp.com', releasesKey: undefined },
  nomad: {
    token: undefined,
    // the seed procedure: a reboot under emulation takes 30-60 s; Nomad's default 10s would mark the node down
    heartbeatGrace: '5m',
    // a server answers 500 "No cluster leader" for seconds around an election; a minute covers that, not an outage
    retryForS: 60,
  },
  lab: {
    provider: 'libvirt',
    hosts: {
      servers: [],
      clients: [],
      server: { address: undefined, user: undefined, key: undefined, port: 22, jump: undefined },
      client: { address: undefined, user: undefined, key: undefined, port: 22, jump: undefined },
    },
    // a pair: the lab every scenario was written for, and the cheapest that shows a client's reboot
    servers: 1,
    clients: 1,
    hardResetCommand: undefined,
    hostsNetns: '', // most existing hosts are reached from the host's own network
    box: 'nomad-reboot-harness/bookworm',
    cpus: 1, // two VMs share two host cores under TCG (vm-lab.md)
    memoryMb: 768, // measured: the guest uses ~150 MB after boot; Nomad agent + task fit in 768
    libvirtDriver: 'auto', // KVM where it works (most laptops, CI runners); a probe says so, cached per host and box
    tbCacheMb: 256, // cuts each QEMU's RSS from ~1.6 GB to ~570 MB (vm-lab.md)
    cpuModel: 'Nehalem', // TCG cannot emulate what host-model asks for
    netns: 'nrh-lab',
    privateSubnet: '10.199.0.0/24',
    managementSubnet: '10.198.0.0/24',
    bootTimeoutS: 600, // vm-lab.md: use >= 600 under TCG
    workDir: '/tmp/nomad-reboot-harness',
    warmSnapshot: 'after-nomad',
    warm: true, // reruns are the common case; a snapshot revert replaces minutes of bring-up (--fresh opts out)
  },
  // the seed procedure; docker needs a box with Docker (vms/build-box.ts --docker)
  task: { driver: 'exec' },
  job: { files: [], vars: {} },
  // settle: the job has settled on Nomad's own state (every place decided, no eval or deployment pending); the confirm
  // window only covers the allocs and the evals being two reads a few ms apart, so 3 s is ample. The quiet period bounds
  // the wait on what Nomad may hold for long (a blocked eval, a deployment): 20 s of no change, as before.
  // off_for: long enough for the guest's dirty pages and the agent's heartbeat to be lost, far below heartbeat_grace;
  // partition_for: 30 s is past Nomad's heartbeat TTL (10-20 s) yet within the default grace here (5m): restore expected
  // deadline: a reboot under emulation takes 30-120 s here (docs/findings.md); 10 min is the step budget it always had
  // restart_task: the restarted task's environment is the only way to see what the client restored of the network;
  // resources_window: 30 s shows a leak of one fd a second per plugin (1.9.7: +128 fds) and costs little
  reboot: {
    kind: 'graceful',
    count: 1,
    settleQuietS: 20,
    settleConfirmS: 3,
    offForS: 10,
    partitionForS: 30,
    // three short cuts, each well inside the default heartbeat_grace
    flapCount: 3,
    flapDownForS: 5,
    flapUpForS: 5,
    lossPercent: 30,
    lossDelayMs: 200,
    lossForS: 60,
    // how a datacenter comes back: the control plane first
    powerOrder: 'servers-first',
    deadlineS: 600,
    restartTask: true,
    resourcesWindowS: 30,
    target: undefined,
    rolling: undefined,
    drain: undefined,
    // Nomad's own default for `node drain -deadline`; a migrate block's healthy_deadline (5m) fits in it
    drainDeadlineS: 3600,
    maxGapS: 0,
    // a reboot's gap lasts tens of seconds; one probe round per alloc every 2 s sees it to within 2 s, cheaply
    probeInterval: '2s',
    // Raft elects within a few election timeouts (1-2 s each); emulated VMs on a busy host need more
    leaderWithin: '30s',
    faults: undefined,
    seed: undefined,
  },
  expect: { scenario: undefined, perCheck: {} },
  // the shipped invariants (lib/checks/agent-journal.ts) are the whole list until a user adds to it
  agentLog: { never: [], allowed: [] },
  keep: false,
  repeat: 1, // one attempt; --repeat N measures flakiness
  reports: { dir: 'reports', junit: undefined, json: undefined, artifacts: 'on-failure', attachmentPaths: 'auto' },
  timeoutS: 1800, // measured run ~5 min under TCG; 30 min leaves room for slow CI hosts
  // labels say which public issue a failure is, and change no exit code until a nightly asks for `expect`
  knownIssues: 'label',
  knownIssuesFile: undefined,
  output: { json: false, verbose: false, quiet: false },
};
