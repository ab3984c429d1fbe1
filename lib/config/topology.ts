// The lab's topology from the config, and what it costs in host memory. Pure.
import { machineSlots, type MachineRole, type Topology } from '../model/topology.js';
import type { HarnessConfig } from './schema.js';

/** The topology the config asks for (lab.servers + lab.clients; with lab.provider ssh, the host lists' lengths). */
export function configTopology(config: Pick<HarnessConfig, 'lab'>): Topology {
  return { servers: config.lab.servers, clients: config.lab.clients };
}

/** QEMU itself beside the guest's memory and the translation cache (vm-lab.md: ~570 MiB RSS per VM with a 256 MiB
 * cache while the guest used ~150 MiB). */
const QEMU_BASE_MB = 160;
/** QEMU's translation cache when lab.tb_cache_mb is 0 (its default, 1 GiB, nearly all resident). */
const QEMU_DEFAULT_TB_CACHE_MB = 1024;

/** Whether the lab's VMs may run under emulation (TCG): lab.libvirt_driver qemu, or auto before its probe. */
export function mayEmulate(lab: Pick<HarnessConfig['lab'], 'provider' | 'libvirtDriver'>): boolean {
  return lab.provider === 'libvirt' && lab.libvirtDriver !== 'kvm';
}

/** Host memory one VM of the lab may take: its guest memory plus QEMU's own (and its translation cache under TCG). */
export function vmCostMb(lab: Pick<HarnessConfig['lab'], 'provider' | 'libvirtDriver' | 'memoryMb' | 'tbCacheMb'>) {
  const cache = mayEmulate(lab) ? lab.tbCacheMb || QEMU_DEFAULT_TB_CACHE_MB : 0;
  return { guestMb: lab.memoryMb, qemuMb: QEMU_BASE_MB + cache, totalMb: lab.memoryMb + QEMU_BASE_MB + cache };
}

/** How many machines of `t` a scenario bringing up `roles` has. */
export function machineCount(t: Topology, roles: readonly MachineRole[] = ['server', 'client']): number {
  return machineSlots(t).filter((s) => roles.includes(s.role)).length;
}

/** Host memory the whole topology (its machines of `roles`) may take at once (every VM up together). */
export function labMemoryMb(t: Topology, lab: Parameters<typeof vmCostMb>[0], roles?: readonly MachineRole[]): number {
  return machineCount(t, roles) * vmCostMb(lab).totalMb;
}
