// Check: every alloc running before the reboot is running again in place (same ID, same node, no replacement). A
// replaced alloc's tasks were not started again in place, so task-restarted failing only for replaced allocs is this
// check's consequence (`--expect alloc-restored=fail` reproduces a node-down). Under a partition longer than
// heartbeat_grace the replacement is what is expected, and so it is past the group's own lost_after.
import { allocBefore, allocLabel, classifyAll, classifyAllocOutcome } from './alloc-outcome.js';
import { defineCheck } from './define.js';
import { allocLine, judgement, withStatus } from './result.js';
import { TASK_RESTARTED } from './task-restarted.js';
import type { RebootEvidence } from '../model/evidence.js';
import type { AllocDetail, CheckResult, FaultSeen, Judgement } from '../model/check.js';

export const ALLOC_RESTORED = defineCheck<RebootEvidence>({
  id: 'alloc-restored',
  title: 'Alloc restored',
  passesWhen:
    'every alloc healthy before the reboot is `running` again under the same ID on the same node, not replaced',
  details:
    'every alloc healthy before the reboot is `running` again under the same ID on the same node, not replaced. Per alloc: restored, replaced (and why), failed (the failing event) or unknown (the wait ran out while it was still changing)',
  judge: judgeRestored,
  explains: [{ checks: [TASK_RESTARTED], when: onlyReplacedFail }],
  underFault: (r, e, f) => (f.replaced ? allocReplaced(r, e, f) : r),
});

/**
 * Passes only when every judged alloc's outcome is `restored`, or `replaced` where the job's disconnect policy asks
 * for it; one detail line per alloc with its outcome and why.
 */
function judgeRestored(e: RebootEvidence): Judgement {
  const outcomes = classifyAll(e);
  const perAlloc: AllocDetail[] = outcomes.map((o) => ({
    allocId: o.allocId,
    name: o.name,
    status: asExpected(o) ? 'passed' : 'failed',
    detail: `${o.outcome}${o.expectedByPolicy ? ' (as its disconnect policy asks)' : ''}: ${o.reason}`,
  }));
  const moved = addressChanges(e, outcomes);
  const evidence = outcomes.map((o) => `${allocLabel(o)}: ${o.outcome}: ${o.reason}`);
  for (const o of outcomes) {
    const b = allocBefore(e, o.allocId);
    evidence.push(`  before: ${b ? allocLine(b) : `alloc ${o.allocId} not observed`}`);
    evidence.push(`  after:  ${o.current ? allocLine(o.current) : '(not observed)'}`);
  }
  const judged = new Set([
    ...outcomes.map((o) => o.allocId),
    ...outcomes.flatMap((o) => (o.current ? [o.current.id] : [])),
  ]);
  for (const a of e.after.jobAllocs)
    if (!judged.has(a.id)) evidence.push(`other alloc of job ${e.jobId}: ${allocLine(a)}`);
  if (moved.length) evidence.push(`addresses changed: ${moved.join('; ')}`);
  if (e.settle) evidence.push(`settle: ${e.settle.settled ? 'settled' : 'NOT settled (deadline)'}: ${e.settle.reason}`);
  const n = outcomes.length;
  const bad = outcomes.filter((o) => !asExpected(o));
  const movedNote = moved.length ? `; ${moved.length} came back with a different address (${moved.join('; ')})` : '';
  if (!bad.length) {
    const byPolicy = outcomes.filter((o) => o.outcome === 'replaced').length;
    const all = byPolicy
      ? `${n - byPolicy} of ${n} allocs restored in place, ${byPolicy} replaced as their disconnect policy asks`
      : `all ${n} allocs restored in place`;
    const msg = n === 1 ? `${outcomes[0]!.reason}${movedNote}` : `${all}${movedNote}`;
    return judgement('passed', msg, evidence, perAlloc);
  }
  const counts = (['replaced', 'failed', 'unknown'] as const)
    .map((k) => [k, bad.filter((o) => o.outcome === k).length] as const)
    .filter(([, c]) => c > 0);
  // Note: "not restored (<outcome>)", not "<outcome>: …": reports put the verdict ("failed: ") in front of the message.
  const summary =
    n === 1
      ? `not restored (${bad[0]!.outcome}): ${bad[0]!.reason}`
      : `${n - bad.length} of ${n} allocs restored; ${counts.map(([k, c]) => `${c} ${k}`).join(', ')}; first: ${bad[0]!.outcome}: ${bad[0]!.reason}`;
  return judgement('failed', `${summary}${movedNote}`, evidence, perAlloc);
}

/** Restored, or replaced as the group's own disconnect policy asks (lost past lost_after, the reconcile's pick). */
const asExpected = (o: { outcome: string; expectedByPolicy?: boolean }): boolean =>
  o.outcome === 'restored' || (o.outcome === 'replaced' && o.expectedByPolicy === true);

/** "web.web[0] 172.26.64.4 -> 172.26.64.3" for each restored alloc whose bridge address changed. */
function addressChanges(e: RebootEvidence, outcomes: ReturnType<typeof classifyAll>): string[] {
  return outcomes.flatMap((o) => {
    const before = allocBefore(e, o.allocId)?.address;
    const after = o.current?.address;
    return o.outcome === 'restored' && before && after && before !== after
      ? [`${o.name || o.allocId.slice(0, 8)} ${before} -> ${after}`]
      : [];
  });
}

/** The consequence's failing allocs are all allocs this check judged replaced. */
function onlyReplacedFail(e: RebootEvidence, consequence: CheckResult): boolean {
  const replaced = new Set(
    classifyAll(e)
      .filter((o) => o.outcome === 'replaced')
      .map((o) => o.allocId),
  );
  const bad = (consequence.perAlloc ?? []).filter((p) => p.status === 'failed');
  return bad.length > 0 && bad.every((p) => replaced.has(p.allocId));
}

/** Expected under a long partition: the node went down and the alloc was replaced; staying in place is the surprise. */
function allocReplaced(r: CheckResult, e: RebootEvidence, f: FaultSeen): CheckResult {
  const c = classifyAllocOutcome(e);
  const lines = [`expected for ${f.kind}: the node is marked down and the alloc replaced (${f.why})`];
  if (c.outcome === 'replaced') return withStatus(r, 'passed', `replaced, as expected (${f.why}): ${c.reason}`, lines);
  return withStatus(
    r,
    'failed',
    `expected a replacement (${f.why}) but the alloc was ${c.outcome}: ${c.reason}`,
    lines,
  );
}
