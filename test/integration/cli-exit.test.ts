// The real CLI process exits when its command is done, even if something still holds the event loop (a socket to a
// VM that is gone would otherwise keep a CI job waiting for ~15 minutes): it says what was open and exits with the
// command's code. A clean command exits at once.
import t from 'tap';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** Run node with `args` (killed after 60 s); its exit status, stderr and how long it took. */
const node = (args: string[]) =>
  new Promise<{ status: number | null; stderr: string; seconds: number }>((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr, seconds: (Date.now() - started) / 1000 });
    });
  });

await t.test('a clean command exits at once', async (t) => {
  const r = await node([join(process.cwd(), 'bin/reboot-harness.js'), '--version']);
  t.equal(r.status, 0);
  t.notMatch(r.stderr, /still open/);
  t.ok(r.seconds < 8, `exited after ${r.seconds} s`);
});

// Note: the two cases below each wait out the CLI's real 10 s exit grace; side by side, the file waits for it once
// (the clean command above runs alone: its bound is about the CLI itself, not about sharing the CPU with two others).
t.jobs = 2;

t.test(
  'a lingering socket: the process still exits 10 s after the command, naming the socket, with its exit code',
  async (t) => {
    const r = await node([
      '--import',
      'tsx/esm',
      join(process.cwd(), 'test/fixtures/cli/linger.mts'),
      'run',
      'no-such-scenario',
    ]);
    t.equal(r.status, 2, "the command's own exit code (unknown scenario)");
    t.match(
      r.stderr,
      /warning: still open 10 s after the command ended: .*TCP 127\.0\.0\.1:\d+ -> 127\.0\.0\.1:\d+.*; exiting with 2/,
    );
    t.ok(r.seconds >= 10 && r.seconds < 30, `exited after ${r.seconds} s`);
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
  const r = await node([join(process.cwd(), 'bin/reboot-harness.js'), 'list', '--scenarios', join(dir, 's')]);
  t.equal(r.status, 2, "the command's own exit code (the scenario file is incomplete)");
  t.match(
    r.stderr,
    /warning: still open 10 s after the command ended: 1 timer \(a setTimeout\/setInterval never cleared\); exiting with 2/,
  );
  t.notMatch(r.stderr, /pipe fd [012]\b/, "the CLI's own stdin, stdout and stderr are not named");
});
