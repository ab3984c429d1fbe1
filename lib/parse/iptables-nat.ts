// The client's nat table as iptables-save prints it, and its pure parser: which CNI chain and rule belongs to which
// container (Nomad hands CNI the alloc ID as the container ID, and the bridge and portmap plugins write it into their
// rules' comments: `name: "nomad" id: "<alloc>"`, `dnat name: "nomad" id: "<alloc>"`).
import type { NatRule, NatTable } from '../model/evidence.js';

/** The read: the nat table only (CNI's masquerade and port-mapping chains live there). Needs root. */
export const NAT_TABLE_COMMAND = 'iptables-save -t nat';

/** The portmap plugin's chains shared by every container: they stay while the plugin is in use, owned by nobody. */
const SHARED_CNI_CHAINS = ['CNI-HOSTPORT-DNAT', 'CNI-HOSTPORT-MASQ', 'CNI-HOSTPORT-SETMARK'] as const;

const OWNER = /--comment "(?:[^"\\]|\\.)*?id: \\"([^"\\]+)\\"/;

/** Parse `iptables-save -t nat` (only its *nat section): the chains it declares and every rule with its owner. */
export function parseNatTable(text: string): NatTable {
  const chains: string[] = [];
  const rules: NatRule[] = [];
  let inNat = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('*')) inNat = line === '*nat';
    else if (line === 'COMMIT') inNat = false;
    else if (!inNat) continue;
    else if (line.startsWith(':')) chains.push(line.slice(1).split(/\s+/)[0]!);
    else if (line.startsWith('-A ')) {
      const chain = line.split(/\s+/)[1]!;
      const owner = OWNER.exec(line)?.[1];
      rules.push({ chain, ...(owner ? { owner } : {}), text: line });
    }
  }
  return { chains, rules };
}

/** The chain a rule jumps to (`-j X`), when it is one of the table's own chains. */
function jumpTarget(rule: NatRule, t: NatTable): string | undefined {
  const target = /\s-j\s+(\S+)/.exec(rule.text)?.[1];
  return target && t.chains.includes(target) ? target : undefined;
}

/**
 * Who owns each CNI chain: the container its own rules name, or the one named by the rules that jump to it (portmap's
 * per-container `CNI-DN-*` chain carries no comment; the jumps to it in CNI-HOSTPORT-DNAT do). Shared chains are left out.
 */
export function cniChainOwners(t: NatTable): Map<string, Set<string>> {
  const owners = new Map<string, Set<string>>();
  for (const c of t.chains)
    if (c.startsWith('CNI-') && !(SHARED_CNI_CHAINS as readonly string[]).includes(c)) owners.set(c, new Set());
  for (const r of t.rules) {
    if (!r.owner) continue;
    owners.get(r.chain)?.add(r.owner);
    const target = jumpTarget(r, t);
    if (target) owners.get(target)?.add(r.owner);
  }
  return owners;
}
