// The real process: wires the CLI to real VMs, the real host and process I/O, then exits with main()'s code.
import { EXIT } from '../errors.js';
import { setInterruptExit } from '../session/interrupt-exit.js';
import { main } from './main.js';
import { ignoreSignals, watchOutput } from './process-io.js';
import { realDeps } from './real-deps.js';
import { guardReallyExit } from './really-exit.js';
import { watchParent } from './child-signals.js';
import { IN_NETNS_ENV } from '../lab/host/host.js';

/**
 * How long the process may stay alive after main() returned before it exits anyway (see the end of this file): 10 s,
 * or HARNESS_EXIT_GRACE_MS (whole milliseconds; the tests of this very rule set it short rather than wait 10 s each).
 */
const EXIT_GRACE_MS = /^\d+$/.test(process.env['HARNESS_EXIT_GRACE_MS'] ?? '')
  ? Number(process.env['HARNESS_EXIT_GRACE_MS'])
  : 10_000;

/** The code the process exits with: the command's, or the late error's (lateStrayExit) that came after it. */
let finalCode: number | undefined;

const deps = realDeps((c) => {
  finalCode = c;
  process.exitCode = c;
});

// Note: if whoever reads our output goes away (a closed pipe), keep going: teardown must still destroy the VMs. A
// stdout that cannot be written otherwise (a full disk, a terminal gone) lost the output: told, and no exit 0 (Q541).
const output = watchOutput(
  process,
  (s) => void process.stderr.write(s),
  (c) => {
    finalCode = c;
    process.exitCode = c;
  },
  () => (running ? undefined : finalCode),
);
// Note: SIGUSR1 opened Node's debugger on 127.0.0.1:9229 for any local user, SIGUSR2 ended a run with no teardown
ignoreSignals(process, (s) => void process.stderr.write(s));
// Note: the re-run inside a namespace, its parent killed (SIGKILL, SIGQUIT), ran its scenario on unsupervised (Q622)
const inNetns = process.env[IN_NETNS_ENV];
if (inNetns) watchParent(inNetns, (s) => void process.stderr.write(s));
// Note: while the command runs, only the harness ends the process. A user scenario's timer that calls process.exit(0)
// after its run() returned fired, under load, while the verdict was still being written: exit 0, no report, no
// verdict (a silent pass). run() itself is guarded (lib/run/settle.ts); this guards the rest of the command. The one
// exit of our own while it runs is the second Ctrl-C's, which calls the real exit (lib/session/interrupt-exit.ts): a
// scenario's process.exit(130) (its SIGINT listener, a timer) is ignored like any other code, not taken for it (Q400).
const realExit = process.exit.bind(process);
/** the code the harness itself exits with, once it does: its process.exit reaches reallyExit, which takes this code */
let exitingWith: number | undefined;
const exit = (c?: number) => {
  exitingWith = c ?? 0;
  return realExit(c);
};
setInterruptExit(exit);
let running = true;
const guardedExit = ((c?: number | string | null) => {
  // Note: once the command ended, the code is the verdict's whatever the caller asks: a scenario's 'exit' listener
  // that calls process.exit(0) runs before keepVerdict below and would end the process with its own code (Q360).
  if (!running) return exit(finalCode);
  process.stderr.write(
    `warning: process.exit(${c ?? ''}) called while the command ran (a timer left by a scenario file?): ignored; the command's verdict decides the exit code\n`,
  );
  return undefined as never;
}) as typeof process.exit;
process.exit = guardedExit;
// Note: the exit underneath process.exit, which a scenario can call too (Q500)
guardReallyExit(process as never, {
  running: () => running,
  exitingWith: () => exitingWith,
  exitWithVerdict: () => exit(finalCode),
});
const code = output.codeFor(await main(process.argv.slice(2), deps));
running = false;
// Note: each run puts its own process.exit in place while its run() is awaited (lib/run/settle.ts) and puts back the
// one it found; a matrix's cells that run at once end in any order, so the last to end could put back another cell's,
// which ignores every call: the grace timer's exit below was swallowed and the process hung (Q332). The harness's own
// exits below call the real one, and the guard is put back for a scenario's late calls.
process.exit = guardedExit;
finalCode ??= code;
process.exitCode = code;
// Note: the exit code is the verdict: a user scenario's timer that sets process.exitCode or calls process.exit(0) after
// the command ended must not turn a FAIL into a pass. An 'exit' listener may change the code; this one, added after
// the scenarios' own, runs after them. A listener a scenario adds later still (from a timer or a 'beforeExit'
// listener that fire after the command ended) would run after this one and set its code last: then this one exits
// at once with the verdict's code, and the listeners after it do not run (Q331).
const keepVerdict = () => {
  process.exitCode = finalCode;
  const listeners = process.listeners('exit');
  if (listeners.indexOf(keepVerdict) < listeners.length - 1) exit(finalCode);
};
process.on('exit', keepVerdict);
// Note: interrupted while a child ran for the inputs (`nomad version`, git, go), the child would keep the process
// alive until its own deadline (15 s and more): exit once the output is written; execa ends its children on exit.
if (code === EXIT.INTERRUPTED) process.stdout.write('', () => process.stderr.write('', () => exit(finalCode)));
// Note: main() returns after teardown, so nothing the run needs is still open. Anything that still keeps the event
// loop alive (a socket to a VM that is gone retransmits for up to 15 minutes) would hang a CI job: say what it is and
// exit anyway. The timer is unref'd, so a clean run exits at once without waiting for it.
setTimeout(() => {
  let what: string;
  try {
    what = openHandles();
  } catch {
    what = process.getActiveResourcesInfo().join(', ');
  }
  process.stderr.write(
    `warning: still open ${EXIT_GRACE_MS / 1000} s after the command ended: ${what}; exiting with ${finalCode}\n`,
  );
  exit(finalCode);
}, EXIT_GRACE_MS).unref();

/**
 * What keeps the event loop alive, for the warning above: TCP peers, pipes other than our own stdio, child PIDs, and
 * timers (a scenario file of yours that starts one and never clears it keeps the CLI alive too).
 */
function openHandles(): string {
  // Note: called from the grace timer's callback, which no longer counts as active.
  const timers = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const timerText =
    timers > 0 ? [`${timers} timer${timers === 1 ? '' : 's'} (a setTimeout/setInterval never cleared)`] : [];
  // Note: _getActiveHandles is undocumented (stable since Node 0.x); the resource-type list is the fallback.
  const handles = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.();
  const named = handles
    ? handles.flatMap((h) => {
        const proc = h as { pid?: number; spawnargs?: string[] };
        if (typeof proc.pid === 'number' && Array.isArray(proc.spawnargs))
          return [`child pid ${proc.pid} (${proc.spawnargs.join(' ').slice(0, 80)})`];
        // a net.Socket, told by its shape (node:net stays in lib/ssh and lib/nomad, test/unit/layering.test.ts)
        const sock = h as {
          remoteAddress?: string;
          remotePort?: number;
          localAddress?: string;
          localPort?: number;
          _handle?: { fd?: number };
          constructor?: { name?: string };
        };
        if (sock.constructor?.name === 'Socket') {
          if (sock.remoteAddress)
            return [`TCP ${sock.localAddress}:${sock.localPort} -> ${sock.remoteAddress}:${sock.remotePort}`];
          const fd = sock._handle?.fd;
          // Note: stdin, stdout and stderr are the CLI's own; they hold nothing open that needs naming.
          return typeof fd === 'number' && fd >= 0 && fd <= 2 ? [] : [`pipe fd ${fd ?? '?'}`];
        }
        return [(h as { constructor?: { name?: string } }).constructor?.name ?? 'handle'];
      })
    : process.getActiveResourcesInfo().filter((r) => r !== 'Timeout');
  return [...named, ...timerText].join(', ') || 'something Node does not name';
}
