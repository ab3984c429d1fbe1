// Check: the run's faults took effect. A run that passed without its fault's effect (a reboot with no new boot id,
// an agent-kill with no restart, a long partition with no node marked down, a reboot the client restored nothing
// after) proves nothing, so it fails as vacuous. What each kind must cause is data (lib/checks/fault-effects.ts FAULT_PROOFS).
import { defineCheck, needing } from './define.js';
import type { Judgement } from '../model/check.js';
import type { SentinelEvidence, WithSentinels } from '../model/sentinels.js';
import { effectsOf } from './fault-effects.js';
import { judgement } from './result.js';

export const FAULT_EXERCISED = defineCheck<WithSentinels>({
  id: 'fault-exercised',
  title: 'Fault exercised',
  passesWhen:
    "each fault was seen to take effect as its kind requires (boot id, its moments, the agent's restart, the node down, a restore attempt); else the run is vacuous",
  details:
    "each fault was seen to take effect: the boot id changed after a reboot (and stayed after a fault that leaves the host up), the fault's own moments recorded, the agent restarted after an agent-kill, the node down after a fault longer than heartbeat_grace, a restore attempt in the client's log after a reboot of a client with allocs; else the run is vacuous",
  judge: needing((e: WithSentinels) => e.sentinels, 'the faults were not recorded')(judgeFaultExercised),
});

function judgeFaultExercised(s: SentinelEvidence): Judgement {
  if (!s.faults.length) return judgement('skipped', 'no fault was injected', []);
  const evidence: string[] = [];
  const missing: string[] = [];
  let proved = 0;
  s.faults.forEach((f, i) => {
    const n = s.faults.length > 1 ? ` #${i + 1}` : '';
    for (const e of effectsOf(f)) {
      const state = e.notApplicable ? `not required (${e.notApplicable})` : e.seen ? 'seen' : 'NOT SEEN';
      evidence.push(`${f.kind}${n} on ${f.machine}: ${e.effect} ${state}: ${e.line}`);
      if (e.notApplicable) continue;
      if (e.seen) proved++;
      else missing.push(`${f.kind}${n} on ${f.machine}: no ${e.effect}`);
    }
  });
  if (missing.length) return judgement('failed', `vacuous: ${missing.join('; ')}`, evidence);
  if (!proved) return judgement('skipped', 'none of the faults has an effect this run could require', evidence);
  return judgement('passed', `every fault took effect (${proved} effect${proved === 1 ? '' : 's'} seen)`, evidence);
}
