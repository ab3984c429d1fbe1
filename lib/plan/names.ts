// Names of a session's suites: `<scenario>@<build>[/<variant>]`, so merged JUnit files keep every run apart. Pure.
import { DEFAULTS, type HarnessConfig } from '../config/schema.js';

/** compare's two cells */
export type Side = 'before' | 'after';

/** The config values that make a run a variant of its scenario's default, as `key=value` (suite names, properties). */
export function configVariant(c: HarnessConfig): string[] {
  const out: string[] = [];
  if (c.reboot.kind !== DEFAULTS.reboot.kind) out.push(`reboot=${c.reboot.kind}`);
  if (c.reboot.count !== DEFAULTS.reboot.count) out.push(`reboots=${c.reboot.count}`);
  if (c.task.driver !== DEFAULTS.task.driver) out.push(`driver=${c.task.driver}`);
  if (c.scenario === 'upgrade-in-place' && c.upgrade.mode !== DEFAULTS.upgrade.mode) out.push(`mode=${c.upgrade.mode}`);
  if (c.job.files.length)
    out.push(`job=${c.job.files.map((f) => f.replace(/^.*\//, '').replace(/\.nomad(\.hcl)?$|\.hcl$/, '')).join('+')}`);
  return out;
}

/** `<scenario>@<build>[/<variant>]`; no `@` part for a scenario that installs no Nomad. */
export function suiteName(scenario: string, build: string | undefined, variant: readonly string[]): string {
  return [`${scenario}${build ? `@${build}` : ''}`, ...variant].join('/');
}

/** compare's two build labels: the versions, or before/after when they are unknown or equal. */
export function sideLabels(before: string | undefined, after: string | undefined): Record<Side, string> {
  return before && after && before !== after ? { before, after } : { before: 'before', after: 'after' };
}

/** Merge YAML mappings, later wins; lists and scalars are replaced whole. */
export function deepMerge(a: unknown, b: unknown): unknown {
  const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isMap(a) || !isMap(b)) return b === undefined ? a : b;
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = deepMerge(a[k], v);
  return out;
}

/** The suite of attempt k of a repeated cell (`run --repeat N`): `<suite>#<k>`. */
export function repeatSuiteName(suite: string, attempt: number): string {
  return `${suite}#${attempt}`;
}
