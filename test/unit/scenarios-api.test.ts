// The scenario API's pure parts: a module's default export judged as a scenario (every problem at once), names taken
// twice, checks judged and results held to the declared checks.
import t from 'tap';
import { checkIdProblems, duplicateNameProblems, scenarioShapeProblems } from '../../lib/scenario-api/shape.js';
import { defineCheck, judgeAll } from '../../lib/checks/define.js';
import { reconcileResults } from '../../lib/scenario-api/checks.js';
import { defineCheck as shippedDefineCheck, judgeAll as shippedJudgeAll } from '../../lib/checks/define.js';
import { CLIENT_REBOOTED } from '../../lib/checks/client-rebooted.js';
import { HOST_REBOOTED } from '../../lib/checks/host-rebooted.js';
import type { Scenario } from '../../lib/run/scenario.js';
import { loadScenarios } from '../../lib/scenario-api/load.js';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';

const check = defineCheck<unknown>({
  id: 'a-check',
  title: 'a check',
  passesWhen: 'always',
  judge: () => ({ status: 'passed', message: 'always' }),
});
const good = { name: 'mine', summary: 'does it', needsNomad: false, checks: [check], run: async () => [] };

t.test('a well-formed scenario has no problems', async (t) => {
  t.same(scenarioShapeProblems('f.ts', good), []);
});

t.test('every problem of one file at once, each naming the field', async (t) => {
  const p = scenarioShapeProblems('f.ts', {
    name: 'Bad Name',
    needsNomad: 'yes',
    checks: [
      { id: 'x', details: 3 },
      { id: 'x', title: 't', passesWhen: 'p', judge: () => undefined },
    ],
  });
  t.same(
    p.map((x) => x.field),
    [
      'f.ts: name',
      'f.ts: summary',
      'f.ts: needsNomad',
      'f.ts: run',
      'f.ts: checks[0].title',
      'f.ts: checks[0].passesWhen',
      'f.ts: checks[0].details',
      'f.ts: checks[0].judge',
      'f.ts: checks[1].id',
    ],
  );
  t.match(
    p.find((x) => x.field === 'f.ts: checks[0].judge'),
    { message: /must be a function/, fix: /defineCheck/ },
  );
  t.match(
    p.find((x) => x.field === 'f.ts: checks[1].id'),
    { value: 'x', message: 'is declared twice' },
  );
});

t.test('roles: the machines a scenario brings up, each once, of server and client', async (t) => {
  t.same(scenarioShapeProblems('f.ts', { ...good, roles: ['client'] }), []);
  for (const roles of [[], ['client', 'client'], ['worker'], 'client'])
    t.match(
      scenarioShapeProblems('f.ts', { ...good, roles }),
      [{ field: 'f.ts: roles', value: roles, fix: /roles: \['client'\]/ }],
      JSON.stringify(roles),
    );
});

t.test('no default export, not an object, no checks', async (t) => {
  t.match(scenarioShapeProblems('f.ts', undefined), [
    { field: 'f.ts', message: 'has no default export', fix: /export default defineScenario/ },
  ]);
  t.match(
    scenarioShapeProblems('f.ts', () => 1),
    [{ message: 'default export is not a scenario object' }],
  );
  t.match(scenarioShapeProblems('f.ts', { ...good, checks: undefined }), [
    { field: 'f.ts: checks', message: 'must declare at least one check' },
  ]);
  t.match(scenarioShapeProblems('f.ts', { ...good, checks: [] }), [{ field: 'f.ts: checks' }]);
});

t.test('names taken by a shipped scenario or by two files', async (t) => {
  const s = (name: string) => ({ ...good, name }) as unknown as Scenario;
  const p = duplicateNameProblems(
    [
      { file: 'a.ts', scenario: s('x') },
      { file: 'b.ts', scenario: s('x') },
      { file: 'c.ts', scenario: s('shipped') },
    ],
    ['shipped'],
  );
  t.same(
    p.map((x) => [x.field, x.message]),
    [
      ['b.ts: name', 'is already used by a.ts'],
      ['c.ts: name', 'is the name of a shipped scenario'],
    ],
  );
});

t.test("the scenario API's defineCheck and judgeAll are the shipped checks' own", async (t) => {
  t.equal(defineCheck, shippedDefineCheck);
  t.equal(judgeAll, shippedJudgeAll);
});

t.test("a user check may not take a shipped check's id, nor an old name of one", async (t) => {
  const own = (id: string) => defineCheck<unknown>({ ...check, id });
  const scen = (checks: unknown[]) => ({ ...good, checks }) as unknown as Scenario;
  const p = checkIdProblems(
    [
      { file: 'a.ts', scenario: scen([own('mine'), own(CLIENT_REBOOTED.id)]) },
      { file: 'b.ts', scenario: scen([own('mine'), own('unique-ips')]) },
    ],
    [CLIENT_REBOOTED, HOST_REBOOTED],
  );
  t.same(
    p.map((x) => [x.field, x.message]),
    [['a.ts: checks[1].id', 'is the id of the shipped check "Client rebooted" (client-rebooted)']],
  );
  t.match(
    checkIdProblems([{ file: 'c.ts', scenario: scen([own('client-rebooted')]) }], [HOST_REBOOTED]),
    [{ message: /shipped check "Host rebooted" \(host-rebooted\)/ }],
    'an old id of a shipped check is taken too',
  );
  t.same(
    checkIdProblems([{ file: 'd.ts', scenario: scen([CLIENT_REBOOTED]) }], [CLIENT_REBOOTED]),
    [],
    'the shipped check itself is no clash',
  );
});

t.test('judgeAll: declaration order, one-line messages, a throwing judge fails its own check only', async (t) => {
  const checks = [
    defineCheck<{ n: number }>({
      ...check,
      id: 'big',
      judge: (e) => ({ status: e.n > 2 ? 'passed' : 'failed', message: `n\nis ${e.n}` }),
    }),
    defineCheck<{ n: number }>({
      ...check,
      id: 'boom',
      judge: () => {
        throw new Error('oops');
      },
    }),
  ];
  t.same(judgeAll(checks, { n: 3 }), [
    { id: 'big', title: 'a check', status: 'passed', message: 'n is 3', evidence: [] },
    { id: 'boom', title: 'a check', status: 'failed', message: 'the check itself threw: oops', evidence: [] },
  ]);
  t.equal(judgeAll(checks, { n: 1 })[0]!.status, 'failed');
});

t.test('reconcileResults: a declared check without a result fails; an undeclared result fails', async (t) => {
  const declared = [check, { ...check, id: 'other' }];
  const r = reconcileResults(declared, [{ id: 'stray', title: 's', status: 'passed', message: 'fine', evidence: [] }]);
  t.same(
    r.map((x) => [x.id, x.status]),
    [
      ['a-check', 'failed'],
      ['other', 'failed'],
      ['stray', 'failed'],
    ],
  );
  t.match(r[0]!.message, /returned no result for this declared check/);
  t.match(r[2]!.message, /not declared in the scenario's checks \(was passed: fine\)/);
  const ok = reconcileResults(
    [check],
    [{ id: 'a-check', title: 'a check', status: 'passed', message: 'm', evidence: [] }],
  );
  t.same(
    ok.map((x) => x.status),
    ['passed'],
  );
});

t.test(
  'a --scenarios folder that is a symlink loop is told as one that cannot be read, not as missing (Q93)',
  async (t) => {
    const dir = t.testdir({});
    symlinkSync(join(dir, 'loop'), join(dir, 'loop'));
    const r = await loadScenarios(join(dir, 'loop'));
    t.match(r.problems, [{ field: '--scenarios', message: 'cannot be read (ELOOP)' }]);
    t.match((await loadScenarios(join(dir, 'none'))).problems, [{ message: 'does not exist' }]);
  },
);
