// A lab's topology: how many servers and clients, and the names its machines go by in reports, artifacts and
// targets. One server and one client keep the names "server" and "client", so JUnit histories of pairs stay
// comparable; every other topology numbers its machines from 1 ("server-1", "client-2").

/** Raft wants an odd quorum; more than five servers buys nothing a reboot test can see. */
export const SERVER_COUNTS = [1, 3, 5] as const;
export type ServerCount = (typeof SERVER_COUNTS)[number];
export const MAX_CLIENTS = 8;

export type MachineRole = 'server' | 'client';

export interface Topology {
  servers: ServerCount;
  /** 1 to MAX_CLIENTS */
  clients: number;
}

/** One machine of a topology. */
interface MachineSlot {
  /** the name reports, artifacts, `--target` and `Lab.machines` use: "server", "client", "server-1", "client-2" */
  name: string;
  role: MachineRole;
  /** 1-based within its role */
  index: number;
}

export function isPair(t: Topology): boolean {
  return t.servers === 1 && t.clients === 1;
}

/** "1+1", "3+2": servers + clients, as the plan, JUnit properties and warm keys say it. */
export function topologyLabel(t: Topology): string {
  return `${t.servers}+${t.clients}`;
}

/** The name of the `index`th (1-based) machine of `role` in `t`. */
export function slotName(t: Topology, role: MachineRole, index: number): string {
  return isPair(t) ? role : `${role}-${index}`;
}

/** Every machine of `t`, servers first, each role in index order. */
export function machineSlots(t: Topology): MachineSlot[] {
  const of = (role: MachineRole, n: number): MachineSlot[] =>
    Array.from({ length: n }, (_, i) => ({ name: slotName(t, role, i + 1), role, index: i + 1 }));
  return [...of('server', t.servers), ...of('client', t.clients)];
}

export function serverSlots(t: Topology): MachineSlot[] {
  return machineSlots(t).filter((s) => s.role === 'server');
}

export function clientSlots(t: Topology): MachineSlot[] {
  return machineSlots(t).filter((s) => s.role === 'client');
}

/** The topology a set of slot names describes, e.g. from a lab's machines; undefined when they are not one. */
export function topologyOf(names: readonly string[]): Topology | undefined {
  const servers = names.filter((n) => /^server(-\d+)?$/.test(n)).length;
  const clients = names.filter((n) => /^client(-\d+)?$/.test(n)).length;
  if (!(SERVER_COUNTS as readonly number[]).includes(servers) || clients < 1 || clients > MAX_CLIENTS) return undefined;
  const t: Topology = { servers: servers as ServerCount, clients };
  const expected = machineSlots(t).map((s) => s.name);
  return expected.length === names.length && expected.every((n) => names.includes(n)) ? t : undefined;
}
