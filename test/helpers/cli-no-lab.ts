// main(argv, deps) in the test's own process with the real world but a lab: making one throws and the host is not
// prepared, so a line that gets past its checks fails loudly instead of creating anything. Its output is kept.
import type { CliDeps } from '../../lib/cli/deps.js';
import { main } from '../../lib/cli/main.js';

export interface NoLabCli {
  run(...argv: string[]): Promise<number>;
  out(): string;
  err(): string;
}

/** The CLI at `cwd` with PATH and `env` (the default: HOME, the work dir and the cache under `cwd`). */
export function noLabCli(
  cwd: string,
  env: Record<string, string> = { HOME: cwd, HARNESS_WORK_DIR: `${cwd}/work`, XDG_CACHE_HOME: `${cwd}/xdg` },
): NoLabCli {
  const out: string[] = [];
  const err: string[] = [];
  const deps: CliDeps = {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    cwd,
    isTTY: false,
    out: (s) => void out.push(s),
    err: (s) => void err.push(s),
    makeEnv: () => {
      throw new Error('no lab may be made');
    },
    // the host's preparation (netns, KVM) is not what these lines judge
    prepareHost: async () => undefined,
  };
  return { run: (...argv) => main(argv, deps), out: () => out.join(''), err: () => err.join('') };
}
