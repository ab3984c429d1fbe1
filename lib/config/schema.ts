// The harness configuration: one typed object with every default in one place.
import type { Expectation } from '../checks/types.js';

export type RebootKind = 'graceful' | 'hard';
export type ArtifactsPolicy = 'on-failure' | 'always' | 'never';
/** upgrade-in-place variants: swap the build; restart on the same build (control case); swap, then reboot the host */
export type UpgradeMode = 'upgrade' | 'restart-only' | 'upgrade-then-reboot';
export const UPGRADE_MODES: readonly UpgradeMode[] = ['upgrade', 'restart-only', 'upgrade-then-reboot'];
/** task driver of bridge-exec-reboot's job: exec (the seed procedure) or docker (GH-24292, a box with Docker) */
export type TaskDriver = 'exec' | 'docker';
export const TASK_DRIVERS: readonly TaskDriver[] = ['exec', 'docker'];

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
  nomad: {
    /** ACL token for the lab's Nomad API (never logged or reported) */
    token: string | undefined;
    /** server heartbeat_grace written into the server agent config: longer than a reboot so the node is not marked down */
    heartbeatGrace: string;
  };
  lab: {
    /** libvirt / virtualbox: VMs made by Vagrant; ssh: machines that already exist (lab.hosts) */
    provider: 'libvirt' | 'virtualbox' | 'ssh';
    /** the existing machines of lab.provider: ssh, by role */
    hosts: { server: HostSpec; client: HostSpec };
    /** argv of the power reset of an existing host ({role}, {address} substituted); hard reboots need it */
    hardResetCommand: string[] | undefined;
    box: string;
    cpus: number;
    memoryMb: number;
    /**
     * libvirt domain type: "qemu" = software emulation (TCG), "kvm" = hardware virtualization, "auto" = KVM when a
     * probe proves KVM boots the box's kernel, emulation otherwise (lib/lab/accel.ts)
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
  };
  /** the job's task driver (bridge-exec-reboot) */
  task: { driver: TaskDriver };
  /** kind of reboot; count: how many times bridge-exec-reboot reboots the client in one run */
  reboot: { kind: RebootKind; count: number };
  expect: { scenario: Expectation | undefined; perCheck: Record<string, Expectation> };
  /** keep the VMs after the run and print how to reach and destroy them */
  keep: boolean;
  reports: {
    dir: string;
    junit: string | undefined;
    json: string | undefined;
    artifacts: ArtifactsPolicy;
  };
  /** whole-run budget in seconds; every step's deadline is cut from it */
  timeoutS: number;
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
  nomad: {
    token: undefined,
    // the seed procedure: a reboot under emulation takes 30-60 s; Nomad's default 10s would mark the node down
    heartbeatGrace: '5m',
  },
  lab: {
    provider: 'libvirt',
    hosts: {
      server: { address: undefined, user: undefined, key: undefined, port: 22, jump: undefined },
      client: { address: undefined, user: undefined, key: undefined, port: 22, jump: undefined },
    },
    hardResetCommand: undefined,
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
  },
  // the seed procedure; docker needs a box with Docker (vms/build-box.sh --docker)
  task: { driver: 'exec' },
  reboot: { kind: 'graceful', count: 1 },
  expect: { scenario: undefined, perCheck: {} },
  keep: false,
  reports: { dir: 'reports', junit: undefined, json: undefined, artifacts: 'on-failure' },
  timeoutS: 1800, // measured run ~5 min under TCG; 30 min leaves room for slow CI hosts
  output: { json: false, verbose: false, quiet: false },
};
