// Absolute deadlines on the monotonic clock, passed down instead of durations.
import { performance } from 'node:perf_hooks';
import { TimeoutError } from '../errors.js';

/** An absolute point on the monotonic clock plus a cancellation signal. */
export interface Deadline {
  /** performance.now() value after which work must stop */
  readonly at: number;
  /** fires on the deadline or when the run is aborted (Ctrl-C, SIGTERM) */
  readonly signal: AbortSignal;
}

/** Milliseconds left before the deadline (never negative). */
export function remaining(d: Deadline): number {
  return Math.max(0, d.at - performance.now());
}

/** Make a deadline `ms` from now, bounded by a parent deadline and aborted with it. */
export function deadlineIn(ms: number, parent?: Deadline): Deadline {
  const now = performance.now();
  const at = parent ? Math.min(parent.at, now + ms) : now + ms;
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new TimeoutError('deadline', at - now, 'deadline reached')), Math.max(0, at - now));
  timer.unref();
  if (parent) {
    if (parent.signal.aborted) ctl.abort(parent.signal.reason);
    else parent.signal.addEventListener('abort', () => ctl.abort(parent.signal.reason), { once: true });
  }
  return { at, signal: ctl.signal };
}

/** Sleep up to `ms` (cut short by the deadline); rejects with the abort reason when aborted. */
export function sleep(ms: number, d?: Deadline): Promise<void> {
  return new Promise((resolve, reject) => {
    const wait = d ? Math.min(ms, remaining(d)) : ms;
    if (d?.signal.aborted) return reject(d.signal.reason);
    const t = setTimeout(() => {
      d?.signal.removeEventListener('abort', onAbort);
      resolve();
    }, wait);
    const onAbort = () => {
      clearTimeout(t);
      reject(d!.signal.reason);
    };
    d?.signal.addEventListener('abort', onAbort, { once: true });
  });
}
