// Run matrix cells up to `parallel` at a time within a memory budget, each in a numbered slot, retrying once when asked.
// No I/O of its own: the work is injected, so the scheduling is tested with plain promises.

interface PoolOptions<C, R> {
  /** most cells at once */
  parallel: number;
  /** MiB the running cells may cost together; undefined = no limit beyond `parallel` */
  budgetMb: number | undefined;
  costMb: (item: C) => number;
  /** run one attempt in slot 1..parallel (slots are reused only after the previous cell in them finished, teardown included) */
  run: (item: C, slot: number, attempt: number) => Promise<R>;
  /** true when this attempt's result deserves a second attempt (an infrastructure error); asked once per item */
  retry: (r: R) => boolean;
  /** once aborted, no new cell or attempt starts */
  signal: AbortSignal;
  /**
   * Cells with equal affinity can reuse what the previous one left in its slot (a warm lab: its subnets are the
   * slot's). A freed slot takes the first waiting cell of the affinity it last ran, else the first waiting cell.
   */
  affinity?: (item: C) => string;
}

export interface PoolResult<C, R> {
  item: C;
  /** every attempt's result, first first; empty when the cell never started (aborted) */
  attempts: R[];
}

/**
 * Run every item (in order of the list as slots and budget allow, a freed slot preferring the next item of its
 * affinity) and return results in the list's order.
 */
export async function runPool<C, R>(items: readonly C[], o: PoolOptions<C, R>): Promise<PoolResult<C, R>[]> {
  const results: PoolResult<C, R>[] = items.map((item) => ({ item, attempts: [] }));
  const freeSlots = Array.from({ length: Math.max(1, o.parallel) }, (_, k) => k + 1);
  const running = new Set<Promise<void>>();
  const waiting = results.map((_, k) => k);
  const lastAffinity = new Map<number, string>();
  let usedMb = 0;
  const fits = (cost: number): boolean => o.budgetMb === undefined || running.size === 0 || usedMb + cost <= o.budgetMb;
  const affinityOf = (idx: number): string | undefined => o.affinity?.(results[idx]!.item);

  /** The next (item, slot) to start: a free slot's own affinity first, then the first waiting item that fits. */
  const pick = (): { idx: number; slot: number } | undefined => {
    for (const slot of freeSlots) {
      const want = lastAffinity.get(slot);
      const idx = want === undefined ? undefined : waiting.find((k) => affinityOf(k) === want);
      if (idx !== undefined && fits(o.costMb(results[idx]!.item))) return { idx, slot };
    }
    // Note: no free slot last ran the first waiting item's affinity (the loop above would have taken it), so any
    // free slot will do: the lowest, as without affinity.
    const idx = waiting[0];
    if (idx === undefined || freeSlots.length === 0 || !fits(o.costMb(results[idx]!.item))) return undefined;
    return { idx, slot: freeSlots[0]! };
  };

  const start = ({ idx, slot }: { idx: number; slot: number }): void => {
    const r = results[idx]!;
    const cost = o.costMb(r.item);
    waiting.splice(waiting.indexOf(idx), 1);
    freeSlots.splice(freeSlots.indexOf(slot), 1);
    const affinity = affinityOf(idx);
    if (affinity !== undefined) lastAffinity.set(slot, affinity);
    usedMb += cost;
    const p = (async () => {
      try {
        for (let attempt = 1; attempt <= 2; attempt++) {
          const res = await o.run(r.item, slot, attempt);
          r.attempts.push(res);
          if (attempt === 2 || o.signal.aborted || !o.retry(res)) break;
        }
      } finally {
        usedMb -= cost;
        freeSlots.push(slot);
        freeSlots.sort((a, b) => a - b);
      }
    })();
    const tracked = p.finally(() => running.delete(tracked));
    running.add(tracked);
  };

  while (waiting.length > 0 || running.size > 0) {
    for (let p = pick(); p && !o.signal.aborted; p = pick()) start(p);
    if (o.signal.aborted) waiting.length = 0;
    if (running.size === 0) break;
    await Promise.race(running);
  }
  return results;
}
