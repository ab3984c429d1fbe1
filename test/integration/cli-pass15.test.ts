// The CLI's fifteenth adversarial pass (docs/cli-defects.md, rows Q158 on), through the real CLI: Ctrl-C or SIGTERM
// while a child runs for the inputs (`go env`, `nomad version`, git) before a run's own signal watch; merge of a
// folder that holds no report beside folders that do, and the merge's own problems with the inputs'; a matrix file
// that cannot be read beside a --faults schedule; a symlinked --scenarios folder; an interrupted build's line.
// The signals and the symlinked folder's loading are about a process of their own: CLI children; the merge and matrix
// lines run main() in this process (test/helpers/cli-no-lab.ts), which shares a group process and so does not move its
// working directory: the paths the CLI reads from it (a run's --reports-dir, --faults) are given whole.
import t from 'tap';
import '../helpers/ts-loader.js';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { EventEmitter } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CliDeps } from '../../lib/cli/deps.js';
import { main } from '../../lib/cli/main.js';
import { CLI_COMPILED } from '../helpers/cli-child.js';
import { CLI_TS } from '../helpers/cli-tsx.js';
import { nomadShapedTree } from '../helpers/nomad-shaped-tree.js';
import { noLabLines } from '../helpers/cli-no-lab.js';

t.setTimeout(3 * 60_000);

/** Start the CLI; resolves with its exit code, stderr and when it ended. */
function startCli(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [CLI_COMPILED, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { child, done, out: () => ({ stderr, stdout }) };
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  t.test(`${sig} while a child runs for the inputs of run --plan: exit 130 at once, not ignored (Q158)`, async (t) => {
    const dir = t.testdir({});
    const { tree, bin } = nomadShapedTree(dir, 'exit 1');
    // `go env GOVERSION`, asked while the plan reads a source build: it says it started, then hangs
    const started = join(dir, 'go-started');
    writeFileSync(join(bin, 'go'), `#!/bin/sh\necho "$$" > '${started}'\nexec sleep 40\n`);
    chmodSync(join(bin, 'go'), 0o755);
    const cli = startCli(['run', 'rolling-reboot', '--nomad', `git:${tree}`, '--plan', '--netns', ''], dir, {
      ...process.env,
      PATH: `${bin}:${process.env['PATH']}`,
      HARNESS_WORK_DIR: join(dir, 'work'),
      XDG_CACHE_HOME: join(dir, 'cache'),
      CI: 'true',
    });
    const deadline = Date.now() + 60_000;
    while (!existsSync(started) && Date.now() < deadline) await sleep(50);
    t.ok(existsSync(started), 'go was asked');
    await sleep(200);
    const sent = Date.now();
    cli.child.kill(sig);
    const end = await cli.done;
    const { stderr, stdout } = cli.out();
    t.equal(end.code, 130, `exit 130 (${stderr.slice(-400)})`);
    t.match(stderr, new RegExp(`^error: interrupted by ${sig}$`, 'm'));
    t.equal(stdout, '', 'no plan printed');
    t.ok(end.at - sent < 10_000, `ended ${end.at - sent} ms after the signal, not when go's 40 s were over`);
  });
}

t.test(
  'merge: a folder given beside others that holds no report is told, not left out (Q159); a cell found twice is told with an unreadable input (Q160)',
  async (t) => {
    const dir = t.testdir({
      usc: {
        'package.json': '{ "type": "module" }\n',
        'ok.ts': `import { defineScenario, defineCheck, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck({ id: 'c', title: 'c', passesWhen: 'always', judge: () => ({ status: 'passed', message: 'ok' }) })];
export default defineScenario({ name: 'ok', summary: 'no lab', needsNomad: false, roles: ['client'], checks: CHECKS,
  async run() { return judgeAll(CHECKS, {}); } });
`,
      },
      'shard-2': {},
      odd: { 'summary.json': {} },
    });
    const cli = noLabLines(dir, undefined, { labless: true, realChecks: true });
    const run = await cli('run', 'ok', '--scenarios', 'usc', '--reports-dir', join(dir, 'shard-1'), '--netns', '');
    t.equal(run.status, 0, run.stderr);
    const merged = await cli('merge', 'shard-1', 'shard-2', 'odd', '--out', 'merged');
    t.equal(merged.status, 2, 'an empty shard folder is an error, not a merge of the others with exit 0');
    t.match(
      merged.stderr,
      /merge input: holds no report of a run \(summary\.json\); the other inputs hold reports.*got "shard-2"/,
    );
    t.match(
      merged.stderr,
      /holds no report of a run \(summary\.json\): its summary\.json is a folder, not a file.*got "odd"/,
    );
    t.notOk(existsSync(join(dir, 'merged')), 'nothing written');
    const alone = await cli('merge', 'odd', '--out', 'merged');
    t.equal(alone.status, 2);
    t.match(alone.stderr, /its summary\.json is a folder, not a file/);
    t.equal((await cli('merge', 'shard-1', '--out', 'merged')).status, 0, 'the shard alone merges');
    rmSync(join(dir, 'merged'), { recursive: true });

    // Q160: an unreadable summary.json beside a suite found twice: both in one exit 2 (two plain runs here, told as runs
    // that are no cells of one matrix since Q523)
    const summary = readdirSync(join(dir, 'shard-1'), { recursive: true, encoding: 'utf8' }).find((f) =>
      f.endsWith('summary.json'),
    )!;
    const text = readFileSync(join(dir, 'shard-1', summary), 'utf8');
    const runId = (JSON.parse(text) as { runId?: string }).runId ?? /"runId": "(\w+)"/.exec(text)![1]!;
    mkdirSync(join(dir, 'again'));
    writeFileSync(join(dir, 'again', 'summary.json'), text.replaceAll(runId, 'rrsanotherrun1'));
    mkdirSync(join(dir, 'newer'));
    writeFileSync(join(dir, 'newer', 'summary.json'), text.replace(/summary@1/, 'summary@9'));
    const both = await cli('merge', 'shard-1', 'again', 'newer', '--out', 'merged');
    t.equal(both.status, 2);
    t.match(both.stderr, /got "newer\/summary\.json"/, 'the unreadable input');
    t.match(
      both.stderr,
      /testsuite "ok": is also in .*two runs that are no cells of one matrix/,
      'and the suite found twice, at once',
    );
  },
);

t.test("matrix: a matrix file that cannot be read still has --faults' own problems told (Q162)", async (t) => {
  const dir = t.testdir({});
  writeFileSync(
    join(dir, 'm.yaml'),
    Buffer.from('scenario: rolling-reboot # caf\xe9\naxes:\n  nomad:\n    - { name: a, binary: ./nomad }\n', 'latin1'),
  );
  writeFileSync(join(dir, 'f.yaml'), 'faults:\n  - { fault: bogus, target: client }\n');
  // (--faults whole: the schedule is read from the process's working directory, which this process does not move)
  const cli = noLabLines(dir, undefined, { realChecks: true });
  const r = await cli('matrix', 'm.yaml', '--faults', join(dir, 'f.yaml'), '--plan', '--netns', '');
  t.equal(r.status, 2);
  t.match(r.stderr, /matrix file: is not UTF-8 text/);
  t.match(r.stderr, /f\.yaml: faults\[0\]\.fault: is not a fault kind/, 'the schedule, in the same exit 2');
});

t.test(
  'a --scenarios folder that is a symlink loads by the package.json of its target, as Node does (Q163)',
  async (t) => {
    // Note: outside the repository, whose own package.json ("type": "module") would decide for the link too
    const dir = mkdtempSync(join(tmpdir(), 'cli-pass15-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'real', 's'), { recursive: true });
    mkdirSync(join(dir, 'elsewhere'));
    writeFileSync(join(dir, 'real', 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(dir, 'real', 's', 'mine.ts'),
      `import { defineScenario, defineCheck, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck({ id: 'c', title: 'c', passesWhen: 'always', judge: () => ({ status: 'passed', message: 'ok' }) })];
export default defineScenario({ name: 'linked-one', summary: 'no lab', needsNomad: false, roles: ['client'], checks: CHECKS,
  async run() { return judgeAll(CHECKS, {}); } });
`,
    );
    symlinkSync(join(dir, 'real', 's'), join(dir, 'elsewhere', 'linked'));
    const r = spawnSync(process.execPath, [CLI_TS, 'list', '--scenarios', join(dir, 'elsewhere', 'linked')], {
      cwd: process.cwd(),
      env: { ...process.env, HARNESS_WORK_DIR: join(dir, 'work'), CI: 'true' },
      encoding: 'utf8',
    });
    t.equal(r.status, 0, r.stderr);
    t.match(r.stdout, /linked-one/);
  },
);

t.test('build interrupted: the line says the build stops, not that VMs may be left behind (Q164)', async (t) => {
  const dir = t.testdir({});
  const { tree } = nomadShapedTree(dir, 'echo started >> "$(dirname "$0")/started"\nexec sleep 60');
  const signals = new EventEmitter();
  const err: string[] = [];
  const deps: CliDeps = {
    env: { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg') },
    cwd: dir,
    isTTY: false,
    out: () => {},
    err: (s) => void err.push(s),
    signalSource: signals,
    makeEnv: () => {
      throw new Error('build must not make a lab');
    },
  };
  const timer = setInterval(() => {
    if (!existsSync(join(dir, 'bin', 'started'))) return;
    clearInterval(timer);
    signals.emit('SIGINT', 'SIGINT');
  }, 50);
  t.teardown(() => clearInterval(timer));
  t.equal(await main(['build', `git:${tree}`], deps), 130);
  t.match(err.join(''), /SIGINT received: stopping the build/);
  t.notMatch(err.join(''), /VMs may|reboot-harness destroy/, 'a build has no VM');
});
