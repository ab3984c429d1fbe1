// Check: with host-local state on tmpfs (Nomad >= 1.9.4) the state is gone after the reboot, so adding the same
// container again succeeds.
import { defineCheck } from './define.js';
import { judgement } from './result.js';
import { describeOutcome } from '../parse/cni-result.js';
import { probeOf, runEvidence, type CniRebootEvidence } from './cni-probe.js';

export const TMPFS_STATE_CLEAN = defineCheck<CniRebootEvidence>({
  id: 'tmpfs-state-clean',
  title: 'tmpfs state accepts the re-add',
  passesWhen: 'with state on tmpfs the second ADD succeeds',
  judge(e) {
    const r = probeOf(e, 'tmpfs');
    if (!r) return judgement('failed', 'no probe with state on tmpfs was run', []);
    const ev = runEvidence(r);
    if (!r.first?.ok) return judgement('failed', `the first ADD did not succeed (${describeOutcome(r.first)}), so the probe proves nothing`, ev);
    if (!r.second) return judgement('failed', 'the ADD after the reboot was not run', ev);
    if (!r.second.ok) return judgement('failed', `the ADD after the reboot failed: ${r.second.msg}`, ev);
    const leftover = r.stateAfter?.exists ? Object.keys(r.stateAfter.files).filter((f) => /^[0-9a-f.:]+$/i.test(f)) : [];
    const note = leftover.length > 0 ? `; note: ${leftover.length} reservation(s) survived the reboot` : '';
    return judgement('passed', `the ADD after the reboot got ${r.second.ips.join(', ') || '(no address)'} (before: ${r.first.ips.join(', ')})${note}`, ev);
  },
});
