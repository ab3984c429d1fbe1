// The integration files that share a test process (tools/test-groups.ts) exist and keep to themselves: a file that set
// the root test's timeout or changed process.env would change its group's other files, which pass alone.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  groupTimeoutSource,
  INTEGRATION_GROUPS,
  integrationGroups,
  SHARED_FILE_MUST_NOT,
  SHARED_INTEGRATION,
  SHARED_INTEGRATION_SECONDS,
  UNIT_GROUPS,
  UNIT_SECONDS,
  unitGroups,
} from '../../tools/test-groups.js';

const file = (name: string) => fileURLToPath(new URL(`../integration/${name}.test.ts`, import.meta.url));

t.test('every shared integration file exists, once', async (t) => {
  t.same(
    SHARED_INTEGRATION.filter((n) => !existsSync(file(n))),
    [],
  );
  t.equal(new Set(SHARED_INTEGRATION).size, SHARED_INTEGRATION.length, 'no name twice');
});

t.test('no shared integration file reaches into its group', async (t) => {
  const found = SHARED_INTEGRATION.flatMap((n) => {
    const text = readFileSync(file(n), 'utf8');
    return SHARED_FILE_MUST_NOT.filter((r) => r.pattern.test(text)).map((r) => `${n}: ${r.what}`);
  });
  t.same(found, []);
});

t.test('the rules find what they are about', async (t) => {
  const hits = (text: string) => SHARED_FILE_MUST_NOT.filter((r) => r.pattern.test(text)).map((r) => r.what);
  t.same(hits('t.setTimeout(60_000);\n'), [], "the file's own timeout: in a group it can only lengthen the group's");
  t.same(hits('t.jobs = 2;\n'), ['set a plan, hook or jobs on the root test']);
  t.same(hits('t.before(async () => {});\n'), ['set a plan, hook or jobs on the root test']);
  t.same(hits("t.test('x', async (t) => {\n  t.setTimeout(5000);\n});\n"), [], "a subtest's own timeout is its own");
  t.same(hits("import { startSshd } from '../helpers/sshd.js';\n"), ['start a real sshd']);
  t.same(hits('const sshd = await sshdForTest(t);\n'), ['await at the top level']);
  t.same(hits('  const r = await main(argv, deps);\n'), [], 'an await inside a test');
  t.same(hits("process.env['HOME'] = dir;\n"), ['change process.env']);
  t.same(hits('process.env.CI = "true";\n'), ['change process.env']);
  t.same(hits("const home = process.env['HOME'] === undefined;\n"), [], 'a read');
  t.same(hits("process.on('SIGINT', () => {});\n"), ["change the process's working directory or signal handlers"]);
  t.same(
    hits('noLabLines(dir, env, { labless: true, chdir: true });\n'),
    ["change the process's working directory or signal handlers"],
    'through the in-process CLI helper',
  );
});

t.test(
  'the groups: every shared file once, placed by its seconds so that no group is far past the others',
  async (t) => {
    const groups = integrationGroups();
    t.equal(groups.length, INTEGRATION_GROUPS);
    t.same(groups.flat().sort(), [...SHARED_INTEGRATION].sort(), 'each file in one group');
    const sums = groups.map((g) => g.reduce((a, n) => a + (SHARED_INTEGRATION_SECONDS[n] ?? 5), 0));
    const longest = Math.max(...Object.values(SHARED_INTEGRATION_SECONDS));
    // longest first into the emptiest group: the last group to end is past the first by less than one file
    t.ok(Math.max(...sums) - Math.min(...sums) <= longest, `group seconds ${sums.map((x) => x.toFixed(1)).join(', ')}`);
    t.same(integrationGroups(), groups, 'the same groups every build');
    t.same(integrationGroups(['a', 'b', 'c', 'd'], 2, { a: 1, b: 5, c: 3, d: 3 }), [
      ['a', 'b'],
      ['c', 'd'],
    ]);
  },
);

t.test("a member's own root timeout can lengthen its group's, not cut it", async (t) => {
  const dir = t.testdir({});
  writeFileSync(join(dir, 'group-timeout.mjs'), groupTimeoutSource(2_000));
  // the member asks for 300 ms (as a file that runs alone asks for its own), then a test takes 1 s
  writeFileSync(
    join(dir, 'member.mjs'),
    "import t from 'tap';\nt.setTimeout(300);\nt.test('takes 1 s', async (t) => {\n  await new Promise((r) => setTimeout(r, 1_000));\n  t.pass('done');\n});\n",
  );
  writeFileSync(join(dir, 'group.mjs'), "import './group-timeout.mjs';\nawait import('./member.mjs');\n");
  const env = { ...process.env, NODE_OPTIONS: '' };
  const r = spawnSync(process.execPath, [join(dir, 'group.mjs')], { encoding: 'utf8', env, timeout: 60_000 });
  t.equal(r.status, 0, `the group's 2 s held:\n${r.stdout}${r.stderr}`);
  t.match(r.stdout, /^ok 1 - takes 1 s/m);
  // and the same member with no group before it is cut at its 300 ms: the member alone is what the test says
  writeFileSync(join(dir, 'alone.mjs'), "await import('./member.mjs');\n");
  const alone = spawnSync(process.execPath, [join(dir, 'alone.mjs')], { encoding: 'utf8', env, timeout: 60_000 });
  t.equal(alone.status, 1, 'alone, its 300 ms cut it');
  t.match(alone.stdout, /timeout/i);
});

t.test('the unit groups: every unit file once; every file UNIT_SECONDS names exists', async (t) => {
  const names = readdirSync(fileURLToPath(new URL('.', import.meta.url)))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => f.replace(/\.test\.ts$/, ''));
  const groups = unitGroups(names);
  t.equal(groups.length, UNIT_GROUPS);
  t.same(groups.flat().sort(), [...names].sort(), 'each file in one group');
  t.same(
    Object.keys(UNIT_SECONDS).filter((n) => !names.includes(n)),
    [],
    'no name of a file that is gone',
  );
});
