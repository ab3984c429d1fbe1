// Every wait has a name, an absolute deadline, a probe that explains itself, and fails fast.
import { performance } from 'node:perf_hooks';
import { TimeoutError, TerminalStateError, HarnessError } from '../errors.js';
import { remaining, sleep, type Deadline } from './deadlines.js';

/** What a probe reports: done with a value, or not yet and why; `terminal` stops the wait at once. */
export type Probe<T> = { done: true; value: T } | { done: false; reason: string; terminal?: boolean };

/**
 * The deadline has passed: by the clock, or by its own timer, which fires up to a millisecond before `at` on the
 * monotonic clock (libuv's millisecond loop clock); without the second, a wait probed once more with the signal
 * already aborted.
 */
const passed = (d: Deadline): boolean =>
  remaining(d) <= 0 || (d.signal.aborted && d.signal.reason instanceof TimeoutError);

/** Back-off between polls, in ms; the last value repeats. */
const DEFAULT_INTERVALS = [100, 250, 500, 1000, 2000] as const;

/** Poll `probe` until it is done, the deadline passes (TimeoutError naming `what` and the last reason) or it reports a terminal state. */
export async function waitFor<T>(
  what: string,
  probe: (d: Deadline) => Promise<Probe<T>>,
  {
    deadline,
    intervals = DEFAULT_INTERVALS,
    onReason,
  }: { deadline: Deadline; intervals?: readonly number[]; onReason?: (reason: string) => void },
): Promise<T> {
  const start = performance.now();
  let last = 'no probe completed yet';
  for (let i = 0; ; i++) {
    if (deadline.signal.aborted && !(deadline.signal.reason instanceof TimeoutError)) throw deadline.signal.reason;
    if (passed(deadline)) throw new TimeoutError(what, performance.now() - start, last);
    try {
      const r = await probe(deadline);
      if (r.done) return r.value;
      if (r.terminal) throw new TerminalStateError(what, r.reason);
      if (r.reason !== last) onReason?.(r.reason);
      last = r.reason;
    } catch (err) {
      if (err instanceof TerminalStateError) throw err;
      if (deadline.signal.aborted && !(deadline.signal.reason instanceof TimeoutError)) throw deadline.signal.reason;
      if (err instanceof HarnessError && err.exitCode === 2) throw err;
      // Note: an attempt cut short by the deadline itself is not news; keep the last real observation.
      if (!(deadline.signal.aborted && last !== 'no probe completed yet'))
        last = `error: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
    }
    if (passed(deadline)) throw new TimeoutError(what, performance.now() - start, last);
    const pause = intervals[Math.min(i, intervals.length - 1)] ?? 1000;
    try {
      await sleep(pause, deadline);
    } catch (err) {
      if (err instanceof TimeoutError) throw new TimeoutError(what, performance.now() - start, last);
      throw err;
    }
  }
}
