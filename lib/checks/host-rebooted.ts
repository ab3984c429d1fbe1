// Check: the host the CNI probe ran on really rebooted (its boot_id changed). cni-ipam-reboot has no Nomad, so this is
// the host alone; the reboot scenario's `client-rebooted` also judges the uptime. It was `client-rebooted` before.
import { defineCheck } from './define.js';
import type { Judgement } from '../model/check.js';
import { judgement, show } from './result.js';
import type { CniRebootEvidence } from './cni-probe.js';

export const HOST_REBOOTED = defineCheck<CniRebootEvidence>({
  id: 'host-rebooted',
  formerly: ['client-rebooted'],
  title: 'Host rebooted',
  passesWhen: 'boot_id changed',
  judge: judgeHostRebooted,
});

/** Boot ids must be known and differ, else nothing the probes show proves anything about a reboot. */
function judgeHostRebooted(e: CniRebootEvidence): Judgement {
  const ev = [`boot_id before: ${show(e.bootIdBefore)}`, `boot_id after:  ${show(e.bootIdAfter)}`];
  if (!e.bootIdBefore.trim() || !e.bootIdAfter.trim())
    return judgement('failed', 'a boot_id was not observed, so a reboot cannot be proved', ev);
  if (e.bootIdBefore.trim() === e.bootIdAfter.trim())
    return judgement('failed', `boot_id did not change (${e.bootIdBefore.trim()})`, ev);
  return judgement('passed', 'boot_id changed', ev);
}
