// Pure: the reboot evidence as timeline events (host down/up, node status, alloc and task events) for the HTML report.
import type { RebootEvidence } from '../model/evidence.js';
import type { TimelineEvent } from '../model/run.js';
import { faultKind } from '../faults/registry.js';

const FAILING = /Failure|Failed|Not Restarting|Killed|Terminated|Sibling Task Failed/;

/** Timeline events from what the reboot scenario observed, in time order; events before `sinceMs` are dropped. */
export function timelineFromEvidence(e: RebootEvidence, sinceMs: number): TimelineEvent[] {
  // agent-kill and partition do not reboot the host; an unchanged boot_id is what they expect
  const reboots = faultKind(e.reboot.kind).rebootsHost;
  const changed = e.reboot.bootIdAfter !== e.reboot.bootIdBefore;
  const out: TimelineEvent[] = [
    {
      atMs: e.reboot.requestedAt,
      lane: 'host',
      label: reboots ? `${e.reboot.kind} reboot requested` : `${e.reboot.kind} started (no reboot)`,
      detail: `boot_id ${e.reboot.bootIdBefore}`,
      severity: 'warn',
    },
    reboots
      ? {
          atMs: e.reboot.backAt,
          lane: 'host',
          label: 'SSH back with a new boot_id',
          detail: `boot_id ${e.reboot.bootIdAfter}`,
          severity: changed ? 'ok' : 'fail',
        }
      : {
          atMs: e.reboot.backAt,
          lane: 'host',
          label: `${e.reboot.kind} over, boot_id ${changed ? 'CHANGED' : 'unchanged'}`,
          detail: `boot_id ${e.reboot.bootIdAfter}`,
          severity: changed ? 'fail' : 'ok',
        },
  ];
  for (const ev of e.after.node?.events ?? []) {
    const at = Date.parse(ev.timestamp);
    if (Number.isFinite(at))
      out.push({
        atMs: at,
        lane: 'node',
        label: ev.message,
        severity: /missed|down/i.test(ev.message) ? 'warn' : 'info',
      });
  }
  if (e.after.node)
    out.push({
      atMs: e.after.node.statusUpdatedAt * 1000,
      lane: 'node',
      label: `node status ${e.after.node.status}`,
      detail: `node ${e.after.node.id}`,
      severity: e.after.node.status === 'ready' ? 'ok' : 'fail',
    });
  for (const [allocId, events] of Object.entries(e.taskEvents)) {
    for (const ev of events) {
      out.push({
        atMs: ev.timeMs,
        lane: 'alloc',
        label: `${ev.type}`,
        detail: `alloc ${allocId.slice(0, 8)}: ${ev.message}`,
        severity: FAILING.test(ev.type) || ev.failsTask ? 'fail' : ev.type === 'Started' ? 'ok' : 'info',
      });
    }
  }
  return out.filter((x) => x.atMs >= sinceMs).sort((a, b) => a.atMs - b.atMs);
}
