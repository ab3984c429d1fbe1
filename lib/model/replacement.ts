// The one rule for "what replaced this alloc", shared by the checks (judged afterwards) and the settle wait (asked
// while it waits). Pure.
import type { AllocSnap } from './evidence.js';

/** How a replacement was found: Nomad's links, or job + group + name created after the disruption. */
type ReplacementMatch = 'PreviousAllocation' | 'NextAllocation' | 'name';

/** Longest replacement chain followed (a replacement may itself have been replaced). */
const MAX_CHAIN = 20;

/**
 * The alloc that replaced `id` directly: the one whose PreviousAllocation is `id`, else `old`'s NextAllocation (its id
 * even when that alloc is not among `allocs`), else (real 1.9.7 after a node-down left both empty) the newest alloc of
 * the same job, group and name (web[0]) that `createdAfter` the disruption and is no other watched alloc.
 */
export function replacementOf(
  allocs: readonly AllocSnap[],
  old: AllocSnap | undefined,
  id: string,
  o: { watched: ReadonlySet<string>; createdAfter: (a: AllocSnap) => boolean },
): { id: string; alloc?: AllocSnap; matchedBy: ReplacementMatch } | undefined {
  const byPrevious = allocs.find((a) => a.id !== id && a.previousAllocation === id);
  if (byPrevious) return { id: byPrevious.id, alloc: byPrevious, matchedBy: 'PreviousAllocation' };
  const next = old?.nextAllocation;
  if (next) {
    const alloc = allocs.find((a) => a.id === next);
    return { id: next, ...(alloc ? { alloc } : {}), matchedBy: 'NextAllocation' };
  }
  if (!old) return undefined;
  const sameSlot = allocs
    .filter((a) => !o.watched.has(a.id) && o.createdAfter(a))
    .filter((a) => a.jobId === old.jobId && a.taskGroup === old.taskGroup && a.name === old.name)
    .sort((a, b) => b.createIndex - a.createIndex);
  const found = sameSlot[0];
  return found ? { id: found.id, alloc: found, matchedBy: 'name' } : undefined;
}

/** The alloc Nomad's links say replaced `a` directly (its PreviousAllocation is `a`, or it is `a`'s NextAllocation). */
export function linkedSuccessor(allocs: readonly AllocSnap[], a: AllocSnap): AllocSnap | undefined {
  return allocs.find((x) => x.id !== a.id && (x.previousAllocation === a.id || x.id === a.nextAllocation));
}

/** Follow NextAllocation / PreviousAllocation links from `a` to the newest alloc of its chain. */
export function latestOf(allocs: readonly AllocSnap[], a: AllocSnap): AllocSnap {
  let cur = a;
  for (let i = 0; i < MAX_CHAIN; i++) {
    const next = linkedSuccessor(allocs, cur);
    if (!next) break;
    cur = next;
  }
  return cur;
}
