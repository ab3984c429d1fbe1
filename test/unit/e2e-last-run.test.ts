// Every e2e file has a row in docs/findings.md's last-run table, and every row names a file that exists: a check or
// scenario change is done only when the e2e files it can affect have run on it, and this table is where that shows.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';

const ROOT = new URL('../../', import.meta.url);
const doc = readFileSync(new URL('docs/findings.md', ROOT), 'utf8');
const table = /<!-- e2e-last-run:begin -->([^]*?)<!-- e2e-last-run:end -->/.exec(doc)?.[1] ?? '';
const rows = table.split('\n').filter((l) => /^\| `[^`]+\.test\.ts` \|/.test(l));
const named = rows.map((l) => /^\| `([^`]+)`/.exec(l)![1]!);
const files = readdirSync(new URL('test/e2e/', ROOT))
  .filter((f) => f.endsWith('.test.ts'))
  .sort();

t.test('docs/findings.md has the table', async (t) => {
  t.ok(rows.length > 0, 'rows between the markers');
  for (const l of rows) t.equal(l.split('|').length - 2, 5, `five columns: ${l.slice(0, 60)}`);
});

t.test('every e2e file has exactly one row, and every row names an e2e file', async (t) => {
  t.same(
    files.filter((f) => !named.includes(f)),
    [],
    'files without a row',
  );
  t.same(
    named.filter((f) => !files.includes(f)),
    [],
    'rows without a file',
  );
  t.same(
    named.filter((f, i) => named.indexOf(f) !== i),
    [],
    'files with two rows',
  );
});
