// Matrix file validation: a good file parses; every problem of a bad file is reported at once, naming field, value and fix.
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { parseMatrix } from '../../lib/matrix/spec.js';
import { expectableIds } from '../../lib/checks/expect-ids.js';
import { SCENARIOS as SHIPPED } from '../../lib/cli/scenarios.js';

/** Each scenario's ids as the planner hands them to the matrix file: its checks' ids, then their old ids. */
const SCENARIOS = Object.fromEntries(
  SHIPPED.filter((s) => s.name !== 'cni-ipam-reboot').map((s) => [s.name, expectableIds(s.checks)]),
);

const GOOD = `
scenario: bridge-exec-reboot
axes:
  nomad:
    - name: "1.9.3"
      binary: ./a
      expect: ["no-duplicate-ip=fail"]
    - {name: 1.9.7, binary: ./b}
  reboot: [graceful, hard]
defaults:
  lab:
    memory_mb: 1024
parallel: 2
memory_budget_mb: 8192
`;

t.test(
  'a good file: scenarios, axes in file order, entries with expectations, defaults, parallel, budget',
  async (t) => {
    const r = parseMatrix(parseYaml(GOOD), 'm.yaml', SCENARIOS);
    if (!r.ok) return t.fail(JSON.stringify(r.problems));
    t.same(r.spec.scenarios, ['bridge-exec-reboot']);
    t.same(
      r.spec.axes.map((a) => a.name),
      ['nomad', 'reboot'],
    );
    t.same(
      r.spec.axes[0]!.values,
      [
        { name: '1.9.3', binary: './a', expect: { perCheck: { 'no-duplicate-ip': 'fail' } }, field: 'axes.nomad[0]' },
        { name: '1.9.7', binary: './b', expect: { perCheck: {} }, field: 'axes.nomad[1]' },
      ],
      'a YAML number name (1.9.7 is a string in YAML anyway) stays a name',
    );
    t.same(r.spec.defaults, { lab: { memory_mb: 1024 } });
    t.equal(r.spec.parallel, 2);
    t.equal(r.spec.memoryBudgetMb, 8192);
    t.equal(r.spec.retryInfra, true, 'retry after an infrastructure error by default');
    const list = parseMatrix(
      { scenario: ['bridge-exec-reboot', 'upgrade-in-place'], axes: { reboot: ['hard'] } },
      'm.yaml',
      SCENARIOS,
    );
    t.ok(list.ok, 'a list of scenarios');
    if (list.ok) t.equal(list.spec.parallel, 1, 'parallel defaults to 1');
  },
);

t.test('every problem at once, each with the field, the value and a fix', async (t) => {
  const bad = {
    scenario: ['bridge-exec-reboot', 'nope'],
    axes: {
      nomad: [{ name: 'a/b', binary: '', expect: ['bogus-check=fail', 'maybe'], colour: 'x' }, 'not-a-map'],
      reboot: ['graceful', 'soft'],
      driver: ['podman'],
      arch: ['arm64'],
      box: [],
    },
    defaults: { lab: { memory_mb: 10 }, typo_key: 1 },
    parallel: 0,
    memory_budget_mb: 'lots',
    retry_infra_errors: 'yes',
    axis: {},
  };
  const r = parseMatrix(bad, 'm.yaml', SCENARIOS);
  if (r.ok) return t.fail('accepted a bad file');
  const by = (field: string) => r.problems.find((p) => p.field === field);
  const expectField = (field: string, value: unknown, message: RegExp) => {
    const p = by(field);
    t.ok(p, `reports ${field}`);
    if (!p) return;
    t.same(p.value, value, `${field}: the value`);
    t.match(p.message, message, `${field}: the message`);
    t.ok(p.fix.length > 5, `${field}: a fix`);
  };
  expectField('m.yaml: scenario[1]', 'nope', /not a known scenario/);
  expectField('m.yaml: axes.nomad[0].name', 'a/b', /short name/);
  expectField('m.yaml: axes.nomad[0].binary', '', /required/);
  expectField('m.yaml: axes.nomad[0].expect[0]', 'bogus-check=fail', /names no check/);
  expectField('m.yaml: axes.nomad[0].expect[1]', 'maybe', /"pass", "fail"/);
  expectField('m.yaml: axes.nomad[0].colour', 'colour', /not a key/);
  expectField('m.yaml: axes.nomad[1]', 'not-a-map', /mapping with name and binary/);
  expectField('m.yaml: axes.reboot[1]', 'soft', /not a reboot kind/);
  expectField('m.yaml: axes.driver[0]', 'podman', /not a driver/);
  expectField('m.yaml: axes.arch', 'arch', /not an axis/);
  expectField('m.yaml: axes.box', [], /non-empty list/);
  expectField('m.yaml: defaults: lab.memory_mb', 10, /whole number/);
  expectField('m.yaml: defaults: typo_key', 'typo_key', /not a known key/);
  expectField('m.yaml: parallel', 0, /whole number from 1/);
  expectField('m.yaml: memory_budget_mb', 'lots', /whole number/);
  expectField('m.yaml: retry_infra_errors', 'yes', /true or false/);
  expectField('m.yaml: axis', 'axis', /not a matrix key/);
  t.match(by('m.yaml: axis')!.fix, /did you mean "axes"/);
  t.equal(r.problems.length, 17, 'nothing else, nothing twice');
});

t.test('duplicate axis values would give two cells one name', async (t) => {
  const r = parseMatrix(
    {
      scenario: 'bridge-exec-reboot',
      axes: {
        nomad: [
          { name: 'x', binary: './a' },
          { name: 'x', binary: './b' },
        ],
        reboot: ['hard', 'hard'],
      },
    },
    'm.yaml',
    SCENARIOS,
  );
  t.notOk(r.ok);
  if (!r.ok)
    t.same(
      r.problems.map((p) => [p.field, p.value]),
      [
        ['m.yaml: axes.nomad', 'x'],
        ['m.yaml: axes.reboot', 'hard'],
      ],
    );
});

t.test('a build name used twice is told with the problem of one of its entries (Q153)', async (t) => {
  const r = parseMatrix(
    {
      scenario: 'bridge-exec-reboot',
      axes: {
        nomad: [
          { name: 'a', binary: './nomad', expect: ['maybe'] },
          { name: 'a', binary: './nomad' },
          { binary: './b' },
          { binary: './c' },
        ],
      },
    },
    'm.yaml',
    SCENARIOS,
  );
  t.notOk(r.ok);
  if (!r.ok) {
    const fields = r.problems.map((p) => `${p.field} ${p.message.slice(0, 30)}`);
    t.ok(
      fields.some((f) => f.startsWith('m.yaml: axes.nomad[0].expect')),
      'the bad expect',
    );
    t.match(
      r.problems.filter((p) => p.field === 'm.yaml: axes.nomad'),
      [{ value: 'a', message: /has the same value twice/ }],
      'and the collision, once: two entries without a name are no collision',
    );
  }
});

t.test('not a mapping, no scenario, no axes', async (t) => {
  const r = parseMatrix(['a'], 'm.yaml', SCENARIOS);
  t.match(r, { ok: false, problems: [{ field: 'm.yaml: (top level)' }] });
  const r2 = parseMatrix({}, 'm.yaml', SCENARIOS);
  t.match(r2, { ok: false, problems: [{ field: 'm.yaml: scenario' }, { field: 'm.yaml: axes' }] });
  const onlyReboot = SCENARIOS['bridge-exec-reboot']!.find((id) => !SCENARIOS['upgrade-in-place']!.includes(id));
  t.ok(onlyReboot, 'the reboot scenario has a check the upgrade scenario has not');
  const r3 = parseMatrix(
    {
      scenario: ['bridge-exec-reboot', 'upgrade-in-place'],
      axes: { nomad: [{ name: 'a', binary: './a', expect: `${onlyReboot}=fail` }] },
    },
    'm.yaml',
    SCENARIOS,
  );
  t.match(
    r3,
    { ok: false, problems: [{ field: 'm.yaml: axes.nomad[0].expect[0]', message: /every scenario/ }] },
    'an expectation must name a check every listed scenario has',
  );
});
