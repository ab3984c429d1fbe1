// The CLI's fifteenth adversarial pass (docs/cli-defects.md, rows Q158 on), through the real CLI: Ctrl-C or SIGTERM
// while a child runs for the inputs (`go env`, `nomad version`, git) before a run's own signal watch.
import t from 'tap';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI_COMPILED } from '../helpers/cli-child.js';
import { nomadShapedTree } from '../helpers/nomad-shaped-tree.js';

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
