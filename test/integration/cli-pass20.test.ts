// The CLI's twentieth adversarial pass (docs/cli-defects.md, rows Q198 on), through the real CLI: merge's --out a
// folder that holds a run's own reports (written over, and the run left out of the merge: a failed run's folder gave
// exit 0), bisect's reports over its --replay log, and report files inside a `git:` build's source tree. Each line
// runs main() in this process (test/helpers/cli-no-lab.ts: the real CLI's checks, the user scenarios under tsx, no
// lab); a line whose read may never end (a FIFO) runs in a child the test can kill.
import t from 'tap';
import '../helpers/ts-loader.js';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nomadShapedTree } from '../helpers/nomad-shaped-tree.js';
import { cliIn } from '../helpers/cli-in.js';
import { noLabLines } from '../helpers/cli-no-lab.js';
import { lablessScenarioSource } from '../helpers/labless-scenario.js';

t.setTimeout(6 * 60_000); // a deadline, not a speed goal: beside the other tiers on 2 cores

/** The CLI's main() in `dir` (its working directory too), a line at a time; labless scenarios run, no lab is made. */
const cliAt = (dir: string, env?: Record<string, string>) =>
  noLabLines(dir, env, { labless: true, realChecks: true, chdir: true });

const scenario = lablessScenarioSource;
const USC = {
  'package.json': '{ "type": "module" }\n',
  'ok.ts': scenario('ok', 'passed'),
  'bad.ts': scenario('bad', 'failed'),
};

t.test("merge --out a folder holding a run's reports is refused, the run left as it was (Q198)", async (t) => {
  const dir = t.testdir({
    usc: USC,
    'm.yaml': 'scenario: [ok, bad]\naxes:\n  reboot: [graceful]\ndefaults:\n  scenarios_dir: usc\n',
  });
  const cli = cliAt(dir);
  t.equal((await cli('run', 'ok', '--scenarios', 'usc', '--reports-dir', 'rep', '--netns', '')).status, 0);
  t.equal((await cli('run', 'bad', '--scenarios', 'usc', '--reports-dir', 'rep', '--netns', '')).status, 1);
  const failed = readdirSync(join(dir, 'rep')).find(
    (id) => JSON.parse(readFileSync(join(dir, 'rep', id, 'summary.json'), 'utf8')).outcome === 'failed',
  )!;
  const before = readFileSync(join(dir, 'rep', failed, 'summary.json'), 'utf8');
  const into = await cli('merge', 'rep', '--out', join('rep', failed));
  t.equal(into.status, 2, 'not a merge of the passing run alone (exit 0)');
  t.match(into.stderr, new RegExp(`--out: holds the reports of run ${failed} \\(rep/${failed}/summary\\.json\\)`));
  t.match(into.stderr, /would be written over them; it lies inside the input folder rep/);
  t.equal(readFileSync(join(dir, 'rep', failed, 'summary.json'), 'utf8'), before, "the run's report kept");
  const elsewhere = await cli('merge', join('rep', failed, 'summary.json'), '--out', join('rep', failed));
  t.equal(elsewhere.status, 2, 'a run folder given as --out beside its own summary.json');
  // the GitLab template's layout: reports/shard-<i>/junit.xml with the matrix's summary.json in a folder below
  for (const i of [1, 2])
    await cli(
      'matrix',
      'm.yaml',
      '--shard',
      `${i}/2`,
      '--netns',
      '',
      '--reports-dir',
      `gl/shard-${i}`,
      '--junit',
      `gl/shard-${i}/junit.xml`,
    );
  const shard = await cli('merge', 'gl', '--out', 'gl/shard-1');
  t.equal(shard.status, 2);
  t.match(shard.stderr, /--out: holds the reports of run .*gl\/shard-1\/junit\.xml.*so those runs would be left out/);
  const merged = await cli('merge', 'gl', '--out', 'gl/merged');
  t.equal(merged.status, 1, 'a folder of its own: both shards merged, the failed cell counted');
  t.match(merged.stdout, /merged 2 suites from 2 JSON reports/);
  t.equal(
    (await cli('merge', 'gl', '--out', 'gl/merged')).status,
    1,
    "a merge's own output is written over when run again",
  );
  // the check reads an --out folder's summary.json: a FIFO of that name is not read (the merge writes around it)
  mkdirSync(join(dir, 'gl', 'fifo'));
  execFileSync('mkfifo', [join(dir, 'gl', 'fifo', 'summary.json')]);
  // (a child, killed after 30 s: a FIFO read that never ends would hold this process; merge loads no TypeScript)
  const fifo = cliIn(dir)('merge', 'gl', '--out', 'gl/fifo');
  t.equal(fifo.signal, null, 'the merge ends by itself');
});

/** A git tree of two tagged commits (v1, v2): enough for bisect and a `git:` build to name refs of it. */
function gitTree(dir: string, name = 'tree'): string {
  const tree = join(dir, name);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], {
      cwd: tree,
      stdio: 'ignore',
    });
  mkdirSync(tree);
  git('init', '-q');
  writeFileSync(join(tree, 'main.go'), 'package main\n');
  git('add', '-A');
  git('commit', '-qm', 'one');
  git('tag', 'v1');
  writeFileSync(join(tree, 'main.go'), 'package main\n\nfunc main() {}\n');
  git('commit', '-qam', 'two');
  git('tag', 'v2');
  return tree;
}

t.test("bisect: a report over --replay's log or its bisect-inputs.json is refused (Q199)", async (t) => {
  const dir = t.testdir({ old: { 'bisect-log.jsonl': '{}\n', 'bisect-inputs.json': '{}\n' } });
  gitTree(dir);
  const res = await cliAt(dir)(
    'bisect',
    '--source',
    'git:tree',
    '--good',
    'v1',
    '--bad',
    'v2',
    '--check',
    'task-dirs',
    '--netns',
    '',
    '--replay',
    'old/bisect-log.jsonl',
    '--junit',
    'old/bisect-log.jsonl',
    '--report-json',
    'old/bisect-inputs.json',
  );
  t.equal(res.status, 2);
  t.match(res.stderr, /--junit: is a file this command reads \(--replay\): the report would be written over it/);
  t.match(res.stderr, /--report-json: is a file this command reads \(--replay \(its bisect-inputs\.json\)\)/);
});

t.test("a report file inside a git: build's source tree is refused (Q200)", async (t) => {
  const dir = t.testdir({});
  // a tree that plans (laid out as Nomad, with a go that answers the version question): the plan itself passed
  const { tree, bin } = nomadShapedTree(dir, 'exit 1');
  const before = readFileSync(join(tree, 'main.go'), 'utf8');
  const planned = cliAt(dir, {
    HOME: dir,
    PATH: `${bin}:${process.env['PATH']}`,
    HARNESS_WORK_DIR: join(dir, 'work'),
    XDG_CACHE_HOME: join(dir, 'cache'),
  });
  t.equal((await planned('run', '--nomad', 'git:tree', '--plan', '--netns', '')).status, 0, 'the tree plans');
  const run = await planned('run', '--nomad', 'git:tree', '--plan', '--netns', '', '--junit', 'tree/main.go');
  t.equal(run.status, 2, 'not a plan that writes the JUnit report over main.go when it runs');
  t.match(run.stderr, /--junit: lies in the source tree git:tree \(--nomad\) at main\.go/);
  const compare = await planned(
    'compare',
    '--before',
    'git:tree',
    '--after',
    './nope',
    '--plan',
    '--junit',
    'tree/j.xml',
  );
  t.match(compare.stderr, /--junit: lies in the source tree git:tree \(--before\) at j\.xml/);
  gitTree(dir, 'tree2');
  const bisect = await cliAt(dir)(
    'bisect',
    '--source',
    'git:tree2',
    '--good',
    'v1',
    '--bad',
    'v2',
    '--check',
    'task-dirs',
    '--netns',
    '',
    '--report-json',
    'tree2/.git/HEAD',
  );
  t.equal(bisect.status, 2);
  t.match(bisect.stderr, /--report-json: lies in the source tree git:tree2 \(--source\) at \.git\/HEAD/);
  t.equal(readFileSync(join(tree, 'main.go'), 'utf8'), before, 'the tree as it was');
});

t.test("a flag for an axis the matrix varies is told with the file's own problems (Q201)", async (t) => {
  const dir = t.testdir({
    'm.yaml':
      'scenario: bridge-exec-reboot\naxes:\n  nomad: [{name: a, binary: ./nope}]\n  reboot: [graceful]\nparallel: 0\n',
  });
  const cli = cliAt(dir);
  for (const mode of ['--plan', '--list-cells']) {
    const res = await cli('matrix', 'm.yaml', mode, '--netns', '', '--nomad', './nope', '--reboot', 'hard');
    t.equal(res.status, 2);
    t.match(res.stderr, /m\.yaml: parallel: must be a whole number/, `${mode}: the file's problem`);
    t.match(res.stderr, /--nomad: every cell's nomad comes from axes\.nomad in m\.yaml/, `${mode}: --nomad with it`);
    t.match(res.stderr, /--reboot: every cell's reboot comes from axes\.reboot in m\.yaml/, `${mode}: --reboot too`);
    t.equal(res.stderr.match(/flag would be ignored/g)?.length, 2, `${mode}: each told once`);
  }
});

t.test('merge: a shard of the matrix missing among the inputs is told, not merged around (Q202)', async (t) => {
  const dir = t.testdir({
    usc: USC,
    'm.yaml': 'scenario: [ok, bad]\naxes:\n  reboot: [graceful]\ndefaults:\n  scenarios_dir: usc\n',
  });
  const cli = cliAt(dir);
  // cell 0 (ok, passes) runs in shard 1/2, cell 1 (bad, fails) in shard 2/2
  for (const i of [1, 2])
    await cli('matrix', 'm.yaml', '--shard', `${i}/2`, '--netns', '', '--reports-dir', `all/s${i}`);
  const lone = await cli('merge', 'all/s1', '--out', 'm1');
  t.equal(lone.status, 2, 'not PASS and exit 0 over half the matrix');
  t.match(lone.stderr, /the reports of m\.yaml hold shard 1\/2, not 2\/2: 1 of its 2 cells would be left out/);
  const both = await cli('merge', 'all', '--out', 'm2');
  t.equal(both.status, 1, 'every shard: the failed cell counted');
  const cell = await cli('matrix', 'm.yaml', '--cell', 'ok/reboot=graceful', '--netns', '', '--reports-dir', 'again');
  t.equal(cell.status, 0);
  t.equal(
    (await cli('merge', 'again', '--out', 'm3')).status,
    0,
    'a --cell re-run (shard 1/1) asks for no other shard',
  );
});

t.test(
  'merge: a merged report that cannot be written is an error, exit 3, and not listed as written (Q203)',
  async (t) => {
    const dir = t.testdir({ usc: USC, out: { 'junit.xml': {} } });
    const cli = cliAt(dir);
    t.equal((await cli('run', 'ok', '--scenarios', 'usc', '--reports-dir', 'rep', '--netns', '')).status, 0);
    const res = await cli('merge', 'rep', '--out', 'out');
    t.equal(res.status, 3, 'not the cells verdict (0) with the JUnit report missing');
    t.match(res.stderr, /^error: could not write the JUnit report .*out\/junit\.xml/m);
    t.match(res.stdout, /^reports: out\/summary\.json out\/index\.html$/m, 'only what was written');
  },
);
