// The planner: run, compare and matrix are plans of cells; every problem of the input at once, naming where it came from.
import t from 'tap';
import { plannerOver } from '../helpers/planner.js';
import type { PlannableScenario } from '../../lib/plan/session-plan.js';
import { configVariant, sideLabels, suiteName } from '../../lib/plan/names.js';
import { DEFAULTS } from '../../lib/config/schema.js';
import { sessionExitCode } from '../../lib/report/outcome.js';
import { warmAffinity } from '../../lib/lab/warm/warm-key.js';
import type { RunRecord } from '../../lib/model/run.js';
import { SCENARIOS as SHIPPED } from '../../lib/cli/scenarios.js';

/** The shipped scenarios' own check lists (the registry's objects), on scenarios with the planner's view only. */
const checksOf = (name: string) => SHIPPED.find((s) => s.name === name)!.checks;
const SCENARIOS: PlannableScenario[] = [
  { name: 'bridge-exec-reboot', needsNomad: true, checks: checksOf('bridge-exec-reboot') },
  { name: 'cni-ipam-reboot', needsNomad: false, roles: ['client'], checks: checksOf('cni-ipam-reboot') },
  {
    name: 'upgrade-in-place',
    needsNomad: true,
    checks: checksOf('upgrade-in-place'),
    validate: (c) =>
      c.upgradeTo ? [] : [{ field: '--upgrade-to', value: undefined, message: 'is required', fix: 'give it' }],
  },
];

const { input, ok, problems } = plannerOver(SCENARIOS);

t.test('run: one cell of the named (or default) scenario, its build resolved against the cwd', async (t) => {
  const p = ok(input('run', [], { 'nomad-binary': './nomad', reboot: 'hard' }));
  t.equal(p.cells.length, 1);
  t.match(p.cells[0], {
    key: 'bridge-exec-reboot',
    scenario: 'bridge-exec-reboot',
    variant: ['reboot=hard'],
    counts: true,
  });
  t.same(
    p.builds,
    [{ field: '--nomad-binary', spec: './nomad', cwd: '/w', role: 'nomad' }],
    'the spec as given and where it was given (the flag given, the older name here)',
  );
  t.same(p.subnets, ['10.198.0.0/24', '10.199.0.0/24']);
  t.equal(
    ok(input('run', ['cni-ipam-reboot'], {})).cells[0]!.builds.length,
    0,
    'a scenario without Nomad has no build',
  );
});

t.test(
  'run --all: one cell per scenario; without a build the Nomad ones are visible skips; an expectation applies where its check is',
  async (t) => {
    const p = ok(input('run', [], { all: true, expect: ['tmpfs-state-clean=fail'] }));
    t.same(
      p.cells.map((c) => [c.scenario, c.skip ?? '']),
      [
        ['bridge-exec-reboot', 'no Nomad build given (--nomad / NOMAD_BUILD)'],
        ['cni-ipam-reboot', ''],
        ['upgrade-in-place', 'no Nomad build given (--nomad / NOMAD_BUILD)'],
      ],
    );
    t.same(p.cells[1]!.config.expect.perCheck, { 'tmpfs-state-clean': 'fail' });
    t.same(p.cells[0]!.config.expect.perCheck, {}, 'not carried to a scenario without that check');
  },
);

t.test('run: every problem at once, each naming its field', async (t) => {
  const r = problems(
    input('run', ['bridge-exec-reboot', 'cni-ipam-reboot'], { expect: ['state-migrated=fail'], memory: 'lots' }),
  );
  const fields = r.problems.map((p) => p.field);
  t.ok(fields.includes('scenario'), 'two scenarios');
  t.ok(fields.includes('--memory'), 'a bad value');
  t.ok(fields.includes('--expect'), 'a check of another scenario, with the scenario defaulted (defect 1)');
  t.ok(fields.includes('--nomad'), 'the missing build');
  const upgrade = problems(input('run', ['upgrade-in-place'], { 'nomad-binary': './a' }));
  t.match(upgrade.problems, [{ field: '--upgrade-to' }], "the scenario's own validation");
  t.match(problems(input('run', ['nope'], {})).problems, [
    { field: 'scenario', value: 'nope', fix: /bridge-exec-reboot, cni-ipam-reboot/ },
  ]);
});

t.test(
  'compare: two cells on the build axis; --expect on the after build only; both missing builds reported',
  async (t) => {
    const p = ok(
      input('compare', ['bridge-exec-reboot'], { before: 'a', after: 'b', expect: ['no-duplicate-ip=fail'] }),
    );
    t.same(
      p.cells.map((c) => [c.side, c.counts, c.config.nomadBinary]),
      [
        ['before', false, 'a'],
        ['after', true, 'b'],
      ],
    );
    t.same(p.cells[0]!.config.expect.perCheck, {});
    t.same(p.cells[1]!.config.expect.perCheck, { 'no-duplicate-ip': 'fail' });
    t.same(
      p.builds.map((b) => b.field),
      ['--before', '--after'],
    );
    const r = problems(input('compare', ['cni-ipam-reboot'], { 'nomad-binary': 'x' }));
    t.same(r.problems.map((x) => x.field).sort(), ['--after', '--before', '--nomad-binary', 'scenario']);
  },
);

const MATRIX = {
  scenario: 'bridge-exec-reboot',
  axes: {
    nomad: [
      { name: '1.9.3', binary: './n3', expect: ['no-duplicate-ip=fail'] },
      { name: '1.9.7', binary: './n7' },
    ],
    reboot: ['graceful', 'hard'],
  },
  parallel: 2,
};
const matrixInput = (values: Record<string, unknown> = {}, data: unknown = MATRIX) =>
  input('matrix', ['m.yaml'], values, { matrixFile: { data, name: 'm.yaml', path: '/w/ci/m.yaml', dir: '/w/ci' } });

t.test(
  'matrix: the expansion as cells; builds resolved against the file; axes as properties; per-slot subnets guarded',
  async (t) => {
    const p = ok(matrixInput());
    t.same(
      p.cells.map((c) => c.key),
      [
        'bridge-exec-reboot/nomad=1.9.3/reboot=graceful',
        'bridge-exec-reboot/nomad=1.9.3/reboot=hard',
        'bridge-exec-reboot/nomad=1.9.7/reboot=graceful',
        'bridge-exec-reboot/nomad=1.9.7/reboot=hard',
      ],
    );
    t.same(
      p.cells.map((c) => suiteName(c.scenario, c.buildLabel, c.variant)),
      [
        'bridge-exec-reboot@1.9.3/reboot=graceful',
        'bridge-exec-reboot@1.9.3/reboot=hard',
        'bridge-exec-reboot@1.9.7/reboot=graceful',
        'bridge-exec-reboot@1.9.7/reboot=hard',
      ],
      'every axis of the matrix but the build is the variant',
    );
    t.match(p.cells[1]!.properties, {
      'matrix.cell': 'bridge-exec-reboot/nomad=1.9.3/reboot=hard',
      'matrix.nomad': '1.9.3',
      'matrix.reboot': 'hard',
    });
    t.same(
      p.builds.map((b) => [b.field, b.spec, b.cwd]),
      [
        ['m.yaml: axes.nomad[0].binary', './n3', '/w/ci'],
        ['m.yaml: axes.nomad[1].binary', './n7', '/w/ci'],
      ],
      'relative to the matrix file',
    );
    t.same(p.cells[0]!.config.expect.perCheck, { 'no-duplicate-ip': 'fail' });
    t.same(p.subnets.sort(), ['10.198.1.0/24', '10.198.2.0/24', '10.199.1.0/24', '10.199.2.0/24']);
    t.match(p, { parallel: 2, retryInfra: true, matrix: { shard: '1/1', cellsInMatrix: 4, path: '/w/ci/m.yaml' } });
    t.same(
      ok(matrixInput({ cell: 'bridge-exec-reboot/nomad=1.9.7/reboot=hard' })).cells.map((c) => c.key),
      ['bridge-exec-reboot/nomad=1.9.7/reboot=hard'],
    );
    const affinity = p.cells.map(warmAffinity);
    t.equal(
      affinity[0],
      affinity[1],
      'the reboot kinds of one build could share a warm lab: the pool keeps them in one slot',
    );
    t.not(affinity[0], affinity[2], 'another build could not');
  },
);

t.test("matrix: shard arithmetic is the plan's (cell k goes to shard k mod n + 1)", async (t) => {
  const all = ok(matrixInput()).cells.map((c) => c.key);
  const shards = [1, 2, 3].map((i) => ok(matrixInput({ shard: `${i}/3` })).cells.map((c) => c.key));
  t.same(shards, [[all[0], all[3]], [all[1]], [all[2]]]);
  t.same(shards.flat().sort(), [...all].sort(), 'every cell exactly once');
});

t.test('matrix: every problem at once: the file, the flags, a cell that cannot run', async (t) => {
  const r = problems(
    matrixInput({ shard: '3/2', cell: 'x' }, { scenario: 'nope', axes: { reboot: ['soft'] }, parallel: 0 }),
  );
  const text = r.problems.map((p) => `${p.field}: ${p.message}`).join('\n');
  for (const re of [
    /scenario\[0\]: is not a known scenario/,
    /axes\.reboot\[0\]: is not a reboot kind/,
    /parallel: must be a whole number/,
    /--shard: must be i\/n/,
    /--cell: cannot be combined with --shard/,
  ])
    t.match(text, re);
  const nobuild = problems(matrixInput({}, { scenario: 'bridge-exec-reboot', axes: { reboot: ['hard'] } }));
  t.match(nobuild.problems, [
    { field: 'cell bridge-exec-reboot/reboot=hard', message: 'installs Nomad and has no build' },
  ]);
  const unknownCell = problems(matrixInput({ cell: 'no/such' }));
  t.match(unknownCell.problems, [
    { field: '--cell', fix: /use one of: bridge-exec-reboot\/nomad=1\.9\.3\/reboot=graceful/ },
  ]);
  t.same(
    unknownCell.builds.map((b) => b.field),
    ['m.yaml: axes.nomad[0].binary', 'm.yaml: axes.nomad[1].binary'],
    'the builds are still listed, to be checked with the rest',
  );
});

t.test('names: variants, suites, compare labels', async (t) => {
  t.same(configVariant(DEFAULTS), []);
  t.same(
    configVariant({ ...DEFAULTS, reboot: { ...DEFAULTS.reboot, kind: 'hard', count: 2 }, task: { driver: 'docker' } }),
    ['reboot=hard', 'reboots=2', 'driver=docker'],
  );
  t.same(configVariant({ ...DEFAULTS, scenario: 'upgrade-in-place', upgrade: { mode: 'restart-only' } }), [
    'mode=restart-only',
  ]);
  t.same(
    configVariant({ ...DEFAULTS, job: { files: ['examples/jobs/count-3.nomad.hcl'], vars: {} } }),
    ['job=count-3'],
    "the user's job by its file name",
  );
  t.equal(suiteName('bridge-exec-reboot', '1.9.7', ['reboot=hard']), 'bridge-exec-reboot@1.9.7/reboot=hard');
  t.equal(suiteName('cni-ipam-reboot', undefined, []), 'cni-ipam-reboot');
  t.same(sideLabels('1.9.3', '1.9.7'), { before: '1.9.3', after: '1.9.7' });
  t.same(sideLabels('1.9.7', '1.9.7'), { before: 'before', after: 'after' }, 'equal versions: the sides');
  t.same(sideLabels(undefined, '1.9.7'), { before: 'before', after: 'after' });
});

t.test('the session exit code', async (t) => {
  const run = (outcome: RunRecord['outcome'], interrupted = false) => ({ outcome, interrupted }) as RunRecord;
  const suite = (attempts: RunRecord[], counts = true) => ({ name: 's', key: 's', scenario: 's', counts, attempts });
  t.equal(sessionExitCode([], false), 0, 'a shard with no cells');
  t.equal(sessionExitCode([suite([run('passed')])], false), 0);
  t.equal(sessionExitCode([suite([run('error'), run('passed')])], false), 0, 'the retry decides');
  t.equal(
    sessionExitCode([suite([run('failed')], false), suite([run('passed')])], false),
    0,
    'compare: the before build does not count',
  );
  t.equal(sessionExitCode([suite([run('passed')]), suite([run('failed')])], false), 1);
  t.equal(sessionExitCode([suite([run('error')]), suite([run('failed')])], false), 3);
  t.equal(sessionExitCode([suite([run('passed')]), suite([])], false), 130, 'a cell that never started');
  t.equal(sessionExitCode([suite([run('passed')])], true), 130);
});

t.test(
  'run of an unknown scenario: the rest of the input is still checked, but not which checks --expect names',
  async (t) => {
    const r = problems(input('run', ['nope'], { reboot: 'soft', expect: ['whatever=fail'], repeat: 'x' }));
    t.same(
      r.problems.map((p) => p.field),
      ['scenario', '--reboot', '--repeat'],
    );
    t.match(r.problems[0], { value: 'nope', message: 'is not a known scenario' });
    t.same(
      problems(input('run', ['nope'], {})).problems.map((p) => p.field),
      ['scenario'],
      'alone when the rest is fine',
    );
  },
);

t.test('lab.provider ssh: a host for each machine the chosen scenario brings up, and only those', async (t) => {
  const clientOnly = {
    data: { lab: { provider: 'ssh', hosts: { client: { address: '203.0.113.11', user: 'admin', key: '/k' } } } },
    name: 'harness.yaml',
  };
  t.equal(
    ok(input('run', ['cni-ipam-reboot'], {}, { harness: clientOnly })).cells.length,
    1,
    'cni-ipam-reboot runs on the client host alone',
  );
  const r = problems(input('run', ['bridge-exec-reboot'], { 'nomad-binary': './nomad' }, { harness: clientOnly }));
  t.same(
    r.problems.map((p) => p.field),
    ['harness.yaml: lab.hosts.servers'],
    'bridge-exec-reboot needs the server host too',
  );
  const matrix = problems(
    input(
      'matrix',
      ['m.yaml'],
      {},
      {
        harness: clientOnly,
        matrixFile: {
          data: {
            scenario: ['cni-ipam-reboot', 'bridge-exec-reboot'],
            axes: { reboot: ['graceful'] },
            defaults: { nomad_binary: './nomad' },
          },
          name: 'm.yaml',
          path: '/w/m.yaml',
          dir: '/w',
        },
      },
    ),
  );
  t.same(
    [...new Set(matrix.problems.map((p) => p.field))],
    ['harness.yaml + m.yaml defaults: lab.hosts.servers'],
    'a matrix: only the scenario that uses the server asks for it',
  );
});
