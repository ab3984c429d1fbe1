// settleRun: a scenario's run() that exits the process, awaits for ever or outlives its budget ends as an error of
// the run; one that returns or throws is passed through untouched.
import t from 'tap';
import { EventEmitter } from 'node:events';
import { ExitDuringRunError, RunOverdueError, settleRun } from '../../lib/run/settle.js';
import { deadlineIn } from '../../lib/time/deadlines.js';

/** A stand-in for process: its exit records the call; 'beforeExit' is emitted by the test. */
function fakeProc() {
  const ee = new EventEmitter() as EventEmitter & { exit: (code?: number) => never; exits: unknown[] };
  ee.exits = [];
  ee.exit = ((code?: number) => {
    ee.exits.push(code);
  }) as (code?: number) => never;
  return ee;
}

const opts = (proc: ReturnType<typeof fakeProc>, ms = 60_000, signal = new AbortController().signal) => ({
  who: 'scenario x (/u/x.ts)',
  deadline: deadlineIn(ms),
  signal,
  budget: '--timeout 1m',
  graceMs: 50,
  proc: proc as unknown as NodeJS.Process,
});

t.test('a run() that returns or throws is passed through, and process.exit is given back', async (t) => {
  const proc = fakeProc();
  const exit = proc.exit;
  t.same(await settleRun(async () => [1], opts(proc)), [1]);
  await t.rejects(
    settleRun(async () => Promise.reject(new Error('boom')), opts(proc)),
    { message: 'boom' },
  );
  t.equal(proc.exit, exit, 'process.exit is restored');
  t.equal(proc.listenerCount('beforeExit'), 0, 'no listener left');
});

t.test('process.exit inside run() is an error naming the scenario, and the process does not exit', async (t) => {
  const proc = fakeProc();
  const err = await settleRun(async () => {
    await Promise.resolve();
    setTimeout(() => proc.exit(0), 5); // from a callback, where a throw would not reach run()'s promise
    return new Promise(() => {});
  }, opts(proc)).catch((e: unknown) => e);
  t.type(err, ExitDuringRunError);
  t.match((err as Error).message, /^scenario x \(\/u\/x\.ts\): run\(\) called process\.exit\(0\)/);
  t.same(proc.exits, [], 'the real exit was never called');
});

t.test('after an interrupt, process.exit goes through (the second Ctrl-C exits at once)', async (t) => {
  const proc = fakeProc();
  const keepAlive = setInterval(() => {}, 1000); // the grace timer is unref'd, as a real run's open handles would not be
  t.teardown(() => clearInterval(keepAlive));
  const ctl = new AbortController();
  const done = settleRun(() => new Promise(() => {}), opts(proc, 60_000, ctl.signal)).catch((e: unknown) => e);
  ctl.abort(new Error('interrupted by SIGINT'));
  proc.exit(130);
  t.same(proc.exits, [130]);
  t.type(await done, RunOverdueError, 'and the run is given up after the grace');
});

t.test('a run() that nothing can settle is told when the event loop empties', async (t) => {
  const proc = fakeProc();
  const done = settleRun(() => new Promise(() => {}), opts(proc)).catch((e: unknown) => e);
  proc.emit('beforeExit', 0);
  t.match(await done, { message: /scenario x .*run\(\) did not finish: it awaits a promise that nothing is left/ });
});

t.test('a run() that keeps a handle open past the budget ends after the grace, naming the budget', async (t) => {
  const proc = fakeProc();
  const interval = setInterval(() => {}, 1000);
  t.teardown(() => clearInterval(interval));
  const started = Date.now();
  const err = await settleRun(() => new Promise(() => {}), opts(proc, 100)).catch((e: unknown) => e);
  t.type(err, RunOverdueError);
  t.match((err as Error).message, /the run budget \(--timeout 1m\) ran out, and it went on for 50ms more/);
  t.ok(Date.now() - started >= 140, 'not before the budget and its grace');
});
