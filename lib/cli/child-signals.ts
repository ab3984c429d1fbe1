// The signals of the CLI that re-ran itself inside a network namespace (the lab's, or lab.hosts_netns): the child
// handles them (lib/exec/attached.ts forwards them from the process), the parent waits for it and says so.
import { EXIT, HarnessError } from '../errors.js';

/** The signals reexecInNetns forwards to the child. */
const CHILD_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

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
