// main(argv, deps) in the test's own process with the real world but a lab: making one throws and the host is not
// prepared, so a line that gets past its checks fails loudly instead of creating anything. Its output is kept.
import { readFile } from 'node:fs/promises';
import { checkNomadBinary } from '../../lib/builds/binary.js';
import type { CliDeps } from '../../lib/cli/deps.js';
import { memAvailableBytes } from '../../lib/cli/doctor-host.js';
import { main } from '../../lib/cli/main.js';
import { existingHostsPreflight } from '../../lib/lab/ssh/ssh-preflight.js';
import type { ScenarioEnv } from '../../lib/run/scenario.js';
import { createBuildLayer } from '../../lib/session/builds.js';

export interface NoLabCli {
  run(...argv: string[]): Promise<number>;
  out(): string;
  err(): string;
}

export interface NoLabOptions {
  /**
   * Scenarios that bring up no lab (a labless user scenario: needsNomad false, no env.upLab) run to their verdict:
   * the environment is made, and each of its lab calls throws. Without it, making the environment throws.
   */
  labless?: boolean;
  /**
   * The checks lib/cli/real-deps.ts gives the real CLI before anything is made: the build layer (reading `env`, so
   * its PATH finds go and git), a build path's binary check, the host's memory, existing hosts' preflight. Without
   * it, a build spec is a path that is not checked.
   */
  realChecks?: boolean;
  /**
   * noLabLines only: the process's working directory is `cwd` while a line runs, as the real CLI's is the user's (a
   * run writes its reports under a relative --reports-dir, a schedule is read, from there); put back after it. Note:
   * a file that asks for it runs alone, never in a group (tools/test-groups.ts SHARED_FILE_MUST_NOT).
   */
  chdir?: boolean;
}

const NO_LAB = (): never => {
  throw new Error('no lab may be made');
};

/** An environment in which every lab call throws: a labless scenario's run never makes one. */
const lablessEnv = (config: ScenarioEnv['config']): ScenarioEnv => ({
  config,
  upLab: async () => NO_LAB(),
  provisionNomad: async () => NO_LAB(),
  connectNomad: async () => NO_LAB(),
});

/** What the real CLI checks before anything is made (lib/cli/real-deps.ts), with the environment `env`. */
function realChecks(env: Record<string, string>): Partial<CliDeps> {
  return {
    builds: createBuildLayer({ env }),
    checkBinary: async (p, field = '--nomad-binary') => void (await checkNomadBinary(p, field)),
    hostsPreflight: (config, logger) => existingHostsPreflight(config, { logger }),
    hostFacts: async () => {
      const bytes = memAvailableBytes(await readFile('/proc/meminfo', 'utf8').catch(() => ''));
      return bytes === undefined ? {} : { memAvailableMb: Math.floor(bytes / (1024 * 1024)) };
    },
  };
}

/** The CLI at `cwd` with PATH and `env` (the default: HOME, the work dir and the cache under `cwd`). */
export function noLabCli(
  cwd: string,
  env: Record<string, string> = { HOME: cwd, HARNESS_WORK_DIR: `${cwd}/work`, XDG_CACHE_HOME: `${cwd}/xdg` },
  o: NoLabOptions = {},
): NoLabCli {
  const out: string[] = [];
  const err: string[] = [];
  const fullEnv = { PATH: process.env['PATH'] ?? '', ...env };
  const deps: CliDeps = {
    env: fullEnv,
    cwd,
    isTTY: false,
    out: (s) => void out.push(s),
    err: (s) => void err.push(s),
    makeEnv: o.labless ? (config) => lablessEnv(config) : NO_LAB,
    // the host's preparation (netns, KVM) is not what these lines judge
    prepareHost: async () => undefined,
    ...(o.realChecks ? realChecks(fullEnv) : {}),
  };
  return { run: (...argv) => main(argv, deps), out: () => out.join(''), err: () => err.join('') };
}

/** A command line's result, as spawnSync gives a child's. */
export interface LineResult {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * noLabCli for one command line at a time, each with its own console: `await line('merge', 'rep')` in place of a
 * CLI child per line (about 0.35-1.3 s of CPU each to start), the same main() and checks.
 */
export const noLabLines =
  (cwd: string, env?: Record<string, string>, o: NoLabOptions = {}) =>
  async (...argv: string[]): Promise<LineResult> => {
    const c = noLabCli(cwd, env, o);
    const was = process.cwd();
    if (o.chdir) process.chdir(cwd);
    try {
      const status = await c.run(...argv);
      return { status, stdout: c.out(), stderr: c.err() };
    } finally {
      if (o.chdir) process.chdir(was);
    }
  };
