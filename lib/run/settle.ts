// A scenario's run() awaited so that it always ends in a record: a run() that calls process.exit, awaits something that
// can never settle, or outlives the run budget becomes an error of the run (exit 3, reports written) instead of a
// silent exit 0, Node's exit 13 for an unsettled await, or a CLI that never ends.
import { HarnessError, formatMs } from '../errors.js';
import { remaining, type Deadline } from '../time/deadlines.js';

/** How long run() may go on after the run budget ran out (or an interrupt) before the harness stops waiting for it. */
const RUN_SETTLE_GRACE_MS = 30_000;

/** run() called process.exit: the harness, not a scenario, decides when the process ends. */
export class ExitDuringRunError extends HarnessError {
  constructor(who: string, code: unknown) {
    super(
      `${who}: run() called process.exit(${code === undefined ? '' : String(code)}); a scenario returns its check results (or throws) instead`,
    );
  }
}

/** run() awaited something nothing is left to settle (Node would exit 13 here). */
class NeverSettlesError extends HarnessError {
  constructor(who: string) {
    super(
      `${who}: run() did not finish: it awaits a promise that nothing is left to settle (no timer, socket or child)`,
    );
  }
}

/** run() went on past the run budget (or an interrupt) and its grace. */
export class RunOverdueError extends HarnessError {
  constructor(who: string, why: string, graceMs: number) {
    super(`${who}: run() did not finish: ${why}, and it went on for ${formatMs(graceMs)} more`);
  }
}

interface SettleOptions {
  /** names the scenario (and its file) in the errors */
  who: string;
  /** the run budget (--timeout) */
  deadline: Deadline;
  /** the interrupt (SIGINT/SIGTERM) */
  signal: AbortSignal;
  /** what the budget was, for the message (e.g. "--timeout 30m") */
  budget: string;
  graceMs?: number;
  proc?: Pick<NodeJS.Process, 'exit' | 'on' | 'off'>;
}

/** Await `run()`, turning process.exit, a never-settling await and an overdue run into errors (see the file comment). */
export async function settleRun<T>(run: () => Promise<T>, o: SettleOptions): Promise<T> {
  const proc = o.proc ?? process;
  const grace = o.graceMs ?? RUN_SETTLE_GRACE_MS;
  let stop: (err: Error) => void = () => {};
  const stopped = new Promise<never>((_, reject) => {
    stop = reject;
  });
  const exit = proc.exit;
  // Note: after an interrupt the second Ctrl-C exits at once through process.exit (lib/run/signals.ts): let it. The
  // replacement does not throw: called from a timer's callback, a throw would be an uncaught exception that ends the
  // CLI; the run is stopped before run()'s own code after the call can settle it.
  proc.exit = ((code?: unknown) => {
    if (o.signal.aborted) return exit.call(proc, code as number);
    stop(new ExitDuringRunError(o.who, code));
  }) as typeof process.exit;
  // Note: 'beforeExit' fires only when the event loop is empty, so the timers below are unref'd: a run() whose await
  // nothing can settle is told at once, and one that keeps a handle open meets the budget's grace timer.
  const onEmpty = () => stop(new NeverSettlesError(o.who));
  proc.on('beforeExit', onEmpty);
  const timers: NodeJS.Timeout[] = [];
  const overdueIn = (ms: number, why: () => string) => {
    const timer = setTimeout(() => stop(new RunOverdueError(o.who, why(), grace)), ms);
    timer.unref();
    timers.push(timer);
  };
  overdueIn(remaining(o.deadline) + grace, () => `the run budget (${o.budget}) ran out`);
  const onAbort = () => overdueIn(grace, () => 'the run was interrupted');
  if (o.signal.aborted) onAbort();
  else o.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await Promise.race([run(), stopped]);
  } finally {
    proc.exit = exit;
    proc.off('beforeExit', onEmpty);
    o.signal.removeEventListener('abort', onAbort);
    for (const timer of timers) clearTimeout(timer);
  }
}
