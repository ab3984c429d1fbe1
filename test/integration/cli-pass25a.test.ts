// The CLI's twenty-fifth adversarial pass, part A (docs/cli-defects.md, rows Q360 on): the 24th pass's exit guard in
// close variants (a user scenario's 'exit' listener that calls process.exit), a known-issue file over a folder of user
// scenarios, a matrix's defaults.job.files, and a user scenario file with two problems.
import t from 'tap';
import '../helpers/ts-loader.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliDeps } from '../../lib/cli/deps.js';
import type { JobConverter } from '../../lib/cluster/job-convert.js';
import { main } from '../../lib/cli/main.js';
import { noLabCli, noLabLines } from '../helpers/cli-no-lab.js';
import { runCliTs } from '../helpers/cli-tsx.js';
import { lablessScenarioSource, writeLablessScenario, writeScenarioWithBody } from '../helpers/labless-scenario.js';

t.setTimeout(3 * 60_000);

/** The CLI as a process of its own (the exit guard is the process's): several of a test run side by side. */
function harness(dir: string, argv: string[]) {
  return runCliTs([...argv, '--reports-dir', join(dir, 'reports'), '--netns', ''], {
    cwd: dir,
    env: { ...process.env, HARNESS_WORK_DIR: join(dir, 'work'), XDG_CACHE_HOME: join(dir, 'cache'), CI: 'true' },
    timeoutMs: 45_000,
  });
}

t.test(
  "a user scenario's 'exit' listener that calls process.exit(0) does not turn a FAIL into exit 0 (Q360)",
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    // added while run() runs: it comes before the harness's own 'exit' listener, and its process.exit ended the
    // process at once with its own code
    writeScenarioWithBody(
      usc,
      'nestexit',
      "process.on('exit', () => process.exit(0)); return judgeAll(CHECKS, {});",
      'failed',
    );
    // put in front of every 'exit' listener once the command ended
    writeScenarioWithBody(
      usc,
      'beforenest',
      "process.once('beforeExit', () => process.prependListener('exit', () => process.exit(0))); return judgeAll(CHECKS, {});",
      'failed',
    );
    writeLablessScenario(usc, 'ok');
    // and in a matrix whose cells run at once; the three processes side by side
    writeFileSync(join(dir, 'm.yaml'), 'scenario: [nestexit, ok]\naxes:\n  clients: [1]\nparallel: 2\n');
    const names = ['nestexit', 'beforenest'];
    const [m, ...runs] = await Promise.all([
      harness(dir, ['matrix', 'm.yaml', '--scenarios', usc]),
      ...names.map((name) => harness(dir, ['run', name, '--scenarios', usc])),
    ]);
    for (const [i, name] of names.entries()) {
      const r = runs[i]!;
      t.match(r.stdout, new RegExp(`FAIL ${name}`), `${name}: the verdict is FAIL`);
      t.equal(r.status, 1, `${name}: exit 1, the verdict's code (${r.stderr.slice(-300)})`);
    }
    t.match(m.stdout, /FAIL nestexit\/clients=1/);
    t.equal(m.status, 1, `matrix: exit 1 (${m.stderr.slice(-300)})`);
  },
);

t.test(
  'a known-issue file naming several user scenarios of the folder is taken when one of them runs, as --plan takes it (Q362)',
  async (t) => {
    const dir = t.testdir({
      usc: {
        'package.json': '{ "type": "module" }\n',
        'ok.ts': lablessScenarioSource('ok', 'passed'),
        'bad.ts': lablessScenarioSource('bad', 'failed'),
      },
      'ki.yaml': [
        'issues:',
        '  - id: ACME-1',
        '    url: https://acme.example/1',
        '    title: c fails',
        '    checks: [c]',
        '    conditions: { scenarios: [bad, ok] }',
        "    lines: { '1.9': 1.9.8 }",
        '    source: the tracker',
        '',
      ].join('\n'),
    });
    const plan = noLabCli(dir);
    t.equal(
      await plan.run('run', 'bad', '--scenarios', 'usc', '--known-issues-file', join(dir, 'ki.yaml'), '--plan'),
      0,
      `--plan: ${plan.err()}`,
    );
    // the run: main() in-process (its working directory too), its labless scenario run to the verdict, no lab made
    const cli = noLabLines(dir, undefined, { labless: true, realChecks: true, chdir: true });
    const runs = ['--scenarios', 'usc', '--known-issues-file', 'ki.yaml', '--reports-dir', 'reports', '--netns', ''];
    const bad = await cli('run', 'bad', ...runs);
    t.equal(bad.status, 1, `the run: exit 1, its check failed (${bad.stderr.slice(-400)})`);
    t.notMatch(bad.stderr, /names no scenario/, 'the other scenario of the folder is one');
    t.match(bad.stdout, /FAIL\s+c \(c\): failed — unknown: ACME-1\?/, 'the row labels the failure');
    const ok = await cli('run', 'ok', ...runs);
    t.equal(ok.status, 0, `the other scenario: exit 0 (${ok.stderr.slice(-400)})`);
  },
);

t.test(
  "a matrix that fails to plan has its defaults' job.files parsed with the rest: a batch job on bridge-exec-reboot told at once (Q363)",
  async (t) => {
    const dir = t.testdir({
      nomad: '#!/bin/sh\n',
      'batch.nomad.hcl': '',
      'system.nomad.hcl': '',
      'm.yaml': [
        'scenario: [bridge-exec-reboot, rolling-reboot]',
        'axes:',
        '  nomad:',
        '    - { name: a, binary: ./nomad }',
        '  clients: [2]',
        'defaults:',
        '  job:',
        '    files: [batch.nomad.hcl, system.nomad.hcl]',
        '',
      ].join('\n'),
    });
    const typeOf = (file: string) => (file.endsWith('batch.nomad.hcl') ? 'batch' : 'system');
    const convertJob: JobConverter = async ({ file }) => ({
      ok: true,
      job: {
        ID: `j-${typeOf(file)}`,
        Name: `j-${typeOf(file)}`,
        Type: typeOf(file),
        TaskGroups: [
          {
            Name: 'g',
            Count: 1,
            Networks: [{ Mode: 'host', DynamicPorts: [{ Label: 'http' }] }],
            Tasks: [{ Name: 't', Driver: 'exec' }],
          },
        ],
      },
    });
    const err: string[] = [];
    const deps: CliDeps = {
      env: { PATH: process.env['PATH'] ?? '', HOME: dir, HARNESS_WORK_DIR: join(dir, 'work') },
      cwd: dir,
      isTTY: false,
      out: () => {},
      err: (s) => void err.push(s),
      makeEnv: () => {
        throw new Error('no lab may be made');
      },
      prepareHost: async () => undefined,
      convertJob,
    };
    t.equal(await main(['matrix', 'm.yaml', '--plan', '--netns', ''], deps), 2);
    const text = err.join('');
    t.match(text, /bridge-exec-reboot runs one job of yours/, 'the cell problem');
    t.match(text, /job "j-batch" is a batch job: bridge-exec-reboot judges service jobs only/, 'the batch job, now');
    t.match(text, /job "j-system" is a system job: bridge-exec-reboot judges service jobs only/, 'the system job, now');
  },
);

t.test(
  "a user scenario file with another problem has its name judged too: a shipped scenario's name told at once (Q364)",
  async (t) => {
    const head = "import { defineScenario } from 'nomad-reboot-harness/scenario';\n";
    const dir = t.testdir({
      usc: {
        'package.json': '{ "type": "module" }\n',
        'c.ts': `${head}export default defineScenario({ name: 'bridge-exec-reboot', summary: 'x', needsNomad: false, checks: [], async run() { return []; } });\n`,
        'd.ts': `${head}export default defineScenario({ name: 'twin', summary: 'x', needsNomad: false, checks: [{ id: 'task-dirs' }], async run() { return []; } });\n`,
        'e.ts': lablessScenarioSource('twin', 'passed'),
      },
    });
    const c = noLabCli(dir);
    t.equal(await c.run('list', '--scenarios', 'usc'), 2);
    const text = c.err();
    t.match(text, /c\.ts: checks: must declare at least one check/);
    t.match(text, /c\.ts: name: is the name of a shipped scenario \(got "bridge-exec-reboot"/, 'the shipped name, now');
    t.match(text, /d\.ts: checks\[0\]\.title: must be a non-empty string/);
    t.match(text, /d\.ts: checks\[0\]\.id: is the id of the shipped check/, "the shipped check's id, now");
    t.match(text, /e\.ts: name: is already used by .*d\.ts/, 'the name two files take, now');
  },
);

t.test(
  'a matrix whose cells run at once blames the cell whose run() called process.exit, not another one (Q365)',
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    // starts first, calls process.exit(0) while the other cell runs, and would pass
    writeScenarioWithBody(
      usc,
      'exitpass',
      'await new Promise((r) => setTimeout(r, 1000)); process.exit(0); await new Promise((r) => setTimeout(r, 500)); return judgeAll(CHECKS, {});',
    );
    writeScenarioWithBody(
      usc,
      'innocent',
      'await new Promise((r) => setTimeout(r, 3000)); return judgeAll(CHECKS, {});',
    );
    writeFileSync(join(dir, 'm.yaml'), 'scenario: [exitpass, innocent]\naxes:\n  clients: [1]\nparallel: 2\n');
    const r = await harness(dir, ['matrix', 'm.yaml', '--scenarios', usc]);
    t.match(r.stdout, /ERROR exitpass\/clients=1/, 'the cell that called process.exit is the one stopped');
    t.match(r.stdout, /scenario exitpass \(.*exitpass\.ts\): run\(\) called process\.exit\(0\)/);
    t.match(r.stdout, /PASS innocent\/clients=1/, 'the other cell runs to its verdict');
    t.notMatch(r.stdout, /scenario innocent .*called process\.exit/, 'and is not blamed');
    t.equal(r.status, 3, `exit 3, as run alone gives (${r.stderr.slice(-300)})`);
  },
);

t.test('--expect: a value refused for its form is not also one side of a contradiction (Q367)', async (t) => {
  const dir = t.testdir({
    usc: { 'package.json': '{ "type": "module" }\n', 'ok.ts': lablessScenarioSource('ok', 'passed') },
  });
  const c = noLabCli(dir);
  const given = ['FAIL', 'c=FAIL', 'c=', 'c=fail', 'c=pass', 'fail', 'pass'].flatMap((e) => ['--expect', e]);
  t.equal(await c.run('run', 'ok', '--scenarios', 'usc', '--plan', '--netns', '', ...given), 2);
  t.match(c.err(), /--expect: fail and pass for check c contradict each other \(got \["c=fail","c=pass"\]/);
  t.match(c.err(), /--expect: fail and pass for the scenario contradict each other \(got \["fail","pass"\]/);
  t.notMatch(c.err(), /FAIL and|and {2}and/, 'the malformed ones only told for their form');
  t.match(c.err(), /must be "pass", "fail" or "<check>=pass\|fail" \(got "c="/);
});
