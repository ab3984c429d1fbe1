// Node's process.exit ends in process.reallyExit, which a scenario (or a library it uses) can call itself: a timer's
// `process.reallyExit(0)` after a FAIL went past lib/cli/entry.ts's guard of process.exit and exited 0 with no report,
// and in a matrix it ended every cell at once (Q500). This guards it the same way.

type ReallyExit = (code?: number) => never;

interface ExitProcess {
  exit: (code?: number) => never;
  reallyExit?: ReallyExit;
}

interface ReallyExitGuard {
  /** whether the command still runs: a call is then a process.exit call */
  running(): boolean;
  /** the code the harness itself exits with once it does (its process.exit reaches reallyExit), else undefined */
  exitingWith(): number | undefined;
  /** the harness's own exit with the verdict's code, for a call after the command ended */
  exitWithVerdict(): never;
}

/**
 * Put a guard in place of `proc.reallyExit`: while the command runs a call is a `proc.exit` call (a run's own
 * replacement makes it that run's error; else it is ignored with the guard's warning); after it, the verdict's code;
 * while the harness exits, its own code. An accessor rather than a plain property: signal-exit (execa's) puts its own
 * in place while a child runs and, once the last one ended, puts back the one it found; what it (or anyone) installs
 * runs inside the guard, once. A signal-exit loaded after the guard (imported when a child first runs) keeps the
 * guard as the original it calls: the guard is then entered again from inside it and goes to Node's own, where
 * calling it again recursed until the stack ran out.
 */
export function guardReallyExit(proc: ExitProcess, o: ReallyExitGuard): void {
  const found = Object.getOwnPropertyDescriptor(proc, 'reallyExit');
  if (!found || typeof found.value !== 'function') return;
  const real = found.value as ReallyExit;
  let inner = real;
  let passing = false;
  const guard = (c?: number): never => {
    const code = o.exitingWith();
    if (code !== undefined) {
      if (passing || inner === real) return real.call(proc, code);
      passing = true;
      return inner.call(proc, code);
    }
    if (!o.running()) return o.exitWithVerdict();
    return proc.exit(c);
  };
  Object.defineProperty(proc, 'reallyExit', {
    configurable: true,
    enumerable: found.enumerable ?? true,
    get: () => guard,
    set: (value: ReallyExit) => {
      inner = value === guard ? real : value;
    },
  });
}
