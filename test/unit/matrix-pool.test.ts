// The matrix scheduler with plain promises: parallel limit, memory budget, slots, one retry, abort.
import t from 'tap';
import { runPool } from '../../lib/matrix/pool.js';

interface Job { name: string; cost: number; outcomes: string[] }
const tick = () => new Promise((r) => setTimeout(r, 5));

function harness(jobs: Job[], parallel: number, budgetMb?: number, signal = new AbortController().signal) {
  let running = 0;
  let peak = 0;
  let peakMb = 0;
  let mb = 0;
  const log: string[] = [];
  const slotsInUse = new Set<number>();
  const p = runPool(jobs, {
    parallel, budgetMb, signal, costMb: (j) => j.cost, retry: (r) => r === 'error',
    run: async (j, slot, attempt) => {
      if (slotsInUse.has(slot)) throw new Error(`slot ${slot} used twice at once`);
      slotsInUse.add(slot);
      running++; mb += j.cost;
      peak = Math.max(peak, running); peakMb = Math.max(peakMb, mb);
      log.push(`${j.name}#${attempt}@${slot}`);
      await tick();
      running--; mb -= j.cost;
      slotsInUse.delete(slot);
      return j.outcomes[attempt - 1] ?? 'passed';
    },
  });
  return { p, stats: () => ({ peak, peakMb, log }) };
}

const jobs = (n: number, cost = 100, outcomes: string[] = []): Job[] => Array.from({ length: n }, (_, k) => ({ name: `c${k}`, cost, outcomes }));

t.test('no more than `parallel` at once, results in list order, slots 1..parallel', async (t) => {
  const h = harness(jobs(7), 3);
  const res = await h.p;
  t.same(res.map((r) => r.item.name), ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
  t.equal(h.stats().peak, 3);
  t.ok(h.stats().log.every((l) => /@[123]$/.test(l)), 'slots stay within 1..3');
  t.same(res.map((r) => r.attempts), Array(7).fill(['passed']));
});

t.test('the memory budget caps what runs together, even with free slots', async (t) => {
  const h = harness(jobs(6, 2048), 4, 4096 + 1000);
  await h.p;
  t.equal(h.stats().peak, 2, 'two cells of 2048 MiB fit in 5096');
  t.ok(h.stats().peakMb <= 5096);
  const one = harness(jobs(3, 2048), 1, undefined);
  await one.p;
  t.equal(one.stats().peak, 1, 'parallel 1 runs one at a time');
});

t.test('an infrastructure error is retried once; a failure never; a second error stays', async (t) => {
  const h = harness([
    { name: 'flaky', cost: 1, outcomes: ['error', 'passed'] },
    { name: 'broken', cost: 1, outcomes: ['error', 'error', 'passed'] },
    { name: 'failing', cost: 1, outcomes: ['failed', 'passed'] },
  ], 1);
  const res = await h.p;
  t.same(res.map((r) => r.attempts), [['error', 'passed'], ['error', 'error'], ['failed']]);
});

t.test('after an abort no new cell or retry starts; unstarted cells have no attempts', async (t) => {
  const ctl = new AbortController();
  const h = harness([{ name: 'a', cost: 1, outcomes: ['error', 'passed'] }, ...jobs(3)], 1, undefined, ctl.signal);
  setTimeout(() => ctl.abort(), 1);
  const res = await h.p;
  t.same(res[0]!.attempts, ['error'], 'the running cell finished but was not retried');
  t.same(res.slice(1).map((r) => r.attempts.length), [0, 0, 0]);
});
