// Config goes read -> merge (defaults < harness.yaml < env < flags) -> validate, reporting every problem at once.
import { excerptOf, type ConfigProblem } from '../errors.js';
import type { Expectation } from '../model/check.js';
import { DEFAULTS, type HarnessConfig } from './schema.js';
import { FIELDS } from './table.js';
import { problems as problemsOf } from './fields.js';
import { REDACTED } from '../log/redact.js';
import { editDistance } from './near.js';
import { targetProblem } from '../model/target.js';
import { configTopology } from './topology.js';

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
  /** old ids of renamed checks: still taken (the planner moves them to the new id with a warning), not suggested */
  formerChecks?: readonly string[];
  /** the scenario named on the command line (the default otherwise) */
  scenario?: string;
  /**
   * the machines the chosen scenario(s) bring up (Scenario.roles); lab.provider: ssh needs lab.hosts for each of
   * these. Default: server and client (also when the scenario is not known yet).
   */
  roles?: readonly string[];
  /**
   * the lab provider's own rules of the config (lib/lab/providers.ts `labConfigRules`, handed down by the CLI: a
   * provider sits above this floor); without them the provider's own keys are not checked
   */
  labRules?: LabConfigRules;
  /**
   * false: reboot.target is not judged against this config's lab (a matrix whose axes set the counts judges it per
   * cell, against the lab each cell makes)
   */
  judgeTarget?: boolean;
}

/** Where a provider's config rules are asked from: the file's name, the roles used, where a key was set. */
export interface ConfigAt {
  file: string;
  /** the machines the chosen scenario(s) bring up */
  roles: readonly string[];
  /** where a key (config path, e.g. "lab.servers") was set ("--servers", "harness.yaml: lab.servers"); undefined: default */
  givenBy(path: string): string | undefined;
  /** whether a key (its harness.yaml name) was given a value that was refused: a problem told already */
  refused(yaml: string): boolean;
}

/** A provider's rules of the config: its problems; may settle the topology its own keys decide (ssh: the host lists). */
export type LabConfigRules = (config: HarnessConfig, at: ConfigAt) => ConfigProblem[];

/** On problems, `config` still holds every value that was valid (the planner checks what it can of the rest). */
type ConfigResult =
  | { ok: true; config: HarnessConfig }
  | { ok: false; problems: ConfigProblem[]; config: HarnessConfig };

/** Merge and validate all sources into one config, or return every problem found. */
export function resolveConfig(src: ConfigSources): ConfigResult {
  const problems: ConfigProblem[] = [];
  const config = structuredClone(DEFAULTS);
  if (src.scenario) config.scenario = src.scenario;
  const fileName = src.fileName ?? 'harness.yaml';
  const fileValues = flattenFile(src.file, fileName, problems);

  const setBy = new Map<string, [string, unknown]>();
  // Keys given a bad value: they keep their default, which must not then be judged against the others (a cascade).
  const failed = new Set<string>();
  for (const f of FIELDS) {
    const candidates: [string, unknown][] = [];
    if (fileValues.has(f.yaml)) candidates.push([`${fileName}: ${f.yaml}`, fileValues.get(f.yaml)]);
    // An empty variable counts only where "" is a meaningful value (HARNESS_NETNS="" = host network); elsewhere it is unset.
    const envValue = f.env ? src.env[f.env] : undefined;
    if (f.env && envValue !== undefined && (envValue !== '' || f.parse('').ok))
      candidates.push([`env ${f.env}`, envValue]);
    if (f.flag && src.flags[f.flag] !== undefined) candidates.push([`--${f.flag}`, src.flags[f.flag]]);
    for (const [where, raw] of candidates) {
      const p = f.parse(raw);
      if (p.ok) setPath(config, f.path, p.value);
      else {
        problems.push(...problemsOf(where, f.secret && raw !== '' ? REDACTED : raw, p));
        failed.add(f.yaml);
        if (p.partial !== undefined) setPath(config, f.path, p.partial);
      }
    }
    // An older name and the new one for the same key: fine alone, a problem when they disagree.
    const last = candidates.at(-1);
    const key = f.path.join('.');
    const other = setBy.get(key);
    if (last && other && JSON.stringify(other[1]) !== JSON.stringify(last[1])) {
      problems.push({
        field: `${other[0]} / ${last[0]}`,
        value: [other[1], last[1]],
        message: 'name the same setting with different values',
        fix: `give one of them (${f.aliasOf ? `${last[0]} is the older name` : `${other[0]} is the older name`})`,
      });
    }
    if (last && !other) setBy.set(key, last);
  }
  for (const [key, value] of fileValues) {
    if (key === 'expect' || key.startsWith('expect.')) continue;
    if (FIELDS.some((f) => f.yaml === key)) continue;
    if (SECTIONS.has(key))
      problems.push({
        field: `${fileName}: ${key}`,
        // Note: a section that holds a secret (nomad: <the token>, its key forgotten) is not echoed back either.
        value: FIELDS.some((f) => f.secret && f.yaml.startsWith(`${key}.`)) && value !== '' ? REDACTED : value,
        message: 'must be a mapping of keys to values',
        fix: `write its keys indented under "${key}:" (${FIELDS.filter((f) => f.yaml.startsWith(`${key}.`))
          .map((f) => f.yaml)
          .join(', ')})`,
      });
    else problems.push(unknownKey(fileName, key));
  }

  // --fresh (a run option, not a key): a cold lab whatever lab.warm says
  if (src.flags['fresh'] === true) config.lab.warm = false;
  const expectations: ExpectItem[] = [
    ...expectFromFile(fileValues, fileName, problems),
    ...toArray(src.flags['expect']).map((raw) => ({ field: '--expect', raw })),
  ];
  applyExpect(config, expectations, [...src.knownChecks, ...(src.formerChecks ?? [])], problems, src.knownChecks);

  const subnetsGiven = !failed.has('lab.private_subnet') && !failed.has('lab.management_subnet');
  if (subnetsGiven && config.lab.privateSubnet === config.lab.managementSubnet) {
    problems.push({
      field: 'lab.private_subnet/lab.management_subnet',
      value: config.lab.privateSubnet,
      message: 'must be two different networks',
      fix: `change one of them (defaults: ${DEFAULTS.lab.privateSubnet} and ${DEFAULTS.lab.managementSubnet})`,
    });
  }
  if (!failed.has('lab.provider') && src.labRules) {
    // Note: with no file read, a missing host is no key of a file that does not exist: it is named as a key to add.
    const hostsIn = src.file === undefined || src.file === null ? `${fileName} (none read)` : fileName;
    const at = {
      file: hostsIn,
      roles: src.roles ?? ['server', 'client'],
      givenBy: (k: string) => setBy.get(k)?.[0],
      refused: (k: string) => failed.has(k),
    };
    // Note: a key a partly refused value (a host list) left out, or of an entry refused whole, is told already: not
    // "required" on top of it
    const told = problems.map((p) => p.field);
    const toldAlready = (field: string) => told.some((t) => field === t || field.startsWith(`${t}.`));
    problems.push(...src.labRules(config, at).filter((p) => !toldAlready(p.field)));
  }
  const targetSet = setBy.get('reboot.target');
  if (targetSet && config.reboot.target && src.judgeTarget !== false) {
    const bad = targetProblem(config.reboot.target, configTopology(config));
    if (bad) problems.push({ field: targetSet[0], value: targetSet[1], ...bad });
  }
  // The confirmation follows a state with nothing pending; a longer one than the quiet period, which bounds the wait on
  // Nomad's pending work, would make a job with nothing pending wait longer than one with work still pending. The
  // default yields to a shorter quiet period; a value given is a problem.
  const { settleConfirmS: confirm, settleQuietS: quiet } = config.reboot;
  const confirmSet = setBy.get('reboot.settleConfirmS');
  if (confirm > quiet && !confirmSet) config.reboot.settleConfirmS = quiet;
  else if (confirm > quiet) {
    problems.push({
      field: confirmSet![0],
      value: confirmSet![1],
      message: `must not be longer than reboot.settle_quiet (${quiet}s)`,
      fix: `give at most ${quiet}s, or raise reboot.settle_quiet (--settle-quiet)`,
    });
  }
  if (config.output.quiet && config.output.verbose) {
    problems.push({
      field: '--quiet/--verbose',
      value: 'both',
      message: 'cannot be used together',
      fix: 'choose one of --quiet and --verbose',
    });
  }
  return problems.length ? { ok: false, problems, config } : { ok: true, config };
}

/** yaml sections: every proper prefix of a dotted key ("lab", "lab.hosts", "lab.hosts.server", "nomad", ...). */
const SECTIONS = new Set(
  FIELDS.flatMap((f) => {
    const parts = f.yaml.split('.').slice(0, -1);
    return parts.map((_, i) => parts.slice(0, i + 1).join('.'));
  }),
);

function flattenFile(file: unknown, name: string, problems: ConfigProblem[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (file === undefined || file === null) return out;
  if (typeof file !== 'object' || Array.isArray(file)) {
    problems.push({
      field: name,
      // Note: never the whole text: a mistaken file (-c .env) would print every secret in it
      value: excerptOf(file),
      message: 'must be a YAML mapping of keys to values',
      fix: 'see docs/config.md for the keys (examples/harness.yaml is a whole file)',
    });
    return out;
  }
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const key = prefix ? `${prefix}.${k}` : k;
      const isObj = v !== null && typeof v === 'object' && !Array.isArray(v);
      if (isObj && (SECTIONS.has(key) || key === 'expect' || key === 'expect.checks'))
        walk(v as Record<string, unknown>, key);
      else out.set(key, v);
    }
  };
  walk(file as Record<string, unknown>, '');
  return out;
}

/** One expectation and where it came from (the field named in problems). */
interface ExpectItem {
  field: string;
  raw: unknown;
  /**
   * A file's `expect.scenario` or `expect.checks.<check>`: its value as the file holds it (raw is `<check>=<value>`
   * for a check), told in problems in place of raw, and fixed in that key's own form (Q546)
   */
  key?: { shown: unknown; fix: string };
}

/** `expect: fail`, `expect: {scenario: fail, checks: {<check>: fail}}` as expectation items; other keys are problems. */
function expectFromFile(values: Map<string, unknown>, file: string, problems: ConfigProblem[]): ExpectItem[] {
  const out: ExpectItem[] = [];
  for (const [k, v] of values) {
    if (k === 'expect') out.push({ field: `${file}: ${k}`, raw: v });
    else if (k === 'expect.scenario')
      out.push({
        field: `${file}: ${k}`,
        raw: v,
        key: { shown: v, fix: 'write scenario: fail (or pass) under "expect:"' },
      });
    else if (k.startsWith('expect.checks.')) {
      const check = k.slice('expect.checks.'.length);
      out.push({
        field: `${file}: ${k}`,
        raw: typeof v === 'string' ? `${check}=${v}` : v,
        key: { shown: v, fix: `write ${check}: fail (or pass) under "expect: checks:"` },
      });
    } else if (k === 'expect.checks')
      problems.push({
        field: `${file}: ${k}`,
        value: v,
        message: 'must be a mapping of check id to pass or fail',
        fix: 'write e.g. "checks: {no-duplicate-ip: fail}" under "expect:"',
      });
    else if (k.startsWith('expect.'))
      problems.push(
        unknownKey(
          file,
          k,
          'expect: takes scenario: pass|fail and checks: {<check>: pass|fail}, e.g. "checks: {no-duplicate-ip: fail}" under "expect:" (see docs/config.md)',
        ),
      );
  }
  return out;
}

/** Parse `--expect fail`, `--expect pass`, `--expect <check>=fail|pass` into the config. */
function applyExpect(
  config: HarnessConfig,
  items: ExpectItem[],
  known: readonly string[],
  problems: ConfigProblem[],
  suggested = known,
): void {
  const flagFix = `write --expect fail, or --expect <check>=fail|pass with a check of this scenario: ${suggested.join(', ')}`;
  // Note: a file's key is fixed in the file's words, not the flag's (Q504)
  const fileFix = `write expect: fail, or expect: {checks: {<check>: fail|pass}} with a check of this scenario: ${suggested.join(', ')}`;
  for (const { field, raw, key } of items) {
    const fix = field.startsWith('--') ? flagFix : fileFix;
    // Note: expect.scenario and expect.checks.<check> take pass or fail only: "<check>=pass|fail" is not theirs to
    // take, and the value told is the file's, not the "<check>=<value>" made of it (Q546)
    const bad = (message: string) =>
      problems.push(
        key
          ? { field, value: key.shown, message: 'must be "pass" or "fail"', fix: key.fix }
          : { field, value: raw, message, fix },
      );
    if (typeof raw !== 'string') {
      bad('must be "pass", "fail" or "<check>=pass|fail" (one value)');
      continue;
    }
    const m = /^(?:([a-z0-9-]+)=)?(pass|fail)$/.exec(raw.trim());
    if (!m || (key && field.endsWith('expect.scenario') && m[1])) {
      bad('must be "pass", "fail" or "<check>=pass|fail"');
      continue;
    }
    const [, check, exp] = m as unknown as [string, string | undefined, Expectation];
    if (!check) config.expect.scenario = exp;
    else if (!known.includes(check))
      problems.push({
        field,
        value: key ? check : raw,
        message: `names no check of scenario ${config.scenario}`,
        fix,
      });
    else config.expect.perCheck[check] = exp;
  }
}

/** An unknown key: the nearest known one offered, else `otherwise`. */
function unknownKey(file: string, key: string, otherwise = 'remove it (see docs/config.md)'): ConfigProblem {
  const near = closest(
    key,
    FIELDS.map((f) => f.yaml),
  );
  return {
    field: `${file}: ${key}`,
    value: key,
    message: `is not a known key${unseen(key)}`,
    fix: near ? `did you mean "${near}"? (see docs/config.md)` : otherwise,
  };
}

/**
 * The characters of `key` no key has and a reader may not see (a no-break space, a Cyrillic "а", a tab), named: the
 * key and the one offered read alike (`lаb: … did you mean "lab"?`), so the message showed no difference (Q545).
 */
function unseen(key: string): string {
  const odd = [...new Set([...key].filter((c) => !/[\x21-\x7e]/.test(c)))];
  const name = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return odd.length ? ` (it holds ${odd.map(name).join(', ')}, which no key has)` : '';
}

/** The nearest known key: by the whole key, or by its last part (a key in the wrong section, "memory" for "memory_mb"). */
function closest(given: string, options: string[]): string | undefined {
  // Note: keys are lower case: `lab.Memory_MB` and `EXPECT` were told "remove it", as far from any key (Q545)
  const word = given.toLowerCase();
  const last = (k: string) => k.slice(k.lastIndexOf('.') + 1);
  const section = (k: string) => k.slice(0, Math.max(0, k.lastIndexOf('.')));
  let best: string | undefined;
  let bestD = Infinity;
  for (const o of [...options, ...SECTIONS, 'expect', 'expect.scenario', 'expect.checks']) {
    // Note: the section the key is already in is no suggestion: `nomad.t` gave "did you mean "nomad"?" (Q503)
    if (word.startsWith(`${o}.`)) continue;
    const byLast = last(o).startsWith(`${last(word)}_`) ? 1 : editDistance(last(word), last(o));
    const d = Math.min(editDistance(word, o), byLast + (section(word) === section(o) ? 0 : 1));
    if (d < bestD) [best, bestD] = [o, d];
  }
  return bestD <= Math.max(2, Math.floor(last(word).length / 4)) ? best : undefined;
}

function toArray(v: unknown): unknown[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function setPath(obj: object, path: string[], value: unknown): void {
  let cur = obj as Record<string, unknown>;
  for (const p of path.slice(0, -1)) cur = cur[p] as Record<string, unknown>;
  cur[path[path.length - 1]!] = value;
}
