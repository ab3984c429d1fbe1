// Classifies what became of each alloc across the reboot: restored, replaced (and why), failed or unknown. Pure.
import { eventLine, eventsOf, oneLine } from './result.js';
import type { AllocSnap, RebootEvidence, TaskEventRec } from '../model/evidence.js';
import { faultKind } from '../faults/registry.js';
import { latestOf, replacementOf } from '../model/replacement.js';
import { disconnectHint, judgeDisconnected, lostUnderPolicy } from './disconnect-outcome.js';

type AllocOutcome = 'restored' | 'replaced' | 'failed' | 'unknown';

interface AllocOutcomeResult {
  /** the alloc that was healthy before the reboot */
  allocId: string;
  /** its name, e.g. web.web[0] ("" when never observed) */
  name: string;
  outcome: AllocOutcome;
  /** one line a reader can act on */
  reason: string;
  /** the replacement alloc's ID when outcome is `replaced` */
  replacementId?: string;
  /** the replacement alloc, when it was among the job's allocs */
  replacement?: AllocSnap;
  /** how the replacement was found: Nomad's links, or job + group + name created after the reboot */
  matchedBy?: 'PreviousAllocation' | 'NextAllocation' | 'name';
  /** the last event that failed the task, when one was seen */
  failingEvent?: TaskEventRec;
  /** the alloc that holds this slot now: the restored alloc itself or its replacement */
  current?: AllocSnap;
  /** it went `unknown` during the fault (its node disconnected; lib/checks/disconnect-outcome.ts) */
  disconnected?: true;
  /** not restored, but what the group's disconnect policy asks for (lost past lost_after, or the reconcile's pick) */
  expectedByPolicy?: boolean;
}

/** DesiredDescription the scheduler writes on allocs of a node marked down (nomad/structs/plan.go). */
export const LOST_NODE_DOWN = 'alloc is lost since its node is down';
/** The node event the leader writes when a node's heartbeat TTL ran out (nomad/heartbeat.go). */
const HEARTBEAT_MISSED = 'Node heartbeat missed';

/** Task event types that mean the task (or alloc setup) failed, besides events flagged FailsTask. */
const FAILURE_TYPES = new Set([
  'Setup Failure',
  'Driver Failure',
  'Failed Validation',
  'Not Restarting',
  'Task hook failed',
  'Failed Artifact Download',
]);
/** Events that only follow a failure (restart policy giving up), so the cause is quoted instead when present. */
const CONSEQUENCE_TYPES = new Set(['Not Restarting', 'Killing', 'Killed', 'Sibling Task Failed']);

/** The IDs of every alloc judged: those healthy before the reboot (older records: the one watched alloc). */
export function watchedIds(e: RebootEvidence): string[] {
  return e.allocIds?.length ? e.allocIds : [e.allocId];
}

/** One alloc as seen after the reboot (the job's allocs first, then the single watched snapshot). */
export function allocAfter(e: RebootEvidence, id: string): AllocSnap | undefined {
  return e.after.alloc?.id === id ? e.after.alloc : e.after.jobAllocs.find((a) => a.id === id);
}

/** One alloc as seen before the reboot. */
export function allocBefore(e: RebootEvidence, id: string): AllocSnap | undefined {
  return e.before.alloc?.id === id ? e.before.alloc : e.before.jobAllocs.find((a) => a.id === id);
}

/** The watched alloc as seen after the reboot (older single-alloc callers). */
export function watchedAllocAfter(e: RebootEvidence): AllocSnap | undefined {
  return allocAfter(e, e.allocId) ?? e.after.alloc;
}

/** Every task event of one alloc (run-long record plus the snapshot's task states), oldest first. */
export function allocEvents(e: RebootEvidence, alloc: AllocSnap | undefined, allocId = e.allocId): TaskEventRec[] {
  const tasks = alloc ? Object.entries(alloc.tasks) : [];
  const fromSnap = tasks.flatMap(([task, t]) => t.events.map((ev) => ({ ...ev, task })));
  return eventsOf(e.taskEvents[allocId], fromSnap);
}

/** The newest event that failed a task, preferring the cause (`Setup Failure`) over its consequence (`Not Restarting`). */
function lastFailingEvent(events: TaskEventRec[]): TaskEventRec | undefined {
  const failing = [...events].reverse().filter((ev) => ev.failsTask || FAILURE_TYPES.has(ev.type));
  return failing.find((ev) => !CONSEQUENCE_TYPES.has(ev.type)) ?? failing[0];
}

/** Was `a` created after the disruption (index read just before it; wall clock when the index is unknown)? */
function createdAfter(e: RebootEvidence, a: AllocSnap): boolean {
  return e.disruptionIndex !== undefined ? a.createIndex > e.disruptionIndex : a.createTimeMs >= e.reboot.requestedAt;
}

/** What findReplacement tells: the replacement and how it was found. */
type Replacement = Pick<AllocOutcomeResult, 'replacementId' | 'replacement' | 'matchedBy'>;

/** The alloc that replaced `id` (lib/model/replacement.ts); a linked one followed to the newest of its chain. */
export function findReplacement(e: RebootEvidence, id: string): Replacement | undefined {
  const allocs = e.after.jobAllocs;
  const old = allocAfter(e, id) ?? allocBefore(e, id);
  const found = replacementOf(allocs, old, id, {
    watched: new Set(watchedIds(e)),
    createdAfter: (a) => createdAfter(e, a),
  });
  if (!found) return undefined;
  const linked = found.matchedBy !== 'name' && found.alloc ? latestOf(allocs, found.alloc) : found.alloc;
  return { replacementId: found.id, ...(linked ? { replacement: linked } : {}), matchedBy: found.matchedBy };
}

/** Were all of the alloc's tasks started again after `sinceMs` (a Started event, or StartedAt moved past it)? */
function tasksStartedAfter(a: AllocSnap, events: TaskEventRec[], sinceMs: number): boolean {
  const tasks = Object.entries(a.tasks);
  return (
    tasks.length > 0 &&
    tasks.every(([name, t]) => {
      const started = t.startedAt !== undefined && Date.parse(t.startedAt) >= sinceMs;
      const own = (ev: TaskEventRec): boolean => ev.task === undefined || ev.task === name;
      return started || events.some((ev) => ev.type === 'Started' && ev.timeMs >= sinceMs && own(ev));
    })
  );
}

/** Why the node went down, from its events and the run's heartbeat_grace; "" when it was not marked down. */
function nodeDownExplanation(e: RebootEvidence, old: AllocSnap | undefined): string {
  const sinceReboot = (ts: string): boolean => Date.parse(ts) >= e.reboot.requestedAt - 1000;
  const missed = (e.after.node?.events ?? []).filter(
    (ev) => ev.message === HEARTBEAT_MISSED && sinceReboot(ev.timestamp),
  );
  const lostDesc = (old?.desiredDescription ?? '').includes(LOST_NODE_DOWN);
  // Note: the alloc itself must say it was lost; node events only support that (a failed alloc may be rescheduled).
  if (!lostDesc && old?.clientStatus !== 'lost') return '';
  const took = ((e.reboot.backAt - e.reboot.requestedAt) / 1000).toFixed(0);
  const grace = e.heartbeatGrace ? `heartbeat_grace (${e.heartbeatGrace})` : 'heartbeat_grace';
  const event = missed.length
    ? `node event "${HEARTBEAT_MISSED}" at ${missed[0]!.timestamp}`
    : 'the alloc was marked lost';
  const desc = old?.desiredDescription ? `; the alloc: "${oneLine(old.desiredDescription)}"` : '';
  const cause = `(${event}${desc}): the server's ${grace} is shorter than`;
  const replaced = 'so the scheduler replaced the lost alloc';
  const kind = e.reboot.kind;
  const hint = disconnectHint(e, old);
  if (kind === 'partition') {
    // for a partition, backAt is when it was healed
    return (
      `the node was marked down during the partition ${cause} the partition (${took} s), ${replaced} ` +
      '(what a partition past heartbeat_grace makes Nomad do; for a restore instead: a shorter --partition-for, ' +
      `a longer --heartbeat-grace, or ${hint})`
    );
  }
  if (!faultKind(kind).rebootsHost) {
    return (
      `the node was marked down during the ${kind} ${cause} the ${kind} (${took} s until it was over), ${replaced} ` +
      `(fix: a heartbeat_grace longer than the ${kind}, e.g. --heartbeat-grace 5m, or ${hint})`
    );
  }
  return (
    `the node was marked down while it rebooted ${cause} the reboot ` +
    `(${took} s until SSH was back), ${replaced} (fix: a heartbeat_grace longer than a reboot, ` +
    `e.g. --heartbeat-grace 5m, or ${hint})`
  );
}

/** "reboot" for a kind that reboots the host, else the kind ("partition", "agent-kill"). */
const faultWord = (e: RebootEvidence): string => (faultKind(e.reboot.kind).rebootsHost ? 'reboot' : e.reboot.kind);

/** " (its DesiredDescription)" or "". */
const desiredOf = (a: AllocSnap | undefined): string =>
  a?.desiredDescription ? ` (${oneLine(a.desiredDescription)})` : '';

/** Decide restored / replaced / failed / unknown for one alloc (never from a version number), with the reason. */
export function classifyAllocOutcome(e: RebootEvidence, allocId = e.allocId): AllocOutcomeResult {
  const old = allocAfter(e, allocId);
  const name = old?.name ?? allocBefore(e, allocId)?.name ?? '';
  const base = { allocId, name };
  const events = allocEvents(e, old, allocId);
  const failing = lastFailingEvent(events);
  const quote = failing ? `; last failing event: ${eventLine(failing)}` : '';
  const fail = failing ? { failingEvent: failing } : {};
  const unsettled =
    e.settle && !e.settle.settled ? `; the job had not settled when the wait ran out (last: ${e.settle.reason})` : '';
  const repl = findReplacement(e, allocId);
  const beforeNode = allocBefore(e, allocId)?.nodeId ?? e.before.node?.id;
  const disc = old ? judgeDisconnected(e, old, repl, beforeNode) : undefined;
  if (disc) return withDisconnect(base, old, repl, disc);
  if (repl) {
    const policy = lostUnderPolicy(e, old);
    // the group's own policy, when it asked for this, says why on its own; else it follows the node-down rule
    const down = policy?.expected
      ? policy.note
      : [nodeDownExplanation(e, old), policy?.note].filter(Boolean).join('; ');
    const rescheduled = (old?.desiredDescription ?? '').includes('rescheduled');
    const why =
      down ||
      (rescheduled
        ? `it was rescheduled after it ended ${old?.clientStatus ?? '?'} ("${oneLine(old?.desiredDescription ?? '')}")${quote}`
        : `the old alloc ended ${old?.clientStatus ?? 'in an unknown state'}${desiredOf(old)}${quote}`);
    const how =
      repl.matchedBy === 'name'
        ? `, matched by job, group and name ${name} created after the ${faultWord(e)} ` +
          '(Nomad left PreviousAllocation and NextAllocation empty)'
        : '';
    const state = repl.replacement ? ` (${repl.replacement.clientStatus})` : '';
    return {
      ...base,
      outcome: 'replaced',
      ...repl,
      ...fail,
      ...(repl.replacement ? { current: repl.replacement } : {}),
      ...(policy ? { expectedByPolicy: policy.expected } : {}),
      reason: `alloc ${allocId} (${name || '?'}) was replaced by ${repl.replacementId}${state}${how}: ${why}`,
    };
  }
  if (!old) {
    return {
      ...base,
      outcome: 'unknown',
      reason: `alloc ${allocId} was not found after the reboot and no replacement was seen${unsettled}`,
    };
  }
  const deadFailed = Object.entries(old.tasks).find(([, t]) => t.state === 'dead' && t.failed);
  if (old.clientStatus === 'failed' || deadFailed) {
    const what =
      old.clientStatus === 'failed'
        ? `alloc ${allocId} (${name}) is failed`
        : `task ${deadFailed?.[0]} of alloc ${allocId} (${name}) is dead and failed`;
    return {
      ...base,
      outcome: 'failed',
      current: old,
      reason: `${what}${quote || '; no failing task event was seen'}`,
      ...fail,
    };
  }
  const sameNode = !beforeNode || old.nodeId === beforeNode;
  const restarted = tasksStartedAfter(old, events, e.reboot.requestedAt);
  if (old.clientStatus === 'running' && old.desiredStatus === 'run' && sameNode && restarted) {
    const reason = `alloc ${old.id} (${name}) is running again on node ${old.nodeId} with its tasks started after the reboot, not replaced`;
    return { ...base, outcome: 'restored', current: old, reason };
  }
  // A fault that leaves the tasks running (agent-kill, a partition shorter than heartbeat_grace): the same alloc running
  // on with its tasks running, after the settle rule saw the job quiet, is the restore (task-restarted judges the tasks).
  const keptRunning =
    Object.values(old.tasks).length > 0 && Object.values(old.tasks).every((t) => t.state === 'running');
  const tasksRestart = e.tasksRestart ?? !['agent-kill', 'partition'].includes(e.reboot.kind);
  if (!tasksRestart && old.clientStatus === 'running' && old.desiredStatus === 'run' && sameNode && keptRunning) {
    return {
      ...base,
      outcome: 'restored',
      current: old,
      reason: `alloc ${old.id} (${name}) kept running on node ${old.nodeId} through ${e.reboot.kind} (no restart expected), not replaced`,
    };
  }
  const where = !sameNode ? ` on node ${old.nodeId} (was ${beforeNode})` : '';
  const desc = old.desiredDescription || old.clientDescription;
  const state = `alloc ${old.id} (${name}) is ${old.clientStatus} (desired ${old.desiredStatus})${where}${desc ? `: ${oneLine(desc)}` : ''}`;
  const stale =
    old.clientStatus === 'running' && !restarted
      ? ', its tasks not started since the reboot (a view from before it)'
      : '';
  // Note: only a job known to have settled makes a not-running alloc a failure; otherwise it may still be changing.
  if (!e.settle?.settled) {
    return {
      ...base,
      outcome: 'unknown',
      current: old,
      reason: `${state}${stale}; neither restored nor replaced yet${unsettled}`,
    };
  }
  // The job settled and this alloc neither runs again nor was replaced (e.g. lost, and nothing could place a replacement).
  const down = nodeDownExplanation(e, old);
  const reason = `${state}${stale}; not running and not replaced after the job settled${down ? `; ${down}` : ''}${quote}`;
  return { ...base, outcome: 'failed', current: old, reason, ...fail };
}

/** A disconnected alloc's outcome as disconnect-outcome.ts judged it, with the alloc that holds its slot now. */
function withDisconnect(
  base: { allocId: string; name: string },
  old: AllocSnap | undefined,
  repl: Replacement | undefined,
  d: ReturnType<typeof judgeDisconnected> & object,
): AllocOutcomeResult {
  const current = d.outcome === 'replaced' ? repl?.replacement : old;
  return {
    ...base,
    ...(d.outcome === 'replaced' ? repl : {}),
    outcome: d.outcome,
    reason: d.reason,
    disconnected: true,
    ...(d.expectedByPolicy !== undefined ? { expectedByPolicy: d.expectedByPolicy } : {}),
    ...(current ? { current } : {}),
  };
}

/** The outcome of every judged alloc, in the order they were watched. */
export function classifyAll(e: RebootEvidence): AllocOutcomeResult[] {
  return watchedIds(e).map((id) => classifyAllocOutcome(e, id));
}

/** "web.web[0] 1a2b3c4d" for detail lines. */
export function allocLabel(r: { allocId: string; name: string }): string {
  return `${r.name || '(unnamed)'} ${r.allocId.slice(0, 8)}`;
}
