// The CLI's twenty-sixth adversarial pass, part A (docs/cli-defects.md, rows Q400 on): the 25th pass's exit guards in
// close variants (a user scenario's SIGINT listener or timer that calls process.exit(130) while the command runs).
import t from 'tap';
import '../helpers/ts-loader.js';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI } from '../helpers/cli-child.js';
import { writeScenarioWithBody } from '../helpers/labless-scenario.js';

t.setTimeout(3 * 60_000);

const envOf = (dir: string) => ({
  ...process.env,
  HARNESS_WORK_DIR: join(dir, 'work'),
  XDG_CACHE_HOME: join(dir, 'cache'),
  CI: 'true',
});

function harness(dir: string, argv: string[]) {
  return spawnSync(process.execPath, [CLI, ...argv, '--reports-dir', join(dir, 'reports'), '--netns', ''], {
    cwd: dir,
    env: envOf(dir),
    encoding: 'utf8',
    timeout: 45_000,
  });
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
    const r = harness(dir, ['matrix', 'm.yaml', '--scenarios', usc]);
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
      [CLI, 'run', 'sigexit', '--scenarios', usc, '--reports-dir', join(dir, 'reports'), '--netns', ''],
      {
        cwd: dir,
        env: envOf(dir),
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
