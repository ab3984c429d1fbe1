// The client host's own view of bridge addresses: which network namespaces hold which IPv4 address. An address held by
// two namespaces is a collision even when the Nomad API shows every alloc with its own address (real 1.9.3 -> 1.9.5
// upgrade: the restored allocs got new namespaces and addresses while their tasks kept running in the old ones). Pure.
import type { HostNetns } from '../parse/host-observe.js';

const short = (id: string): string => id.slice(0, 8);

/** How a namespace is known to a reader: its alloc name, else the processes keeping it alive. */
export function describeNetns(n: HostNetns, live: ReadonlySet<string> = new Set()): string {
  const procs =
    n.pids
      .slice(0, 2)
      .map((p) => `pid ${p.pid} ${p.comm}`)
      .join(', ') + (n.pids.length > 2 ? `, +${n.pids.length - 2}` : '');
  if (n.names.length)
    return `netns ${n.names.map((x) => (live.size && !live.has(x) ? `${short(x)} (no live alloc)` : short(x))).join('/')}${procs ? ` [${procs}]` : ''}`;
  return `an unnamed netns${procs ? ` of ${procs}` : ''}`;
}

/** Addresses held by more than one namespace, each with its holders described. */
export function hostAddressConflicts(
  ns: readonly HostNetns[],
  live: ReadonlySet<string> = new Set(),
): { addr: string; holders: string[] }[] {
  const by = new Map<string, HostNetns[]>();
  for (const n of ns)
    for (const a of n.addrs) {
      const ip = a.cidr.split('/')[0]!;
      by.set(ip, [...(by.get(ip) ?? []), n]);
    }
  return [...by]
    .filter(([, h]) => new Set(h.map((x) => x.inode)).size > 1)
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([addr, h]) => ({ addr, holders: h.map((x) => describeNetns(x, live)) }));
}

/** One evidence line per namespace that has an address. */
export function netnsLines(ns: readonly HostNetns[], live: ReadonlySet<string> = new Set()): string[] {
  return ns
    .filter((n) => n.addrs.length)
    .map((n) => `${describeNetns(n, live)}: ${n.addrs.map((a) => `${a.cidr} on ${a.ifname}`).join(', ')}`);
}
