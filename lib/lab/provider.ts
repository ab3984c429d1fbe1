// A lab provider: one interface for every way of getting machines (VMs made by Vagrant, hosts that already exist).
// The session composes a run's environment from it (lib/session/real-env.ts); the registry picks it by lab.provider.
import type { HarnessConfig, ProviderName } from '../config/schema.js';
import type { LabConfigRules } from '../config/validate.js';
import type { ConfigProblem } from '../errors.js';
import type { LabCapability } from '../faults/define.js';
import type { Lack } from '../faults/registry.js';
import type { Logger } from '../log/events.js';
import type { RebootKind } from '../model/kinds.js';
import type { Lab } from '../model/lab.js';
import type { MachineRole, Topology } from '../model/topology.js';
import type { Deadline } from '../time/deadlines.js';
import type { ChooseDriver } from './kvm/accel.js';
import type { LabSnapshots } from './warm/snapshots.js';
import type { WarmLab } from './warm/warm-lab.js';

/** What the host offers, read before anything exists (the checks stay pure), and what the scenario brings up. */
export interface HostCapacity {
  /** MemAvailable in MiB; undefined when it could not be read (nothing is then checked against it) */
  memAvailableMb?: number;
  /** the roles the scenario brings up (default both): a clients-only scenario needs no server VM */
  roles?: readonly MachineRole[];
}

/** What a provider may do in a run: register teardown and evidence, say facts; nothing of the run's own machinery. */
export interface LabContext {
  runId: string;
  config: HarnessConfig;
  logger: Logger;
  /** the roles the scenario brings up (a scenario may need only clients) */
  roles: readonly MachineRole[];
  /** the scenario installs Nomad (a warm lab's snapshot is then taken once the agents are ready) */
  needsNomad: boolean;
  /** resolves lab.libvirt_driver (one KVM probe per process at most) */
  chooseDriver?: ChooseDriver;
  /** register teardown; LIFO; `alsoWhenKept` runs it with --keep too, `keptAs` says what --keep leaves instead */
  cleanup(what: string, fn: () => Promise<void>, opts?: { keptAs?: () => string; alsoWhenKept?: boolean }): void;
  /** collect text evidence (file name -> text) before the teardown, when the run keeps artifacts */
  evidence(what: string, collect: (d: Deadline) => Promise<Record<string, string>>): void;
  fact(name: string, value: string): void;
  info(message: string): void;
}

/** A lab as its provider brought it up, with what installing Nomad on it needs to know. */
export interface ProvidedLab {
  lab: Lab;
  /** the address the agent on machine `name` binds and advertises (the lab's private network, or the SSH peer's) */
  agentAddress(name: string, d: Deadline): Promise<string>;
  /** the interface holding that address, when it is not the agent template's default (eth1 on the lab's VMs) */
  agentInterface?(name: string, ip: string, d: Deadline): Promise<string>;
  /** a warm lab (providers with snapshots): reverted to its snapshot, or to be snapshotted once prepared */
  warm?: WarmLab;
}

/** How a provider lives on the host the CLI runs on. */
interface ProviderHost {
  /** its labs live under lab.work_dir (a folder a session writes; `labs`, `login` and `destroy` look there) */
  workDir: boolean;
  /**
   * where the CLI works from: `lab` (libvirtd in lab.netns, the CLI re-runs itself inside it), `hosts` (the machines
   * are reached from lab.hosts_netns when it is set, else from where the CLI runs)
   */
  netns: 'lab' | 'hosts';
  /** its machines can outlive their folder as libvirt domains (orphans: `labs` lists them, `destroy` sweeps them) */
  orphanDomains: boolean;
  /** lab.libvirt_driver applies (the doctor's KVM probe) */
  libvirtDriver: boolean;
  /** `doctor` checks this host for it; otherwise the fix to say instead of checks that would answer for another host */
  doctor: { checks: true } | { checks: false; fix: string };
  /** its machines are the config's own hosts, the same for every run id (`login <run-id>`): none is kept or made */
  machinesFromConfig: boolean;
}

/** A lab provider (N: its name as lab.provider gives it). */
export interface LabProvider<N extends string = ProviderName> {
  name: N;
  capabilities: {
    /** the fault kinds it performs: the keys of its performer map (lib/lab/perform.ts), in the registry's order */
    faults: readonly RebootKind[];
    /** the capabilities the fault kinds need that it lacks under `config`, each with its reason and fix */
    lacks(config: HarnessConfig): Partial<Record<LabCapability, Lack>>;
    /** brings the machines of a topology up at the same time, not one after the other */
    concurrentUp: boolean;
    /**
     * host memory one machine takes beyond its guest memory (its hypervisor's own: QEMU, and its translation cache when
     * it may emulate); absent: none, its machines live elsewhere. What the memory budgets of a lab and a matrix add.
     */
    vmOverheadMb?(lab: HarnessConfig['lab']): number;
  };
  /** what the commands do on this host for it: properties, so no command asks for a provider by name */
  host: ProviderHost;
  /**
   * snapshot/restore of its running machines: with it, a run may get a warm lab (lib/lab/warm/warm-lab.ts `openWarm`,
   * called from its `up`); without it, lab.warm given true is a config problem and a run is cold
   */
  snapshots?: LabSnapshots;
  /**
   * its own rules of the config, asked while the config is resolved (every problem at once, exit 2): its keys given
   * in part or with another provider, the topology its keys decide (ssh: the host lists). Pure.
   */
  validateConfig: LabConfigRules;
  /** every problem with this topology and config on this provider and host, before anything exists. Pure. */
  validate(topology: Topology, config: HarnessConfig, host?: HostCapacity): ConfigProblem[];
  /** bring the topology's machines of ctx.roles up; teardown is registered before anything is created */
  up(topology: Topology, ctx: LabContext, d: Deadline): Promise<ProvidedLab>;
}
