// A machine that never came back after a fault: one infrastructure error naming the wait, the last SSH error
// and the guest's own last words (its serial console), instead of a bare timeout. Pure.
import { EXIT, HarnessError, type TimeoutError, formatMs } from '../errors.js';
import type { RebootKind } from '../model/kinds.js';

/** Lines of the serial console quoted in the error (the whole tail is an artifact). */
export const CONSOLE_TAIL_LINES = 20;

/** The client did not answer SSH with a new boot id within the reboot deadline. */
export class NotBackError extends HarnessError {
  /** what the wait waited for */
  readonly what: string;
  /** the last thing the wait saw (the last SSH error or the unchanged boot id) */
  readonly last: string;
  /** the serial console's last lines, when the lab has one */
  readonly consoleTail: string[];
  constructor(what: string, last: string, message: string, consoleTail: string[], hint: string) {
    super(message, { exitCode: EXIT.INFRA, hint });
    this.what = what;
    this.last = last;
    this.consoleTail = consoleTail;
  }
}

/** Where the guest's console came from: a file and its text, or why there is none. */
export type ConsoleSource = { path: string; text: string } | { none: string };

/** The last `n` non-empty lines of a serial console log, without carriage returns and terminal escapes. */
export function consoleTail(text: string, n = CONSOLE_TAIL_LINES): string[] {
  const clean = text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
  return clean
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
    .slice(-n);
}

/**
 * The error for a machine that did not come back: `err` is the reboot wait's timeout. The first line says which
 * machine, which fault, how long and the last SSH error; then the serial console's tail (or why there is none).
 */
export function notBackError(
  err: TimeoutError,
  o: { machine: string; kind: RebootKind; console: ConsoleSource },
): NotBackError {
  const tail = 'text' in o.console ? consoleTail(o.console.text) : [];
  const within = `within ${formatMs(err.waitedMs)} (the reboot deadline: reboot.deadline, --reboot-deadline)`;
  const head =
    `${o.machine} did not come back after the ${o.kind} fault ${within}: ` +
    `waiting for ${err.what}; last: ${err.last}`;
  const body =
    'none' in o.console
      ? `serial console: ${o.console.none}`
      : tail.length
        ? [`serial console (last ${tail.length} lines of ${o.console.path}):`, ...tail.map((l) => `  | ${l}`)].join(
            '\n',
          )
        : `serial console: ${o.console.path} is empty (the guest printed nothing)`;
  const hint =
    'the guest hangs at boot, is powered off, or its network or sshd did not come up: read its serial ' +
    'console (an artifact of the run); if it is only slow, raise --reboot-deadline';
  return new NotBackError(err.what, err.last, `${head}\n${body}`, tail, hint);
}
