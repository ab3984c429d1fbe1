// test/helpers/bare-children: a process a test starts carries none of tap's process-info hooks (which made each Node
// child register a module loader thread), and whatever else NODE_OPTIONS holds stays.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

t.test(
  'test/helpers/processinfo-off.cjs: preloaded before the hooks by every tier, it excludes every module',
  async (t) => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    for (const name of ['test:unit', 'test:integration', 'test:tiers']) {
      const args = pkg.scripts[name]!.split(' ');
      const at = args.indexOf('--node-arg=--require=./.test-build/test/helpers/processinfo-off.cjs');
      t.ok(at > 0, `${name} preloads it`);
      // Node runs every --require before the first --import, wherever they stand; the flag is named as a require
      t.notOk(
        args.some((a) => a.includes('processinfo-off') && a.includes('--import')),
        `${name}: as a --require`,
      );
    }
    const r = spawnSync(
      process.execPath,
      [
        '--require',
        './test/helpers/processinfo-off.cjs',
        '-e',
        'process.stdout.write(process.env._TAPJS_PROCESSINFO_EXCLUDE_)',
      ],
      { encoding: 'utf8' },
    );
    t.equal(r.status, 0, r.stderr);
    // as @tapjs/processinfo reads it (get-exclude.js): /source/flags, tested against each module's path
    const m = /^\/(.*)\/([a-z]*)$/.exec(r.stdout);
    t.ok(m, `a /pattern/: ${r.stdout}`);
    const re = new RegExp(m![1]!, m![2]);
    for (const path of ['/work/x/.test-build/test/chunks/chunk-ABC.js', '/work/x/node_modules/tap/dist/esm/index.js']) {
      t.ok(re.test(path), `excludes ${path}`);
    }
  },
);
