// The Vagrant providers' memory budget, pure: every VM of the topology with QEMU's own share must fit in what the
// host has available now. A provider whose machines are elsewhere (ssh) does not ask it.
import type { HarnessConfig } from '../../config/schema.js';
import { labMemoryMb, machineCount, vmCostMb } from '../../config/topology.js';
import type { ConfigProblem } from '../../errors.js';
import { topologyLabel, type MachineRole, type Topology } from '../../model/topology.js';

/** QEMU itself beside the guest's memory and the translation cache (vm-lab.md: ~570 MiB RSS per VM with a 256 MiB
 * cache while the guest used ~150 MiB). */
const QEMU_BASE_MB = 160;
/** QEMU's translation cache when lab.tb_cache_mb is 0 (its default, 1 GiB, nearly all resident). */
const QEMU_DEFAULT_TB_CACHE_MB = 1024;

type VagrantLab = Pick<HarnessConfig['lab'], 'provider' | 'libvirtDriver' | 'memoryMb' | 'tbCacheMb'>;

/** Whether the lab's VMs may run under emulation (TCG): lab.libvirt_driver qemu, or auto before its probe. */
function mayEmulate(lab: Pick<HarnessConfig['lab'], 'provider' | 'libvirtDriver'>): boolean {
  return lab.provider === 'libvirt' && lab.libvirtDriver !== 'kvm';
}

/** The Vagrant providers' `vmOverheadMb`: QEMU's own memory, and its translation cache when it may emulate. */
export function qemuOverheadMb(lab: VagrantLab): number {
  return QEMU_BASE_MB + (mayEmulate(lab) ? lab.tbCacheMb || QEMU_DEFAULT_TB_CACHE_MB : 0);
}

/**
 * The VM providers' memory budget, checked before anything exists: the whole topology must fit in what the host has
 * available now (MemAvailable); `memAvailableMb` undefined (not readable) checks nothing.
 */
export function memoryBudgetProblems(
  t: Topology,
  lab: VagrantLab,
  memAvailableMb: number | undefined,
  roles?: readonly MachineRole[],
): ConfigProblem[] {
  if (memAvailableMb === undefined) return [];
  const need = labMemoryMb(t, lab, qemuOverheadMb(lab), roles);
  if (need <= memAvailableMb) return [];
  const vm = vmCostMb(lab, qemuOverheadMb(lab));
  const n = machineCount(t, roles);
  const qemu = mayEmulate(lab)
    ? `${vm.qemuMb} MiB QEMU under emulation, its translation cache lab.tb_cache_mb included`
    : `${vm.qemuMb} MiB QEMU`;
  const perVm = Math.floor(memAvailableMb / n) - vm.qemuMb;
  const fits = Math.max(1, Math.floor(memAvailableMb / vm.totalMb));
  return [
    {
      field: 'lab.servers + lab.clients, lab.memory_mb',
      value: `${topologyLabel(t)}, ${lab.memoryMb} MiB`,
      message:
        `the lab needs ${need} MiB (${n} VMs x (${vm.guestMb} MiB lab.memory_mb + ${qemu})) but this host has ` +
        `${memAvailableMb} MiB available (MemAvailable)`,
      fix:
        `run fewer machines (--servers/--clients: ${fits} VM(s) of this size fit)` +
        (perVm >= 512 ? `, or a smaller lab.memory_mb (--memory ${Math.min(perVm, lab.memoryMb - 1)} or less)` : '') +
        (mayEmulate(lab) && lab.tbCacheMb !== 0 && lab.tbCacheMb > 64 ? ', or a smaller lab.tb_cache_mb' : '') +
        ', or free memory on this host',
    },
  ];
}
