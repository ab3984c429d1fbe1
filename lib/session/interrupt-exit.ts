// The second Ctrl-C's exit: the one exit of the harness's own while a command runs. The real CLI guards process.exit
// (lib/cli/entry.ts) so that a user scenario cannot end the process in the middle of a command; it let a call with
// 130 through, taken for this one, so a scenario's `process.on('SIGINT', () => process.exit(130))`, or its timer that
// called process.exit(130), ended the process at once: no teardown, no verdict, no report (Q400). The watchers of
// signals call this instead, and the real CLI hands it the unguarded exit.
import { EXIT } from '../errors.js';

let exitNow: (code: number) => void = (code) => process.exit(code);

/** The second Ctrl-C: exit 130 at once (the watchers' `onSecond`). */
export const interruptNow = (): void => exitNow(EXIT.INTERRUPTED);

/** What `interruptNow` calls: the real CLI's unguarded process.exit. */
export const setInterruptExit = (exit: (code: number) => void): void => {
  exitNow = exit;
};
