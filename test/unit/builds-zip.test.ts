// Taking the nomad binary out of a release zip in memory: stored and deflated entries, damage detected.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { extractZipEntry } from '../../lib/builds/zip.js';
import { makeZip } from '../helpers/zip-writer.js';

const payload = Buffer.concat([Buffer.from('\x7fELF'), Buffer.alloc(100_000, 7), Buffer.from('end')]);

t.test('deflated and stored entries come out byte for byte', async (t) => {
  const license = { name: 'LICENSE.txt', data: Buffer.from('MPL'), deflate: false };
  const zip = makeZip([license, { name: 'nomad', data: payload }]);
  const r = extractZipEntry(zip, 'nomad');
  t.ok('data' in r && r.data.equals(payload));
  t.ok(zip.length < payload.length / 10, 'the entry really was deflated');
  const s = extractZipEntry(zip, 'LICENSE.txt');
  t.ok('data' in s && s.data.toString() === 'MPL');
});

t.test('damage and absence are errors that say what is wrong', async (t) => {
  const zip = makeZip([{ name: 'nomad', data: payload, deflate: false }]);
  t.match(extractZipEntry(zip, 'consul'), { error: /holds no consul \(it holds nomad\)/ });
  const flipped = Buffer.from(zip);
  const at = 30 + 'nomad'.length + 50;
  flipped[at] = flipped[at]! ^ 0xff;
  t.match(extractZipEntry(flipped, 'nomad'), { error: /CRC-32 mismatch/ });
  t.match(extractZipEntry(Buffer.from('not a zip at all, just text'), 'nomad'), { error: /not a zip archive/ });
  t.match(extractZipEntry(Buffer.alloc(0), 'nomad'), { error: /not a zip archive/ });
  const deflated = makeZip([{ name: 'nomad', data: payload }]);
  const cut = Buffer.concat([deflated.subarray(0, 40), deflated.subarray(deflated.length - 22 - 51)]);
  t.ok('error' in extractZipEntry(cut, 'nomad'), 'a zip cut in the middle');
});

let haveZip = true;
try {
  execFileSync('zip', ['-v'], { stdio: 'ignore' });
} catch {
  haveZip = false;
}

const noZip = haveZip ? false : 'the zip command is not installed';
t.test('a zip made by Info-ZIP reads the same', { skip: noZip }, async (t) => {
  const dir = t.testdir();
  writeFileSync(join(dir, 'nomad'), payload);
  writeFileSync(join(dir, 'LICENSE.txt'), 'MPL-2.0\n');
  execFileSync('zip', ['-q', '-X', 'out.zip', 'nomad', 'LICENSE.txt'], { cwd: dir });
  const r = extractZipEntry(readFileSync(join(dir, 'out.zip')), 'nomad');
  t.ok('data' in r && r.data.equals(payload));
});
