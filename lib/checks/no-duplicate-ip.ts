// Check: no task event and no client log line reports CNI's "duplicate allocation is not allowed".
import { eventLine, oneLine, result } from './result.js';
import { findDuplicateIpError, mentionsDuplicateAllocation } from './parse-duplicate-ip.js';
import type { RebootEvidence, TaskEventRec } from '../model/evidence.js';
import type { CheckDef, CheckResult } from '../model/check.js';

export const NO_DUPLICATE_IP: CheckDef = {
  id: 'no-duplicate-ip',
  title: 'No duplicate-IP error',
  passesWhen: 'no task event and no client log line contains "duplicate allocation is not allowed"',
};

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

/** Passes when no task event (of any alloc) and no client log line contains the duplicate-allocation error; quotes each hit. */
export function checkNoDuplicateIp(e: RebootEvidence): CheckResult {
  const { id, title } = NO_DUPLICATE_IP;
  const events = allEvents(e);
  const hits: string[] = [];
  let first: { ip: string; allocId: string } | undefined;
  for (const { allocId, ev } of events) {
    const text = eventText(ev);
    if (!mentionsDuplicateAllocation(text)) continue;
    first ??= findDuplicateIpError(text);
    hits.push(`task event of alloc ${allocId}: ${eventLine(ev)}`);
  }
  for (const line of e.clientLog) {
    if (!mentionsDuplicateAllocation(line)) continue;
    first ??= findDuplicateIpError(line);
    hits.push(`client log: ${oneLine(line)}`);
  }
  const scanned = `scanned ${events.length} task events and ${e.clientLog.length} client log lines`;
  if (hits.length === 0) return result(id, title, 'passed', `no "duplicate allocation is not allowed" error (${scanned})`, [scanned]);
  const detail = first ? `: ${first.ip} was already allocated to ${first.allocId}` : '';
  return result(id, title, 'failed', `CNI refused a duplicate IP allocation${detail} (${hits.length} occurrence${hits.length === 1 ? '' : 's'})`, [scanned, ...hits]);
}
