// Classifies what became of the watched alloc across the reboot: restored, replaced, failed or unknown.
import { eventLine, eventsOf, oneLine } from './result.js';
import type { AllocSnap, RebootEvidence, TaskEventRec } from './types.js';

export type AllocOutcome = 'restored' | 'replaced' | 'failed' | 'unknown';

export interface AllocOutcomeResult {
  outcome: AllocOutcome;
  /** one line a reader can act on */
  reason: string;
  /** the replacement alloc's ID when outcome is `replaced` */
  replacementId?: string;
  /** the replacement alloc, when it was among the job's allocs */
  replacement?: AllocSnap;
  /** the last event that failed the task, when one was seen */
  failingEvent?: TaskEventRec;
}

/** DesiredDescription the scheduler writes on allocs of a node marked down (nomad/structs/plan.go). */
export const LOST_NODE_DOWN = 'alloc is lost since its node is down';

/** Task event types that mean the task (or alloc setup) failed, besides events flagged FailsTask. */
const FAILURE_TYPES = new Set(['Setup Failure', 'Driver Failure', 'Failed Validation', 'Not Restarting', 'Task hook failed', 'Failed Artifact Download']);

/** The watched alloc as seen after the reboot (direct lookup first, then the job's alloc list). */
export function watchedAllocAfter(e: RebootEvidence): AllocSnap | undefined {
  return e.after.alloc?.id === e.allocId ? e.after.alloc : e.after.jobAllocs.find((a) => a.id === e.allocId) ?? e.after.alloc;
}

/** Every task event of one alloc (run-long record plus the snapshot's task states), oldest first. */
export function allocEvents(e: RebootEvidence, alloc: AllocSnap | undefined, allocId = e.allocId): TaskEventRec[] {
  const fromSnap = alloc ? Object.values(alloc.tasks).flatMap((t) => t.events) : [];
  return eventsOf(e.taskEvents[allocId], fromSnap);
}

/** Events that only follow a failure (restart policy giving up), so the cause is quoted instead when present. */
const CONSEQUENCE_TYPES = new Set(['Not Restarting', 'Killing', 'Killed', 'Sibling Task Failed']);

/** The newest event that failed a task, preferring the cause (e.g. `Setup Failure`) over its consequence (`Not Restarting`). */
export function lastFailingEvent(events: TaskEventRec[]): TaskEventRec | undefined {
  const failing = [...events].reverse().filter((ev) => ev.failsTask || FAILURE_TYPES.has(ev.type));
  return failing.find((ev) => !CONSEQUENCE_TYPES.has(ev.type)) ?? failing[0];
}

function replacementOf(e: RebootEvidence, old: AllocSnap | undefined): { id: string; alloc: AllocSnap | undefined } | undefined {
  const byPrevious = e.after.jobAllocs.find((a) => a.id !== e.allocId && a.previousAllocation === e.allocId);
  if (byPrevious) return { id: byPrevious.id, alloc: byPrevious };
  const next = old?.nextAllocation;
  if (next) return { id: next, alloc: e.after.jobAllocs.find((a) => a.id === next) };
  // issue 15, real 1.9.3 (partition past heartbeat_grace, reschedule attempts = 0): the lost alloc's replacement is a
  // new placement of the same name with no PreviousAllocation/NextAllocation link
  const lost = (old?.desiredDescription ?? '').includes(LOST_NODE_DOWN);
  const newer = (a: AllocSnap) => a.id !== e.allocId && a.name === old!.name && a.createIndex > old!.createIndex;
  const byName = lost ? e.after.jobAllocs.find(newer) : undefined;
  return byName ? { id: byName.id, alloc: byName } : undefined;
}

/** Decide restored / replaced / failed / unknown from what was observed (never from a version number), with the reason. */
export function classifyAllocOutcome(e: RebootEvidence): AllocOutcomeResult {
  const old = watchedAllocAfter(e);
  const events = allocEvents(e, old);
  const failing = lastFailingEvent(events);
  const quote = failing ? `; last failing event: ${eventLine(failing)}` : '';
  const replacement = replacementOf(e, old);
  if (replacement) {
    const nodeLost = old?.clientStatus === 'lost' || (old?.desiredDescription ?? '').includes(LOST_NODE_DOWN);
    const why = nodeLost
      ? `the node was marked down while it rebooted and its alloc was lost (${oneLine(old?.desiredDescription || 'client status lost')}); a server heartbeat_grace shorter than the reboot makes the node go down and the scheduler replaces its allocs`
      : `the old alloc ended ${old?.clientStatus ?? 'in an unknown state'}${old?.desiredDescription ? ` (${oneLine(old.desiredDescription)})` : ''}${quote}`;
    return {
      outcome: 'replaced',
      reason: `alloc ${e.allocId} was replaced by ${replacement.id}: ${why}`,
      replacementId: replacement.id,
      ...(replacement.alloc ? { replacement: replacement.alloc } : {}),
      ...(failing ? { failingEvent: failing } : {}),
    };
  }
  if (!old) return { outcome: 'unknown', reason: `alloc ${e.allocId} was not found after the reboot and no replacement was seen` };
  const deadFailed = Object.entries(old.tasks).find(([, t]) => t.state === 'dead' && t.failed);
  if (old.clientStatus === 'failed' || deadFailed) {
    const what = old.clientStatus === 'failed' ? 'alloc is failed' : `task ${deadFailed?.[0]} is dead and failed`;
    return { outcome: 'failed', reason: `${what}${quote || '; no failing task event was seen'}`, ...(failing ? { failingEvent: failing } : {}) };
  }
  const beforeNode = e.before.alloc?.nodeId ?? e.before.node?.id;
  if (old.clientStatus === 'running' && old.desiredStatus === 'run' && (!beforeNode || old.nodeId === beforeNode)) {
    return { outcome: 'restored', reason: `alloc ${old.id} is running again on node ${old.nodeId} and was not replaced` };
  }
  const where = beforeNode && old.nodeId !== beforeNode ? ` on node ${old.nodeId} (was ${beforeNode})` : '';
  return {
    outcome: 'unknown',
    reason: `alloc ${old.id} is ${old.clientStatus} (desired ${old.desiredStatus})${where}${old.clientDescription ? `: ${oneLine(old.clientDescription)}` : ''}; neither restored nor replaced yet`,
  };
}
