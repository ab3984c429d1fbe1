// Config goes read -> merge (defaults < harness.yaml < env < flags) -> validate, reporting every problem at once.
import type { ConfigProblem } from '../errors.js';
import type { Expectation } from '../checks/types.js';
import { DEFAULTS, type HarnessConfig } from './schema.js';
import { FIELDS } from './table.js';
import { problem } from './fields.js';

export interface ConfigSources {
  /** parsed harness.yaml (or undefined when there is none) */
  file: unknown;
  /** name of the file for messages */
  fileName?: string;
  env: Record<string, string | undefined>;
  /** flag values by long name (without dashes); repeatable flags are arrays */
  flags: Record<string, unknown>;
  /** check ids the chosen scenario knows, for --expect <check>=... */
  knownChecks: readonly string[];
}

export type ConfigResult = { ok: true; config: HarnessConfig } | { ok: false; problems: ConfigProblem[] };

/** Merge and validate all sources into one config, or return every problem found. */
export function resolveConfig(src: ConfigSources): ConfigResult {
  const problems: ConfigProblem[] = [];
  const config = structuredClone(DEFAULTS);
  const fileValues = flattenFile(src.file, src.fileName ?? 'harness.yaml', problems);

  for (const f of FIELDS) {
    const candidates: [string, unknown][] = [];
    if (fileValues.has(f.yaml)) candidates.push([`${src.fileName ?? 'harness.yaml'}: ${f.yaml}`, fileValues.get(f.yaml)]);
    if (f.env && src.env[f.env] !== undefined && src.env[f.env] !== '') candidates.push([`env ${f.env}`, src.env[f.env]]);
    if (f.flag && src.flags[f.flag] !== undefined) candidates.push([`--${f.flag}`, src.flags[f.flag]]);
    for (const [where, raw] of candidates) {
      const p = f.parse(raw);
      if (p.ok) setPath(config, f.path, p.value);
      else problems.push(problem(where, raw, p));
    }
  }
  for (const key of fileValues.keys()) {
    if (key.startsWith('expect.')) continue;
    if (!FIELDS.some((f) => f.yaml === key)) problems.push(unknownKey(src.fileName ?? 'harness.yaml', key));
  }

  const expectRaw = [...toArray(fileValues.get('expect.scenario')), ...expectFromFile(fileValues), ...toArray(src.flags['expect'])];
  applyExpect(config, expectRaw, src.knownChecks, problems);

  if (config.output.quiet && config.output.verbose) {
    problems.push({ field: '--quiet/--verbose', value: 'both', message: 'cannot be used together', fix: 'choose one of --quiet and --verbose' });
  }
  return problems.length ? { ok: false, problems } : { ok: true, config };
}

function flattenFile(file: unknown, name: string, problems: ConfigProblem[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (file === undefined || file === null) return out;
  if (typeof file !== 'object' || Array.isArray(file)) {
    problems.push({ field: name, value: file, message: 'must be a YAML mapping of keys to values', fix: 'see the README section "harness.yaml"' });
    return out;
  }
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const key = prefix ? `${prefix}.${k}` : k;
      const isSection = v !== null && typeof v === 'object' && !Array.isArray(v) && FIELDS.some((f) => f.yaml.startsWith(`${key}.`));
      const isObj = v !== null && typeof v === 'object' && !Array.isArray(v);
      if (key === 'expect' && !isObj) out.set('expect.scenario', v);
      else if (isObj && (isSection || key === 'expect' || key === 'expect.checks')) walk(v as Record<string, unknown>, key);
      else out.set(key, v);
    }
  };
  walk(file as Record<string, unknown>, '');
  return out;
}

function expectFromFile(values: Map<string, unknown>): string[] {
  const out: string[] = [];
  for (const [k, v] of values) if (k.startsWith('expect.checks.')) out.push(`${k.slice('expect.checks.'.length)}=${String(v)}`);
  for (const k of values.keys()) if (k.startsWith('expect.') && k !== 'expect.scenario' && !k.startsWith('expect.checks.')) out.push(`\0${k}`);
  return out;
}

/** Parse `--expect fail`, `--expect pass`, `--expect <check>=fail|pass` into the config. */
function applyExpect(config: HarnessConfig, raws: unknown[], known: readonly string[], problems: ConfigProblem[]): void {
  const fix = `write --expect fail, or --expect <check>=fail|pass with a check of this scenario: ${known.join(', ')}`;
  for (const raw of raws) {
    if (typeof raw === 'string' && raw.startsWith('\0')) {
      problems.push(unknownKey('harness.yaml', raw.slice(1)));
      continue;
    }
    if (typeof raw !== 'string') {
      problems.push({ field: '--expect', value: raw, message: 'must be a string', fix });
      continue;
    }
    const m = /^(?:([a-z0-9-]+)=)?(pass|fail)$/.exec(raw.trim());
    if (!m) {
      problems.push({ field: '--expect', value: raw, message: 'must be "pass", "fail" or "<check>=pass|fail"', fix });
      continue;
    }
    const [, check, exp] = m as unknown as [string, string | undefined, Expectation];
    if (!check) config.expect.scenario = exp;
    else if (!known.includes(check)) problems.push({ field: '--expect', value: raw, message: `names no check of scenario ${config.scenario}`, fix });
    else config.expect.perCheck[check] = exp;
  }
}

function unknownKey(file: string, key: string): ConfigProblem {
  const near = closest(key, FIELDS.map((f) => f.yaml));
  return { field: `${file}: ${key}`, value: key, message: 'is not a known key', fix: near ? `did you mean "${near}"? (see the README section "harness.yaml")` : 'remove it (see the README section "harness.yaml")' };
}

function closest(word: string, options: string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const o of options) {
    const d = editDistance(word, o);
    if (d < bestD) [best, bestD] = [o, d];
  }
  return bestD <= Math.max(2, Math.floor(word.length / 4)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

function toArray(v: unknown): unknown[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function setPath(obj: object, path: string[], value: unknown): void {
  let cur = obj as Record<string, unknown>;
  for (const p of path.slice(0, -1)) cur = cur[p] as Record<string, unknown>;
  cur[path[path.length - 1]!] = value;
}
