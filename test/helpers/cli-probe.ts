// main(argv, deps) with dependencies that only record: what the CLI printed, and every effect it would have had
// (making a lab, preparing the host, checking a build, destroying), in call order.
import type { CliDeps } from '../../lib/cli/deps.js';
import type { HarnessConfig } from '../../lib/config/schema.js';

export interface Probe {
  deps: CliDeps;
  out: () => string;
  err: () => string;
  /** every dependency that would create or touch something, in call order */
  effects: string[];
  configs: HarnessConfig[];
}

export function probe(cwd: string, env: Record<string, string> = {}, extra: Partial<CliDeps> = {}): Probe {
  const out: string[] = [];
  const err: string[] = [];
  const effects: string[] = [];
  const configs: HarnessConfig[] = [];
  const deps: CliDeps = {
    env,
    cwd,
    out: (s) => void out.push(s),
    err: (s) => void err.push(s),
    isTTY: false,
    makeEnv: () => {
      effects.push('makeEnv');
      throw new Error('makeEnv must not be called in these tests');
    },
    prepareHost: async () => void effects.push('prepareHost'),
    checkBinary: async () => void effects.push('checkBinary'),
    destroy: async (config, ids, all) => {
      effects.push(`destroy ${ids.join(',')}${all ? ' --all' : ''}`);
      configs.push(config);
      return 0;
    },
    ...extra,
  };
  return { deps, out: () => out.join(''), err: () => err.join(''), effects, configs };
}
