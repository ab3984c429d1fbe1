// Run matrix cells up to `parallel` at a time within a memory budget, each in a numbered slot, retrying once when asked.
// No I/O of its own: the work is injected, so the scheduling is tested with plain promises.

export interface PoolOptions<C, R> {
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
}

export interface PoolResult<C, R> {
  item: C;
  /** every attempt's result, first first; empty when the cell never started (aborted) */
  attempts: R[];
}

/** Run every item (in order of the list as slots and budget allow) and return results in the list's order. */
export async function runPool<C, R>(items: readonly C[], o: PoolOptions<C, R>): Promise<PoolResult<C, R>[]> {
  const results: PoolResult<C, R>[] = items.map((item) => ({ item, attempts: [] }));
  const freeSlots = Array.from({ length: Math.max(1, o.parallel) }, (_, k) => k + 1);
  const running = new Set<Promise<void>>();
  let usedMb = 0;
  let next = 0;
  const fits = (cost: number): boolean => o.budgetMb === undefined || running.size === 0 || usedMb + cost <= o.budgetMb;

  const start = (idx: number): void => {
    const r = results[idx]!;
    const cost = o.costMb(r.item);
    const slot = freeSlots.shift()!;
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

  while (next < results.length || running.size > 0) {
    while (next < results.length && !o.signal.aborted && freeSlots.length > 0 && fits(o.costMb(results[next]!.item))) start(next++);
    if (o.signal.aborted) next = results.length;
    if (running.size === 0) break;
    await Promise.race(running);
  }
  return results;
}
