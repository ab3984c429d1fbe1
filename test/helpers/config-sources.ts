// The config resolved from partial sources (no harness.yaml, no env, no flags unless given), for the unit tests of
// config fields: the config when it is valid, or every problem when it is not. The providers' own rules are asked, as
// the CLI asks them.
import { parse as parseYaml } from 'yaml';
import { formatProblem, type ConfigProblem } from '../../lib/errors.js';
import type { HarnessConfig } from '../../lib/config/schema.js';
import { resolveConfig, type ConfigSources } from '../../lib/config/validate.js';
import { labConfigRules } from '../../lib/lab/providers.js';

export function resolveFrom(src: Partial<ConfigSources>) {
  return resolveConfig({ file: undefined, env: {}, flags: {}, knownChecks: [], labRules: labConfigRules, ...src });
}

/** The config of valid sources; throws with every problem when they are not. */
export function configOf(src: Partial<ConfigSources>): HarnessConfig {
  const r = resolveFrom(src);
  if (!r.ok) throw new Error(r.problems.map(formatProblem).join('\n'));
  return r.config;
}

/** The problems of invalid sources; throws when they are valid. */
export function problemsOf(src: Partial<ConfigSources>): ConfigProblem[] {
  const r = resolveFrom(src);
  if (r.ok) throw new Error('expected problems');
  return r.problems;
}

/** harness.yaml text as the parsed file source. */
export const yaml = (s: string) => parseYaml(s) as unknown;
