// The real CLI process exits when its command is done, even if something still holds the event loop (a socket to a
// VM that is gone would otherwise keep a CI job waiting for ~15 minutes): it says what was open and exits with the
// command's code after its exit grace. A clean command exits at once, without waiting for the grace.
// Note: no bound here is a wall-clock limit on the CLI's speed (a loaded 2-core host took 15-30 s for `--version`);
// each case sets the grace (HARNESS_EXIT_GRACE_MS) so that what it asserts shows in the output and the exit status.
import t from 'tap';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CLI_COMPILED } from '../helpers/cli-child.js';
import { CLI_TS } from '../helpers/cli-tsx.js';

/** Past this a child is killed (SIGKILL): the bound is only against a hang, with room for a loaded host. */
const KILL_AFTER_MS = 3 * 60_000;
t.setTimeout(KILL_AFTER_MS + 60_000);
// Note: each test is a process of its own, waiting on its own grace: side by side
t.jobs = 3;

/** Run node with `args` and the CLI's exit grace; its exit status, signal, stderr and how long it took. */
const node = (args: string[], graceMs: number) =>
  new Promise<{ status: number | null; signal: string | null; stderr: string; seconds: number }>((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, HARNESS_EXIT_GRACE_MS: String(graceMs) },
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stderr, seconds: (Date.now() - started) / 1000 });
    });
  });

t.test('a clean command exits at once, not at the end of its exit grace', async (t) => {
  // a grace longer than the kill timer: a command that waited for it would be killed (no status 0)
  const r = await node([CLI_COMPILED, '--version'], 2 * KILL_AFTER_MS);
  t.equal(r.status, 0, `exited by itself with 0 after ${r.seconds} s (the grace: ${(2 * KILL_AFTER_MS) / 1000} s)`);
  t.notMatch(r.stderr, /still open/);
});

/** The grace of the two lingering cases: short, so each waits about a second for it instead of the default 10 s. */
const GRACE_MS = 1000;

t.test(
  'a lingering socket: the process still exits after its grace, naming the socket, with its exit code',
  async (t) => {
    const r = await node(
      ['--import', 'tsx/esm', join(process.cwd(), 'test/fixtures/cli/linger.mts'), 'run', 'no-such-scenario'],
      GRACE_MS,
    );
    t.equal(r.status, 2, `the command's own exit code (unknown scenario), by itself after ${r.seconds} s`);
    t.match(
      r.stderr,
      /warning: still open 1 s after the command ended: .*TCP 127\.0\.0\.1:\d+ -> 127\.0\.0\.1:\d+.*; exiting with 2/,
    );
    // the grace is a floor whatever the load: its timer starts in the child, seconds after r.seconds' clock did
    t.ok(r.seconds >= GRACE_MS / 1000, `not before the grace (${r.seconds} s)`);
  },
);

t.test('a timer a scenario file of yours never clears is named as a timer, not as our own stdio', async (t) => {
  const dir = t.testdir({
    s: {
      'package.json': '{ "type": "module" }',
      'ticker.ts':
        "setInterval(() => {}, 60_000);\nexport default { name: 'ticker', summary: 's', needsNomad: false, checks: [] };\n",
    },
  });
  const r = await node([CLI_TS, 'list', '--scenarios', join(dir, 's')], GRACE_MS);
  t.equal(r.status, 2, "the command's own exit code (the scenario file is incomplete)");
  t.match(
    r.stderr,
    /warning: still open 1 s after the command ended: 1 timer \(a setTimeout\/setInterval never cleared\); exiting with 2/,
  );
  t.notMatch(r.stderr, /pipe fd [012]\b/, "the CLI's own stdin, stdout and stderr are not named");
});
