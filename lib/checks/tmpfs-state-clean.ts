// Check: with host-local state on tmpfs (Nomad >= 1.9.4) the state is gone after the reboot, so adding the same
// container again succeeds.
import { defineCheck } from './define.js';
import type { Judgement } from '../model/check.js';
import { judgement } from './result.js';
import { withBothAdds, type BothAdds, type CniRebootEvidence } from './cni-probe.js';

export const TMPFS_STATE_CLEAN = defineCheck<CniRebootEvidence>({
  id: 'tmpfs-state-clean',
  title: 'tmpfs state accepts the re-add',
  passesWhen: 'with state on tmpfs the second ADD succeeds',
  judge: withBothAdds('tmpfs', 'on tmpfs')(judgeTmpfsClean),
});

function judgeTmpfsClean({ run: r, first, second, ev }: BothAdds): Judgement {
  if (!second.ok) return judgement('failed', `the ADD after the reboot failed: ${second.msg}`, ev);
  const leftover = r.stateAfter?.exists ? Object.keys(r.stateAfter.files).filter((f) => /^[0-9a-f.:]+$/i.test(f)) : [];
  const note = leftover.length > 0 ? `; note: ${leftover.length} reservation(s) survived the reboot` : '';
  return judgement(
    'passed',
    `the ADD after the reboot got ${second.ips.join(', ') || '(no address)'} (before: ${first.ips.join(', ')})${note}`,
    ev,
  );
}
