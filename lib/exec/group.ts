// The process group of a command run with `killGroup`: signalled whole on its abort (a child's own children hold its
// output pipes, and execa kills the child only), and killed when the CLI exits (execa's own cleanup skips a detached
// child). The groups still alive are the process's, as the exit they are killed at is.
const live = new Map<number, { signalled: boolean }>();
let exitHooked = false;

/** Send `sig` to every process of the group `pid` leads (0: only ask whether one is left); false when none is. */
function signalGroup(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, sig);
    return true;
  } catch {
    return false; // ESRCH: the group is gone
  }
}

// Note: an 'exit' listener runs synchronously, so it cannot wait: a group not yet told gets SIGTERM (what execa's
// cleanup sends a child), one already told (its SIGKILL pending, cut short by the exit: a second Ctrl-C) SIGKILL.
function onExit(): void {
  for (const [pid, g] of live) signalGroup(pid, g.signalled ? 'SIGKILL' : 'SIGTERM');
}

/**
 * Watch the group led by `pid` (spawned `detached`) while its command runs: on `signal`'s abort SIGTERM the group,
 * then SIGKILL it `forceKillAfterMs` later. Returns what to call when the command has ended.
 */
export function watchGroup(pid: number | undefined, signal: AbortSignal, forceKillAfterMs: number): () => void {
  if (pid === undefined) return () => {}; // it never started
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', onExit);
  }
  const g = { signalled: false };
  live.set(pid, g);
  let force: NodeJS.Timeout | undefined;
  const abort = () => {
    g.signalled = true;
    signalGroup(pid, 'SIGTERM');
    force = setTimeout(() => {
      signalGroup(pid, 'SIGKILL');
      live.delete(pid);
    }, forceKillAfterMs).unref();
  };
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return () => {
    signal.removeEventListener('abort', abort);
    // Note: a group told to stop that still has a process keeps its SIGKILL (and its place for the exit); otherwise
    // its number is let go, and is never signalled again.
    if (force !== undefined && signalGroup(pid, 0)) return;
    clearTimeout(force);
    live.delete(pid);
  };
}
