// The build layer when none is handed in (the stand-in tests, and the real CLI before lib/session/builds.ts wires
// one): a spec is a path, checked by checkBinary and described by buildVersion.
import { resolve } from 'node:path';
import { ConfigError, type ConfigProblem } from '../errors.js';
import { sha256File } from '../builds/cache.js';
import type { BuildLayer, CliDeps } from './deps.js';

export function pathBuilds(deps: Pick<CliDeps, 'checkBinary' | 'buildVersion'>): BuildLayer {
  return {
    async check(refs) {
      const problems: ConfigProblem[] = [];
      for (const b of refs) {
        try {
          await deps.checkBinary?.(resolve(b.cwd, b.spec), b.field);
        } catch (err) {
          if (err instanceof ConfigError) problems.push(...err.problems);
          else throw err;
        }
      }
      return problems;
    },
    async resolve(ref) {
      const path = resolve(ref.cwd, ref.spec);
      const none: { version?: string; revision?: string } = {};
      const v = deps.buildVersion ? await deps.buildVersion(path).catch(() => none) : none;
      const sha256 = await sha256File(path).catch(() => '');
      return {
        spec: ref.spec,
        path,
        sha256,
        version: v.version ?? '',
        revision: v.revision ?? '',
        origin: { kind: 'path', path },
      };
    },
  };
}
