// Pure: has the watched alloc settled after the reboot, and how to describe an alloc in one line.
import type { AllocSnap } from '../checks/types.js';

const TERMINAL = new Set(['failed', 'lost', 'complete']);

/**
 * Decide whether the alloc reached an end state after the reboot at `rebootAtMs` (restored, replaced, failed).
 * `tasksRestart: false` (issue 15: agent-kill, a short partition): restored means running with its tasks running on.
 * `awaitReplacement` (issue 15: a partition longer than heartbeat_grace): a lost alloc settles once its replacement runs.
 */
export function settledState(allocs: AllocSnap[], allocId: string, rebootAtMs: number, { tasksRestart = true, awaitReplacement = false } = {}): { settled: boolean; description: string } {
  const watched = allocs.find((a) => a.id === allocId);
  // issue 15: real 1.9.3 places a lost alloc's replacement unlinked (same name, newer): found by name then
  const lost = (watched?.desiredDescription ?? '').includes('alloc is lost since its node is down');
  const linked = (a: AllocSnap) => a.id !== allocId && (a.previousAllocation === allocId || watched?.nextAllocation === a.id);
  const newer = (a: AllocSnap) => a.id !== allocId && a.name === watched!.name && a.createIndex > watched!.createIndex;
  const replacement = allocs.find(linked) ?? (lost ? allocs.find(newer) : undefined);
  if (replacement && (replacement.clientStatus === 'running' || TERMINAL.has(replacement.clientStatus))) {
    return { settled: true, description: `replaced by ${replacement.id.slice(0, 8)} (${replacement.clientStatus})` };
  }
  if (!watched) return { settled: true, description: 'the alloc is gone from the job' };
  if (awaitReplacement && (watched.clientStatus === 'lost' || lost)) {
    return { settled: false, description: `${describeAlloc(watched)}; waiting for its replacement to run` };
  }
  if (TERMINAL.has(watched.clientStatus)) return { settled: true, description: `${watched.clientStatus}: ${lastEventLine(watched)}` };
  const tasks = Object.values(watched.tasks);
  if (!tasksRestart && watched.clientStatus === 'running' && tasks.length > 0 && tasks.every((t) => t.state === 'running')) {
    return { settled: true, description: 'restored: running, its tasks kept running (no restart expected)' };
  }
  const restarted = tasks.length > 0 && tasks.every((t) => t.state === 'running' && (
    (t.startedAt !== undefined && Date.parse(t.startedAt) >= rebootAtMs) || t.events.some((e) => e.type === 'Started' && e.timeMs >= rebootAtMs)));
  if (watched.clientStatus === 'running' && restarted) return { settled: true, description: 'restored: running with tasks started after the reboot' };
  return { settled: false, description: describeAlloc(watched) };
}

/** One line about an alloc: status, task states and its last event. */
export function describeAlloc(a: AllocSnap | undefined): string {
  if (!a) return 'alloc not found';
  const tasks = Object.entries(a.tasks).map(([n, t]) => `${n}=${t.state}`).join(',');
  return `alloc ${a.id.slice(0, 8)} client_status=${a.clientStatus} desired=${a.desiredStatus} tasks[${tasks}] last event: ${lastEventLine(a)}`;
}

function lastEventLine(a: AllocSnap): string {
  const events = Object.values(a.tasks).flatMap((t) => t.events).sort((x, y) => x.timeMs - y.timeMs);
  const e = events[events.length - 1];
  return e ? `"${e.type}: ${e.message}"` : 'none';
}
