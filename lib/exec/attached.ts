// Run a child with the terminal attached (its output is the person's to see): `setup`'s host script, and the CLI
// re-run inside the lab's network namespace. The second spawn path of lib/exec, through execa like the first.
import { HarnessError } from '../errors.js';

interface AttachedOptions {
  /** added to the inherited environment */
  env?: Record<string, string | undefined>;
  /** the child gets its own process group; the signals below are forwarded to it once each */
  forwardSignals?: readonly NodeJS.Signals[];
  /** what to say when the command cannot start at all */
  cannotStart?: (err: Error) => HarnessError;
}

const SIGNAL_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/** Run `file args` with stdio inherited; resolves with its exit code (128 + signal when it was killed). */
export async function runAttached(file: string, args: readonly string[], o: AttachedOptions = {}): Promise<number> {
  const forward = o.forwardSignals ?? [];
  const { execa } = await import('execa');
  const child = execa(file, args, {
    stdio: 'inherit',
    reject: false,
    detached: forward.length > 0,
    env: o.env ?? {},
    extendEnv: true,
    // Note: execa's default SIGKILLs a SIGTERMed child 5 s later; the child here is the CLI tearing its VMs down after
    // the forwarded signal (VM tier: a SIGTERMed run exited 137 mid-teardown and left its VM running). It has its own
    // teardown budget and a second Ctrl-C still ends it at once.
    forceKillAfterDelay: false,
  });
  const relay = (sig: NodeJS.Signals) => void child.kill(sig);
  for (const s of forward) process.on(s, relay);
  try {
    const r = await child;
    if (r.failed && r.exitCode === undefined && r.signal === undefined) {
      const err = new Error(r.originalMessage ?? r.shortMessage);
      throw o.cannotStart ? o.cannotStart(err) : new HarnessError(`cannot run ${file}: ${err.message}`);
    }
    return r.exitCode ?? 128 + (SIGNAL_CODES[r.signal as NodeJS.Signals] ?? 15);
  } finally {
    for (const s of forward) process.off(s, relay);
  }
}
