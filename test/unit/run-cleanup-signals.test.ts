// CleanupStack (LIFO, once, errors collected, --keep) and watchSignals (first signal aborts, second SIGINT exits).
import { EventEmitter } from 'node:events';
import t from 'tap';
import { InterruptedError } from '../../lib/errors.js';
import type { LogEvent } from '../../lib/log/events.js';
import { CleanupStack } from '../../lib/run/cleanup.js';
import { watchSignals } from '../../lib/run/signals.js';

t.test('cleanup runs newest first, each entry once', async (t) => {
  const order: string[] = [];
  const log: LogEvent[] = [];
  const c = new CleanupStack((e) => void log.push(e));
  for (const n of ['network', 'server vm', 'client vm']) c.defer(n, async () => void order.push(n));
  t.same(c.pending(), ['client vm', 'server vm', 'network']);
  t.same(await c.run(), []);
  t.same(order, ['client vm', 'server vm', 'network']);
  t.same(
    log.map((e) => e.kind === 'cleanup' && `${e.what}:${e.ok}`),
    ['client vm:true', 'server vm:true', 'network:true'],
  );
  t.same(c.pending(), []);
  t.same(await c.run(), [], 'a later run does nothing more');
  t.equal(order.length, 3);
});

t.test('a second run() while the first is running waits for it and runs nothing twice', async (t) => {
  const c = new CleanupStack();
  let calls = 0;
  let release!: () => void;
  c.defer('slow', () => {
    calls++;
    return new Promise<void>((r) => (release = r));
  });
  const first = c.run();
  const second = c.run();
  t.equal(first, second, 'the same promise');
  let secondDone = false;
  void second.then(() => (secondDone = true));
  await new Promise((r) => setTimeout(r, 20));
  t.equal(secondDone, false, 'the second call has not returned before the first finished');
  release();
  await second;
  t.equal(calls, 1);
});

t.test('a failing entry does not stop the rest and is reported', async (t) => {
  const order: string[] = [];
  const log: LogEvent[] = [];
  const c = new CleanupStack((e) => void log.push(e));
  c.defer('a', async () => void order.push('a'));
  c.defer('b', async () => {
    throw new Error('vagrant destroy exited 1');
  });
  c.defer('c', async () => void order.push('c'));
  const failures = await c.run();
  t.same(order, ['c', 'a']);
  t.equal(failures.length, 1);
  t.equal(failures[0]!.what, 'b');
  t.match(failures[0]!.error, { message: 'vagrant destroy exited 1' });
  t.match(log, [
    { what: 'c', ok: true },
    { what: 'b', ok: false, message: 'vagrant destroy exited 1' },
    { what: 'a', ok: true },
  ]);
});

t.test('an entry registered during cleanup still runs', async (t) => {
  const order: string[] = [];
  const c = new CleanupStack();
  c.defer('outer', async () => {
    order.push('outer');
    c.defer('late', async () => void order.push('late'));
  });
  await c.run();
  t.same(order, ['outer', 'late']);
});

t.test(
  "defer returns a remover; release() keeps the VMs but still frees this process's own handles (--keep)",
  async (t) => {
    const ran: string[] = [];
    const c = new CleanupStack();
    c.defer('vm', async () => void ran.push('vm'));
    const remove = c.defer('tunnel', async () => void ran.push('tunnel'));
    remove();
    t.same(c.pending(), ['vm']);
    c.defer('ssh connections', async () => void ran.push('ssh'), { alsoWhenKept: true });
    c.defer('dir', async () => void ran.push('dir'));
    t.same(c.pending(), ['dir', 'vm'], 'what --keep keeps, newest first');
    t.same(await c.release(), ['dir', 'vm'], 'names newest first');
    t.same(ran, ['ssh'], 'only the connection cleanup ran');
    t.same(await c.run(), []);
    t.same(ran, ['ssh'], 'nothing else ran after release');
  },
);

t.test(
  'signals: the first SIGINT aborts with InterruptedError and calls onFirst; a second SIGINT calls onSecond',
  async (t) => {
    const proc = new EventEmitter();
    const first: string[] = [];
    let second = 0;
    const w = watchSignals({ proc, onFirst: (s) => void first.push(s), onSecond: () => void second++ });
    t.equal(w.signal.aborted, false);
    t.equal(w.received(), undefined);
    proc.emit('SIGINT', 'SIGINT');
    t.equal(w.signal.aborted, true);
    t.type(w.signal.reason, InterruptedError);
    t.match(w.signal.reason, { message: 'interrupted by SIGINT', exitCode: 130 });
    t.same(first, ['SIGINT']);
    t.equal(second, 0);
    t.equal(w.received(), 'SIGINT');
    proc.emit('SIGINT', 'SIGINT');
    t.equal(second, 1, 'second SIGINT: exit at once');
    t.same(first, ['SIGINT'], 'onFirst only once');
    w.dispose();
  },
);

t.test('signals: SIGTERM aborts too; a SIGTERM after the first signal does not force an exit', async (t) => {
  const proc = new EventEmitter();
  let second = 0;
  const w = watchSignals({ proc, onFirst: () => {}, onSecond: () => void second++ });
  proc.emit('SIGTERM', 'SIGTERM');
  t.equal(w.signal.aborted, true);
  t.match(w.signal.reason, { message: 'interrupted by SIGTERM' });
  t.equal(w.received(), 'SIGTERM');
  proc.emit('SIGTERM', 'SIGTERM');
  t.equal(second, 0);
  proc.emit('SIGINT', 'SIGINT');
  t.equal(second, 1, 'Ctrl-C during cleanup still exits');
  w.dispose();
});

t.test('signals: dispose removes the listeners', async (t) => {
  const proc = new EventEmitter();
  const w = watchSignals({ proc, onFirst: () => {}, onSecond: () => {} });
  t.equal(proc.listenerCount('SIGINT'), 1);
  t.equal(proc.listenerCount('SIGTERM'), 1);
  w.dispose();
  t.equal(proc.listenerCount('SIGINT'), 0);
  t.equal(proc.listenerCount('SIGTERM'), 0);
  proc.emit('SIGINT', 'SIGINT');
  t.equal(w.signal.aborted, false, 'a signal after dispose does nothing');
});

t.test('--keep reports what it kept as described, not as the teardown that did not run', async (t) => {
  const c = new CleanupStack();
  const ran: string[] = [];
  c.defer('vagrant destroy -f (run r1, /tmp/w/r1)', async () => void ran.push('destroy'), {
    keptAs: () => 'lab r1 (libvirt) in /tmp/w/r1\n  ssh client: ssh -F /tmp/w/r1/ssh-config r1-client',
  });
  c.defer('artifact dir', async () => void ran.push('dir'));
  c.defer('close the SSH connections', async () => void ran.push('ssh'), { alsoWhenKept: true });
  const kept = await c.release();
  t.same(kept, ['artifact dir', 'lab r1 (libvirt) in /tmp/w/r1\n  ssh client: ssh -F /tmp/w/r1/ssh-config r1-client']);
  t.notMatch(kept.join('\n'), /vagrant destroy -f \(run/, 'no line that reads as if a destroy ran');
  t.same(ran, ['ssh']);
});
