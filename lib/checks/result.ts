// Small pure helpers shared by the checks: judgement constructors and evidence formatting.
import type { AllocSnap, TaskEventRec } from '../model/evidence.js';
import type { AllocDetail, CheckResult, CheckStatus, Judgement } from '../model/check.js';

/** A judge's answer (judgeCheck adds the check's id and title and puts the message on one line). */
export function judgement(
  status: CheckStatus,
  message: string,
  evidence: string[],
  perAlloc?: AllocDetail[],
): Judgement {
  return perAlloc ? { status, message, evidence, perAlloc } : { status, message, evidence };
}

/** A result judged again (for a fault kind, say): a new status and message, the evidence kept and added to. */
export function withStatus(r: CheckResult, status: CheckStatus, message: string, extra: string[] = []): CheckResult {
  return { ...r, status, message: oneLine(message), evidence: [...r.evidence, ...extra] };
}

/** Collapse whitespace (newlines included) so a message fits on one line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Show a possibly missing value the same way everywhere in evidence lines. */
export function show(v: string | number | undefined | null): string {
  return v === undefined || v === null || v === '' ? '(none)' : String(v);
}

/** Render Unix ms as ISO 8601 for evidence lines; "(unknown)" for non-finite input. */
export function iso(ms: number | undefined): string {
  return ms !== undefined && Number.isFinite(ms) ? new Date(ms).toISOString() : '(unknown)';
}

/** One evidence line per task event: when, type, message. */
export function eventLine(ev: TaskEventRec): string {
  return `${iso(ev.timeMs)} ${ev.type}: ${oneLine(ev.message)}${ev.failsTask ? ' (fails task)' : ''}`;
}

/** One evidence line summarising an alloc: id, status, node, address, links. */
export function allocLine(a: AllocSnap): string {
  const links = [
    a.previousAllocation ? `previous ${a.previousAllocation}` : '',
    a.nextAllocation ? `next ${a.nextAllocation}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `${a.id} ${a.name} client=${a.clientStatus} desired=${a.desiredStatus} node=${a.nodeId} address=${show(a.address)}${links ? ` (${links})` : ''}`;
}

/** The task events of one alloc, merging the run-long record with the alloc's own list, oldest first, without duplicates. */
export function eventsOf(allocEvents: TaskEventRec[] | undefined, fromSnap: TaskEventRec[] = []): TaskEventRec[] {
  const seen = new Set<string>();
  const out: TaskEventRec[] = [];
  for (const ev of [...(allocEvents ?? []), ...fromSnap]) {
    const key = `${ev.timeMs}\u0000${ev.type}\u0000${ev.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(ev);
  }
  return out.sort((a, b) => a.timeMs - b.timeMs);
}

/** Parse an RFC 3339 timestamp to Unix ms; undefined for missing, unparsable or Go's zero time. */
export function parseTime(text: string | undefined): number | undefined {
  if (!text || text.startsWith('0001-01-01')) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A whole result as the judgement a check object returns (its id and title are the runner's to add). */
export function judgementOf(r: CheckResult): Judgement {
  return judgement(r.status, r.message, r.evidence, r.perAlloc);
}

/** A check that was not judged, with why: the one way every caller (a judge, the runner, a skipped cell) says so. */
export function skippedResult(
  check: { id: string; title: string },
  reason: string,
  evidence: string[] = [],
): CheckResult {
  return { id: check.id, title: check.title, status: 'skipped', message: oneLine(reason), evidence };
}

/** A whole result, for judges built from per-task parts (the whole-alloc checks). */
export function result(
  id: string,
  title: string,
  status: CheckStatus,
  message: string,
  evidence: string[],
): CheckResult {
  return { id, title, status, message: oneLine(message), evidence };
}
