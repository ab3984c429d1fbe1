// Check: no two live allocs on the client node share a bridge address (the in-place upgrade collision, GH-25093).
import { result } from './result.js';
import type { AllocSnap, RebootEvidence } from '../model/evidence.js';
import type { CheckDef, CheckResult } from '../model/check.js';

export const UNIQUE_IPS: CheckDef = {
  id: 'unique-ips',
  title: 'Unique alloc IPs',
  passesWhen: 'no two live allocs on the node share an address',
};

const LIVE = new Set(['running', 'pending']);

/** Group the live allocs (running or pending, with an address) by address. */
export function allocsByAddress(allocs: AllocSnap[]): Map<string, string[]> {
  const by = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const a of allocs) {
    if (!LIVE.has(a.clientStatus) || !a.address || seen.has(a.id)) continue;
    seen.add(a.id);
    by.set(a.address, [...(by.get(a.address) ?? []), a.id]);
  }
  return by;
}

/** Passes when every live alloc on the node that has an address has a different one; skipped when none reported an address. */
export function checkUniqueIps(e: RebootEvidence): CheckResult {
  const { id, title } = UNIQUE_IPS;
  const by = allocsByAddress(e.after.nodeAllocs);
  const evidence = [...by.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([addr, ids]) => `${addr} -> ${ids.join(', ')}`);
  if (by.size === 0) {
    const seen = e.after.nodeAllocs.map((a) => `${a.id} client=${a.clientStatus} address=${a.address ?? '(none)'}`);
    return result(id, title, 'skipped', `no running or pending alloc on the node reported an address (${e.after.nodeAllocs.length} allocs seen)`, seen.length ? seen : ['no alloc observed on the node after the reboot']);
  }
  const shared = [...by.entries()].filter(([, ids]) => ids.length > 1);
  if (shared.length > 0) {
    const list = shared.map(([addr, ids]) => `${addr} is held by ${ids.join(' and ')}`).join('; ');
    return result(id, title, 'failed', `live allocs share an address: ${list}`, evidence);
  }
  const n = [...by.values()].reduce((s, ids) => s + ids.length, 0);
  return result(id, title, 'passed', `${n} live alloc${n === 1 ? '' : 's'} on the node, each with its own address`, evidence);
}
