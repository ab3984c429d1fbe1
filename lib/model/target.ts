// Which machines a fault hits: one slot ("client-2", or "client" in a pair), the leader (known only when the fault
// starts), every client or every server. Pure: parsing the words, checking them against a topology, and the order
// of the faults; the leader is resolved from what Nomad says when its turn comes.
import { clientSlots, isPair, machineSlots, serverSlots, type MachineRole, type Topology } from './topology.js';

export type TargetSpec =
  | { kind: 'machine'; name: string }
  | { kind: 'leader' }
  | { kind: 'clients' }
  | { kind: 'servers' };

/** The words `--target` takes besides a machine's name. */
export const TARGET_WORDS = ['leader', 'clients', 'servers'] as const;

/** A machine name as topologies spell them: "server", "client", "server-3", "client-12". */
const SLOT_NAME = /^(server|client)(-([1-9]\d*))?$/;

/** The spec `raw` names, or why it names none (the field parser's message). */
export function parseTarget(raw: string): TargetSpec | { error: string } {
  const s = raw.trim();
  if ((TARGET_WORDS as readonly string[]).includes(s)) return { kind: s as (typeof TARGET_WORDS)[number] };
  if (SLOT_NAME.test(s)) return { kind: 'machine', name: s };
  return {
    error: `must be a machine name (client-2, server-1; client or server in a 1+1 lab), or one of ${TARGET_WORDS.join(', ')}`,
  };
}

/** The text form of a spec, as `--target` takes it and reports name it. */
export function targetText(t: TargetSpec): string {
  return t.kind === 'machine' ? t.name : t.kind;
}

/** What is wrong with `t` on `topology` (a machine it lacks), with the fix; undefined when it fits. */
export function targetProblem(t: TargetSpec, topology: Topology): { message: string; fix: string } | undefined {
  if (t.kind !== 'machine') return undefined;
  const names = machineSlots(topology).map((s) => s.name);
  if (names.includes(t.name)) return undefined;
  const m = SLOT_NAME.exec(t.name)!;
  const role = m[1] as MachineRole;
  const same = names.filter((n) => n.startsWith(role));
  // a pair's "client" against a numbered lab, or "client-1" against a pair: name the spelling that lab uses
  const spelling = isPair(topology)
    ? `in a 1+1 lab the machines are named server and client`
    : `machines are numbered in a ${topology.servers}+${topology.clients} lab`;
  return {
    message: `names a machine this lab lacks (its machines: ${names.join(', ')}; ${spelling})`,
    fix: `give one of ${same.join(', ')}, ${role}s, or raise lab.${role}s`,
  };
}

/** One turn of a fault plan: a machine known now, or the leader, resolved when the turn starts. */
export type TargetTurn = { kind: 'machine'; name: string; role: MachineRole } | { kind: 'leader' };

/**
 * The turns a target makes on a topology, in order: one for a machine or the leader, every client (servers) in index
 * order for `clients` (`servers`). Rolling runs them one after another; otherwise they are hit at once.
 */
export function targetTurns(t: TargetSpec, topology: Topology): TargetTurn[] {
  const of = (slots: ReturnType<typeof clientSlots>): TargetTurn[] =>
    slots.map((s) => ({ kind: 'machine', name: s.name, role: s.role }));
  switch (t.kind) {
    case 'leader':
      return [{ kind: 'leader' }];
    case 'clients':
      return of(clientSlots(topology));
    case 'servers':
      return of(serverSlots(topology));
    case 'machine': {
      const slot = machineSlots(topology).find((s) => s.name === t.name);
      return slot ? [{ kind: 'machine', name: slot.name, role: slot.role }] : [];
    }
  }
}

/** One Nomad server as `/v1/agent/members` lists it: Serf name "<node name>.<region>", its address, its tags. */
export interface ServerMember {
  Name: string;
  Addr: string;
  Tags?: Record<string, string> | null;
}

/**
 * The server machine the leader's RPC address ("10.0.0.11:4647", from /v1/status/leader) belongs to: the member with
 * that address (and RPC port, when its tags say one), then its node name ("server-2.global" -> "server-2") when it
 * is one of `serverNames`; else the machine whose known addresses include it. Undefined, with the reason, otherwise.
 */
export function resolveLeader(
  leader: string,
  members: readonly ServerMember[],
  serverNames: readonly string[],
  addresses: Readonly<Record<string, readonly string[]>> = {},
): { name: string; how: string } | { error: string } {
  const at = leader.lastIndexOf(':');
  if (!leader || at < 1) return { error: `no leader (/v1/status/leader said ${JSON.stringify(leader)})` };
  const host = leader.slice(0, at).replace(/^\[|\]$/g, '');
  const port = leader.slice(at + 1);
  const member = members.find((m) => m.Addr === host && (!m.Tags?.['port'] || m.Tags['port'] === port));
  if (member) {
    const nodeName = member.Name.replace(/\.[^.]+$/, '');
    if (serverNames.includes(nodeName)) return { name: nodeName, how: `member ${member.Name} at ${leader}` };
  }
  const byAddress = serverNames.find((n) => addresses[n]?.includes(host));
  if (byAddress) return { name: byAddress, how: `address ${host} of ${byAddress}` };
  const seen = members.map((m) => `${m.Name}=${m.Addr}`).join(', ') || 'no members';
  return { error: `leader ${leader} is none of the lab's servers (${serverNames.join(', ')}; members: ${seen})` };
}
