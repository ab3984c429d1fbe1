// The per-provider lock file: exclusive, waits for a live holder, takes over a dead PID's lock, names the holder on timeout.
import t from 'tap';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { lockPath, withLock } from '../../lib/vagrant/lock.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { TimeoutError } from '../../lib/errors.js';

t.test('lock path is per provider under the given dir', async (t) => {
  t.equal(lockPath('libvirt', '/x'), '/x/nomad-reboot-harness-vagrant-libvirt.lock');
  t.equal(lockPath('../evil', '/x'), '/x/nomad-reboot-harness-vagrant-___evil.lock');
});

t.test('holds our PID while running and removes the file afterwards', async (t) => {
  const file = lockPath('libvirt', t.testdir());
  const seen = await withLock(file, async () => readFileSync(file, 'utf8'), { deadline: deadlineIn(2000) });
  t.equal(seen.trim(), String(process.pid));
  t.notOk(existsSync(file));
});

t.test('two holders in one process never overlap', async (t) => {
  const file = lockPath('libvirt', t.testdir());
  const log: string[] = [];
  const job = (n: string) =>
    withLock(
      file,
      async () => {
        log.push(`${n}+`);
        await new Promise((r) => setTimeout(r, 300));
        log.push(`${n}-`);
      },
      { deadline: deadlineIn(5000) },
    );
  await Promise.all([job('a'), job('b')]);
  t.ok(log.join() === 'a+,a-,b+,b-' || log.join() === 'b+,b-,a+,a-', `serialized: ${log.join()}`);
});

t.test('a stale lock of a dead PID is taken over', async (t) => {
  const file = lockPath('libvirt', t.testdir());
  const dead = spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim(); // a PID that has exited
  writeFileSync(file, `${dead}\n`);
  const ran = await withLock(file, async () => true, { deadline: deadlineIn(3000) });
  t.equal(ran, true);
});

t.test('a lock held by a live process times out naming the holder', async (t) => {
  const file = lockPath('libvirt', t.testdir());
  writeFileSync(file, '1\n'); // PID 1 is always alive
  const err = await withLock(file, async () => 'ran', { deadline: deadlineIn(600) }).catch((e: unknown) => e);
  t.type(err, TimeoutError);
  t.match(String(err), /lock .*libvirt\.lock: gave up after .*held by PID 1/);
  t.equal(readFileSync(file, 'utf8'), '1\n', 'someone else’s lock is left alone');
});

// Note: the race this guards (a lock file seen empty between its creation and its PID being written, taken over as a
// dead holder's) was seen once, under load, as two overlapping `vagrant up`s; it does not reproduce on demand in one
// process, so this test asserts the invariant, and the fix (the file linked into place with the PID in it) removes the window.
t.test("many contenders at once: one holder at a time, and no live holder's lock taken over as stale", async (t) => {
  const dir = t.testdir();
  const file = lockPath('libvirt', dir);
  const warnings: string[] = [];
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 12 }, () =>
      withLock(
        file,
        async () => {
          most = Math.max(most, ++inside);
          await new Promise((r) => setTimeout(r, 5));
          inside--;
        },
        {
          deadline: deadlineIn(30_000),
          logger: (e) => void (e.kind === 'warn' && warnings.push(e.message)),
          // Note: polled often, the contenders try the lock more often than with the default back-off (up to 1 s)
          intervals: [5, 10, 20],
        },
      ),
    ),
  );
  t.equal(most, 1, 'never two inside');
  t.same(warnings, [], "nobody found the lock empty and called it a dead holder's");
  t.same(readdirSync(dir), [], 'the lock and every file written aside are gone');
});
