// User scenarios from a directory (--scenarios, scenarios_dir) through the real CLI main(), and the example
// examples/scenarios/server-reboot.ts run against STAND-INS: the Nomad API stand-in (test/helpers/fake-nomad, which
// learns a server reboot: connections cut while down, no leader until it elects itself) and the stand-in lab (no
// VMs). Real VMs and real Nomad: the e2e tier runs the shipped server-reboot (test/e2e/server-reboot.test.ts). One test spawns the real CLI (bin/reboot-harness.js, under tsx).
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { main } from '../../lib/cli/main.js';
import '../helpers/ts-loader.js';
import { standIn, standInPerRun } from '../helpers/stand-in-env.js';
import { standInReportArgs } from '../helpers/stand-in-run.js';
import type { ServerRebootEffect } from '../helpers/fake-nomad/index.js';
import { idsOf } from '../helpers/check-ids.js';
import { CLI_TS } from '../helpers/cli-tsx.js';
import { CHECKS as EXAMPLE_CHECKS } from '../../examples/scenarios/server-reboot.js';

// Note: about 22 s idle, but it spawns CLI children under tsx and ran past tap's 60 s per file at load 10-27
t.setTimeout(240_000);

const EXAMPLES = resolve('examples/scenarios');
const SERVER_CHECKS = idsOf(EXAMPLE_CHECKS);

/** A directory OUTSIDE the repository (no node_modules above it), as a user's would be. */
function userDir(t: Test, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'nrh-user-scenarios-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const GOOD = `import { defineCheck, defineScenario, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck<{ n: number }>({ id: 'counted', title: 'counted', passesWhen: 'n is 3',
  judge: (e) => ({ status: e.n === 3 ? 'passed' : 'failed', message: \`n is \${e.n}\` }) })];
export default defineScenario({ name: 'counts-to-three', summary: 'counts', needsNomad: false, checks: CHECKS,
  async run(ctx) { const n = await ctx.step('count', async () => 3); return judgeAll(CHECKS, { n }); } });
`;
const PKG = '{ "type": "module" }\n';

async function cli(argv: string[], cwd: string, serverReboot?: ServerRebootEffect) {
  const s = await standIn('restored', { cwd, ...(serverReboot ? { serverReboot } : {}) });
  const code = await main(argv, s.deps);
  await s.nomad.close();
  return { code, out: s.out.join(''), err: s.err.join(''), s };
}

t.test('list --scenarios shows the example with its checks and file', async (t) => {
  const r = await cli(['list', '--scenarios', EXAMPLES], process.cwd());
  t.equal(r.code, 0, r.err);
  t.match(r.out, /^bridge-exec-reboot/m, 'shipped scenarios first');
  t.match(r.out, /server-reboot-example \(needs --nomad <build>\)\s+\(from .*examples\/scenarios\/server-reboot\.ts\)/);
  for (const id of SERVER_CHECKS) t.match(r.out, new RegExp(`- ${id}: `), id);
  const json = await cli(['list', '--json', '--scenarios', EXAMPLES], process.cwd());
  const listed = (JSON.parse(json.out) as { scenarios: { name: string; file?: string; checks: { id: string }[] }[] })
    .scenarios;
  t.same(
    listed.find((s) => s.name === 'server-reboot-example')?.checks.map((c) => c.id),
    SERVER_CHECKS,
  );
  t.notOk(listed.find((s) => s.name === 'bridge-exec-reboot')?.file, 'shipped scenarios name no file');
});

t.test('harness.yaml scenarios_dir: a directory outside the repo, importing the API by package name', async (t) => {
  const dir = userDir(t, {
    'package.json': PKG,
    'counts.ts': GOOD,
    '_helper.ts': 'export const x = 1;\n',
    'sub/y.ts': 'x',
  });
  const cwd = t.testdir({ 'harness.yaml': `scenarios_dir: ${dir}\n` });
  const list = await cli(['list'], cwd);
  t.equal(list.code, 0, list.err);
  t.match(list.out, /counts-to-three\s+\(from .*counts\.ts\)/);
  t.notMatch(list.out, /_helper|sub\/y/, 'helpers and subdirectories are not scenarios');
  const run = await cli(['run', 'counts-to-three', '--reports-dir', join(cwd, 'reports'), '--netns', ''], cwd);
  t.equal(run.code, 0, run.err);
  t.match(run.out, /counted/);
});

t.test('every bad scenario file is reported at once, exit 2, before anything runs', async (t) => {
  const dir = userDir(t, {
    'package.json': PKG,
    'good.ts': GOOD,
    'syntax.ts':
      "import { defineScenario } from 'nomad-reboot-harness/scenario';\n" +
      "export default defineScenario({ name: 'x', checks: [ , });\n",
    'no-default.ts': 'export const scenario = 1;\n',
    'dup.ts': GOOD.replace('counts-to-three', 'bridge-exec-reboot'),
    // its own name: a file with another problem has its name judged too (Q364), and two files named alike are a problem
    'no-checks.ts': GOOD.replace('checks: CHECKS,', 'checks: [],').replace("'counts-to-three'", "'no-checks'"),
    'bad-check.ts': GOOD.replace("'counts-to-three'", "'bad-check'").replace("title: 'counted', ", ''),
  });
  const r = await cli(['run', 'counts-to-three', '--scenarios', dir, '--netns', ''], process.cwd());
  t.equal(r.code, 2, 'exit 2');
  t.match(r.err, /invalid configuration \(5 problems\)/);
  // Note: tsx (the CLI) and tap's ts-node word a syntax error differently; both name the file and line 2
  t.match(r.err, /syntax\.ts: does not load \(got ".*syntax\.ts[:(]2[:,]/);
  t.match(r.err, /no-default\.ts: has no default export/);
  t.match(r.err, /dup\.ts: name: is the name of a shipped scenario \(got "bridge-exec-reboot"/);
  t.match(r.err, /no-checks\.ts: checks: must declare at least one check/);
  t.match(r.err, /bad-check\.ts: checks\[0\]\.title: must be a non-empty string/);
  t.notMatch(r.err, /good\.ts/, 'the good file is not blamed');
  t.same(r.s.nomad.requests, [], 'nothing ran');
});

t.test("a user check may not take a shipped check's id: one id, one meaning (exit 2)", async (t) => {
  const dir = userDir(t, { 'package.json': PKG, 'mine.ts': GOOD.replace("id: 'counted'", "id: 'client-rebooted'") });
  const r = await cli(['list', '--scenarios', dir], process.cwd());
  t.equal(r.code, 2, 'exit 2');
  t.match(
    r.err,
    /mine\.ts: checks\[0\]\.id: is the id of the shipped check "Client rebooted" \(client-rebooted\) \(got "client-rebooted"/,
  );
});

t.test(
  "the files' problems and the rest of the command line's, at once (exit 2); no guess about the scenario",
  async (t) => {
    const dir = userDir(t, { 'package.json': PKG, 'counts.ts': GOOD, 'no-default.ts': 'export const scenario = 1;\n' });
    const r = await cli(
      ['run', 'counts-to-three', '--scenarios', dir, '--netns', '', '--reboot', 'soft', '--repeat', 'x'],
      process.cwd(),
    );
    t.equal(r.code, 2, 'exit 2');
    t.match(r.err, /invalid configuration \(3 problems\)/);
    t.match(r.err, /no-default\.ts: has no default export/);
    t.match(r.err, /--reboot: .*soft/);
    t.match(r.err, /--repeat: /);
    t.notMatch(
      r.err,
      /is not a known scenario/,
      'counts-to-three may be in a file that did not load: not called unknown',
    );
    const typo = await cli(
      ['run', 'counts-to-tree', '--scenarios', userDir(t, { 'package.json': PKG, 'counts.ts': GOOD })],
      process.cwd(),
    );
    t.equal(typo.code, 2);
    t.match(
      typo.err,
      /scenario: is not a known scenario \(got "counts-to-tree"; fix: use one of: .*counts-to-three/,
      'with the files loaded, a typo is named',
    );
    t.same([...r.s.nomad.requests, ...typo.s.nomad.requests], [], 'nothing ran');
  },
);

t.test(
  'matrix: a user scenario is a cell like a shipped one (suite <scenario>@<build>/<variant> naming)',
  async (t) => {
    const dir = userDir(t, { 'package.json': PKG, 'counts.ts': GOOD });
    const cwd = t.testdir({ 'm.yaml': 'scenario: [counts-to-three]\naxes:\n  box: [box-a, box-b]\n' });
    const cells = await cli(['matrix', 'm.yaml', '--list-cells', '--json', '--scenarios', dir], cwd);
    t.equal(cells.code, 0, cells.err);
    t.match(cells.out, /counts-to-three\/box=box-a[\s\S]*counts-to-three\/box=box-b/);
    const none = await cli(['matrix', 'm.yaml', '--list-cells'], cwd);
    t.equal(none.code, 2, 'without --scenarios the scenario is unknown');
    t.match(none.err, /scenario\[0\]: is not a known scenario/);
    const run = await cli(
      [
        'matrix',
        'm.yaml',
        '--scenarios',
        dir,
        '--netns',
        '',
        '--reports-dir',
        join(cwd, 'reports'),
        '--junit',
        join(cwd, 'junit.xml'),
      ],
      cwd,
    );
    t.equal(run.code, 0, run.err);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
      readFileSync(join(cwd, 'junit.xml'), 'utf8'),
    );
    const names = [xml.testsuites.testsuite].flat().map((x: Record<string, unknown>) => x['name']);
    t.equal(names.length, 2, 'a suite per cell');
    t.ok(
      names.every((n: unknown) => String(n).startsWith('counts-to-three')),
      String(names),
    );
  },
);

t.test('a directory that is missing, or would load as CommonJS, is refused with the fix', async (t) => {
  const missing = await cli(['list', '--scenarios', '/nonexistent/scenarios'], process.cwd());
  t.equal(missing.code, 2);
  t.match(missing.err, /--scenarios: does not exist \(got "\/nonexistent\/scenarios"/);
  const dir = userDir(t, { 'counts.ts': GOOD });
  const cjs = await cli(['list', '--scenarios', dir], process.cwd());
  t.equal(cjs.code, 2);
  t.match(cjs.err, /would load as CommonJS .*fix: add one: echo '\{ "type": "module" \}' >/);
});

async function serverReboot(t: Test, effect: ServerRebootEffect, extra: string[] = []) {
  const dir = t.testdir({});
  const argv = [
    'run',
    'server-reboot-example',
    '--scenarios',
    EXAMPLES,
    '--nomad-binary',
    '/stand-in/nomad',
    ...extra,
    ...standInReportArgs(dir),
  ];
  const s = await standIn('restored', { cwd: dir, serverReboot: effect });
  t.teardown(() => s.nomad.close());
  const code = await main(argv, s.deps);
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
    readFileSync(join(dir, 'junit.xml'), 'utf8'),
  );
  const cases = [xml.testsuites.testsuite.testcase].flat() as Record<string, unknown>[];
  const failed = (id: string) => Boolean(cases.find((c) => String(c['name']).endsWith(`(${id})`))?.['failure']);
  return { code, cases, failed, s, err: s.err.join(''), suite: xml.testsuites.testsuite as Record<string, unknown> };
}

t.test(
  'server-reboot on the stand-ins: the server reboots, a leader comes back, the alloc keeps serving',
  async (t) => {
    const r = await serverReboot(t, 'elects');
    t.equal(r.code, 0, r.err);
    t.equal(
      r.suite['name'],
      'server-reboot-example@1.9.7',
      'the suite is <scenario>@<build version>, as for a shipped scenario',
    );
    for (const id of SERVER_CHECKS) t.notOk(r.failed(id), `${id} passed`);
    t.ok(r.s.lab.commands['server']!.length > 0, 'the server machine was used');
    t.ok(
      r.s.nomad.requests.some((q) => q.path === '/v1/status/leader'),
      'the leader was asked for',
    );
    t.ok(r.s.lab.destroyed);
  },
);

t.test('server-reboot: tasks restarted across the server reboot fail alloc-kept-running (exit 1)', async (t) => {
  const r = await serverReboot(t, 'restarts-tasks');
  t.equal(r.code, 1, r.err);
  t.ok(r.failed('alloc-kept-running'));
  t.notOk(r.failed('leader-elected'));
});

t.test('compare and matrix run a user scenario too (one suite per build / cell)', async (t) => {
  const m = 'scenario: server-reboot-example\naxes:\n  nomad:\n    - {name: "a", binary: /stand-in/nomad-1.9.6}\n';
  const dir = t.testdir({ 'm.yaml': m });
  const builds = {
    '/stand-in/nomad-1.9.6': { timeline: 'restored' as const, version: '1.9.6' },
    '/stand-in/nomad-1.9.7': { timeline: 'restored' as const, version: '1.9.7' },
  };
  const common = ['--scenarios', EXAMPLES, '--netns', '', '--reports-dir', join(dir, 'reports')];
  const c = standInPerRun(builds, { cwd: dir });
  const compare = await main(
    [
      'compare',
      'server-reboot-example',
      '--before',
      '/stand-in/nomad-1.9.6',
      '--after',
      '/stand-in/nomad-1.9.7',
      ...common,
      '--junit',
      join(dir, 'compare.xml'),
    ],
    c.deps,
  );
  t.equal(compare, 0, c.err.join(''));
  const suites = /testsuite name="server-reboot-example@1\.9\.6"[\s\S]*testsuite name="server-reboot-example@1\.9\.7"/;
  t.match(readFileSync(join(dir, 'compare.xml'), 'utf8'), suites);
  const perCell = standInPerRun(builds, { cwd: dir });
  const matrix = await main(['matrix', 'm.yaml', ...common, '--junit', join(dir, 'matrix.xml')], perCell.deps);
  t.equal(matrix, 0, perCell.err.join(''));
  // Note: suites are <scenario>@<build>[/<variant>]; a matrix build is named by its nomad entry
  const cell = /testsuite name="server-reboot-example@a"[\s\S]*\(served-through-reboot\)/;
  t.match(readFileSync(join(dir, 'matrix.xml'), 'utf8'), cell);
});

t.test('the real CLI (bin/reboot-harness.js, tsx) lists a user directory outside the repo', async (t) => {
  const dir = userDir(t, { 'package.json': PKG, 'counts.ts': GOOD });
  const child = spawn(process.execPath, [resolve('bin/reboot-harness.js'), 'list', '--scenarios', dir], {
    cwd: tmpdir(),
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
  t.equal(code, 0);
  t.match(out, /counts-to-three\s+\(from /);
});

// Note: these three mostly wait (the run budget of 10 s, the scenario loader's 10 s bound, two CLIs under tsx), each
// with its own directories and stand-ins: side by side the file waits out a 10 s bound once, not twice. Their CLI
// children are CLI_TS (test/helpers/cli-tsx.ts: tsx registered, then the compiled entry when the tests run compiled);
// the test above runs bin/reboot-harness.js itself.
t.test('the tests that wait out a bound, side by side', async (t) => {
  t.jobs = 3;
  t.test(
    'server-reboot: a server that never elects a leader fails leader-elected (exit 1), not the harness',
    async (t) => {
      // the run budget (10 s, the least --timeout takes) ends the wait for a leader
      const r = await serverReboot(t, 'no-leader', ['--timeout', '10']);
      t.equal(r.code, 1, r.err);
      t.ok(r.failed('leader-elected'));
      t.notOk(r.failed('server-rebooted'));
      t.match(r.cases.find((c) => String(c['name']).endsWith('(leader-elected)'))?.['failure'], {
        message: /no leader after the reboot/,
      });
    },
  );

  t.test(
    'a scenario file whose top-level code never finishes or calls process.exit: "does not load" naming it, exit 2',
    async (t) => {
      // Note: two tsx-started CLIs plus the 10 s load bound each; under a VM lab on 2 cores the starts alone took 30 s+
      t.setTimeout(180_000);
      const dir = userDir(t, {
        'package.json': PKG,
        'counts.ts': GOOD,
        'hangs.ts': `${GOOD.replace('counts-to-three', 'hangs')}\nawait new Promise(() => {});\n`,
        'exits.ts': `${GOOD.replace('counts-to-three', 'exits')}\nprocess.exit(0);\n`,
      });
      const cli = (argv: string[]) => {
        const child = spawn(process.execPath, [CLI_TS, ...argv], {
          cwd: tmpdir(),
          env: { ...process.env, CI: 'true' },
        });
        let err = '';
        child.stderr.on('data', (b: Buffer) => (err += b.toString()));
        return new Promise<{ code: number | null; err: string }>((res) =>
          child.on('exit', (c) => res({ code: c, err })),
        );
      };
      const argvs = [
        ['list', '--scenarios', dir],
        ['run', '--all', '--scenarios', dir, '--netns', '', '--memory', 'lots'],
      ];
      // Note: both commands wait out the same 10 s load bound; run side by side, the test waits for it once.
      const results = await Promise.all(argvs.map(cli));
      for (const [i, argv] of argvs.entries()) {
        const { code, err } = results[i]!;
        t.equal(code, 2, `${argv[0]}: exit 2 (${err.slice(-300)})`); // run: --memory lots keeps any run from starting
        t.match(
          err,
          new RegExp(
            `${join(dir, 'hangs.ts').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: does not load \\(got "its top-level code did not finish within 10 s`,
          ),
        );
        t.match(
          err,
          new RegExp(
            `${join(dir, 'exits.ts').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: does not load \\(got "its top-level code called process\\.exit\\(0\\) while loading"; fix: do not end the process`,
          ),
        );
      }
    },
  );

  t.test(
    'a scenario whose run() calls process.exit or awaits for ever: an error verdict with its reports, exit 3 (never 0 or 13)',
    async (t) => {
      t.setTimeout(60_000);
      const body = (name: string, tail: string) =>
        GOOD.replace('counts-to-three', name).replace(
          "ctx.step('count', async () => 3);",
          `ctx.step('count', async () => 3); ${tail}`,
        );
      const dir = userDir(t, {
        'package.json': PKG,
        'exits.ts': body('exit-in-run', 'process.exit(0);'),
        'hangs.ts': body('hang-in-run', 'await new Promise(() => {});'),
      });
      const out = t.testdir({});
      const cli = (name: string) => {
        const child = spawn(
          process.execPath,
          [
            CLI_TS,
            'run',
            name,
            '--scenarios',
            dir,
            '--netns',
            '',
            '--fresh',
            '--timeout',
            '10s',
            '--junit',
            join(out, `${name}.xml`),
            '--reports-dir',
            join(out, name),
          ],
          { cwd: tmpdir(), env: { ...process.env, CI: 'true', HARNESS_WORK_DIR: join(out, 'work') } },
        );
        let all = '';
        child.stdout.on('data', (b: Buffer) => (all += b.toString()));
        child.stderr.on('data', (b: Buffer) => (all += b.toString()));
        return new Promise<{ code: number | null; all: string }>((res) =>
          child.on('exit', (c) => res({ code: c, all })),
        );
      };
      const [exits, hangs] = await Promise.all([cli('exit-in-run'), cli('hang-in-run')]);
      for (const [name, r, why] of [
        ['exit-in-run', exits, /run\(\) called process\.exit\(0\)/],
        ['hang-in-run', hangs, /run\(\) did not finish: it awaits a promise that nothing is left to settle/],
      ] as const) {
        t.equal(r.code, 3, `${name}: exit 3 (${r.all.slice(-400)})`);
        t.match(r.all, new RegExp(`ERROR scenario ${name} \\(${join(dir, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
        t.match(r.all, why);
        t.match(r.all, new RegExp(`^ERROR ${name} `, 'm'), 'the verdict line');
        const junit = readFileSync(join(out, `${name}.xml`), 'utf8');
        t.match(junit, /<error /, 'the JUnit file says error');
        const [runId] = readdirSync(join(out, name));
        const summary = JSON.parse(readFileSync(join(out, name, runId!, 'summary.json'), 'utf8')) as {
          runs: { outcome: string }[];
        };
        t.equal(summary.runs[0]?.outcome, 'error', 'summary.json written with the error');
      }
    },
  );
});

t.test(
  'a scenario whose validate() throws is a problem of the input naming its file (exit 2), not a harness bug',
  async (t) => {
    const dir = userDir(t, {
      'package.json': PKG,
      'tv.ts': GOOD.replace('counts-to-three', 'throw-validate').replace(
        'checks: CHECKS,',
        "checks: CHECKS, validate() { throw new Error('boom in validate'); },",
      ),
    });
    const r = await cli(['run', 'throw-validate', '--scenarios', dir, '--netns', '', '--plan'], process.cwd());
    t.equal(r.code, 2, r.err);
    t.match(r.err, `${join(dir, 'tv.ts')}: validate() threw (got "boom in validate"`);
    t.notMatch(r.err, /internal error/);
  },
);
