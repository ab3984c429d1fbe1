// Check: the alloc running before the reboot is running again in place (same ID, same node, no replacement).
import { classifyAllocOutcome, watchedAllocAfter } from './alloc-outcome.js';
import { allocLine, result } from './result.js';
import type { RebootEvidence } from '../model/evidence.js';
import type { CheckDef, CheckResult } from '../model/check.js';

export const ALLOC_RESTORED: CheckDef = {
  id: 'alloc-restored',
  title: 'Alloc restored',
  passesWhen: 'the same alloc ID is running on the same node; no replacement was created',
};

/** Passes only when classifyAllocOutcome says `restored`; otherwise the message carries the classification and why. */
export function checkAllocRestored(e: RebootEvidence): CheckResult {
  const { id, title } = ALLOC_RESTORED;
  const c = classifyAllocOutcome(e);
  const evidence = [`outcome: ${c.outcome}: ${c.reason}`];
  evidence.push(`before: ${e.before.alloc ? allocLine(e.before.alloc) : `alloc ${e.allocId} not observed`}`);
  const after = watchedAllocAfter(e);
  evidence.push(`after:  ${after ? allocLine(after) : `alloc ${e.allocId} not observed`}`);
  for (const a of e.after.jobAllocs) if (a.id !== e.allocId) evidence.push(`other alloc of job ${e.jobId}: ${allocLine(a)}`);
  if (c.outcome === 'restored') return result(id, title, 'passed', c.reason, evidence);
  return result(id, title, 'failed', `${c.outcome}: ${c.reason}`, evidence);
}
