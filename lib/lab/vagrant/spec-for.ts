// Pure: the lab spec of one run, from the config (machine names carry the run id).
import type { HarnessConfig } from '../../config/schema.js';
import { configTopology } from '../../config/topology.js';
import type { LabSpec } from '../../model/lab-spec.js';
import { isPair, machineSlots, type MachineRole } from '../../model/topology.js';

/** Host part of the first machine's address on the private /24; the others follow in slot order (a pair: .10, .11). */
const FIRST_OCTET = 10;

/**
 * Build the LabSpec of run `runId`: the machines of the config's topology (lab.servers + lab.clients) whose role is in
 * `roles` (a scenario may need only clients); `driver` is the libvirt driver chosen for lab.libvirt_driver
 * (lib/lab/kvm/accel.ts), emulation when not given and the setting is not kvm. Addresses and names follow the slots, so a
 * machine keeps its address whichever roles a scenario brings up.
 */
export function labSpecFor(
  config: HarnessConfig,
  runId: string,
  roles: readonly MachineRole[],
  driver?: 'kvm' | 'qemu',
): LabSpec {
  const base = (subnet: string) => subnet.split('/')[0]!.split('.').slice(0, 3).join('.');
  const tag = (subnet: string) => base(subnet).replaceAll('.', '-');
  const topology = configTopology(config);
  const slots = machineSlots(topology).map((s, k) => ({ ...s, octet: FIRST_OCTET + k }));
  return {
    runId,
    box: config.lab.box,
    // Note: lab.provider ssh has no Vagrant lab (lib/lab/ssh/ssh-lab.ts); its spec is never used to make VMs
    provider: config.lab.provider === 'ssh' ? 'libvirt' : config.lab.provider,
    cpus: config.lab.cpus,
    memoryMb: config.lab.memoryMb,
    machines: slots
      .filter((s) => roles.includes(s.role))
      .map((s) => ({
        name: `${runId}-${s.name}`,
        role: s.role,
        ...(isPair(topology) ? {} : { slot: s.name }),
        privateIp: `${base(config.lab.privateSubnet)}.${s.octet}`,
      })),
    // Note: libvirt refuses two networks with the same subnet, so networks are named by subnet and shared by runs that use it.
    privateNetwork: { name: `nrh-priv-${tag(config.lab.privateSubnet)}`, subnet: config.lab.privateSubnet },
    libvirt: {
      driver: driver ?? (config.lab.libvirtDriver === 'kvm' ? 'kvm' : 'qemu'),
      tbCacheMb: config.lab.tbCacheMb,
      cpuModel: config.lab.cpuModel,
      managementNetwork: { name: `nrh-mgmt-${tag(config.lab.managementSubnet)}`, address: config.lab.managementSubnet },
      serialLogDir: '/var/lib/libvirt/qemu',
    },
    bootTimeoutS: config.lab.bootTimeoutS,
  };
}
