// Check: after the (last) reboot nothing is left over from allocs that are gone: no host-local reservation, no network
// namespace, no veth on Nomad's bridge beyond the live allocs, no CNI nat chain or rule (the leak check of repeated
// reboots; a client whose cleanup hooks stop at the first error leaves the firewall rules behind). Pure.
import { defineCheck, needing } from './define.js';
import { judgement } from './result.js';
import type { RebootEvidence } from '../model/evidence.js';
import type { AllocDetail, Judgement } from '../model/check.js';
import { allocAfter, allocBefore, watchedIds } from './alloc-outcome.js';
import { NEW_CNI_DIR, OLD_CNI_DIR, reservationsOf } from './cni-state.js';
import { cniChainOwners } from '../parse/iptables-nat.js';
import type { NatTable } from '../model/evidence.js';

export const NO_LEAKS = defineCheck<RebootEvidence>({
  id: 'no-leaks',
  title: 'No leaked network state',
  passesWhen:
    'after the last reboot every host-local reservation, alloc-named namespace and CNI nat rule on the client belongs to a live alloc, and bridge `nomad` has no extra veths',
  details:
    "after the (last) reboot every host-local reservation (either state dir) and every network namespace named like an alloc belongs to a live alloc on the node, bridge `nomad` has no more veths than live allocs, and every CNI chain and rule of the nat table (`iptables-save -t nat`: the CNI comment names the alloc) belongs to a live alloc (skipped when the client's state was not read). Real 1.9.5 and 1.9.7 leave nothing; real 1.9.3 still holds the failed allocs' stale reservations or namespaces (teardown timing varies), which counts as a consequence of `no-duplicate-ip` when only those allocs' leftovers remain",
  judge: needing(
    findLeaks,
    "the client's network namespaces, veths and host-local state were not read after the reboot",
  )(judgeNoLeaks),
});

/**
 * Passes when every host-local reservation (either state dir), every alloc-named network namespace and every CNI nat
 * chain and rule belongs to a live alloc on the node, and Nomad's bridge has no more veths than there are live allocs.
 */
function judgeNoLeaks({ leaks, evidence, live }: Leftovers, e: RebootEvidence): Judgement {
  const perAlloc: AllocDetail[] = watchedIds(e).map((allocId) => {
    const name = allocAfter(e, allocId)?.name ?? allocBefore(e, allocId)?.name ?? '';
    const own = leaks.filter((l) => l.owner === allocId);
    return own.length
      ? { allocId, name, status: 'failed', detail: own.map((l) => l.text).join('; ') }
      : { allocId, name, status: 'passed', detail: 'nothing left over names it' };
  });
  if (leaks.length)
    return judgement(
      'failed',
      `left over after the reboot: ${leaks.map((l) => l.text).join('; ')}`,
      evidence,
      perAlloc,
    );
  const fw = e.after.firewall ? ', CNI nat rule' : '';
  const msg = `${live} live alloc${live === 1 ? '' : 's'}; every reservation, alloc namespace${fw} and veth on ${NOMAD_BRIDGE} belongs to one`;
  return judgement('passed', msg, evidence, perAlloc);
}

/** Nomad's default bridge (client `bridge_network_name`). */
const NOMAD_BRIDGE = 'nomad';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const short = (id: string): string => id.slice(0, 8);

/** One thing left over: a reservation (with the alloc it names), an alloc-named namespace, or surplus veths. */
interface Leak {
  kind: 'reservation' | 'netns' | 'veths' | 'firewall';
  /** the alloc ID a reservation or namespace names */
  owner?: string;
  /** veths only: how many more than live allocs */
  surplus?: number;
  text: string;
}

/** What is left over after the reboot, with the evidence lines and the number of live allocs on the node. */
interface Leftovers {
  leaks: Leak[];
  evidence: string[];
  live: number;
}

/** What is left over after the reboot; undefined when the client's state was not read. */
export function findLeaks(e: RebootEvidence): Leftovers | undefined {
  const net = e.after.netState;
  if (!net || e.after.cniState.length === 0) return undefined;
  const live = new Set(
    e.after.nodeAllocs.filter((a) => a.clientStatus === 'running' || a.clientStatus === 'pending').map((a) => a.id),
  );
  const evidence = [`live allocs on the node: ${[...live].map(short).join(' ') || '(none)'}`];
  const leaks: Leak[] = [];
  for (const dir of [OLD_CNI_DIR, NEW_CNI_DIR]) {
    const listing = e.after.cniState.find((l) => l.dir.replace(/\/+$/, '') === dir);
    const res = reservationsOf(listing);
    evidence.push(
      `${dir}: ${listing?.exists ? [...res].map(([ip, owner]) => `${ip}=${short(owner)}`).join(' ') || 'no reservation' : 'absent'}`,
    );
    for (const [ip, owner] of res)
      if (!live.has(owner))
        leaks.push({
          kind: 'reservation',
          owner,
          text: `reservation ${ip} in ${dir} names ${short(owner)}, which is not a live alloc`,
        });
  }
  evidence.push(`network namespaces: ${net.netns.join(' ') || '(none)'}`);
  for (const n of net.netns.filter((x) => UUID.test(x)))
    if (!live.has(n)) leaks.push({ kind: 'netns', owner: n, text: `network namespace ${n} has no live alloc` });
  const onBridge = net.veths.filter((v) => v.master === NOMAD_BRIDGE);
  evidence.push(`veths on bridge ${NOMAD_BRIDGE}: ${onBridge.map((v) => v.name).join(' ') || '(none)'}`);
  if (onBridge.length > live.size)
    leaks.push({
      kind: 'veths',
      surplus: onBridge.length - live.size,
      text: `${onBridge.length} veths on bridge ${NOMAD_BRIDGE} for ${live.size} live alloc${live.size === 1 ? '' : 's'}`,
    });
  if (e.after.firewall) firewallLeaks(e.after.firewall, live, evidence, leaks);
  return { leaks, evidence, live: live.size };
}

/** The nat table's CNI chains and rules that belong to no live alloc (its evidence line and leaks, added in place). */
function firewallLeaks(t: NatTable, live: Set<string>, evidence: string[], leaks: Leak[]): void {
  const owners = cniChainOwners(t);
  const chainLine = [...owners].map(([c, o]) => `${c}=${[...o].map(short).join(',') || '(nobody)'}`).join(' ');
  evidence.push(`CNI nat chains: ${chainLine || '(none)'}`);
  const stale = [...new Set(t.rules.flatMap((r) => (r.owner && !live.has(r.owner) ? [r.owner] : [])))];
  for (const owner of stale) {
    const rules = t.rules.filter((r) => r.owner === owner);
    const chains = [...owners].filter(([, o]) => o.has(owner)).map(([c]) => c);
    leaks.push({
      kind: 'firewall',
      owner,
      text: `${rules.length} nat rules name ${short(owner)}, which is not a live alloc (chains ${chains.join(', ') || '(none)'})`,
    });
  }
  for (const [chain, o] of owners)
    if (o.size === 0)
      leaks.push({ kind: 'firewall', text: `nat chain ${chain} belongs to no container (no rule names one)` });
}
