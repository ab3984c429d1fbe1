// Run the real CLI as a user would (CI=true) from a VM or e2e test, echoing its progress indented into the test
// output. When the test ends first (tap's timeout), the child gets SIGTERM like a CI job being cancelled, and the
// test's teardown waits for it: it destroys its VMs before the next test starts instead of running on unseen.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';

export const CLI = join(process.cwd(), 'bin/reboot-harness.js');

/**
 * The CLI for a test that loads no TypeScript of its own through it (no user scenario file): when the tests run
 * compiled (tools/build-tests.ts, the unit and integration tiers), the compiled entry without tsx's loader, which costs
 * each process about 0.7 s of CPU on Node 20 (measured: 1.0-1.2 s against 0.35 s for `--version`); run as TypeScript,
 * bin/reboot-harness.js. The same main() either way; tests of the bin itself and of user scenarios use CLI.
 */
export const CLI_COMPILED = import.meta.url.endsWith('.js')
  ? fileURLToPath(new URL('../../lib/cli/entry.js', import.meta.url))
  : CLI;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  stdout: string;
  runIds: string[];
}

/** How long a SIGTERM'd run may take to tear down (vagrant destroy of two VMs) before it is killed. */
const TEARDOWN_MS = 5 * 60_000;

/**
 * Run the CLI; `onLine` sees every stderr line (e.g. to send SIGINT at a given step). Runs are cold (HARNESS_WARM=0)
 * unless `env` says otherwise, so a test leaves no warm lab behind (test/vm/warm-lab.test.ts turns warm reruns on).
 */
export function runCli(
  t: Test,
  args: string[],
  onLine?: (line: string, child: ChildProcess) => void,
  env: Record<string, string> = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, HARNESS_WARM: '0', CI: 'true', ...env },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    process.stderr.write(`    | (test ended before the CLI: SIGTERM to pid ${child.pid}, waiting for its teardown)\n`);
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), TEARDOWN_MS);
    await exited;
    clearTimeout(timer);
  });
  return new Promise((resolve) => {
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (b: Buffer) => {
      const text = b.toString();
      stderr += text;
      process.stderr.write(text.replace(/^/gm, '    | '));
      for (const line of text.split('\n')) if (line) onLine?.(line, child);
    });
    child.stdout.on('data', (b: Buffer) => {
      stdout += b;
      process.stderr.write(b.toString().replace(/^/gm, '    | '));
    });
    child.on('exit', (code, signal) =>
      resolve({
        code,
        signal,
        stderr,
        stdout,
        runIds: [...stderr.matchAll(/\brun (r[0-9a-z]{13})\b/g)]
          .map((m) => m[1]!)
          .filter((id, i, a) => a.indexOf(id) === i),
      }),
    );
  });
}
