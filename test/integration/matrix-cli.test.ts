// `matrix` through the real CLI code path against STAND-INS (a fresh Nomad API stand-in and stand-in lab per run,
// timeline per build). No VMs, no Nomad: the cells, shards, parallel slots, retries and the merged JUnit are real.
import t, { type Test } from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { main } from '../../lib/cli/main.js';
import { ConfigError } from '../../lib/errors.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import { standInPerRun, type StandInBuild } from '../helpers/stand-in-env.js';
import { standInReportArgs } from '../helpers/stand-in-run.js';

function validate(t: Test, file: string) {
  validateJUnit(t, file);
}

const MATRIX = `scenario: bridge-exec-reboot
axes:
  nomad:
    - {name: "1.9.3", binary: ./nomad-1.9.3, expect: ["no-duplicate-ip=fail"]}
    - {name: "1.9.4", binary: ./nomad-1.9.4}
parallel: 2
memory_budget_mb: 8192
`;

async function matrix(
  t: Test,
  extra: string[] = [],
  o: { text?: string; builds?: (dir: string) => Record<string, StandInBuild> } = {},
) {
  const dir = t.testdir({});
  writeFileSync(join(dir, 'm.yaml'), o.text ?? MATRIX);
  const builds = o.builds?.(dir) ?? {
    [join(dir, 'nomad-1.9.3')]: { timeline: 'duplicate-ip', version: '1.9.3' },
    [join(dir, 'nomad-1.9.4')]: { timeline: 'restored', version: '1.9.4' },
  };
  const s = standInPerRun(builds, { cwd: dir });
  const code = await main(['matrix', 'm.yaml', ...standInReportArgs(dir), ...extra], s.deps);
  const junit = () => readFileSync(join(dir, 'junit.xml'), 'utf8');
  const suites = () =>
    [
      new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(junit()).testsuites.testsuite ?? [],
    ].flat() as Record<string, unknown>[];
  return { code, dir, s, junit, suites, summary: () => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) };
}

t.test('two cells in parallel: a suite per cell named by the cell, own run ids and subnets, exit 0', async (t) => {
  const r = await matrix(t);
  t.equal(
    r.code,
    0,
    `exit 0 (${r.s.err
      .join('')
      .split('\n')
      .filter((l) => /error/i.test(l))
      .join(' | ')})`,
  );
  validate(t, join(r.dir, 'junit.xml'));
  t.same(
    r.suites().map((s) => s['name']),
    ['bridge-exec-reboot@1.9.3', 'bridge-exec-reboot@1.9.4'],
    "<scenario>@<build>: the nomad entry's name",
  );
  t.equal(r.s.runs.length, 2);
  t.not(r.s.runs[0]!.runId, r.s.runs[1]!.runId);
  t.same(
    r.s.runs.map((x) => x.config.lab.privateSubnet).sort(),
    ['10.199.1.0/24', '10.199.2.0/24'],
    'one private subnet per slot',
  );
  t.same(r.s.runs.map((x) => x.config.lab.managementSubnet).sort(), ['10.198.1.0/24', '10.198.2.0/24']);
  t.ok(
    r.s.runs.every((x) => x.lab.destroyed),
    'every lab torn down',
  );
  t.match(r.junit(), /expected failure/, "the 1.9.3 cell's expectation from the matrix file applied");
  const sum = r.summary();
  t.equal(sum.matrix.shard, '1/1');
  t.same(
    sum.suites.map((c: { key: string; retried: boolean }) => [c.key, c.retried]),
    [
      ['bridge-exec-reboot/nomad=1.9.3', false],
      ['bridge-exec-reboot/nomad=1.9.4', false],
    ],
    'the cell names stay the matrix addresses',
  );
});

t.test('--shard 2/2 runs only the second cell', async (t) => {
  const r = await matrix(t, ['--shard', '2/2']);
  t.equal(r.code, 0);
  t.same(
    r.suites().map((s) => s['name']),
    ['bridge-exec-reboot@1.9.4'],
  );
  t.equal(r.s.runs.length, 1);
  t.equal(r.summary().matrix.cellsInMatrix, 2);
});

t.test('an infrastructure error is retried once: flakyError in the JUnit, exit from the retry', async (t) => {
  const r = await matrix(t, ['--shard', '2/2'], {
    builds: (dir) => ({ [join(dir, 'nomad-1.9.4')]: { timeline: 'restored', version: '1.9.4', failUpLab: 1 } }),
  });
  t.equal(r.code, 0, 'the retry passed');
  validate(t, join(r.dir, 'junit.xml'));
  t.match(
    r.junit(),
    /<flakyError message="attempt 1 \(run \w+\) ended in an infrastructure error in &quot;bring up the server and client VMs&quot;/,
  );
  t.equal(Number(r.suites()[0]!['errors']), 0);
  t.same(r.summary().suites[0].outcomes, ['error', 'passed']);
  t.match(r.s.out.join(''), /retried after an infrastructure error: bridge-exec-reboot@1\.9\.4/);
  t.equal((r.s.out.join('').match(/report\.html/g) ?? []).length, 2, 'an HTML page for each attempt');
});

t.test('an error on the retry too: rerunError, exit 3', async (t) => {
  const r = await matrix(t, ['--shard', '2/2'], {
    builds: (dir) => ({ [join(dir, 'nomad-1.9.4')]: { timeline: 'restored', version: '1.9.4', failUpLab: 5 } }),
  });
  t.equal(r.code, 3);
  validate(t, join(r.dir, 'junit.xml'));
  t.match(r.junit(), /<rerunError /);
  t.same(r.summary().suites[0].outcomes, ['error', 'error'], 'exactly one retry');
});

t.test('a failed check is never retried', async (t) => {
  const failing = await matrix(t, ['--shard', '2/2'], {
    builds: (dir) => ({ [join(dir, 'nomad-1.9.4')]: { timeline: 'duplicate-ip', version: '1.9.4' } }),
  });
  t.equal(failing.code, 1);
  t.same(failing.summary().suites[0].outcomes, ['failed'], 'no retry for a failed check');
  t.equal(failing.s.runs.length, 1);
  t.notMatch(failing.junit(), /<rerunError|<flakyError/);
});

t.test('a bad matrix file: every problem at once, exit 2, nothing run', async (t) => {
  const r = await matrix(t, ['--shard', '3/2'], { text: 'scenario: nope\naxes:\n  reboot: [soft]\nparallel: 0\n' });
  t.equal(r.code, 2);
  const err = r.s.err.join('');
  for (const re of [
    /m\.yaml: scenario\[0\]: is not a known scenario/,
    /axes\.reboot\[0\]: is not a reboot kind/,
    /parallel: must be a whole number/,
    /--shard: must be i\/n/,
  ])
    t.match(err, re);
  t.equal(r.s.runs.length, 0);
  const tight = await matrix(t, [], { text: MATRIX.replace('8192', '1024') });
  t.equal(tight.code, 2, 'a cell that cannot fit the memory budget');
  t.match(
    tight.s.err.join(''),
    /memory_budget_mb: is less than what cell bridge-exec-reboot\/nomad=1\.9\.3 needs \(2368 MiB: 2 VMs x/,
  );
});

t.test('a failed cell prints a repro that runs exactly that cell again (--cell)', async (t) => {
  const failing = await matrix(t, ['--shard', '2/2'], {
    builds: (dir) => ({ [join(dir, 'nomad-1.9.4')]: { timeline: 'duplicate-ip', version: '1.9.4' } }),
  });
  t.equal(failing.code, 1);
  const out = failing.s.out.join('');
  const m =
    /re-run (\S+) \(run \S+\) exactly \(also in \S+repro\.sh\):\n {2}cd \S+ && node \S+ matrix \S+ --cell '?([^'\n ]+)'?( [^\n]*)?\n/.exec(
      out,
    );
  t.ok(m, 'repro printed');
  const cellName = failing.summary().suites[0].key;
  t.equal(m?.[2], cellName, 'the repro names the failed cell');
  t.equal(
    m?.[3],
    " --netns ''",
    "the matrix's own inputs are carried (without --netns '' a rerun would create the netns)",
  );
  const again = await matrix(t, ['--cell', cellName], {
    builds: (dir) => ({ [join(dir, 'nomad-1.9.4')]: { timeline: 'duplicate-ip', version: '1.9.4' } }),
  });
  t.equal(again.code, 1, 'the same cell fails again');
  t.same(
    again.summary().suites.map((c: { key: string }) => c.key),
    [cellName],
    'only that cell ran',
  );
  const bad = await matrix(t, ['--cell', 'no/such=cell']);
  t.equal(bad.code, 2, 'an unknown cell is a usage error');
});

t.test(
  'every build of the matrix is checked, and every bad one is named by its entry, with the other problems',
  async (t) => {
    const dir = t.testdir({});
    writeFileSync(join(dir, 'm.yaml'), MATRIX);
    const s = standInPerRun({}, { cwd: dir });
    const checkBinary = async (path: string, field?: string) => {
      throw new ConfigError([
        { field: field ?? '?', value: path, message: 'does not exist', fix: 'give the path of a nomad build' },
      ]);
    };
    const code = await main(['matrix', 'm.yaml', '--shard', '3/2', '--netns', ''], { ...s.deps, checkBinary });
    t.equal(code, 2);
    const err = s.err.join('');
    t.match(err, /m\.yaml: axes\.nomad\[0\]\.binary: does not exist/, 'the first entry named');
    t.match(err, /m\.yaml: axes\.nomad\[1\]\.binary: does not exist/, 'and the second');
    t.match(err, /--shard: must be i\/n/, 'with the other problems, at once');
    t.equal(s.runs.length, 0);
  },
);

t.test('the host guard covers every per-slot subnet: prepareHost gets the subnets of slots 1..parallel', async (t) => {
  const dir = t.testdir({});
  writeFileSync(join(dir, 'm.yaml'), MATRIX);
  const s = standInPerRun(
    {
      [join(dir, 'nomad-1.9.3')]: { timeline: 'duplicate-ip', version: '1.9.3' },
      [join(dir, 'nomad-1.9.4')]: { timeline: 'restored', version: '1.9.4' },
    },
    { cwd: dir },
  );
  const seen: (readonly string[] | undefined)[] = [];
  const code = await main(
    ['matrix', 'm.yaml', '--reports-dir', join(dir, 'reports'), '--junit', join(dir, 'junit.xml'), '--netns', ''],
    {
      ...s.deps,
      prepareHost: async (_c, _a, _l, subnets) => void seen.push(subnets),
    },
  );
  t.equal(code, 0);
  t.equal(seen.length, 1, 'the host is prepared once for the whole matrix');
  t.same(
    [...(seen[0] ?? [])].sort(),
    ['10.198.1.0/24', '10.198.2.0/24', '10.199.1.0/24', '10.199.2.0/24'],
    'the blackholes cover the subnets the parallel cells really get',
  );
  t.same(s.runs.map((x) => x.config.lab.privateSubnet).sort(), ['10.199.1.0/24', '10.199.2.0/24']);
});
