// The Vagrant providers' memory budget, pure: every VM of the topology with QEMU's own share must fit in what the
// host has available now. A provider whose machines are elsewhere (ssh) does not ask it.
import { labMemoryMb, machineCount, mayEmulate, vmCostMb } from '../../config/topology.js';
import type { ConfigProblem } from '../../errors.js';
import { topologyLabel, type MachineRole, type Topology } from '../../model/topology.js';

/**
 * The VM providers' memory budget, checked before anything exists: the whole topology must fit in what the host has
 * available now (MemAvailable); `memAvailableMb` undefined (not readable) checks nothing.
 */
export function memoryBudgetProblems(
  t: Topology,
  lab: Parameters<typeof vmCostMb>[0],
  memAvailableMb: number | undefined,
  roles?: readonly MachineRole[],
): ConfigProblem[] {
  if (memAvailableMb === undefined) return [];
  const need = labMemoryMb(t, lab, roles);
  if (need <= memAvailableMb) return [];
  const vm = vmCostMb(lab);
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
