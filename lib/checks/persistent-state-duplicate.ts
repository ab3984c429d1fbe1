// Check: with host-local state on disk (Nomad <= 1.9.3), adding the same container again after a reboot fails with
// host-local's duplicate error naming that container: the mechanism behind the seed bug.
import { defineCheck } from './define.js';
import { judgement, show } from './result.js';
import { findDuplicateIpError } from './parse-duplicate-ip.js';
import { describeOutcome } from '../parse/cni-result.js';
import { probeOf, runEvidence, type CniRebootEvidence } from './cni-probe.js';

export const PERSISTENT_STATE_DUPLICATE = defineCheck<CniRebootEvidence>({
  id: 'persistent-state-duplicate',
  title: 'Persistent state refuses the re-add',
  passesWhen: 'with state on disk the second ADD fails with `… has been allocated to <id>, duplicate allocation is not allowed` naming the container',
  judge(e) {
    const r = probeOf(e, 'persistent');
    if (!r) return judgement('failed', 'no probe with state on disk was run', []);
    const ev = runEvidence(r);
    if (!r.first?.ok) return judgement('failed', `the first ADD did not succeed (${describeOutcome(r.first)}), so the probe proves nothing`, ev);
    if (!r.second) return judgement('failed', 'the ADD after the reboot was not run', ev);
    if (r.second.ok) return judgement('failed', `the ADD after the reboot succeeded (${r.second.ips.join(', ')}): the persistent state did not block it`, ev);
    const dup = findDuplicateIpError(r.second.msg);
    if (!dup) return judgement('failed', `the ADD after the reboot failed with a different error: ${r.second.msg}`, ev);
    if (dup.allocId !== r.containerId) return judgement('failed', `duplicate error names ${dup.allocId}, not this container (${r.containerId})`, ev);
    return judgement('passed', `${dup.ip} is still reserved for ${dup.allocId} after the reboot: duplicate allocation is not allowed (code ${show(r.second.code)})`, ev);
  },
});
