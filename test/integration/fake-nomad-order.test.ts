// The Nomad API STAND-IN's clock (test/helpers/fake-nomad/cluster.ts later/at), not Nomad: its changes run in the
// order Nomad makes them even when the test process stalls (a loaded machine). Node alone does not keep that order:
// after a stall it runs expired timers one duration list at a time, so a step-2 change could run before a step-1 one
// scheduled with it, which once left a rebooted alloc pending for good and hung a run.
import t from 'tap';
import { Cluster } from '../helpers/fake-nomad/cluster.js';

const STEP = 20;
const spin = (ms: number) => {
  const end = Date.now() + ms;
  while (Date.now() < end);
};
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('after a stall, changes run by due time, then in the order they were scheduled', async (t) => {
  const c = new Cluster('client', '1.9.7', STEP);
  t.teardown(() => c.close());
  const order: string[] = [];
  c.later(2, () => order.push('older step 2'));
  spin(30);
  c.later(1, () => order.push('step 1'));
  c.later(2, () => order.push('step 2'));
  c.later(2, () => order.push('step 2, scheduled after'));
  c.at(Date.now() + 5 * STEP, () => order.push('at +5 steps'));
  spin(200); // the stall: every change above is due when the loop runs again
  await settle(50);
  t.same(order, ['older step 2', 'step 1', 'step 2', 'step 2, scheduled after', 'at +5 steps']);
});

t.test('a change scheduled by a change runs after it, and nothing runs after close', async (t) => {
  const c = new Cluster('client', '1.9.7', STEP);
  const order: string[] = [];
  // 'first' runs a step late (the spin) before it schedules: 'second' was scheduled before any timer ran, so it is due
  // first however long this process stalled between the two later() calls (on time, 'first' ran before 'second' was
  // due, and a change scheduled for then came before it: by due time, as the clock promises)
  c.later(1, () => {
    order.push('first');
    spin(STEP);
    c.later(0, () => order.push('scheduled by first'));
  });
  c.later(1, () => order.push('second'));
  await settle(5 * STEP);
  t.same(order, ['first', 'second', 'scheduled by first']);
  c.later(1, () => order.push('after close'));
  c.close();
  await settle(3 * STEP);
  t.equal(order.length, 3, 'closed: the pending change did not run');
});
