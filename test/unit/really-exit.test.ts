// lib/cli/really-exit.ts: the guard of the exit underneath process.exit (Q500), with a process of the test's own.
import t from 'tap';
import '../helpers/ts-loader.js';
import { guardReallyExit } from '../../lib/cli/really-exit.js';

/** A process whose exits are recorded; the guard's state set by the test. */
function world() {
  const calls: string[] = [];
  const state = { running: true, exitingWith: undefined as number | undefined, finalCode: 1 };
  const proc = {
    exit: ((c?: number) => void calls.push(`exit(${c})`)) as (c?: number) => never,
    reallyExit: ((c?: number) => void calls.push(`real(${c})`)) as ((c?: number) => never) | undefined,
  };
  guardReallyExit(proc, {
    running: () => state.running,
    exitingWith: () => state.exitingWith,
    exitWithVerdict: () => void calls.push(`verdict(${state.finalCode})`) as never,
  });
  return { calls, state, proc };
}

t.test('while the command runs a call is a process.exit call; after it, the verdict', async (t) => {
  const w = world();
  w.proc.reallyExit!(0);
  t.same(w.calls, ['exit(0)'], 'the guarded (or the run’s) process.exit, never Node’s own');
  w.state.running = false;
  w.proc.reallyExit!(0);
  t.same(w.calls, ['exit(0)', 'verdict(1)'], 'after the command: the verdict’s code');
  w.state.exitingWith = 130;
  w.proc.reallyExit!(0);
  t.same(w.calls.at(-1), 'real(130)', 'while the harness exits: its own code, whatever the caller asks');
});

t.test(
  'a signal-exit loaded after the guard (keeping it as the original it calls) runs once, inside it: no recursion',
  async (t) => {
    const w = world();
    // signal-exit's load(): its wrapper calls the reallyExit it found, here the guard
    const found = w.proc.reallyExit!;
    const wrapper = (c?: number): never => {
      w.calls.push(`wrapper(${c})`);
      return found.call(w.proc, c);
    };
    w.proc.reallyExit = wrapper;
    t.equal(w.proc.reallyExit, found, 'the guard stays in place');
    w.state.exitingWith = 130;
    t.doesNotThrow(() => w.proc.reallyExit!(130), 'the exit does not recurse until the stack runs out');
    t.same(w.calls, ['wrapper(130)', 'real(130)'], "signal-exit's wrapper once, then Node's own");
    // its unload() puts back what it found: the guard; Node's own is called directly then
    const again = world();
    const g = again.proc.reallyExit!;
    again.proc.reallyExit = (c?: number): never => g.call(again.proc, c);
    again.proc.reallyExit = g;
    again.state.exitingWith = 3;
    t.doesNotThrow(() => again.proc.reallyExit!(0));
    t.same(again.calls, ['real(3)']);
  },
);
