// The lab spec: everything vms/Vagrantfile needs, written as JSON into the run's Vagrant directory.

export type Provider = 'libvirt' | 'virtualbox';

export interface MachineSpec {
  /** Vagrant machine name; contains the run id so parallel runs never collide, e.g. "nrh-1a2b3c-client" */
  name: string;
  /** logical role: "server" | "client" */
  role: string;
  /**
   * the slot name reports and Nomad use ("client-2": the guest's hostname and the agent's node name); absent in a
   * pair, where it equals the role, so a pair's spec is what it always was
   */
  slot?: string;
  /** address on the private network (server <-> client traffic, Nomad RPC) */
  privateIp: string;
}

export interface LabSpec {
  runId: string;
  box: string;
  provider: Provider;
  cpus: number;
  memoryMb: number;
  machines: MachineSpec[];
  /** private network, e.g. 10.199.0.0/24; the name is per run so parallel labs do not share it */
  privateNetwork: { name: string; subnet: string };
  /** libvirt only */
  libvirt: {
    /** "kvm" (hardware virtualization) or "qemu" (software emulation, TCG) */
    driver: 'kvm' | 'qemu';
    /** QEMU translation-cache cap in MiB under TCG; 0 = QEMU default */
    tbCacheMb: number;
    cpuModel: string;
    /** management network vagrant-libvirt uses for SSH */
    managementNetwork: { name: string; address: string };
    /** where the serial console of each machine is written: <dir>/<machine name>-serial.log */
    serialLogDir: string;
  };
  /** seconds Vagrant waits for a machine to boot */
  bootTimeoutS: number;
}

/** Name of the spec file inside the run's Vagrant directory; vms/Vagrantfile reads it (env HARNESS_LAB_SPEC overrides). */
export const LAB_SPEC_FILE = 'lab-spec.json';

/**
 * Written into a run's Vagrant directory when its teardown failed (the reason inside): the lab is left, not kept by
 * --keep, and list-labs says so. A teardown that succeeds later removes the directory with it.
 */
export const TEARDOWN_FAILED_FILE = 'teardown-failed.txt';

/** Where libvirt writes the serial console of `machine` (vms/Vagrantfile: <serialLogDir>/<name>-serial.log). Pure. */
export function serialLogPath(spec: Pick<LabSpec, 'libvirt'>, machine: string): string {
  return `${spec.libvirt.serialLogDir.replace(/\/+$/, '')}/${machine}-serial.log`;
}

/** The slot name of one machine of a spec (its role in a pair). Pure. */
export function slotOf(m: Pick<MachineSpec, 'role' | 'slot'>): string {
  return m.slot ?? m.role;
}
