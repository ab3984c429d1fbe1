// The signals of the CLI that re-ran itself inside a network namespace (the lab's, or lab.hosts_netns): the child
// handles them (lib/exec/attached.ts forwards them from the process), the parent waits for it and says so.
import { EXIT, HarnessError } from '../errors.js';
import { RELAYED } from './signal-relay.js';

/** The signals reexecInNetns forwards to the child: the command's own. */
const CHILD_SIGNALS = RELAYED;

/** The codes of a child ended by a forwarded signal before it listened for it (SIGINT's 130 is the CLI's own). */
const KILLED_BY: Readonly<Record<number, NodeJS.Signals>> = { 129: 'SIGHUP', 143: 'SIGTERM' };

/**
 * Run the re-run child (`run`, which spawns it through lib/exec/attached.ts) with the command's signals its to handle.
 * The command's listeners on `signals` (the relay main()'s guard counts) say so: without them the guard took the
 * parent for a command with no handler and exited 130 at once while its child tore the lab down (Q610).
 *
 * A signal that comes before the forwarding listens on `proc` (the child not spawned yet: a few ms after the "re-running
 * inside it" line) is held, and raised again once the forwarding is added: taken here and forwarded by nobody, it was
 * lost and the run went on to its end, exit 0 (Q620). A child that the forwarded SIGTERM or SIGHUP ended before it
 * listened (Node's default while its modules load) exits 143 or 129 with no word: the parent says it was interrupted,
 * exit 130 (Q621).
 */
export async function childHandles(
  signals: NodeJS.EventEmitter,
  what: string,
  run: () => Promise<number>,
  o: { proc?: NodeJS.EventEmitter; raise?: (sig: NodeJS.Signals) => void } = {},
): Promise<number> {
  const { proc = process, raise = (sig: NodeJS.Signals) => void process.kill(process.pid, sig) } = o;
  const before = new Map(CHILD_SIGNALS.map((s) => [s, new Set(proc.listeners(s))] as const));
  const forwarding = (sig: NodeJS.Signals) =>
    proc.listeners(sig).some((l) => !before.get(sig as (typeof CHILD_SIGNALS)[number])?.has(l));
  const held = new Set<NodeJS.Signals>();
  let received: NodeJS.Signals | undefined;
  // Note: main()'s guard passes a SIGHUP on as a SIGTERM named SIGHUP: `sig` is the signal that came
  const theChilds = (sig: NodeJS.Signals) => {
    received ??= sig;
    if (!forwarding(sig)) held.add(sig);
  };
  // Note: 'newListener' comes before the listener is added; the forwarding adds its listeners in one go
  const onNew = (event: string | symbol) => {
    if (!held.size || !CHILD_SIGNALS.includes(event as (typeof CHILD_SIGNALS)[number])) return;
    const again = [...held];
    held.clear();
    setImmediate(() => {
      for (const s of again) raise(s);
    });
  };
  for (const s of CHILD_SIGNALS) signals.on(s, theChilds);
  proc.on('newListener', onNew);
  try {
    const code = await run();
    const killedBy = KILLED_BY[code];
    if (received && killedBy)
      throw new HarnessError(
        `interrupted by ${received}: ${what} was ended by it (${killedBy}) before it had started (nothing made, no report)`,
        { exitCode: EXIT.INTERRUPTED },
      );
    return code;
  } finally {
    proc.off('newListener', onNew);
    for (const s of CHILD_SIGNALS) signals.off(s, theChilds);
  }
}

/** How often the re-run child looks whether the CLI that started it is still there. */
const PARENT_POLL_MS = 1000;

/**
 * In the CLI re-run inside a namespace: when the CLI that started it is gone (killed by SIGKILL or SIGQUIT, which it
 * cannot forward: a CI runner's last resort on a cancelled job, `timeout -k`, Ctrl-\), take it as a hang-up. The child
 * has its own process group, so nothing else reaches it: it ran its whole scenario on, unsupervised, writing its
 * reports after its caller had returned, and docs/lab.md's "then run destroy" raced it (Q622). Returns a stop.
 */
export function watchParent(
  netns: string,
  err: (s: string) => void,
  o: { ppid?: () => number; raise?: (sig: NodeJS.Signals) => void; everyMs?: number } = {},
): () => void {
  const {
    ppid = () => process.ppid,
    raise = (sig: NodeJS.Signals) => void process.kill(process.pid, sig),
    everyMs = PARENT_POLL_MS,
  } = o;
  const first = ppid();
  const timer = setInterval(() => {
    if (ppid() === first) return;
    clearInterval(timer);
    err(
      `\nwarning: the reboot-harness that re-ran this one inside netns ${netns} is gone (killed by SIGKILL or SIGQUIT?): taken as a hang-up\n`,
    );
    raise('SIGHUP');
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
