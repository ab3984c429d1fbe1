// Check: no task event and no client log line reports CNI's "duplicate allocation is not allowed". When every alloc
// that was not restored failed on that error, those allocs cannot be restored, started or reached: their failures in
// the other checks are this check's consequences, so a reproduction of the bug (`--expect no-duplicate-ip=fail`) need
// not list them; any other failure stays one.
import { eventLine, judgement, oneLine } from './result.js';
import { findDuplicateIpError, mentionsDuplicateAllocation } from './parse-duplicate-ip.js';
import type { RebootEvidence, TaskEventRec } from '../model/evidence.js';
import type { AllocDetail, Judgement } from '../model/check.js';
import { allocAfter, allocBefore, allocLabel, classifyAll, findReplacement, watchedIds } from './alloc-outcome.js';
import { defineCheck } from './define.js';
import { ALLOC_RESTORED } from './alloc-restored.js';
import { TASK_RESTARTED } from './task-restarted.js';
import { HTTP_REACHABLE } from './http-reachable.js';
import { NO_LEAKS, findLeaks } from './no-leaks.js';

export const NO_DUPLICATE_IP = defineCheck<RebootEvidence>({
  id: 'no-duplicate-ip',
  title: 'No duplicate-IP error',
  passesWhen:
    'no task event of any alloc and no client log line since boot contains `duplicate allocation is not allowed`; the first such event per alloc is quoted',
  judge: judgeNoDuplicate,
  explains: [
    { checks: [ALLOC_RESTORED, TASK_RESTARTED, HTTP_REACHABLE], when: lostOnlyToDuplicates },
    { checks: [NO_LEAKS], when: (e) => lostOnlyToDuplicates(e) && leftoversOnlyOfFailed(e) },
  ],
});

/** Passes when no task event (of any alloc) and no client log line contains the duplicate-allocation error; quotes each hit. */
function judgeNoDuplicate(e: RebootEvidence): Judgement {
  const events = allEvents(e);
  const hits: string[] = [];
  const hitsByAlloc = new Map<string, TaskEventRec[]>();
  let first: { ip: string; allocId: string } | undefined;
  for (const { allocId, ev } of events) {
    const text = eventText(ev);
    if (!mentionsDuplicateAllocation(text)) continue;
    first ??= findDuplicateIpError(text);
    hits.push(`task event of alloc ${allocId}: ${eventLine(ev)}`);
    hitsByAlloc.set(allocId, [...(hitsByAlloc.get(allocId) ?? []), ev]);
  }
  for (const line of e.clientLog) {
    if (!mentionsDuplicateAllocation(line)) continue;
    first ??= findDuplicateIpError(line);
    hits.push(`client log: ${oneLine(line)}`);
  }
  const scanned = `scanned ${events.length} task events and ${e.clientLog.length} client log lines`;
  const perAlloc = perAllocOf(e, hitsByAlloc, events);
  const lines = perAlloc.map((p) => `${allocLabel(p)}: ${p.status === 'passed' ? 'ok  ' : 'FAIL'} ${p.detail}`);
  if (hits.length === 0)
    return judgement(
      'passed',
      `no "duplicate allocation is not allowed" error (${scanned})`,
      [scanned, ...lines],
      perAlloc,
    );
  const detail = first ? `: ${first.ip} was already allocated to ${first.allocId}` : '';
  const bad = perAlloc.filter((p) => p.status === 'failed').length;
  const of = perAlloc.length > 1 ? ` for ${bad} of ${perAlloc.length} allocs` : '';
  const msg = `CNI refused a duplicate IP allocation${of}${detail} (${hits.length} occurrence${hits.length === 1 ? '' : 's'})`;
  return judgement('failed', msg, [scanned, ...lines, ...hits], perAlloc);
}

function eventText(ev: TaskEventRec): string {
  return [ev.message, ...Object.values(ev.details)].join(' ');
}

/** Every task event of every alloc the evidence holds, tagged with its alloc ID. */
function allEvents(e: RebootEvidence): { allocId: string; ev: TaskEventRec }[] {
  const seen = new Set<string>();
  const out: { allocId: string; ev: TaskEventRec }[] = [];
  const add = (allocId: string, ev: TaskEventRec): void => {
    const key = `${allocId}\u0000${ev.timeMs}\u0000${ev.type}\u0000${ev.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ allocId, ev });
  };
  for (const [allocId, evs] of Object.entries(e.taskEvents)) for (const ev of evs) add(allocId, ev);
  for (const a of [...e.after.jobAllocs, ...e.after.nodeAllocs, ...(e.after.alloc ? [e.after.alloc] : [])]) {
    for (const t of Object.values(a.tasks)) for (const ev of t.events) add(a.id, ev);
  }
  return out;
}

/** Per judged alloc (and its replacement): the first duplicate-IP task event, or how many events were clean. */
function perAllocOf(
  e: RebootEvidence,
  hitsByAlloc: Map<string, TaskEventRec[]>,
  events: { allocId: string }[],
): AllocDetail[] {
  return watchedIds(e).map((allocId) => {
    const name = allocAfter(e, allocId)?.name ?? allocBefore(e, allocId)?.name ?? '';
    const ids = [allocId, findReplacement(e, allocId)?.replacementId].filter((x): x is string => !!x);
    const hit = ids.flatMap((x) => hitsByAlloc.get(x) ?? [])[0];
    const seen = events.filter((x) => ids.includes(x.allocId)).length;
    if (!hit) return { allocId, name, status: 'passed', detail: `no duplicate-IP error in ${seen} task events` };
    const dup = findDuplicateIpError(eventText(hit));
    const what = dup ? `${dup.ip} was already allocated to ${dup.allocId}` : 'duplicate allocation is not allowed';
    return { allocId, name, status: 'failed', detail: `${hit.type}: ${what} (${eventLine(hit)})` };
  });
}

/**
 * Every alloc that was not restored failed on the duplicate-IP error (and there is at least one). An alloc that failed
 * so and that Nomad then rescheduled (a job with a reschedule policy: the old alloc `failed`, its successor running)
 * was lost to the same error: the replacement is Nomad's answer to the failure, not another cause.
 */
function lostOnlyToDuplicates(e: RebootEvidence): boolean {
  const notRestored = classifyAll(e).filter((o) => o.outcome !== 'restored');
  const byDup = (o: (typeof notRestored)[number]) => {
    if (!o.failingEvent || !mentionsDuplicateAllocation(o.failingEvent.message)) return false;
    return o.outcome === 'failed' || (o.outcome === 'replaced' && allocAfter(e, o.allocId)?.clientStatus === 'failed');
  };
  return notRestored.length > 0 && notRestored.every(byDup);
}

/**
 * What is left over belongs to the allocs that failed. Note: real 1.9.3 still holds the failed allocs' own stale
 * reservations or namespaces when the run looks (teardown timing varies); surplus veths on the bridge are theirs too
 * when there are no more of them than failed allocs.
 */
function leftoversOnlyOfFailed(e: RebootEvidence): boolean {
  const failedIds = new Set(
    classifyAll(e)
      .filter((o) => o.outcome !== 'restored')
      .map((o) => o.allocId),
  );
  return (findLeaks(e)?.leaks ?? []).every(
    (l) =>
      (l.owner !== undefined && failedIds.has(l.owner)) ||
      (l.kind === 'veths' && (l.surplus ?? Infinity) <= failedIds.size),
  );
}
