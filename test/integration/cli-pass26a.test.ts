// The CLI's twenty-sixth adversarial pass, part A (docs/cli-defects.md, rows Q400 on): the 25th pass's exit guards in
// close variants (a user scenario's SIGINT listener or timer that calls process.exit(130) while the command runs).
import t from 'tap';
import '../helpers/ts-loader.js';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI_TS, privateEnv, runCliTsIn } from '../helpers/cli-tsx.js';
import { noLabCli } from '../helpers/cli-no-lab.js';
import { lablessScenarioSource, writeScenarioWithBody } from '../helpers/labless-scenario.js';

t.setTimeout(3 * 60_000);
// Note: each test has its own folder and processes, and none changes this process's working directory: side by side
t.jobs = 4;

/** The CLI as a process of its own (its exit code, its signals): the tests below run side by side (t.jobs). */
function harness(dir: string, argv: string[]) {
  return runCliTsIn(dir, argv);
}

t.test(
  "a user scenario's timer that calls process.exit(130) while the command runs is ignored like any code, not taken for the second Ctrl-C (Q400)",
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    // its run() ends at once and fails; its timer fires while the other cell still runs
    writeScenarioWithBody(
      usc,
      't130',
      'setTimeout(() => process.exit(130), 1000); return judgeAll(CHECKS, {});',
      'failed',
    );
    writeScenarioWithBody(
      usc,
      'slowbad',
      'await new Promise((r) => setTimeout(r, 3000)); return judgeAll(CHECKS, {});',
      'failed',
    );
    writeFileSync(join(dir, 'm.yaml'), 'scenario: [t130, slowbad]\naxes:\n  clients: [1]\nparallel: 2\n');
    const r = await harness(dir, ['matrix', 'm.yaml', '--scenarios', usc]);
    t.equal(r.status, 1, `exit 1, the verdict's, not 130 (${r.stderr.slice(-300)})`);
    t.match(r.stdout, /FAIL t130\/clients=1/, "the finished cell's verdict is printed");
    t.match(r.stdout, /FAIL slowbad\/clients=1/, "and the other cell's");
    t.match(r.stderr, /warning: process\.exit\(130\) called while the command ran .*: ignored/);
    t.ok(
      existsSync(join(dir, 'reports')) && readdirSync(join(dir, 'reports')).some((d) => d.startsWith('matrix-')),
      'the reports are written',
    );
  },
);

t.test(
  "one Ctrl-C while a user scenario's SIGINT listener calls process.exit(130): the run is torn down and reported, not ended at once (Q400)",
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    writeScenarioWithBody(
      usc,
      'sigexit',
      "process.on('SIGINT', () => process.exit(130)); await new Promise((r) => setTimeout(r, 3000)); return judgeAll(CHECKS, {});",
    );
    const child = spawn(
      process.execPath,
      [CLI_TS, 'run', 'sigexit', '--scenarios', usc, '--reports-dir', join(dir, 'reports'), '--netns', ''],
      {
        cwd: dir,
        env: privateEnv(dir),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
    const done = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const deadline = Date.now() + 45_000;
    while (!/sigexit: run /.test(stderr) && Date.now() < deadline) await sleep(50);
    await sleep(300);
    child.kill('SIGINT');
    const code = await done;
    t.equal(code, 130, `exit 130 (${stderr.slice(-400)})`);
    t.match(stderr, /SIGINT received: cleaning up/);
    t.match(stderr, /ok teardown/, 'the teardown ran');
    t.match(stdout, /ERROR sigexit — /, 'the verdict is printed');
    t.match(stdout, /reports: .*summary\.json/, 'and the reports written');
  },
);

t.test(
  'matrix --list-cells judges the known-issue and job files every shard reads, as --plan and the shards do (Q401)',
  async (t) => {
    const row = (checks: string, scenarios: string) =>
      `issues:\n  - id: ACME-1\n    url: https://acme.example/1\n    title: t\n    checks: [${checks}]\n    conditions: { scenarios: [${scenarios}] }\n    lines: { '1.9': 1.9.8 }\n    source: s\n`;
    const dir = t.testdir({
      usc: {
        'package.json': '{ "type": "module" }\n',
        'ok.ts': lablessScenarioSource('ok', 'passed'),
        'bad.ts': lablessScenarioSource('bad', 'failed'),
      },
      'ki-bad.yaml': row('c, nocheck', 'bad, ghost'),
      'ki-good.yaml': row('c', 'bad, ok'),
      nomad: '#!/bin/sh\n',
      'job.yaml': [
        'scenario: [bridge-exec-reboot]',
        'axes:',
        '  nomad:',
        '    - { name: a, binary: ./nomad }',
        'defaults:',
        '  job:',
        '    file: nojob.hcl',
        '',
      ].join('\n'),
    });
    // Note: a known-issue file is read from the working directory (harness.yaml's are too): the test's own here
    const matrixOf = (ki: string) =>
      `scenario: [bad, ok]\naxes:\n  clients: [1]\ndefaults:\n  known_issues_file: ${join(dir, ki)}\n`;
    writeFileSync(join(dir, 'm.yaml'), matrixOf('ki-bad.yaml'));
    writeFileSync(join(dir, 'good.yaml'), matrixOf('ki-good.yaml'));
    const c = noLabCli(dir);
    t.equal(await c.run('matrix', 'm.yaml', '--scenarios', 'usc', '--list-cells', '--shards', '2'), 2);
    t.match(c.err(), /ki-bad\.yaml: issues\[0\]\.checks: names no check \(got "nocheck"/, "the defaults' file's row");
    t.match(c.err(), /ki-bad\.yaml: issues\[0\]\.conditions\.scenarios: names no scenario \(got "ghost"/);
    t.equal(c.out(), '', 'no cell listed');
    const missing = noLabCli(dir);
    t.equal(
      await missing.run(
        'matrix',
        'good.yaml',
        '--scenarios',
        'usc',
        '--list-cells',
        '--known-issues-file',
        'nothere.yaml',
      ),
      2,
    );
    t.match(
      missing.err(),
      /known_issues_file \(--known-issues-file\): cannot be read: ENOENT/,
      'a file that is not there',
    );
    // a file that fails to plan (an --expect naming no check) has its defaults' job judged too
    const job = noLabCli(dir);
    t.equal(await job.run('matrix', 'job.yaml', '--list-cells', '--expect', 'bogus=fail'), 2);
    t.match(job.err(), /--expect: names no check of scenario bridge-exec-reboot/);
    t.match(job.err(), /job\.file \(--job\): cannot be read \(ENOENT\).*nojob\.hcl/, "the defaults' job file, with it");
    const good = noLabCli(dir);
    t.equal(await good.run('matrix', 'good.yaml', '--scenarios', 'usc', '--list-cells'), 0, good.err());
    t.match(good.out(), /2 cells in good\.yaml/);
  },
);

t.test(
  "a rejection nothing awaited in a cell, while the session runs: summary.json's exit code is the process's, 3 (Q402)",
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    // passes at once; its timer rejects while the other cell still runs
    writeScenarioWithBody(
      usc,
      'rejafter',
      "setTimeout(() => Promise.reject(new Error('rejected after run')), 1000); return judgeAll(CHECKS, {});",
    );
    writeScenarioWithBody(usc, 'mid3', 'await new Promise((r) => setTimeout(r, 3000)); return judgeAll(CHECKS, {});');
    writeFileSync(join(dir, 'm.yaml'), 'scenario: [rejafter, mid3]\naxes:\n  clients: [1]\nparallel: 2\n');
    const r = await harness(dir, ['matrix', 'm.yaml', '--scenarios', usc, '--json']);
    t.equal(r.status, 3, `exit 3 (${r.stderr.slice(-300)})`);
    t.match(r.stderr, /a promise was rejected and nothing awaited it .*then exits 3: rejected after run/);
    const doc = JSON.parse(r.stdout) as { exitCode: number };
    t.equal(doc.exitCode, 3, "the summary's exit code is the process's");
    const folder = readdirSync(join(dir, 'reports')).find((d) => d.startsWith('matrix-'))!;
    const file = JSON.parse(readFileSync(join(dir, 'reports', folder, 'summary.json'), 'utf8')) as { exitCode: number };
    t.equal(file.exitCode, 3, 'and so is summary.json');
  },
);
