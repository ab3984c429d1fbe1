// Deadlines passed down (bounded by and aborted with the parent) and waitFor (named, explains itself, fails fast).
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { ConfigError, InterruptedError, TerminalStateError, TimeoutError } from '../../lib/errors.js';
import { deadlineIn, remaining, sleep, type Deadline } from '../../lib/time/deadlines.js';
import { waitFor, type Probe } from '../../lib/time/wait-for.js';

const manual = (at = Number.POSITIVE_INFINITY) => {
  const ctl = new AbortController();
  return { ctl, d: { at, signal: ctl.signal } satisfies Deadline };
};

t.test('deadlineIn is bounded by its parent and aborted with it', async (t) => {
  const parent = deadlineIn(5000);
  const child = deadlineIn(60_000, parent);
  const short = deadlineIn(10, parent);
  t.equal(child.at, parent.at, 'a child never outlives its parent');
  t.ok(short.at < parent.at, 'a shorter child keeps its own deadline');
  t.ok(remaining(child) <= 5000);

  const { ctl, d } = manual();
  const c = deadlineIn(60_000, d);
  t.equal(c.signal.aborted, false);
  const why = new InterruptedError('SIGINT');
  ctl.abort(why);
  t.equal(c.signal.aborted, true, 'aborted with the parent');
  t.equal(c.signal.reason, why, "carrying the parent's reason");
});

t.test('a deadline aborts itself with a TimeoutError when it passes', async (t) => {
  const d = deadlineIn(20);
  await new Promise((r) => setTimeout(r, 60));
  t.equal(d.signal.aborted, true);
  t.type(d.signal.reason, TimeoutError);
  t.equal(remaining(d), 0, 'never negative');
});

t.test('sleep: full length without a deadline, cut short by one, rejected when aborted', async (t) => {
  let s = performance.now();
  await sleep(30);
  t.ok(performance.now() - s >= 25, 'slept');
  s = performance.now();
  // Note: 500 ms, not 30: on a loaded machine 30 ms can pass between making the deadline and sleeping on it, and a
  // deadline that already fired rejects (asserted below), which is not what this line is about
  await sleep(10_000, deadlineIn(500));
  t.ok(performance.now() - s < 5000, 'cut short at the deadline: did not sleep 10s');
  const passed = deadlineIn(0);
  await new Promise((r) => setTimeout(r, 10));
  await t.rejects(sleep(10, passed), TimeoutError, 'a deadline that already fired rejects with its reason');
  const { ctl, d } = manual();
  const p = sleep(10_000, d);
  ctl.abort(new InterruptedError('SIGTERM'));
  await t.rejects(p, { message: 'interrupted by SIGTERM' });
  await t.rejects(sleep(10, d), InterruptedError, 'already aborted: rejects at once');
});

t.test(
  "sleep: a deadline's timer firing a hair early (libuv's millisecond clock) still cuts short, not rejects",
  async (t) => {
    // A deadline whose own timer fired 0.6 ms before `at` on the monotonic clock, as real timers do under load.
    const early = manual(performance.now() + 0.6);
    const p = sleep(10_000, early.d);
    early.ctl.abort(new TimeoutError('deadline', 500, 'deadline reached'));
    await t.resolves(p, 'resolved at the deadline');
    // Far from the deadline, a TimeoutError is someone else's: it rejects.
    const far = manual(performance.now() + 5000);
    const q = sleep(10_000, far.d);
    far.ctl.abort(new TimeoutError('deadline', 500, 'deadline reached'));
    await t.rejects(q, TimeoutError, 'rejected: the deadline was seconds away');
  },
);

t.test('waitFor: a deadline whose timer fired a hair early has passed; the probe is not called again', async (t) => {
  // A deadline whose own timer fired 0.6 ms before `at` on the monotonic clock, as real timers do.
  const early = manual(performance.now() + 0.6);
  early.ctl.abort(new TimeoutError('deadline', 500, 'deadline reached'));
  let calls = 0;
  const probe = async (): Promise<Probe<number>> => {
    calls++;
    return { done: true, value: 1 };
  };
  const err = await waitFor('x', probe, { deadline: early.d }).catch((e: unknown) => e);
  t.type(err, TimeoutError, 'timed out, not done');
  t.equal(calls, 0, 'no probe with an aborted signal');
  // Between two probes: the deadline's timer cuts the pause short 0.6 ms early; the next check sees it passed.
  const ctl = new AbortController();
  let at = performance.now() + 1000;
  const soon: Deadline = {
    get at() {
      return at;
    },
    signal: ctl.signal,
  };
  const probes: string[] = [];
  const fire = () => {
    at = performance.now() + 0.6;
    ctl.abort(new TimeoutError('deadline', 500, 'deadline reached'));
  };
  const ending = waitFor(
    'y',
    async () => {
      probes.push('probe');
      if (probes.length === 1) setTimeout(fire, 5);
      return probes.length === 1 ? { done: false, reason: 'not yet' } : { done: true, value: 2 };
    },
    { deadline: soon, intervals: [10_000] },
  ).catch((e: unknown) => e);
  t.match(await ending, { what: 'y', last: 'not yet' }, 'timed out with the last reason');
  t.same(probes, ['probe'], 'one probe: none after the deadline fired');
});

t.test('waitFor returns the value once the probe is done; reasons reported as they change', async (t) => {
  const answers: Probe<string>[] = [
    { done: false, reason: 'alloc pending' },
    { done: false, reason: 'alloc pending' },
    { done: false, reason: 'task starting' },
    { done: true, value: 'running' },
  ];
  const reasons: string[] = [];
  let calls = 0;
  const v = await waitFor('alloc running', async () => answers[calls++]!, {
    deadline: deadlineIn(5000),
    intervals: [1],
    onReason: (r) => void reasons.push(r),
  });
  t.equal(v, 'running');
  t.equal(calls, 4);
  t.same(reasons, ['alloc pending', 'task starting']);
});

t.test('on timeout, the error names what was awaited and the last reason', async (t) => {
  const s = performance.now();
  const err = await waitFor('node ready', async () => ({ done: false, reason: 'node status down' }), {
    deadline: deadlineIn(80),
    intervals: [10],
  }).catch((e: unknown) => e);
  t.type(err, TimeoutError);
  t.match(err, { what: 'node ready', last: 'node status down', exitCode: 3 });
  t.match((err as Error).message, /^waiting for node ready: gave up after \d+ms; last: node status down$/);
  t.ok(performance.now() - s < 1000, 'gave up near the deadline');

  const thrown = await waitFor(
    'ssh',
    async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:2222\nmore');
    },
    { deadline: deadlineIn(50), intervals: [5] },
  ).catch((e: unknown) => e);
  t.match(
    thrown,
    { last: 'error: connect ECONNREFUSED 127.0.0.1:2222' },
    'a probe error is the last reason (first line)',
  );

  const never = await waitFor('x', () => new Promise<Probe<void>>(() => {}).then(), { deadline: deadlineIn(0) }).catch(
    (e: unknown) => e,
  );
  t.match(never, { last: 'no probe completed yet' });
});

t.test('a terminal state fails fast', async (t) => {
  let calls = 0;
  const s = performance.now();
  const err = await waitFor(
    'alloc running',
    async () => (++calls, { done: false, reason: 'alloc lost', terminal: true }),
    { deadline: deadlineIn(10_000) },
  ).catch((e: unknown) => e);
  t.type(err, TerminalStateError);
  t.equal((err as Error).message, 'waiting for alloc running: reached terminal state: alloc lost');
  t.equal(calls, 1);
  t.ok(performance.now() - s < 500);
});

t.test('usage errors and interruptions are not retried', async (t) => {
  let calls = 0;
  await t.rejects(
    waitFor(
      'x',
      async () => {
        calls++;
        throw new ConfigError([{ field: 'f', value: 1, message: 'm', fix: 'x' }]);
      },
      { deadline: deadlineIn(5000), intervals: [1] },
    ),
    ConfigError,
  );
  t.equal(calls, 1);

  const { ctl, d } = manual(performance.now() + 10_000);
  setTimeout(() => ctl.abort(new InterruptedError('SIGINT')), 30);
  const s = performance.now();
  await t.rejects(
    waitFor('x', async () => ({ done: false, reason: 'not yet' }), { deadline: d, intervals: [5000] }),
    InterruptedError,
    'an interrupt cuts the pause short',
  );
  t.ok(performance.now() - s < 2000);
});
