// tools/build-key.ts: the test build is skipped only when the tree is what it was made from.
import t from 'tap';
import { appendFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildKey } from '../../tools/build-key.js';

const opts = { skip: new Set(['node_modules', '.test-build']), wholeFiles: ['package.json'], extra: ['v20'] };

t.test('the key changes with what the build reads, and only with that', async (t) => {
  const root = t.testdir({
    'package.json': '{ "name": "x" }\n',
    lib: { 'a.ts': 'export const a = 1;\n', 'b.d.ts': 'export {};\n', 'data.json': '{}\n' },
    fixtures: { 'x.txt': 'x\n' },
    node_modules: { dep: { 'index.ts': 'export {};\n' } },
  });
  const key = () => buildKey(root, opts);
  const first = await key();
  t.equal(await key(), first, 'the same tree, the same key');
  utimesSync(join(root, 'lib', 'a.ts'), new Date(0), new Date(0));
  t.equal(await key(), first, 'a file touched but not changed: the same key');
  appendFileSync(join(root, 'fixtures', 'x.txt'), 'more\n');
  appendFileSync(join(root, 'lib', 'b.d.ts'), '// more\n');
  appendFileSync(join(root, 'node_modules', 'dep', 'index.ts'), '// more\n');
  t.equal(await key(), first, 'a linked file, a declaration or a skipped folder changed: the same key');

  const changes: [string, () => void][] = [
    ['a TypeScript file changed', () => appendFileSync(join(root, 'lib', 'a.ts'), '// more\n')],
    ['a file read whole changed', () => writeFileSync(join(root, 'package.json'), '{ "name": "y" }\n')],
    ['a file added', () => writeFileSync(join(root, 'lib', 'c.txt'), '')],
    ['a folder added', () => mkdirSync(join(root, 'lib', 'sub'))],
  ];
  let last = first;
  for (const [what, change] of changes) {
    change();
    const now = await key();
    t.not(now, last, `${what}: another key`);
    last = now;
  }
  t.not(await buildKey(root, { ...opts, extra: ['v22'] }), last, 'another Node or build setting: another key');
});
