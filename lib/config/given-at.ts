// Pure: where a key's value came from, as problems name it: the flag, the variable, or the file's key (the last
// source given wins, as the resolver merges them). A problem found later (a build that does not resolve, a job file
// that cannot be read) names the source the person used, not always the flag.
import { FIELDS } from './table.js';

/** The sources a config is merged from, as the resolver takes them. */
interface Sources {
  file?: unknown;
  fileName?: string;
  env: Readonly<Record<string, string | undefined>>;
  flags: Readonly<Record<string, unknown>>;
}

/** The value at a dotted key of a parsed YAML file, or undefined. */
function inFile(file: unknown, yaml: string): unknown {
  let v: unknown = file;
  for (const k of yaml.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/**
 * Where the value of one of `keys` (harness.yaml names of one setting, the older name first) was given: "--nomad",
 * "env NOMAD_BUILD", "harness.yaml: nomad_build"; `fallback` when none was.
 */
export function givenAt(src: Sources, keys: readonly string[], fallback: string): string {
  let at: string | undefined;
  for (const tier of ['file', 'env', 'flag'] as const)
    for (const yaml of keys) {
      const f = FIELDS.find((x) => x.yaml === yaml);
      if (!f) continue;
      if (tier === 'file' && inFile(src.file, yaml) !== undefined) at = `${src.fileName ?? 'harness.yaml'}: ${yaml}`;
      if (tier === 'env' && f.env && src.env[f.env]) at = `env ${f.env}`;
      if (tier === 'flag' && f.flag && src.flags[f.flag] !== undefined) at = `--${f.flag}`;
    }
  return at ?? fallback;
}
