// Check: after the in-place upgrade every live address has a reservation naming its alloc in the state dir in use,
// and every reservation there names a live alloc.
import { defineCheck } from './define.js';
import type { Judgement } from '../model/check.js';
import { judgement } from './result.js';
import { NEW_CNI_DIR, OLD_CNI_DIR, describeDir, listing, reservationsOf } from './cni-state.js';
import { LIVE, type UpgradeEvidence } from './upgrade-evidence.js';
import type { CniStateListing } from '../model/evidence.js';

export const STATE_AGREES = defineCheck<UpgradeEvidence>({
  id: 'state-agrees',
  title: 'Host-local state agrees',
  passesWhen:
    'every live alloc address has a host-local reservation file naming that alloc, and every reservation names a live alloc',
  judge: judgeStateAgrees,
});

function judgeStateAgrees(e: UpgradeEvidence): Judgement {
  const live = e.after.filter((a) => LIVE.has(a.clientStatus) && a.address);
  const dirs = [describeDir(e.cniAfter, OLD_CNI_DIR), describeDir(e.cniAfter, NEW_CNI_DIR)];
  if (!e.cniAfter.length) return judgement('skipped', 'the CNI state of the client was not listed', []);
  if (!live.length) return judgement('skipped', 'no live alloc reported an address', dirs);
  const dir = activeDir(e.cniAfter);
  if (!dir)
    return judgement(
      'failed',
      `${live.length} live allocs have addresses but no host-local state dir holds a reservation`,
      dirs,
    );
  const res = reservationsOf(listing(e.cniAfter, dir));
  const missing = live
    .filter((a) => res.get(a.address!) !== a.id)
    .map(
      (a) =>
        `alloc ${short(a.id)} at ${a.address}: ${res.has(a.address!) ? `${dir}/${a.address} names ${short(res.get(a.address!)!)}` : `no ${dir}/${a.address}`}`,
    );
  const liveIds = new Set(live.map((a) => a.id));
  const stale = [...res]
    .filter(([, owner]) => !liveIds.has(owner))
    .map(([ip, owner]) => `${dir}/${ip} names ${short(owner) || '(nobody)'}, not a live alloc`);
  const bad = [...missing, ...stale];
  if (bad.length)
    return judgement(
      'failed',
      `host-local state in ${dir} disagrees with the live allocs: ${bad.slice(0, 3).join('; ')}${bad.length > 3 ? `; and ${bad.length - 3} more` : ''}`,
      [...bad, ...dirs],
    );
  return judgement(
    'passed',
    `${live.length} live allocs, each with its reservation in ${dir}, and no stale reservation`,
    dirs,
  );
}

const short = (id: string): string => id.slice(0, 8);

/** The dir the client's host-local state is in: the tmpfs dir when it has reservations, else the on-disk one. */
function activeDir(ls: CniStateListing[]): string | undefined {
  return [NEW_CNI_DIR, OLD_CNI_DIR].find((d) => reservationsOf(listing(ls, d)).size > 0);
}
