// The signals a command watches (SIGINT, SIGTERM, SIGHUP), relayed from the process with one Ctrl-C delivered twice
// taken as one: the source lib/cli/entry.ts gives main(), a run's and a build's watchers (deps.signalSource).
import { EventEmitter } from 'node:events';

/**
 * The signals relayed: those a command acts on (docs/lab.md), and so those the CLI re-run inside a namespace is
 * given (lib/lab/host/host.ts `reexecInNetns` forwards the same three).
 */
export const RELAYED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * A SIGINT this soon after the one before is the same Ctrl-C: a wrapper that passes a signal on to its child while
 * the terminal sends it to the whole group (GNU `timeout`, which sends it to the child and to its group again) gave
 * the harness two or three SIGINTs for one Ctrl-C, the second taken as "press Ctrl-C again to exit at once": no
 * teardown, VMs left up, no report (Q602). A person pressing twice takes longer than this; Playwright's sigIntWatcher
 * waits 1 s for the same reason (npm's forwarding).
 */
export const SAME_CTRL_C_MS = 300;

/**
 * An emitter of `proc`'s SIGINT, SIGTERM and SIGHUP, each listened for on `proc` only while the relay has a listener
 * for it (so with none, Node's defaults stand as before), a SIGINT within SAME_CTRL_C_MS of the SIGINT before dropped.
 */
export function signalRelay(
  proc: NodeJS.EventEmitter = process,
  now: () => number = performance.now.bind(performance),
) {
  const relay = new EventEmitter();
  let lastInt = Number.NEGATIVE_INFINITY;
  const forward = (sig: (typeof RELAYED)[number]) => () => {
    if (sig === 'SIGINT') {
      // Note: measured from the last SIGINT relayed, so a press after it is never dropped for the copies between
      if (now() - lastInt < SAME_CTRL_C_MS) return;
      lastInt = now();
    }
    relay.emit(sig, sig);
  };
  const forwarders = new Map(RELAYED.map((s) => [s, forward(s)] as const));
  const relayed = (e: string | symbol): e is (typeof RELAYED)[number] => forwarders.has(e as (typeof RELAYED)[number]);
  relay.on('newListener', (e: string | symbol) => {
    if (relayed(e) && relay.listenerCount(e) === 0) proc.on(e, forwarders.get(e)!);
  });
  relay.on('removeListener', (e: string | symbol) => {
    if (relayed(e) && relay.listenerCount(e) === 0) proc.off(e, forwarders.get(e)!);
  });
  return relay;
}
