// Pure: where the user's scenario directory comes from, read before the rest of the config is resolved (the scenario
// named on the command line may live there, and resolving the config needs to know its checks).
import { FIELDS } from './table.js';

interface ScenariosDirSources {
  file: unknown;
  fileName?: string;
  env: Record<string, string | undefined>;
  flags: Record<string, unknown>;
}

/** The scenarios directory and the source it came from (flag > env > harness.yaml), or undefined when none is set.
 * A value that is not a usable string is left to resolveConfig, which reports it with every other problem. */
export function scenariosDirOf(src: ScenariosDirSources): { dir: string; field: string } | undefined {
  const f = FIELDS.find((x) => x.yaml === 'scenarios_dir')!;
  const file = src.file && typeof src.file === 'object' ? (src.file as Record<string, unknown>) : {};
  const fromFile = file[f.yaml];
  const candidates: [string, unknown][] = [
    [`--${f.flag}`, src.flags[f.flag!]],
    [`env ${f.env}`, src.env[f.env!]],
    [`${src.fileName ?? 'harness.yaml'}: ${f.yaml}`, fromFile],
  ];
  for (const [field, raw] of candidates) {
    const p = raw === undefined ? undefined : f.parse(raw);
    if (p?.ok) return { dir: p.value as string, field };
  }
  return undefined;
}
