// Check: the on-disk host-local state moved to tmpfs (the GH-25093 migration), judged from the dirs and the client log;
// skipped when the build did not change.
import { defineCheck } from './define.js';
import type { Judgement } from '../model/check.js';
import { judgement } from './result.js';
import { NEW_CNI_DIR, OLD_CNI_DIR, describeDir, listing, reservationsOf } from './cni-state.js';
import { LIVE, type UpgradeEvidence } from './upgrade-evidence.js';
import type { AllocSnap } from '../model/evidence.js';

export const STATE_MIGRATED = defineCheck<UpgradeEvidence>({
  id: 'state-migrated',
  title: 'CNI state migrated',
  passesWhen:
    '`/var/lib/cni/networks/nomad` is gone and `/var/run/cni/nomad` holds the reservations, or the client logged `migrated CNI state` (quotes `failed to migrate existing CNI state` when present)',
  judge: judgeStateMigrated,
});

function judgeStateMigrated(e: UpgradeEvidence): Judgement {
  const cniLog = e.clientLog.filter((l) => /CNI state/i.test(l));
  const dirs = [describeDir(e.cniAfter, OLD_CNI_DIR), describeDir(e.cniAfter, NEW_CNI_DIR), ...cniLog];
  if (e.mode === 'restart-only')
    return judgement('skipped', 'restart-only: the build did not change, so there is nothing to migrate', dirs);
  const failedLine = e.clientLog.find((l) => l.includes('failed to migrate existing CNI state'));
  if (failedLine) return judgement('failed', `the client could not migrate its CNI state: ${failedLine.trim()}`, dirs);
  const logged = e.clientLog.find((l) => l.includes('migrated CNI state'));
  if (logged) return judgement('passed', `the client logged the migration: ${logged.trim()}`, dirs);
  if (!e.cniAfter.length)
    return judgement(
      'skipped',
      'the CNI state of the client was not listed and the log says nothing of a migration',
      dirs,
    );
  const old = listing(e.cniAfter, OLD_CNI_DIR);
  const fresh = reservationsOf(listing(e.cniAfter, NEW_CNI_DIR));
  const kept = e.before
    .map((b) => e.after.find((a) => a.id === b.id))
    .filter((a): a is AllocSnap => !!a && LIVE.has(a.clientStatus) && !!a.address);
  const notMoved = kept
    .filter((a) => fresh.get(a.address!) !== a.id)
    .map((a) => `alloc ${short(a.id)} at ${a.address} has no reservation in ${NEW_CNI_DIR}`);
  if (old?.exists)
    return judgement(
      'failed',
      `${OLD_CNI_DIR} still exists (${reservationsOf(old).size} reservation(s)) and the client logged no "migrated CNI state": the new build ignores the old state`,
      [...notMoved, ...dirs],
    );
  if (notMoved.length)
    return judgement(
      'failed',
      `${OLD_CNI_DIR} is gone but ${NEW_CNI_DIR} lacks allocs that ran before the upgrade: ${notMoved.join('; ')}`,
      [...notMoved, ...dirs],
    );
  return judgement(
    'passed',
    `${OLD_CNI_DIR} is gone and ${NEW_CNI_DIR} holds the reservations of the ${kept.length} allocs from before the upgrade`,
    dirs,
  );
}

const short = (id: string): string => id.slice(0, 8);
