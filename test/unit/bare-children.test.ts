// test/helpers/bare-children: a process a test starts carries none of tap's process-info hooks (which made each Node
// child register a module loader thread), and whatever else NODE_OPTIONS holds stays.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { withoutProcessInfo } from '../helpers/bare-children.js';

const HOOK = '--import=file:///x/node_modules/@tapjs/processinfo/dist/esm/import.mjs';

t.test('withoutProcessInfo drops the hook, quoted or not, and keeps the rest', async (t) => {
  t.equal(withoutProcessInfo(`"${HOOK}"`), '');
  t.equal(withoutProcessInfo(HOOK), '');
  t.equal(
    withoutProcessInfo(`--max-old-space-size=512 "${HOOK}" --trace-warnings`),
    '--max-old-space-size=512  --trace-warnings',
  );
  t.equal(withoutProcessInfo('--import=tsx --enable-source-maps'), '--import=tsx --enable-source-maps');
  t.equal(withoutProcessInfo(''), '');
});

t.test('a Node child started under tap gets no processinfo hook, even with an env of its own', async (t) => {
  // the hook was put back on every spawn by process-on-spawn, whatever env the spawn passed
  for (const env of [undefined, { ...process.env, HARNESS_X: '1' }]) {
    const r = spawnSync(
      process.execPath,
      ['-e', 'process.stdout.write(JSON.stringify([process.env.NODE_OPTIONS ?? null, process.execArgv]))'],
      { encoding: 'utf8', env },
    );
    t.equal(r.status, 0, r.stderr);
    const [options, execArgv] = JSON.parse(r.stdout) as [string | null, string[]];
    t.notMatch(options ?? '', /@tapjs\/processinfo/, 'not in NODE_OPTIONS');
    t.notMatch(execArgv.join(' '), /@tapjs\/processinfo/, 'not in its arguments');
  }
});
