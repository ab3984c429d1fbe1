// What the real process does with its streams and with the signals it has no use for (lib/cli/entry.ts calls these
// before main() runs): a stdout that cannot be written fails the command instead of ending it 0 with its output lost
// (Q541), and SIGUSR1 and SIGUSR2 are told and ignored instead of opening Node's debugger or ending the process (Q540).
import { EXIT } from '../errors.js';

interface Stream {
  on(event: 'error', listener: (err: NodeJS.ErrnoException) => void): unknown;
}

interface OutputWatch {
  /** the command's exit code once its stdout was lost: 3 in place of 0, so a lost `--json` document is no success */
  codeFor(code: number): number;
}

/**
 * Watch stdout and stderr for write errors. A reader that went away (EPIPE: `| head -1`) is no error: the command
 * goes on quietly (a run must still destroy its VMs). Any other error of stdout (ENOSPC: `> cells.json` on a full
 * disk; EIO: a terminal gone) lost what the command printed there: told once on stderr, and the command, which goes
 * on to its end, exits 3 where it would have exited 0. `exiting(code)` is called when that happens after the command
 * ended (its code was taken already); stderr's own errors change nothing (there is nowhere left to tell them).
 */
export function watchOutput(
  streams: { stdout: Stream; stderr: Stream },
  tell: (text: string) => void,
  exiting: (code: number) => void,
  ended: () => number | undefined,
): OutputWatch {
  let lost = false;
  streams.stderr.on('error', () => {});
  streams.stdout.on('error', (err) => {
    if (err.code === 'EPIPE' || lost) return;
    lost = true;
    const code = ended();
    tell(
      `error: stdout could not be written (${err.code ?? 'error'}: ${err.message.replace(/^\w+: /, '')}): what the command printed there is lost; ${
        code === undefined
          ? `it goes on to its end (a run to its teardown and reports) and then exits ${EXIT.INFRA}, not ${EXIT.OK}`
          : `exiting with ${code === EXIT.OK ? EXIT.INFRA : code}`
      }\n`,
    );
    if (code === EXIT.OK) exiting(EXIT.INFRA);
  });
  return { codeFor: (code) => (lost && code === EXIT.OK ? EXIT.INFRA : code) };
}

/**
 * Signals Node acts on that the harness has no use for: SIGUSR1 starts Node's inspector (a debugger on 127.0.0.1:9229
 * that any local user can attach to and run code in this process, which holds the Nomad token), and SIGUSR2 ends the
 * process at once (no teardown: a lab's VMs stay up, no report). A listener of our own keeps Node from doing either.
 */
const IGNORED_SIGNALS = ['SIGUSR1', 'SIGUSR2'] as const;

/**
 * Tell and ignore each of IGNORED_SIGNALS on `proc`, in place of the silent listeners bin/reboot-harness.js puts there
 * while the modules load (nothing else of the harness listens for them).
 */
export function ignoreSignals(proc: NodeJS.EventEmitter, tell: (text: string) => void): void {
  for (const sig of IGNORED_SIGNALS) {
    proc.removeAllListeners(sig);
    proc.on(sig, () =>
      tell(
        `warning: ${sig} received: ignored (reboot-harness takes SIGINT, SIGTERM and SIGHUP; it opens no debugger)\n`,
      ),
    );
  }
}
