// Check: the alloc running before the reboot is running again in place (same ID, same node, no replacement).
import { classifyAllocOutcome, watchedAllocAfter } from './alloc-outcome.js';
import { allocLine, result } from './result.js';
import type { CheckResult, RebootEvidence } from './types.js';

export const ALLOC_RESTORED = { id: 'alloc-restored', title: 'Alloc restored' } as const;

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
  // Note: "not restored (<outcome>)", not "<outcome>: …": reports put the verdict ("failed: ") in front of the message.
  return result(id, title, 'failed', `not restored (${c.outcome}): ${c.reason}`, evidence);
}
