// Signals travel the same path as failures: the first SIGINT/SIGTERM aborts the run (cleanup runs), a second SIGINT exits at once.
import { InterruptedError, EXIT } from '../errors.js';

interface SignalWatcher {
  /** aborted with an InterruptedError on the first signal */
  signal: AbortSignal;
  /** which signal arrived, if any */
  received(): NodeJS.Signals | undefined;
  dispose(): void;
}

/** Watch SIGINT and SIGTERM for one run. `onSecond` runs when a second SIGINT arrives (default: exit 130 at once). */
export function watchSignals({
  proc = process,
  onFirst = (sig: NodeJS.Signals) =>
    process.stderr.write(
      `\n${sig} received: cleaning up (press Ctrl-C again to exit at once; VMs may then be left behind: run "reboot-harness destroy")\n`,
    ),
  onSecond = () => process.exit(EXIT.INTERRUPTED),
}: {
  proc?: NodeJS.EventEmitter;
  onFirst?: (sig: NodeJS.Signals) => void;
  onSecond?: () => void;
} = {}): SignalWatcher {
  const ctl = new AbortController();
  let got: NodeJS.Signals | undefined;
  const handler = (sig: NodeJS.Signals) => {
    if (got) {
      if (sig === 'SIGINT') onSecond();
      return;
    }
    got = sig;
    onFirst(sig);
    ctl.abort(new InterruptedError(sig));
  };
  proc.on('SIGINT', handler);
  proc.on('SIGTERM', handler);
  return {
    signal: ctl.signal,
    received: () => got,
    dispose: () => {
      proc.off('SIGINT', handler);
      proc.off('SIGTERM', handler);
    },
  };
}
