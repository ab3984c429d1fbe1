// The build cache's place and entries, and the progress lines of a long build.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { binaryPath, cacheRoot, cachedBinary, commitBinary, sha256Of, workDir } from '../../lib/builds/cache.js';
import { phases } from '../../lib/builds/progress.js';
import type { LogEvent } from '../../lib/log/events.js';

t.test('the cache root honours XDG_CACHE_HOME, else ~/.cache', async (t) => {
  t.equal(cacheRoot({ XDG_CACHE_HOME: '/x/cache' }, '/home/u'), '/x/cache/nomad-reboot-harness/builds');
  t.equal(cacheRoot({}, '/home/u'), '/home/u/.cache/nomad-reboot-harness/builds');
  t.equal(
    cacheRoot({ XDG_CACHE_HOME: ' ' }, '/home/u'),
    '/home/u/.cache/nomad-reboot-harness/builds',
    'blank is unset',
  );
});

t.test('entries: committed by sha256, re-hashed on use, a damaged one dropped', async (t) => {
  const root = t.testdir();
  const body = Buffer.from('\x7fELF pretend binary');
  const sha = sha256Of(body);
  const file = join(await workDir(root, 'x'), 'nomad');
  writeFileSync(file, body);
  const path = await commitBinary(root, file, sha, { spec: 'test' });
  t.equal(path, binaryPath(root, sha));
  t.same(readFileSync(path), body);
  t.match(JSON.parse(readFileSync(join(root, sha, 'build.json'), 'utf8')), { spec: 'test' });
  t.equal(await cachedBinary(root, sha), path);
  const again = join(await workDir(root, 'y'), 'nomad');
  writeFileSync(again, body);
  t.equal(await commitBinary(root, again, sha, {}), path, 'committing the same binary twice keeps the first');
  writeFileSync(path, 'tampered');
  t.equal(await cachedBinary(root, sha), undefined, 'a binary that no longer hashes right is a miss');
  t.notOk(existsSync(join(root, sha)), 'and its entry is gone');
});

t.test('phases: numbered, timed, a heartbeat while one runs long, a line when one fails', async (t) => {
  const events: LogEvent[] = [];
  const p = phases((e) => void events.push(e), 'build x', 2, { heartbeatMs: 20, t: () => 1234 });
  const beats = () =>
    events.filter((e) => 'message' in e && /slow: running for \d+ms, 7 packages$/.test(e.message ?? '')).length;
  await p.run('slow', async (note) => {
    note('7 packages');
    // until two heartbeats came (each one heartbeatMs apart), however slow this machine is; 10 s at most
    for (let i = 0; i < 500 && beats() < 2; i++) await new Promise((r) => setTimeout(r, 20));
  });
  await t.rejects(
    p.run('broken', async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  const lines = events.map((e) => ('message' in e ? (e.message ?? '') : ''));
  t.equal(lines[0], 'build x: [1/2] slow …');
  t.ok(
    lines.filter((l) => /^build x: \[1\/2\] slow: running for \d+ms, 7 packages$/.test(l)).length >= 2,
    'heartbeats',
  );
  t.match(lines.find((l) => /done in/.test(l)) ?? '', /^build x: \[1\/2\] slow: done in \d+ms \(7 packages\)$/);
  t.match(lines.at(-1) ?? '', /^build x: \[2\/2\] broken: failed after \d+ms$/);
  t.ok(
    events.every((e) => e.t === 1234),
    'the time comes from the caller',
  );
});
