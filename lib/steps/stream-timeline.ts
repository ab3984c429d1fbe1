// Pure: the transitions the event stream recorded, as points on the run's HTML timeline (lanes node and alloc).
import type { Transition } from '../checks/transitions.js';
import type { TimelineEvent } from '../model/run.js';

const BAD_ALLOC = /^(failed|lost)\//;

/**
 * One timeline point per node and alloc transition. Task events are left out: the task-event history already puts
 * each on the alloc lane (lib/steps/timeline.ts), and job transitions are the steps' business.
 */
export function timelineFromTransitions(ts: readonly Transition[]): TimelineEvent[] {
  const out: TimelineEvent[] = [];
  for (const t of ts) {
    if (t.kind === 'node') {
      const severity = t.to === 'ready' ? 'ok' : t.to === 'down' || t.to === 'disconnected' ? 'fail' : 'warn';
      out.push({ atMs: t.atMs, lane: 'node', label: `stream: node ${t.to}`, detail: t.detail, severity });
    } else if (t.kind === 'alloc') {
      const severity = BAD_ALLOC.test(t.to) ? 'fail' : t.to.startsWith('running/') ? 'ok' : 'info';
      const label = `stream: alloc ${t.id.slice(0, 8)} ${t.to}`;
      out.push({ atMs: t.atMs, lane: 'alloc', label, detail: t.detail, severity });
    }
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}
