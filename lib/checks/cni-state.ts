// Pure: host-local's state on the client as the checks read it: where it lives, which reservation names which alloc.
import type { CniStateListing } from '../model/evidence.js';
import type { CniStateMode } from '../model/kinds.js';

/** Where host-local keeps its state: persistent = Nomad <= 1.9.3 (plugin default), tmpfs = Nomad >= 1.9.4 (GH-24650). */
export const CNI_DATA_DIRS = { persistent: '/var/lib/cni/networks', tmpfs: '/var/run/cni' } as const satisfies Record<
  CniStateMode,
  string
>;
/** Nomad's bridge network name, which is also host-local's state sub-directory. */
export const NOMAD_CNI_NETWORK = 'nomad';
/** host-local state of Nomad's bridge network before (on disk) and since (tmpfs) 1.9.4. */
export const OLD_CNI_DIR = `${CNI_DATA_DIRS.persistent}/${NOMAD_CNI_NETWORK}` as const;
export const NEW_CNI_DIR = `${CNI_DATA_DIRS.tmpfs}/${NOMAD_CNI_NETWORK}` as const;
/** Both, old first: what is listed on a client, cleaned from a host, and named in the facts, in this one order. */
export const CNI_STATE_DIRS = [OLD_CNI_DIR, NEW_CNI_DIR] as const;

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

/** The listing of one state dir, however its path was written. */
export const listing = (ls: CniStateListing[], dir: string) => ls.find((l) => l.dir.replace(/\/+$/, '') === dir);

/** One evidence line per state dir: absent, or its reservations. */
export const describeDir = (ls: CniStateListing[], dir: string): string => {
  const l = listing(ls, dir);
  if (!l) return `${dir}: not listed`;
  if (!l.exists) return `${dir}: absent`;
  const r = [...reservationsOf(l)].map(([ip, id]) => `${ip}=${short(id)}`);
  return `${dir}: ${r.length} reservation(s)${r.length ? ` ${r.join(' ')}` : ''}`;
};
