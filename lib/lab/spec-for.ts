// Pure: the lab spec of one run, from the config (machine names carry the run id).
import type { HarnessConfig } from '../config/schema.js';
import type { LabSpec } from '../model/lab-spec.js';

/** Host part of each role's address on the private /24. */
const HOST_OCTET: Record<string, number> = { server: 10, client: 11 };

/**
 * Build the LabSpec for `roles` of run `runId`; `driver` is the libvirt driver chosen for lab.libvirt_driver
 * (lib/lab/accel.ts), emulation when not given and the setting is not kvm.
 */
export function labSpecFor(
  config: HarnessConfig,
  runId: string,
  roles: readonly string[],
  driver?: 'kvm' | 'qemu',
): LabSpec {
  const base = (subnet: string) => subnet.split('/')[0]!.split('.').slice(0, 3).join('.');
  const tag = (subnet: string) => base(subnet).replaceAll('.', '-');
  return {
    runId,
    box: config.lab.box,
    // Note: lab.provider ssh has no Vagrant lab (lib/lab/ssh-lab.ts); its spec is never used to make VMs
    provider: config.lab.provider === 'ssh' ? 'libvirt' : config.lab.provider,
    cpus: config.lab.cpus,
    memoryMb: config.lab.memoryMb,
    machines: roles.map((role) => ({
      name: `${runId}-${role}`,
      role,
      privateIp: `${base(config.lab.privateSubnet)}.${HOST_OCTET[role] ?? 20}`,
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
