// Check: every alloc running before the reboot is running again in place (same ID, same node, no replacement).
import { allocBefore, allocLabel, classifyAll } from './alloc-outcome.js';
import { allocLine, result } from './result.js';
import type { RebootEvidence } from '../model/evidence.js';
import type { AllocDetail, CheckDef, CheckResult } from '../model/check.js';

export const ALLOC_RESTORED: CheckDef = {
  id: 'alloc-restored',
  title: 'Alloc restored',
  passesWhen: 'every alloc healthy before the reboot is `running` again under the same ID on the same node, not replaced. Per alloc: restored, replaced (and why), failed (the failing event) or unknown (the wait ran out while it was still changing)',
};

/** "web.web[0] 172.26.64.4 -> 172.26.64.3" for each restored alloc whose bridge address changed. */
function addressChanges(e: RebootEvidence, outcomes: ReturnType<typeof classifyAll>): string[] {
  return outcomes.flatMap((o) => {
    const before = allocBefore(e, o.allocId)?.address;
    const after = o.current?.address;
    return o.outcome === 'restored' && before && after && before !== after ? [`${o.name || o.allocId.slice(0, 8)} ${before} -> ${after}`] : [];
  });
}

/** Passes only when every judged alloc's outcome is `restored`; one detail line per alloc with its outcome and why. */
export function checkAllocRestored(e: RebootEvidence): CheckResult {
  const { id, title } = ALLOC_RESTORED;
  const outcomes = classifyAll(e);
  const perAlloc: AllocDetail[] = outcomes.map((o) => ({
    allocId: o.allocId, name: o.name, status: o.outcome === 'restored' ? 'passed' : 'failed', detail: `${o.outcome}: ${o.reason}`,
  }));
  const moved = addressChanges(e, outcomes);
  const evidence = outcomes.map((o) => `${allocLabel(o)}: ${o.outcome}: ${o.reason}`);
  for (const o of outcomes) {
    const b = allocBefore(e, o.allocId);
    evidence.push(`  before: ${b ? allocLine(b) : `alloc ${o.allocId} not observed`}`);
    evidence.push(`  after:  ${o.current ? allocLine(o.current) : '(not observed)'}`);
  }
  const judged = new Set([...outcomes.map((o) => o.allocId), ...outcomes.flatMap((o) => (o.current ? [o.current.id] : []))]);
  for (const a of e.after.jobAllocs) if (!judged.has(a.id)) evidence.push(`other alloc of job ${e.jobId}: ${allocLine(a)}`);
  if (moved.length) evidence.push(`addresses changed: ${moved.join('; ')}`);
  if (e.settle) evidence.push(`settle: ${e.settle.settled ? 'settled' : 'NOT settled (deadline)'}: ${e.settle.reason}`);
  const n = outcomes.length;
  const bad = outcomes.filter((o) => o.outcome !== 'restored');
  const movedNote = moved.length ? `; ${moved.length} came back with a different address (${moved.join('; ')})` : '';
  if (!bad.length) {
    const msg = n === 1 ? `${outcomes[0]!.reason}${movedNote}` : `all ${n} allocs restored in place${movedNote}`;
    return { ...result(id, title, 'passed', msg, evidence), perAlloc };
  }
  const counts = (['replaced', 'failed', 'unknown'] as const).map((k) => [k, bad.filter((o) => o.outcome === k).length] as const).filter(([, c]) => c > 0);
  // Note: "not restored (<outcome>)", not "<outcome>: …": reports put the verdict ("failed: ") in front of the message.
  const summary = n === 1 ? `not restored (${bad[0]!.outcome}): ${bad[0]!.reason}` : `${n - bad.length} of ${n} allocs restored; ${counts.map(([k, c]) => `${c} ${k}`).join(', ')}; first: ${bad[0]!.outcome}: ${bad[0]!.reason}`;
  return { ...result(id, title, 'failed', `${summary}${movedNote}`, evidence), perAlloc };
}
