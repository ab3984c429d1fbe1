// lab.hosts_netns checked with the rest of the input: a namespace `ip netns` does not know is exit 2 before any build
// or key is looked at further, not after them. `ip netns add` makes /run/netns/<name>; that file is the check.
import { access } from 'node:fs/promises';
import type { HarnessConfig } from '../config/schema.js';
import type { ConfigProblem } from '../errors.js';
import { providerFor } from '../lab/providers.js';

/** The namespace files `ip netns` keeps. */
const NETNS_DIR = '/run/netns';

/** A problem per lab.hosts_netns that names no namespace here (once per name). */
export async function hostsNetnsProblems(
  configs: readonly HarnessConfig[],
  o: { dir?: string; insideNetns?: boolean } = {},
): Promise<ConfigProblem[]> {
  // Note: a CLI re-run inside the namespace already found it there.
  if (o.insideNetns) return [];
  const names = [
    ...new Set(
      configs.filter((c) => providerFor(c).host.netns === 'hosts' && c.lab.hostsNetns).map((c) => c.lab.hostsNetns),
    ),
  ];
  const out: ConfigProblem[] = [];
  for (const ns of names) {
    const there = await access(`${o.dir ?? NETNS_DIR}/${ns}`).then(
      () => true,
      () => false,
    );
    if (!there)
      out.push({
        field: 'lab.hosts_netns',
        value: ns,
        message: 'is not a network namespace here',
        fix: 'give a namespace that exists (`ip netns list`), or "" to reach the hosts from here',
      });
  }
  return out;
}
