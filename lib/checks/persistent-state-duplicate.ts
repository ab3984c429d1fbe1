// Check: with host-local state on disk (Nomad <= 1.9.3), adding the same container again after a reboot fails with
// host-local's duplicate error naming that container: the mechanism behind the seed bug.
import { defineCheck } from './define.js';
import type { Judgement } from '../model/check.js';
import { judgement, show } from './result.js';
import { findDuplicateIpError } from './parse-duplicate-ip.js';
import { withBothAdds, type BothAdds, type CniRebootEvidence } from './cni-probe.js';

export const PERSISTENT_STATE_DUPLICATE = defineCheck<CniRebootEvidence>({
  id: 'persistent-state-duplicate',
  title: 'Persistent state refuses the re-add',
  passesWhen:
    'with state on disk the second ADD fails with `… has been allocated to <id>, duplicate allocation is not allowed` naming the container',
  judge: withBothAdds('persistent', 'on disk')(judgePersistentDuplicate),
});

function judgePersistentDuplicate({ run: r, second, ev }: BothAdds): Judgement {
  if (second.ok)
    return judgement(
      'failed',
      `the ADD after the reboot succeeded (${second.ips.join(', ')}): the persistent state did not block it`,
      ev,
    );
  const dup = findDuplicateIpError(second.msg);
  if (!dup) return judgement('failed', `the ADD after the reboot failed with a different error: ${second.msg}`, ev);
  if (dup.allocId !== r.containerId)
    return judgement('failed', `duplicate error names ${dup.allocId}, not this container (${r.containerId})`, ev);
  return judgement(
    'passed',
    `${dup.ip} is still reserved for ${dup.allocId} after the reboot: duplicate allocation is not allowed (code ${show(second.code)})`,
    ev,
  );
}
