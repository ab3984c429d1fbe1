// What merge's scan reads of its inputs: a run's report among files that are no report (a large dump named .xml, a
// FIFO, a token file), each read within a bound and told without its text.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  ftruncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectInputs, MAX_REPORT_BYTES } from '../../lib/merge/collect.js';

const summary = new URL('../fixtures/report/real-1.10.5-cold-summary.json', import.meta.url).pathname;

/** A sparse file of `size` bytes that starts with `start` (no disk taken). */
function sparse(path: string, size: number, start = ''): void {
  const fd = openSync(path, 'w');
  try {
    if (start) writeSync(fd, start);
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
}

function runFolder(root: string): string {
  const dir = join(root, 'r', 'run-1');
  mkdirSync(dir, { recursive: true });
  copyFileSync(summary, join(dir, 'summary.json'));
  return join(root, 'r');
}

t.test('a 1 GiB dump named .xml beside a run is passed over without being read whole', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'merge-collect-'));
  t.teardown(() => execFileSync('rm', ['-rf', root]));
  const r = runFolder(root);
  sparse(join(r, 'libvirt-dump.xml'), 1024 ** 3);
  const before = process.memoryUsage().rss;
  const started = Date.now();
  const got = await collectInputs(['r'], { cwd: root, outDir: 'merged' });
  const grew = process.memoryUsage().rss - before;
  t.same(got.problems, [], 'no problem: the dump is no JUnit file, and the run is read');
  t.equal(got.sessions.length, 1, "the run's summary.json is read");
  t.ok(grew < 200 * 1024 ** 2, `memory grew by ${Math.round(grew / 1024 ** 2)} MiB, under 200 MiB`);
  t.ok(Date.now() - started < 30_000, `within 30 s (${Date.now() - started} ms)`);
});

t.test('a JUnit-looking file over the bound is a problem of that file, not read', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'merge-collect-'));
  t.teardown(() => execFileSync('rm', ['-rf', root]));
  const r = runFolder(root);
  sparse(join(r, 'huge.xml'), MAX_REPORT_BYTES + 1, '<?xml version="1.0"?>\n<testsuites name="x">');
  const got = await collectInputs(['r'], { cwd: root, outDir: 'merged' });
  t.equal(got.problems.length, 1, 'one problem');
  t.equal(got.problems[0]?.value, join('r', 'huge.xml'), 'naming the file');
  t.match(got.problems[0]?.message, /more than any input/, 'by its size');
  t.equal(got.sessions.length, 1, 'the run is still read');
});

t.test('a FIFO given as an input is told at once, not waited on', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'merge-collect-'));
  t.teardown(() => execFileSync('rm', ['-rf', root]));
  runFolder(root);
  execFileSync('mkfifo', [join(root, 'junit.xml')]);
  const started = Date.now();
  const got = await collectInputs(['r', 'junit.xml'], { cwd: root, outDir: 'merged' });
  t.ok(Date.now() - started < 10_000, `within 10 s (${Date.now() - started} ms)`);
  t.match(
    got.problems.map((p) => `${String(p.value)}: ${p.message}`),
    [/^junit\.xml: is a named pipe/],
    'the FIFO named as one',
  );
});

t.test('a token file given as a report is told without its text', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'merge-collect-'));
  t.teardown(() => execFileSync('rm', ['-rf', root]));
  const token = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';
  writeFileSync(join(root, 'token.json'), `${token}\n`);
  const got = await collectInputs(['token.json'], { cwd: root, outDir: 'merged' });
  const said = JSON.stringify(got.problems);
  t.match(said, /is not JSON \(Unexpected token 'g'; its text not shown\)/, 'told as no JSON');
  t.notMatch(said, /16C7|ghp_1/, 'no part of the token');
});
