// Checks of the in-place upgrade scenario (GH-25093): unique IPs, host-local state agrees with the live allocs, and the
// state moved from the on-disk dir to the tmpfs dir (nomad-reference §4.4, §4.5, §4.7). Pure.
import type { UpgradeMode } from '../config/schema.js';
import { result } from './result.js';
import type { AllocSnap, CniStateListing } from '../model/evidence.js';
import type { CheckDef, CheckResult } from '../model/check.js';
import { allocsByAddress } from './unique-ips.js';
import { hostAddressConflicts, netnsLines } from './host-addresses.js';
import type { HostNetns } from '../lab/parse-observe.js';

/** host-local state of Nomad's bridge network before (on disk) and since (tmpfs) 1.9.4. */
export const OLD_CNI_DIR = '/var/lib/cni/networks/nomad';
export const NEW_CNI_DIR = '/var/run/cni/nomad';

/** The checks of upgrade-in-place, in report order. */
export const UPGRADE_CHECKS: readonly CheckDef[] = [
  { id: 'unique-ips', title: 'Unique alloc IPs', passesWhen: 'after the upgrade and the scale-up no two live allocs share an address **in the API**, and no two network namespaces **on the client host** hold the same address (the host view lists every namespace, named or only held by a process, with its addresses: `client-netns-after.json`)' },
  { id: 'state-agrees', title: 'Host-local state agrees', passesWhen: 'every live alloc address has a host-local reservation file naming that alloc, and every reservation names a live alloc' },
  { id: 'state-migrated', title: 'CNI state migrated', passesWhen: '`/var/lib/cni/networks/nomad` is gone and `/var/run/cni/nomad` holds the reservations, or the client logged `migrated CNI state` (quotes `failed to migrate existing CNI state` when present)' },
];

/** What the checks decide from. */
export interface UpgradeEvidence {
  mode: UpgradeMode;
  /** live allocs on the client node before the upgrade */
  before: AllocSnap[];
  /** live allocs on the client node after the restart and the scale-up */
  after: AllocSnap[];
  /** host-local state listings after the scale-up */
  cniAfter: CniStateListing[];
  /** client agent log since the restart */
  clientLog: string[];
  /** every network namespace on the client after the scale-up (host view); absent when not read */
  hostNetns?: HostNetns[];
}

const LIVE = new Set(['running', 'pending']);
const short = (id: string): string => id.slice(0, 8);

/** IP reservation files of a listing: file name (the address) -> the alloc id it names (host-local writes `id\r\nifname`). */
export function reservationsOf(l: CniStateListing | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const [f, content] of Object.entries(l?.exists ? l.files : {})) {
    if (f === 'lock' || f.startsWith('last_reserved_ip.')) continue;
    out.set(f, content.split(/\r?\n/)[0]!.trim());
  }
  return out;
}

const listing = (ls: CniStateListing[], dir: string) => ls.find((l) => l.dir.replace(/\/+$/, '') === dir);
const describeDir = (ls: CniStateListing[], dir: string): string => {
  const l = listing(ls, dir);
  if (!l) return `${dir}: not listed`;
  if (!l.exists) return `${dir}: absent`;
  const r = [...reservationsOf(l)].map(([ip, id]) => `${ip}=${short(id)}`);
  return `${dir}: ${r.length} reservation(s)${r.length ? ` ${r.join(' ')}` : ''}`;
};

/**
 * No two live allocs share an address (the GH-25093 collision), judged twice: from the API (NetworkStatus) and from the
 * client host (which namespaces hold which address). Failing samples name the address and every holder.
 */
export function checkUpgradeUniqueIps(e: UpgradeEvidence): CheckResult {
  const [{ id, title }] = UPGRADE_CHECKS as [CheckDef];
  const by = allocsByAddress(e.after, (a) => LIVE.has(a.clientStatus));
  const older = new Set(e.before.map((a) => a.id));
  const live = new Set(e.after.filter((a) => LIVE.has(a.clientStatus)).map((a) => a.id));
  const tag = (aid: string) => `${short(aid)}${older.has(aid) ? ' (from before the upgrade)' : ' (placed after)'}`;
  const host = e.hostNetns ?? [];
  const evidence = [
    ...[...by].sort(([a], [b]) => a.localeCompare(b)).map(([addr, ids]) => `API: ${addr} -> ${ids.map(tag).join(', ')}`),
    ...netnsLines(host, live).map((l) => `host: ${l}`),
  ];
  if (by.size === 0 && host.every((n) => !n.addrs.length)) return result(id, title, 'skipped', `no live alloc on the node reported an address (${e.after.length} seen)`, e.after.map((a) => `${a.id} client=${a.clientStatus}`));
  const shared = [...by].filter(([, ids]) => ids.length > 1).map(([addr, ids]) => `${addr} is held by ${ids.map(tag).join(' and ')} (API)`);
  const onHost = hostAddressConflicts(host, live).map((c) => `${c.addr} is held by ${c.holders.join(' and ')} (client host)`);
  if (shared.length || onHost.length) return result(id, title, 'failed', `two holders of one address: ${[...shared, ...onHost].join('; ')}`, evidence);
  const hostNote = e.hostNetns ? `; on the client host every address is held by one network namespace (${host.filter((n) => n.addrs.length).length} with addresses)` : '';
  return result(id, title, 'passed', `${[...by.values()].flat().length} live allocs, each with its own address${hostNote}`, evidence);
}

/** The dir the client's host-local state is in: the tmpfs dir when it has reservations, else the on-disk one. */
function activeDir(ls: CniStateListing[]): string | undefined {
  return [NEW_CNI_DIR, OLD_CNI_DIR].find((d) => reservationsOf(listing(ls, d)).size > 0);
}

/** Every live address has a reservation naming its alloc in the state dir in use, and every reservation there names a live alloc. */
export function checkStateAgrees(e: UpgradeEvidence): CheckResult {
  const { id, title } = UPGRADE_CHECKS[1]!;
  const live = e.after.filter((a) => LIVE.has(a.clientStatus) && a.address);
  const dirs = [describeDir(e.cniAfter, OLD_CNI_DIR), describeDir(e.cniAfter, NEW_CNI_DIR)];
  if (!e.cniAfter.length) return result(id, title, 'skipped', 'the CNI state of the client was not listed', []);
  if (!live.length) return result(id, title, 'skipped', 'no live alloc reported an address', dirs);
  const dir = activeDir(e.cniAfter);
  if (!dir) return result(id, title, 'failed', `${live.length} live allocs have addresses but no host-local state dir holds a reservation`, dirs);
  const res = reservationsOf(listing(e.cniAfter, dir));
  const missing = live.filter((a) => res.get(a.address!) !== a.id).map((a) => `alloc ${short(a.id)} at ${a.address}: ${res.has(a.address!) ? `${dir}/${a.address} names ${short(res.get(a.address!)!)}` : `no ${dir}/${a.address}`}`);
  const liveIds = new Set(live.map((a) => a.id));
  const stale = [...res].filter(([, owner]) => !liveIds.has(owner)).map(([ip, owner]) => `${dir}/${ip} names ${short(owner) || '(nobody)'}, not a live alloc`);
  const bad = [...missing, ...stale];
  if (bad.length) return result(id, title, 'failed', `host-local state in ${dir} disagrees with the live allocs: ${bad.slice(0, 3).join('; ')}${bad.length > 3 ? `; and ${bad.length - 3} more` : ''}`, [...bad, ...dirs]);
  return result(id, title, 'passed', `${live.length} live allocs, each with its reservation in ${dir}, and no stale reservation`, dirs);
}

/** The on-disk state moved to tmpfs (the GH-25093 migration), judged from the dirs and the client log; skipped when the build did not change. */
export function checkStateMigrated(e: UpgradeEvidence): CheckResult {
  const { id, title } = UPGRADE_CHECKS[2]!;
  const cniLog = e.clientLog.filter((l) => /CNI state/i.test(l));
  const dirs = [describeDir(e.cniAfter, OLD_CNI_DIR), describeDir(e.cniAfter, NEW_CNI_DIR), ...cniLog];
  if (e.mode === 'restart-only') return result(id, title, 'skipped', 'restart-only: the build did not change, so there is nothing to migrate', dirs);
  const failedLine = e.clientLog.find((l) => l.includes('failed to migrate existing CNI state'));
  if (failedLine) return result(id, title, 'failed', `the client could not migrate its CNI state: ${failedLine.trim()}`, dirs);
  const logged = e.clientLog.find((l) => l.includes('migrated CNI state'));
  if (logged) return result(id, title, 'passed', `the client logged the migration: ${logged.trim()}`, dirs);
  if (!e.cniAfter.length) return result(id, title, 'skipped', 'the CNI state of the client was not listed and the log says nothing of a migration', dirs);
  const old = listing(e.cniAfter, OLD_CNI_DIR);
  const fresh = reservationsOf(listing(e.cniAfter, NEW_CNI_DIR));
  const kept = e.before.map((b) => e.after.find((a) => a.id === b.id)).filter((a): a is AllocSnap => !!a && LIVE.has(a.clientStatus) && !!a.address);
  const notMoved = kept.filter((a) => fresh.get(a.address!) !== a.id).map((a) => `alloc ${short(a.id)} at ${a.address} has no reservation in ${NEW_CNI_DIR}`);
  if (old?.exists) return result(id, title, 'failed', `${OLD_CNI_DIR} still exists (${reservationsOf(old).size} reservation(s)) and the client logged no "migrated CNI state": the new build ignores the old state`, [...notMoved, ...dirs]);
  if (notMoved.length) return result(id, title, 'failed', `${OLD_CNI_DIR} is gone but ${NEW_CNI_DIR} lacks allocs that ran before the upgrade: ${notMoved.join('; ')}`, [...notMoved, ...dirs]);
  return result(id, title, 'passed', `${OLD_CNI_DIR} is gone and ${NEW_CNI_DIR} holds the reservations of the ${kept.length} allocs from before the upgrade`, dirs);
}

/** All checks of the scenario, in report order. */
export function upgradeChecks(e: UpgradeEvidence): CheckResult[] {
  return [checkUpgradeUniqueIps(e), checkStateAgrees(e), checkStateMigrated(e)];
}
