// The integration files that share a test process (tools/test-groups.ts) exist and keep to themselves: a file that set
// the root test's timeout or changed process.env would change its group's other files, which pass alone.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SHARED_FILE_MUST_NOT, SHARED_INTEGRATION } from '../../tools/test-groups.js';

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
  t.same(hits('t.setTimeout(60_000);\n'), ['set a timeout, plan or hook on the root test']);
  t.same(hits("t.test('x', async (t) => {\n  t.setTimeout(5000);\n});\n"), [], "a subtest's own timeout is its own");
  t.same(hits("import { startSshd } from '../helpers/sshd.js';\n"), ['start a real sshd']);
  t.same(hits('const sshd = await sshdForTest(t);\n'), ['await at the top level']);
  t.same(hits('  const r = await main(argv, deps);\n'), [], 'an await inside a test');
  t.same(hits("process.env['HOME'] = dir;\n"), ['change process.env']);
  t.same(hits('process.env.CI = "true";\n'), ['change process.env']);
  t.same(hits("const home = process.env['HOME'] === undefined;\n"), [], 'a read');
  t.same(hits("process.on('SIGINT', () => {});\n"), ["change the process's working directory or signal handlers"]);
});
