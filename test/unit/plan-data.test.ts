// After planning nothing asks which command it was: the plan says how cells compare, how they are re-run and where
// the session's reports go, and the executor and reporters read those fields.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { planSession } from '../../lib/plan/plan.js';
import type { PlanInput } from '../../lib/plan/session-plan.js';
import { reproReporter } from '../../lib/report/reporters.js';
import { contextIn, sessionOf } from '../helpers/session.js';
import type { RunRecord } from '../../lib/model/run.js';

const SCENARIO = {
  name: 's',
  needsNomad: true,
  checks: [{ id: 'c', title: 'C', passesWhen: 'x' }],
};
const planOf = (o: Partial<PlanInput>) => {
  const r = planSession({
    command: 'run',
    positionals: [],
    values: {},
    env: {},
    cwd: '/w',
    scenarios: [SCENARIO],
    ...o,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.plan;
};

t.test('the decisions are fields of the plan', async (t) => {
  const run = planOf({ positionals: ['s'], values: { nomad: './n', repeat: '2' } });
  t.equal(run.comparison, undefined, 'run compares nothing');
  t.same(run.reportFolder, { prefix: '', fallback: 'run' });
  t.same(
    run.cells.map((c) => [c.key, c.repeat, c.rerun.scope, c.rerun.argv]),
    [
      ['s#1', { group: 's', attempt: 1, of: 2 }, 'suite', ['run', 's']],
      ['s#2', { group: 's', attempt: 2, of: 2 }, 'suite', ['run', 's']],
    ],
  );
  const cmp = planOf({ command: 'compare', positionals: ['s'], values: { before: './a', after: './b' } });
  t.same(cmp.comparison, { before: 's@before', after: 's@after' });
  t.same(
    cmp.cells.map((c) => [c.rerun.scope, c.rerun.argv, c.rerun.builds]),
    [
      ['session', ['compare', 's'], [{ property: 'nomad.binary', flag: '--before' }]],
      ['session', ['compare', 's'], [{ property: 'nomad.binary', flag: '--after' }]],
    ],
  );
  const matrix = planOf({
    command: 'matrix',
    positionals: ['m.yaml'],
    values: { shard: '1/2' },
    matrixFile: {
      data: { scenario: 's', axes: { nomad: [{ name: 'a', binary: './a' }], reboot: ['graceful', 'hard'] } },
      name: 'm.yaml',
      path: '/w/m.yaml',
      dir: '/w',
    },
  });
  t.same(matrix.reportFolder, { prefix: 'matrix-', fallback: 'shard-1-of-2' });
  const cell = matrix.cells[0]!;
  t.same(cell.rerun.argv, ['matrix', '/w/m.yaml', '--cell', cell.key]);
  t.equal(cell.rerun.keepArgs, true, "the matrix's own flags (--netns '', --timeout) shaped the cell: kept");
  t.ok(
    cell.rerun.builds.every((b) => b.flag === undefined),
    'its builds are checked, not passed',
  );
  t.same(JSON.parse(JSON.stringify(matrix)).cells[0].rerun, cell.rerun, 'plain data: survives JSON');
});

const failed = (runId: string, props: Record<string, string>): RunRecord => ({
  runId,
  scenario: 's',
  suiteName: runId,
  hostname: 'h',
  startedAtMs: 0,
  durationMs: 1,
  properties: props,
  steps: [],
  verdicts: [],
  artifacts: [],
  timeline: [],
  outcome: 'failed',
});

t.test("repro.sh follows each suite's rerun, whatever command made the session", async (t) => {
  const dir = t.testdir({});
  const base = sessionOf([failed('r1', { 'nomad.binary': '/b/nomad' })]);
  const matrixCell = {
    ...base.suites[0]!,
    rerun: {
      scope: 'suite' as const,
      argv: ['matrix', '/w/m.yaml', '--cell', 'x'],
      keepArgs: false,
      builds: [{ property: 'nomad.binary' }],
    },
  };
  const s = {
    ...base,
    builds: [
      {
        spec: '/b/nomad',
        path: '/b/nomad',
        sha256: 'ab',
        version: '',
        revision: '',
        origin: { kind: 'path' as const, path: '/b/nomad' },
      },
    ],
    suites: [matrixCell],
  };
  const [f] = reproReporter.files(s, contextIn(dir, { rawArgs: ['m.yaml', '--shard', '1/2'], cli: '/c.js' }));
  t.equal(
    f!.text.split('\n').at(-2),
    `cd ${dir} && echo 'ab  /b/nomad' | sha256sum --check --quiet && node /c.js matrix /w/m.yaml --cell x`,
    'checked by checksum, named by the file, no other argument',
  );
  const pair = ['before', 'after'].map((side, i) => ({
    ...sessionOf([failed(`r${i}`, { 'nomad.binary': `/${side}` })]).suites[0]!,
    key: side,
    counts: side === 'after',
    rerun: {
      scope: 'session' as const,
      argv: ['compare', 's'],
      keepArgs: true,
      builds: [{ property: 'nomad.binary', flag: `--${side}` as '--before' | '--after' }],
      title: 'this comparison',
    },
  }));
  const files = reproReporter.files(
    { ...base, suites: pair },
    contextIn(dir, { rawArgs: ['s', '--timeout', '4m'], cli: '/c.js' }),
  );
  t.equal(files.length, 1, 'one repro for the suites re-run together');
  t.match(files[0]!.text, /^# re-runs this comparison with the same inputs$/m);
  t.match(files[0]!.text, /node \/c\.js compare s --before \/before --after \/after --timeout 4m\n$/);
});

t.test('nothing after planning branches on the command', async (t) => {
  const root = new URL('../../lib/', import.meta.url).pathname;
  const files = ['session', 'report'].flatMap((d) =>
    readdirSync(join(root, d))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(d, f)),
  );
  files.push('cli/main.ts', 'cli/merge.ts');
  const asks = /\.command\s*[!=]==|command\s*===\s*'(compare|matrix|run)'|isCompare/;
  const hits = files.filter((f) => {
    const text = readFileSync(join(root, f), 'utf8');
    // main.ts reads the command line before there is a plan; what it does with the plan must not ask
    const from = text.indexOf('const plan = res.plan;');
    const after = f === 'cli/main.ts' ? text.slice(from, text.indexOf('\n}\n', from)) : text;
    return asks.test(after);
  });
  t.same(hits, [], 'no file asks which command it was');
});
