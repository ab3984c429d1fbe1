// Check: every machine the target named was hit, and no other, in the order of the turns: for kinds that reboot the
// host, each answered again with a new boot id. A roll that stops early (the job did not come back whole after a
// wave) leaves the later targets unhit, which fails here.
import { defineCheck } from './define.js';
import type { Judgement } from '../model/check.js';
import { judgement } from './result.js';
import type { ClusterEvidence } from '../model/cluster-evidence.js';
import { faultKind } from '../faults/registry.js';

export const TARGETS_HIT = defineCheck<ClusterEvidence>({
  id: 'targets-hit',
  title: 'Every target hit',
  passesWhen:
    'each machine the target names had its fault, in the planned order and no other machine, and after a fault that reboots the host came back with a new boot id',
  details:
    'each machine the target names (a machine, the leader as resolved when its turn started, every client or server) had its fault, in the planned order and no machine besides, and for kinds that reboot the host came back with a new boot id',
  judge: judgeTargetsHit,
});

function judgeTargetsHit(e: ClusterEvidence): Judgement {
  const lines = e.turns.map(
    (t) =>
      `${t.machine} (${t.targetedAs}${t.resolvedHow ? `: ${t.resolvedHow}` : ''}) ${t.reboot.kind} boot_id ${t.reboot.bootIdBefore || '?'} -> ${t.reboot.bootIdAfter || '?'}, back after ${((t.reboot.backAt - t.reboot.requestedAt) / 1000).toFixed(1)}s${t.drain ? `, drained ${((t.drain.doneAt - t.drain.requestedAt) / 1000).toFixed(1)}s (${t.drain.status})` : ''}`,
  );
  if (e.turns.length === 0) return judgement('failed', 'no machine was hit', lines);
  if (e.targeted) {
    const hit = e.turns.map((t) => (t.targetedAs === 'leader' ? 'leader' : t.machine));
    const planned = `targeted: ${e.targeted.join(', ')}; hit: ${hit.join(', ')}`;
    const missed = e.targeted.filter((name, k) => hit[k] !== name);
    const extra = hit.slice(e.targeted.length);
    if (missed.length || extra.length)
      return judgement(
        'failed',
        [
          missed.length ? `${missed.join(', ')} targeted but not hit in turn` : '',
          extra.length ? `${extra.join(', ')} hit but not targeted` : '',
        ]
          .filter(Boolean)
          .join('; '),
        [planned, ...lines],
      );
    lines.unshift(planned);
  }
  const notRebooted = e.turns.filter(
    (t) =>
      faultKind(t.reboot.kind).rebootsHost && (!t.reboot.bootIdAfter || t.reboot.bootIdAfter === t.reboot.bootIdBefore),
  );
  if (notRebooted.length)
    return judgement(
      'failed',
      `${notRebooted.map((t) => t.machine).join(', ')} did not come back with a new boot id`,
      lines,
    );
  return judgement('passed', `every target hit: ${e.turns.map((t) => t.machine).join(', ')}`, lines);
}
