// The ground floor: an absolute deadline (lib/time/deadlines.ts makes and waits on them). Imports nothing.

/** An absolute point on the monotonic clock plus a cancellation signal. */
export interface Deadline {
  /** performance.now() value after which work must stop */
  readonly at: number;
  /** fires on the deadline or when the run is aborted (Ctrl-C, SIGTERM) */
  readonly signal: AbortSignal;
}
