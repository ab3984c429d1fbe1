// The lab's topology from the config, and what it costs in host memory. Pure.
import { machineSlots, type MachineRole, type Topology } from '../model/topology.js';
import type { HarnessConfig } from './schema.js';

/** The topology the config asks for (lab.servers + lab.clients; with lab.provider ssh, the host lists' lengths). */
export function configTopology(config: Pick<HarnessConfig, 'lab'>): Topology {
  return { servers: config.lab.servers, clients: config.lab.clients };
}

/**
 * Host memory one machine of the lab may take: its guest memory plus `overheadMb`, its hypervisor's own (the provider's
 * `capabilities.vmOverheadMb`, lib/lab/provider.ts: the CLI hands it down, as it hands the providers' config rules).
 */
export function vmCostMb(lab: Pick<HarnessConfig['lab'], 'memoryMb'>, overheadMb: number) {
  return { guestMb: lab.memoryMb, qemuMb: overheadMb, totalMb: lab.memoryMb + overheadMb };
}

/** How many machines of `t` a scenario bringing up `roles` has. */
export function machineCount(t: Topology, roles: readonly MachineRole[] = ['server', 'client']): number {
  return machineSlots(t).filter((s) => roles.includes(s.role)).length;
}

/** Host memory the whole topology (its machines of `roles`) may take at once (every VM up together). */
export function labMemoryMb(
  t: Topology,
  lab: Parameters<typeof vmCostMb>[0],
  overheadMb: number,
  roles?: readonly MachineRole[],
): number {
  return machineCount(t, roles) * vmCostMb(lab, overheadMb).totalMb;
}
