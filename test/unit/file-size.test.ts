// Files a reader can hold: no lib/ TypeScript file is over 400 lines. A file that grows past it is split by what its
// parts do (one planner, one subject of keys, one wait), each part opening with its purpose.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_LINES = 400;

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

/** Lines as `wc -l` counts them: a last line without a newline counts too. */
const linesOf = (text: string) => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));

t.test(`no lib/ file is over ${MAX_LINES} lines`, async (t) => {
  const files = walk(join(ROOT, 'lib'));
  t.ok(files.length > 100, 'the walk finds lib/');
  const long = files
    .map((f) => ({ file: relative(ROOT, f), lines: linesOf(readFileSync(f, 'utf8')) }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.file}: ${f.lines} lines`);
  t.same(long, [], 'split each into files a reader can hold, each opening with its purpose');
});

t.test('the line count is the one wc -l gives', async (t) => {
  t.equal(linesOf('a\nb\n'), 2);
  t.equal(linesOf('a\nb'), 2);
  t.equal(linesOf(''), 0);
});
