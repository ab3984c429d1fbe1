// The CLI's twenty-fifth adversarial pass, part B (docs/cli-defects.md, rows Q380 on): bash completion of lab ids
// from folder names that hold shell syntax, a repro.sh whose cell name holds a newline, and the merge index's counts
// of known-issue labels against summary.json's. The completion runs in bash; the CLI's lines run main() in this process
// (test/helpers/cli-no-lab.ts: the real CLI's checks, the user scenarios under tsx, no lab).
import t from 'tap';
import '../helpers/ts-loader.js';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bashCompleter, hasBash } from '../helpers/bash-completion.js';
import { noLabCli, noLabLines } from '../helpers/cli-no-lab.js';
import { lablessScenarioSource } from '../helpers/labless-scenario.js';

t.setTimeout(3 * 60_000);

/** The CLI's main() in `dir` (its working directory too), a line at a time; labless scenarios run, no lab is made. */
const cliAt = (dir: string) => noLabLines(dir, undefined, { labless: true, realChecks: true, chdir: true });

t.test(
  'bash completion of destroy/login: a lab folder named $(cmd) or `cmd` is offered as it is, never run (Q380)',
  { skip: hasBash ? false : 'bash is not installed' },
  async (t) => {
    const dir = t.testdir({});
    const labs = ['r0abc1234', 'x$(touch PWNED)y', '`touch BQ`', 'a b'];
    const offer = await bashCompleter(t, dir, labs);
    // each offered word read back as the shell reads it on the line (Q420 quotes it)
    const complete = (...words: string[]) => offer(...words).map((x) => x.read);
    t.same(
      complete('reboot-harness', 'destroy', ''),
      [...labs].sort((x, y) => x.localeCompare(y)),
      'each id one word, as written',
    );
    t.same(complete('reboot-harness', 'login', 'x$'), ['x$(touch PWNED)y'], 'a prefix with a $ matched literally');
    t.same(complete('reboot-harness', 'destroy', 'r0'), ['r0abc1234']);
    t.same(complete('reboot-harness', 'destroy', '*'), [], 'a glob is no pattern');
    t.notOk(existsSync(join(dir, 'PWNED')), 'the $(...) in a folder name was not run');
    t.notOk(existsSync(join(dir, 'BQ')), 'the `...` in a folder name was not run');
  },
);

const project = {
  usc: { 'package.json': '{ "type": "module" }\n', 'bad.ts': lablessScenarioSource('bad', 'failed') },
};

t.test(
  'repro.sh of a cell whose name holds a newline: its comment stays one line, its command the whole command (Q381)',
  async (t) => {
    const dir = t.testdir({
      ...project,
      'nl.yaml': 'scenario: [bad]\naxes:\n  box: ["x\\ntouch PWNED\\n"]\ndefaults:\n  scenarios_dir: usc\n',
    });
    const c = await cliAt(dir)('matrix', 'nl.yaml', '--reports-dir', 'r', '--netns', '');
    t.equal(c.status, 1, c.stderr);
    const run = readdirSync(join(dir, 'r')).find((f) => /^r[0-9a-z]+$/.test(f))!;
    const repro = readFileSync(join(dir, 'r', run, 'repro.sh'), 'utf8');
    const lines = repro.split('\n');
    t.equal(lines[0], '#!/bin/sh');
    t.match(lines[1], /^# re-runs bad\/box=x\\ntouch PWNED\\n \(run \w+\) with the same inputs/);
    t.match(lines[2], /^cd /, 'the line after the comment is the command, not the rest of the name');
    t.match(repro, /--cell 'bad\/box=x\ntouch PWNED\n' --netns ''\n$/, 'the cell quoted whole in the command');
    const sh = spawnSync('sh', ['-n', join(dir, 'r', run, 'repro.sh')], { encoding: 'utf8' });
    t.equal(sh.status, 0, `sh -n: ${sh.stderr}`);
    // the console prints the same command, not its last line
    t.match(
      c.stdout,
      /re-run bad\/box=x\\ntouch PWNED\\n \(run \w+\) exactly \(also in [^)]+\):\n {2}cd .* --cell 'bad\/box=x\ntouch PWNED\n' --netns ''\n/,
    );
    t.notOk(existsSync(join(dir, 'PWNED')));
  },
);

t.test(
  "merge's index: a failure labelled unknown is not counted new, as summary.json does not count it (Q382)",
  async (t) => {
    const dir = t.testdir({
      ...project,
      'ki.yaml':
        "issues:\n  - id: ACME-1\n    title: c fails\n    url: https://example.com/ACME-1\n    checks: [c]\n    lines: { '1.9': null }\n    source: tracker\n",
      'k.yaml':
        'scenario: [bad]\naxes:\n  reboot: [graceful, panic]\ndefaults:\n  scenarios_dir: usc\n  known_issues_file: ki.yaml\n',
    });
    const c = await cliAt(dir)('matrix', 'k.yaml', '--reports-dir', 'r', '--netns', '');
    t.equal(c.status, 1, c.stderr);
    const m = noLabCli(dir);
    t.equal(await m.run('merge', 'r', '--out', 'merged'), 1, m.err());
    const summary = JSON.parse(readFileSync(join(dir, 'merged', 'summary.json'), 'utf8'));
    t.match(summary.knownIssues, { new: 0, unknown: 2 });
    const index = readFileSync(join(dir, 'merged', 'index.html'), 'utf8');
    t.notMatch(index, /new failure/, 'no new failure on top: summary.json counts none');
    t.match(index, /id="known-issues">on a build the table cannot place: ACME-1</);
    t.match(index, /<td class="n" data-key="new">0<\/td><td data-key="known">unknown: ACME-1\?<\/td>/);
    t.notMatch(index, /<b>new: /);
  },
);

t.test(
  'a failed cell re-run with the --cell command it printed, merged beside its shard: told as a re-run, not two runners (Q383)',
  async (t) => {
    const dir = t.testdir({
      usc: { ...project.usc, 'ok.ts': lablessScenarioSource('ok', 'passed') },
      'm.yaml': 'scenario: [ok, bad]\naxes:\n  reboot: [graceful]\ndefaults:\n  scenarios_dir: usc\n',
    });
    const cli = cliAt(dir);
    t.equal((await cli('matrix', 'm.yaml', '--shard', '1/2', '--reports-dir', 'reports/m-1', '--netns', '')).status, 0);
    t.equal((await cli('matrix', 'm.yaml', '--shard', '2/2', '--reports-dir', 'reports/m-2', '--netns', '')).status, 1);
    t.equal(
      (await cli('matrix', 'm.yaml', '--cell', 'bad/reboot=graceful', '--reports-dir', 'rerun', '--netns', '')).status,
      1,
    );
    const both = await cli('merge', 'reports', 'rerun', '--out', 'merged');
    t.equal(both.status, 2);
    t.notMatch(both.stderr, /one cell ran on two runners|check the shard split|ran twice/);
    t.match(both.stderr, /the cell ran again with --cell \(run \w+, after run \w+ of m\.yaml\)/);
    t.match(both.stderr, /fix: merge one run of the cell: leave the re-run out \(rerun\/matrix-\w+\)/);
    // a retried shard is still told as one (Q311)
    t.equal(
      (await cli('matrix', 'm.yaml', '--shard', '2/2', '--reports-dir', 'reports/m-2b', '--netns', '')).status,
      1,
    );
    t.match((await cli('merge', 'reports', '--out', 'merged')).stderr, /shard 2\/2 of m\.yaml ran twice/);
    // the fix followed: the shard's earlier run left out, the re-run in its place
    t.equal((await cli('merge', 'reports/m-1', 'rerun', '--out', 'merged')).status, 1, 'every cell once: merged');
  },
);
