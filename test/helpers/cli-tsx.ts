// The CLI for a child that loads user scenarios (TypeScript) and whose subject is the process itself (its exit code,
// exit guard, signals, a load bound): tsx's loader is needed, as bin/reboot-harness.js registers it. When the tests run
// compiled (tools/build-tests.ts, the tiers), test/helpers/cli-tsx-entry.js: the compiled entry (one bundled module
// instead of about 350), loaded before tsx is registered and run after, so tsx's loader thread sees only what the CLI
// imports while it runs (the user scenarios): about 0.46 s of CPU a `run` of a labless user scenario, against 1.0 s
// with the entry through tsx (round 4 session 13) and 1.3 s for the bin (session 12; measured 3 times each). Run as
// TypeScript, bin/reboot-harness.js itself. The tests of the bin itself keep CLI (test/helpers/cli-child.ts).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI } from './cli-child.js';

export const CLI_TS = import.meta.url.endsWith('.js')
  ? fileURLToPath(new URL('./cli-tsx-entry.js', import.meta.url))
  : CLI;

export interface TsRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * CLI_TS with `argv` in `cwd`, as spawnSync ran it but without holding the test's process: several runs of a test
 * go side by side (`Promise.all`), each a process of its own. Killed (SIGKILL) after `timeoutMs`, as spawnSync's
 * `timeout` did.
 */
export function runCliTs(
  argv: readonly string[],
  o: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<TsRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_TS, ...argv], {
      cwd: o.cwd,
      env: o.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = o.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), o.timeoutMs) : undefined;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

/** The environment of a CLI child kept to `dir`: its work dir and cache there, CI=true (no colours, no prompts). */
export const privateEnv = (dir: string, more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  HARNESS_WORK_DIR: join(dir, 'work'),
  XDG_CACHE_HOME: join(dir, 'cache'),
  CI: 'true',
  ...more,
});

/** runCliTs of a labless line in `dir`: its reports under `dir`, no lab namespace, killed after 45 s. */
export const runCliTsIn = (dir: string, argv: readonly string[]): Promise<TsRun> =>
  runCliTs([...argv, '--reports-dir', join(dir, 'reports'), '--netns', ''], {
    cwd: dir,
    env: privateEnv(dir),
    timeoutMs: 45_000,
  });
