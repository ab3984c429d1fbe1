// readInputFile, the one guarded read of a user-named file: what it returns for each kind of path, and that a FIFO
// with no writer is refused at once instead of holding the read.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readInputFile } from '../../lib/input/read.js';

const dir = mkdtempSync(join(tmpdir(), 'input-read-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('a regular file: its bytes', async (t) => {
  const f = join(dir, 'job.hcl');
  writeFileSync(f, 'job "x" {}\n');
  const r = await readInputFile(f);
  t.ok(r.ok);
  if (r.ok) t.equal(r.bytes.toString(), 'job "x" {}\n');
});

t.test('/dev/null reads as empty: a way to give nothing', async (t) => {
  const r = await readInputFile('/dev/null');
  t.ok(r.ok);
  if (r.ok) t.equal(r.bytes.length, 0);
});

t.test('a FIFO with no writer: refused at once, nothing read', async (t) => {
  const f = join(dir, 'fifo');
  execFileSync('mkfifo', [f]);
  const started = Date.now();
  const r = await readInputFile(f);
  t.notOk(r.ok);
  if (!r.ok) t.match(r.message, /^is a named pipe \(FIFO\), not a file: reading it would wait for a writer/);
  t.ok(Date.now() - started < 2000, `answered in ${Date.now() - started} ms`);
});

t.test('/dev/zero: refused as a device (read whole it never ends)', async (t) => {
  const r = await readInputFile('/dev/zero');
  t.notOk(r.ok);
  if (!r.ok) t.match(r.message, /^is a character device, not a file: reading it would not end/);
});

t.test('a socket: refused', async (t) => {
  const f = join(dir, 'sock');
  const server = createServer();
  await new Promise<void>((res) => server.listen(f, res));
  t.teardown(() => server.close());
  const r = await readInputFile(f);
  t.notOk(r.ok);
  if (!r.ok) t.match(r.message, /^is a socket, not a file/);
});

t.test('a directory and a missing path: named by their code', async (t) => {
  const d = await readInputFile(dir);
  t.notOk(d.ok);
  if (!d.ok) t.equal(d.code, 'EISDIR');
  const m = await readInputFile(join(dir, 'nope'));
  t.notOk(m.ok);
  if (!m.ok) t.equal(m.code, 'ENOENT');
});

t.test('a file over the bound: refused with its size, not cut', async (t) => {
  const f = join(dir, 'big');
  writeFileSync(f, 'x'.repeat(101));
  const r = await readInputFile(f, { maxBytes: 100 });
  t.notOk(r.ok);
  if (!r.ok) t.match(r.message, /is 101 bytes, more than any input \(100\)/);
  const ok = await readInputFile(f, { maxBytes: 101 });
  t.ok(ok.ok && ok.bytes.length === 101, 'at the bound: read whole');
});

t.test('head: only the start, whatever the size; a FIFO still refused', async (t) => {
  const f = join(dir, 'long');
  writeFileSync(f, `<testsuites>${'x'.repeat(1000)}`);
  const r = await readInputFile(f, { maxBytes: 100, head: 12 });
  t.ok(r.ok && r.bytes.toString() === '<testsuites>', 'the first 12 bytes, past the bound');
  const short = await readInputFile(f, { head: 4096 });
  t.ok(short.ok && short.bytes.length === 1012, 'a file shorter than the head: all of it');
  const fifo = join(dir, 'head-fifo');
  execFileSync('mkfifo', [fifo]);
  const p = await readInputFile(fifo, { head: 10 });
  t.notOk(p.ok, 'a FIFO: refused');
});
