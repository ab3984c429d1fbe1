// Absolute deadlines on the monotonic clock, passed down instead of durations.
import { performance } from 'node:perf_hooks';
import { TimeoutError } from '../errors.js';

/** setTimeout's ceiling (about 24.8 days); longer deadlines simply never fire. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * How early a timer may fire against performance.now(): Node runs timers on libuv's loop clock, kept in whole
 * milliseconds, so a 500 ms timer can fire when 499.4 ms have passed on the monotonic clock.
 */
const TIMER_SLACK_MS = 2;

import type { Deadline } from '../model/deadline.js';

export type { Deadline };

/** Milliseconds left before the deadline (never negative). */
export function remaining(d: Deadline): number {
  return Math.max(0, d.at - performance.now());
}

/** Make a deadline `ms` from now, bounded by a parent deadline and aborted with it. */
export function deadlineIn(ms: number, parent?: Deadline): Deadline {
  const now = performance.now();
  const at = parent ? Math.min(parent.at, now + ms) : now + ms;
  const ctl = new AbortController();
  const timer = setTimeout(
    () => ctl.abort(new TimeoutError('deadline', at - now, 'deadline reached')),
    Math.max(0, Math.min(at - now, MAX_TIMER_MS)),
  );
  timer.unref();
  // Note: AbortSignal.any holds its sources weakly, so many short child deadlines do not pile listeners on the parent.
  return { at, signal: parent ? AbortSignal.any([parent.signal, ctl.signal]) : ctl.signal };
}

/**
 * Sleep up to `ms` (cut short by the deadline: resolves when it is reached); rejects with the abort reason when
 * aborted otherwise (Ctrl-C, a parent's deadline), or when the deadline had already passed before the call.
 */
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
      // Note: the deadline's own timer and ours can fire in either order when both are due; ending at the deadline is
      // what "cut short" means, so its timeout resolves like our timer would have (even a hair early, see TIMER_SLACK_MS).
      if (wait < ms && d!.signal.reason instanceof TimeoutError && remaining(d!) <= TIMER_SLACK_MS) resolve();
      else reject(d!.signal.reason);
    };
    d?.signal.addEventListener('abort', onAbort, { once: true });
  });
}
