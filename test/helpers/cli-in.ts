// The CLI as a child in a test folder, for the tiers' input tests: its work and cache dirs inside the folder, CI=true,
// and (unless `timeoutMs` is 0) killed after 30 s: an input read that never ends, a FIFO, must fail the test instead
// of holding it. `entry` is the compiled CLI unless a test needs bin/reboot-harness.js (user scenarios under tsx).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CLI_COMPILED } from './cli-child.js';

export const cliIn =
  (dir: string, { entry = CLI_COMPILED, timeoutMs = 30_000 }: { entry?: string; timeoutMs?: number } = {}) =>
  (...args: string[]) =>
    spawnSync(process.execPath, [entry, ...args], {
      cwd: dir,
      env: { ...process.env, HARNESS_WORK_DIR: join(dir, 'work'), XDG_CACHE_HOME: join(dir, 'cache'), CI: 'true' },
      encoding: 'utf8',
      ...(timeoutMs ? { timeout: timeoutMs, killSignal: 'SIGKILL' as const } : {}),
    });

/** A run that is only planned, with a build that does not exist: the input tests add the inputs they judge. */
export const PLANNED_RUN = ['run', 'rolling-reboot', '--nomad', './nope', '--plan', '--netns', ''] as const;
