// Check: no two live allocs on the client node share a bridge address (the in-place upgrade collision, GH-25093).
// Live means running and meant to run: a failed or pending alloc still reports the address it had, which it no longer holds.
import { allocLabel, classifyAllocOutcome, watchedIds } from './alloc-outcome.js';
import { defineCheck } from './define.js';
import { judgement } from './result.js';
import type { AllocSnap, RebootEvidence } from '../model/evidence.js';
import type { AllocDetail, Judgement } from '../model/check.js';

export const UNIQUE_IPS = defineCheck<RebootEvidence>({
  id: 'unique-ips',
  title: 'Unique alloc IPs',
  passesWhen: 'no two **live** allocs on the node (running, desired `run`) share an address',
  details:
    'no two **live** allocs on the node (running, desired `run`) share an address. A failed or pending alloc still reports the address it had and is not counted (skipped when no live alloc reported one)',
  judge: judgeUnique,
});

/** Passes when every live alloc on the node that has an address has a different one; skipped when none reported an address. */
function judgeUnique(e: RebootEvidence): Judgement {
  const by = allocsByAddress(e.after.nodeAllocs);
  const evidence = [...by.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([addr, ids]) => `${addr} -> ${ids.join(', ')}`);
  const notLive = e.after.nodeAllocs.filter((a) => !isLive(a) && a.address);
  const perAlloc = perAllocOf(e, by);
  const lines = perAlloc.map((p) => `${allocLabel(p)}: ${p.detail}`);
  const ignored = notLive.map(
    (a) => `not counted (not live): ${a.id} ${a.clientStatus}/${a.desiredStatus} still reports ${a.address}`,
  );
  if (by.size === 0) {
    const seen = e.after.nodeAllocs.map((a) => `${a.id} client=${a.clientStatus} address=${a.address ?? '(none)'}`);
    const msg = `no running alloc on the node reported an address (${e.after.nodeAllocs.length} allocs seen)`;
    return judgement(
      'skipped',
      msg,
      seen.length ? [...seen, ...lines] : ['no alloc observed on the node after the reboot'],
      perAlloc,
    );
  }
  const shared = [...by.entries()].filter(([, ids]) => ids.length > 1);
  if (shared.length > 0) {
    const list = shared.map(([addr, ids]) => `${addr} is held by ${ids.join(' and ')}`).join('; ');
    return judgement('failed', `live allocs share an address: ${list}`, [...evidence, ...lines, ...ignored], perAlloc);
  }
  const n = [...by.values()].reduce((s, ids) => s + ids.length, 0);
  const skipped = notLive.length
    ? `; ${notLive.length} not-live alloc${notLive.length === 1 ? '' : 's'} not counted`
    : '';
  return judgement(
    'passed',
    `${n} live alloc${n === 1 ? '' : 's'} on the node, each with its own address${skipped}`,
    [...evidence, ...lines, ...ignored],
    perAlloc,
  );
}

/** Is the alloc live: running and desired to run? */
function isLive(a: AllocSnap): boolean {
  return a.clientStatus === 'running' && a.desiredStatus === 'run';
}

/** Group the live allocs (with an address) by address; each alloc once. `live` decides what counts (default isLive). */
export function allocsByAddress(allocs: AllocSnap[], live: (a: AllocSnap) => boolean = isLive): Map<string, string[]> {
  const by = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const a of allocs) {
    if (!live(a) || !a.address || seen.has(a.id)) continue;
    seen.add(a.id);
    by.set(a.address, [...(by.get(a.address) ?? []), a.id]);
  }
  return by;
}

/** Per judged alloc: its slot's live alloc and whether its address is its own. */
function perAllocOf(e: RebootEvidence, by: Map<string, string[]>): AllocDetail[] {
  return watchedIds(e).map((allocId) => {
    const o = classifyAllocOutcome(e, allocId);
    const cur = o.current;
    const name = o.name;
    if (!cur || !isLive(cur))
      return {
        allocId,
        name,
        status: 'skipped',
        detail: `not live (${cur ? `${cur.clientStatus}, desired ${cur.desiredStatus}` : 'not observed'}), holds no address`,
      };
    if (!cur.address)
      return {
        allocId,
        name,
        status: 'skipped',
        detail: `live${cur.id !== allocId ? ` as ${cur.id.slice(0, 8)}` : ''} but reports no address`,
      };
    const holders = by.get(cur.address) ?? [cur.id];
    const others = holders.filter((x) => x !== cur.id);
    const as = cur.id !== allocId ? ` (replacement ${cur.id.slice(0, 8)})` : '';
    return others.length
      ? { allocId, name, status: 'failed', detail: `${cur.address}${as} is also held by ${others.join(', ')}` }
      : { allocId, name, status: 'passed', detail: `${cur.address}${as} is its own` };
  });
}
