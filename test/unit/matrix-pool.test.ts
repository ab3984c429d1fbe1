// The matrix scheduler with plain promises: parallel limit, memory budget, slots, one retry, abort.
import t from 'tap';
import { runPool } from '../../lib/matrix/pool.js';

interface Job {
  name: string;
  cost: number;
  outcomes: string[];
}
const tick = () => new Promise((r) => setTimeout(r, 5));

function harness(jobs: Job[], parallel: number, budgetMb?: number, signal = new AbortController().signal) {
  let running = 0;
  let peak = 0;
  let peakMb = 0;
  let mb = 0;
  const log: string[] = [];
  const slotsInUse = new Set<number>();
  const p = runPool(jobs, {
    parallel,
    budgetMb,
    signal,
    costMb: (j) => j.cost,
    retry: (r) => r === 'error',
    run: async (j, slot, attempt) => {
      if (slotsInUse.has(slot)) throw new Error(`slot ${slot} used twice at once`);
      slotsInUse.add(slot);
      running++;
      mb += j.cost;
      peak = Math.max(peak, running);
      peakMb = Math.max(peakMb, mb);
      log.push(`${j.name}#${attempt}@${slot}`);
      await tick();
      running--;
      mb -= j.cost;
      slotsInUse.delete(slot);
      return j.outcomes[attempt - 1] ?? 'passed';
    },
  });
  return { p, stats: () => ({ peak, peakMb, log }) };
}

const jobs = (n: number, cost = 100, outcomes: string[] = []): Job[] =>
  Array.from({ length: n }, (_, k) => ({ name: `c${k}`, cost, outcomes }));

t.test('no more than `parallel` at once, results in list order, slots 1..parallel', async (t) => {
  const h = harness(jobs(7), 3);
  const res = await h.p;
  t.same(
    res.map((r) => r.item.name),
    ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6'],
  );
  t.equal(h.stats().peak, 3);
  t.ok(
    h.stats().log.every((l) => /@[123]$/.test(l)),
    'slots stay within 1..3',
  );
  t.same(
    res.map((r) => r.attempts),
    Array(7).fill(['passed']),
  );
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
  const h = harness(
    [
      { name: 'flaky', cost: 1, outcomes: ['error', 'passed'] },
      { name: 'broken', cost: 1, outcomes: ['error', 'error', 'passed'] },
      { name: 'failing', cost: 1, outcomes: ['failed', 'passed'] },
    ],
    1,
  );
  const res = await h.p;
  t.same(
    res.map((r) => r.attempts),
    [['error', 'passed'], ['error', 'error'], ['failed']],
  );
});

t.test('after an abort no new cell or retry starts; unstarted cells have no attempts', async (t) => {
  const ctl = new AbortController();
  // the abort comes while the first cell runs (from inside it, not from a timer racing the cell's own under load)
  const a: Job = { name: 'a', cost: 1, outcomes: ['error', 'passed'] };
  const started: string[] = [];
  const res = await runPool([a, ...jobs(3)], {
    parallel: 1,
    budgetMb: undefined,
    signal: ctl.signal,
    costMb: (j) => j.cost,
    retry: (r) => r === 'error',
    run: async (j, _slot, attempt) => {
      started.push(`${j.name}#${attempt}`);
      if (j === a && attempt === 1) ctl.abort();
      await tick();
      return j.outcomes[attempt - 1] ?? 'passed';
    },
  });
  t.same(started, ['a#1'], 'nothing started after the abort');
  t.same(res[0]!.attempts, ['error'], 'the running cell finished but was not retried');
  t.same(
    res.slice(1).map((r) => r.attempts.length),
    [0, 0, 0],
  );
});

t.test(
  'affinity: a freed slot takes the next cell of the affinity it last ran (a warm lab stays on its subnets)',
  async (t) => {
    // a* share one build, b* another. b1 ends before a1: without affinity a2 (next in the list) would take slot 2.
    const items = ['a1', 'b1', 'a2', 'b2', 'a3', 'b3'].map((name) => ({ name, key: name[0]! }));
    const script = ['b1', 'a1', 'b2', 'a2', 'a3', 'b3'];
    const run = async (withAffinity: boolean) => {
      const started: string[] = [];
      const finish = new Map<string, () => void>();
      const p = runPool(items, {
        parallel: 2,
        budgetMb: undefined,
        costMb: () => 1,
        retry: () => false,
        signal: new AbortController().signal,
        ...(withAffinity ? { affinity: (i: (typeof items)[number]) => i.key } : {}),
        run: (i, slot) =>
          new Promise<number>((resolve) => {
            started.push(`${i.name}@${slot}`);
            finish.set(i.name, () => resolve(slot));
          }),
      });
      await tick();
      for (const name of script) {
        finish.get(name)?.();
        await tick();
      }
      return { res: await p, started };
    };
    const { res, started } = await run(true);
    t.same(
      res.map((r) => r.item.name),
      items.map((i) => i.name),
      'results still in list order',
    );
    t.same(started, ['a1@1', 'b1@2', 'b2@2', 'a2@1', 'b3@2', 'a3@1'], 'every A cell in slot 1, every B cell in slot 2');
    const plain = await run(false);
    t.equal(plain.started[2], 'a2@2', 'without affinity a2 takes the first free slot');
  },
);

t.test('affinity: no slot idles while a cell waits; the budget still holds', async (t) => {
  // Each cell ends when the test says so. a1 ends: a2 jumps ahead of c1 into slot 1; b1 ends: b2 jumps ahead of c1
  // into slot 2; b2 ends: c1 (an affinity no slot has run) takes slot 2 at once rather than wait for slot 1.
  const items = ['a1', 'b1', 'c1', 'a2', 'b2'].map((name) => ({ name, key: name[0]! }));
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const p = runPool(items, {
    parallel: 2,
    budgetMb: undefined,
    costMb: () => 1,
    retry: () => false,
    signal: new AbortController().signal,
    affinity: (i) => i.key,
    run: (i, slot) =>
      new Promise<number>((resolve) => {
        started.push(`${i.name}@${slot}`);
        finish.set(i.name, () => resolve(slot));
      }),
  });
  const end = async (name: string) => {
    finish.get(name)!();
    await tick();
  };
  await tick();
  t.same(started, ['a1@1', 'b1@2']);
  await end('a1');
  t.same(started.at(-1), 'a2@1', "a2 before c1, into A's slot");
  await end('b1');
  t.same(started.at(-1), 'b2@2', "b2 before c1, into B's slot");
  await end('b2');
  t.same(started.at(-1), 'c1@2', 'c1 takes the first free slot');
  await end('a2');
  await end('c1');
  t.same(
    (await p).map((r) => r.item.name),
    ['a1', 'b1', 'c1', 'a2', 'b2'],
    'results in list order',
  );
  const big = [
    { name: 'a1', key: 'A', cost: 6 },
    { name: 'b1', key: 'B', cost: 6 },
    { name: 'a2', key: 'A', cost: 6 },
  ];
  let now = 0;
  let peak = 0;
  await runPool(big, {
    parallel: 2,
    budgetMb: 10,
    costMb: (i) => i.cost,
    retry: () => false,
    signal: new AbortController().signal,
    affinity: (i) => i.key,
    run: async (i) => {
      now += i.cost;
      peak = Math.max(peak, now);
      await tick();
      now -= i.cost;
      return 0;
    },
  });
  t.equal(peak, 6, 'never two 6 MiB cells under a 10 MiB budget');
});
