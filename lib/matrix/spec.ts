// The matrix file (docs/matrix.md): parse and validate it, reporting every problem at once with field, value and fix. Pure.
import type { ConfigProblem } from '../errors.js';
import type { Expectation } from '../model/check.js';
import { resolveConfig } from '../config/validate.js';
import { TASK_DRIVERS } from '../model/kinds.js';
import { FAULTS } from '../faults/registry.js';
import { MAX_CLIENTS, SERVER_COUNTS, type ServerCount } from '../model/topology.js';

/** One Nomad build of the `nomad` axis. */
export interface NomadEntry {
  name: string;
  /** path as written in the file (the CLI resolves it against the file's folder) */
  binary: string;
  /** the build the client is upgraded to (upgrade-in-place) */
  upgradeTo?: string;
  /** what this build is expected to do: whole-scenario and per-check expectations */
  expect: { scenario?: Expectation; perCheck: Record<string, Expectation> };
  /** where the entry stands in the file, e.g. "axes.nomad[1]" (problems name it) */
  field?: string;
}

/** The axes a matrix may vary, in the order the file lists them. */
type Axis =
  | { name: 'nomad'; values: NomadEntry[] }
  /** servers and clients: counts, kept as written ("3") since they are part of the cell name */
  | { name: 'reboot' | 'box' | 'driver' | 'servers' | 'clients'; values: string[] };

export interface MatrixSpec {
  scenarios: string[];
  axes: Axis[];
  /** harness.yaml keys shared by every cell (validated like harness.yaml) */
  defaults: Record<string, unknown>;
  parallel: number;
  memoryBudgetMb: number | undefined;
  /** retry a cell once after an infrastructure error (never after a failed check) */
  retryInfra: boolean;
}

export const AXES = ['nomad', 'reboot', 'box', 'driver', 'servers', 'clients'] as const;
/** The keys of a matrix file, and of one entry of the nomad axis (schemas/matrix.schema.json lists the same). */
/** The axes that set the lab's machine counts: a cell's lab, and so what its target names, depends on them. */
export const COUNT_AXES: readonly string[] = ['servers', 'clients'];
export const TOP = ['scenario', 'axes', 'defaults', 'parallel', 'memory_budget_mb', 'retry_infra_errors'];
export const NOMAD_KEYS = ['name', 'binary', 'expect', 'upgrade_to'];
/** The most cells run at once on one host (each cell is two VMs). */
export const MAX_PARALLEL = 16;
export const NAME = /^[A-Za-z0-9._+-]+$/;

/**
 * A file with problems still gives, where its scenarios, axes and defaults parsed, the spec of what did (`partial`):
 * its cells are judged too, so a cell's problem is not held back until the file's own are fixed.
 */
type MatrixResult = { ok: true; spec: MatrixSpec } | { ok: false; problems: ConfigProblem[]; partial?: MatrixSpec };

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Validate a parsed matrix file against the known scenarios (name -> check ids); every problem in one list. */
export function parseMatrix(raw: unknown, file: string, scenarios: Record<string, readonly string[]>): MatrixResult {
  const problems: ConfigProblem[] = [];
  const p = (field: string, value: unknown, message: string, fix: string) =>
    void problems.push({ field: `${file}: ${field}`, value, message, fix });
  if (!isMap(raw)) {
    p(
      '(top level)',
      raw,
      'must be a YAML mapping',
      'write "scenario:", "axes:" and optionally "defaults:", "parallel:", "memory_budget_mb:" (docs/matrix.md)',
    );
    return { ok: false, problems };
  }
  for (const k of Object.keys(raw))
    if (!TOP.includes(k))
      p(k, k, 'is not a matrix key', `use one of: ${TOP.join(', ')}${k === 'axis' ? ' (did you mean "axes"?)' : ''}`);

  const names = Object.keys(scenarios);
  const scen = typeof raw['scenario'] === 'string' ? [raw['scenario']] : raw['scenario'];
  const scenarioList: string[] = [];
  if (!Array.isArray(scen) || scen.length === 0)
    p(
      'scenario',
      raw['scenario'],
      'must be a scenario name or a non-empty list of them',
      `write e.g. "scenario: ${names[0] ?? 'bridge-exec-reboot'}"`,
    );
  else
    scen.forEach((s, i) => {
      if (typeof s === 'string' && names.includes(s)) scenarioList.push(s);
      else p(`scenario[${i}]`, s, 'is not a known scenario', `use one of: ${names.join(', ')}`);
    });
  if (new Set(scenarioList).size !== scenarioList.length)
    p('scenario', scen, 'names a scenario twice', 'list each scenario once');
  const checksOfAll = scenarioList.length ? scenarioList.map((s) => scenarios[s] ?? []) : [[]];
  const knownEverywhere = checksOfAll.reduce<readonly string[]>(
    (acc, c) => acc.filter((x) => c.includes(x)),
    checksOfAll[0] ?? [],
  );

  const axes: Axis[] = [];
  if (!isMap(raw['axes']))
    p(
      'axes',
      raw['axes'],
      'must be a mapping of axis name to a list of values',
      'write e.g. "axes: { nomad: [{name: 1.9.7, binary: ./nomad}], reboot: [graceful, hard] }"',
    );
  else {
    for (const [name, values] of Object.entries(raw['axes'])) {
      if (!(AXES as readonly string[]).includes(name)) {
        p(`axes.${name}`, name, 'is not an axis', `use one of: ${AXES.join(', ')}`);
        continue;
      }
      if (!Array.isArray(values) || values.length === 0) {
        p(`axes.${name}`, values, 'must be a non-empty list', `list at least one ${name} value, or remove the axis`);
        continue;
      }
      if (name === 'nomad')
        axes.push({
          name,
          values: values
            .map((v, i) => nomadEntry(v, `axes.nomad[${i}]`, i, knownEverywhere, p))
            .filter((e): e is NomadEntry => !!e),
        });
      else
        axes.push({
          name: name as 'reboot' | 'box' | 'driver' | 'servers' | 'clients',
          values: values
            .map((v, i) => axisValue(name, v, `axes.${name}[${i}]`, p))
            .filter((v): v is string => v !== undefined),
        });
      // a build's name as written, an entry with a problem of its own included: a collision is told with its problem
      const last = axes[axes.length - 1];
      const keys =
        name === 'nomad'
          ? values.flatMap((v) =>
              isMap(v) && (typeof v['name'] === 'string' || typeof v['name'] === 'number') ? [String(v['name'])] : [],
            )
          : (last?.values ?? []).map((v) => (typeof v === 'string' ? v : v.name));
      const dup = keys.find((k, i) => keys.indexOf(k) !== i);
      if (dup !== undefined)
        p(
          `axes.${name}`,
          dup,
          'has the same value twice (cell names would collide)',
          `give each ${name} value a distinct ${name === 'nomad' ? 'name' : 'value'}`,
        );
    }
  }

  const defaults = raw['defaults'] ?? {};
  if (!isMap(defaults))
    p(
      'defaults',
      defaults,
      'must be a mapping of harness.yaml keys',
      'write harness.yaml keys under "defaults:", e.g. "defaults: { lab: { memory_mb: 1024 } }"',
    );
  else {
    const res = resolveConfig({
      file: defaults,
      fileName: `${file}: defaults`,
      env: {},
      flags: {},
      knownChecks: knownEverywhere,
      // the counts an axis sets make each cell's lab: a target is judged per cell (lib/plan/matrix.ts)
      judgeTarget: !axes.some((a) => COUNT_AXES.includes(a.name)),
    });
    if (!res.ok) problems.push(...res.problems);
  }
  const parallel = wholeNumber(raw['parallel'] ?? 1, 'parallel', 1, MAX_PARALLEL, p);
  const budget =
    raw['memory_budget_mb'] === undefined
      ? undefined
      : wholeNumber(raw['memory_budget_mb'], 'memory_budget_mb', 1024, 1 << 22, p);
  const retry = raw['retry_infra_errors'] ?? true;
  if (typeof retry !== 'boolean')
    p(
      'retry_infra_errors',
      retry,
      'must be true or false',
      'write true (retry a cell once after an infrastructure error) or false',
    );
  const spec: MatrixSpec = {
    scenarios: scenarioList,
    axes,
    defaults: isMap(defaults) ? defaults : {},
    parallel: parallel ?? 1,
    memoryBudgetMb: budget,
    retryInfra: retry !== false,
  };
  if (!problems.length) return { ok: true, spec };
  const cellsParsed = scenarioList.length > 0 && isMap(raw['axes']) && isMap(defaults);
  return cellsParsed ? { ok: false, problems, partial: spec } : { ok: false, problems };
}

type Report = (field: string, value: unknown, message: string, fix: string) => void;

function wholeNumber(v: unknown, field: string, min: number, max: number, p: Report): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) return v;
  p(field, v, `must be a whole number from ${min} to ${max}`, `write a whole number between ${min} and ${max}`);
  return undefined;
}

function axisValue(axis: string, v: unknown, field: string, p: Report): string | undefined {
  const count = typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v.trim())) ? Number(v) : NaN;
  if (axis === 'servers' && !SERVER_COUNTS.includes(count as ServerCount))
    return void p(field, v, 'is not a server count', `use ${SERVER_COUNTS.join(', ')} (one Raft cluster)`);
  if (axis === 'clients' && !(Number.isInteger(count) && count >= 1 && count <= MAX_CLIENTS))
    return void p(field, v, 'is not a client count', `use a whole number from 1 to ${MAX_CLIENTS}`);
  if (axis === 'servers' || axis === 'clients') return String(count);
  if (axis === 'reboot' && !(FAULTS.names as readonly unknown[]).includes(v))
    return void p(field, v, 'is not a reboot kind', `use one of: ${FAULTS.names.join(', ')}`);
  if (axis === 'driver' && !(typeof v === 'string' && (TASK_DRIVERS as readonly string[]).includes(v)))
    return void p(field, v, 'is not a driver the scenarios run', `use one of: ${TASK_DRIVERS.join(', ')}`);
  if (typeof v !== 'string' || !v.trim())
    return void p(field, v, 'must be a non-empty string', `write a ${axis} value`);
  if (axis !== 'box' && !NAME.test(v))
    return void p(field, v, 'may only hold letters, digits and . _ + -', 'rename it (it is part of the cell name)');
  return v;
}

/**
 * One entry of the nomad axis. An entry with a problem is still returned (its name as written, or its place), so the
 * cells of a file with problems can be judged; the problems are told and the file is not planned.
 */
function nomadEntry(v: unknown, field: string, i: number, known: readonly string[], p: Report): NomadEntry | undefined {
  if (!isMap(v))
    return void p(
      field,
      v,
      'must be a mapping with name and binary',
      'write e.g. {name: "1.9.7", binary: ./nomad-1.9.7}',
    );
  const bad = (f: string, value: unknown, message: string, fix: string) => p(`${field}.${f}`, value, message, fix);
  for (const k of Object.keys(v))
    if (!NOMAD_KEYS.includes(k)) bad(k, k, 'is not a key of a nomad axis entry', `use: ${NOMAD_KEYS.join(', ')}`);
  const name = typeof v['name'] === 'number' ? String(v['name']) : v['name'];
  if (typeof name !== 'string' || !NAME.test(name))
    bad(
      'name',
      v['name'],
      'must be a short name (letters, digits, . _ + -)',
      'write e.g. name: "1.9.7" (it is part of the cell name)',
    );
  if (typeof v['binary'] !== 'string' || !v['binary'].trim())
    bad(
      'binary',
      v['binary'],
      'is required: the path of a linux/amd64 nomad build',
      'write e.g. binary: ./nomad-1.9.7 (relative to the matrix file)',
    );
  if (v['upgrade_to'] !== undefined && (typeof v['upgrade_to'] !== 'string' || !v['upgrade_to'].trim()))
    bad('upgrade_to', v['upgrade_to'], 'must be the path of a nomad build', 'write e.g. upgrade_to: ./nomad-1.9.7');
  const expect: NomadEntry['expect'] = { perCheck: {} };
  const items = v['expect'] === undefined ? [] : Array.isArray(v['expect']) ? v['expect'] : [v['expect']];
  items.forEach((item, i) => {
    const m = typeof item === 'string' ? /^(?:([a-z0-9-]+)=)?(pass|fail)$/.exec(item.trim()) : null;
    const fix = `write "fail", or "<check>=fail|pass" with a check of the matrix's scenarios: ${known.join(', ')}`;
    if (!m) {
      bad(`expect[${i}]`, item, 'must be "pass", "fail" or "<check>=pass|fail"', fix);
      return;
    }
    if (m[1] && !known.includes(m[1])) {
      bad(`expect[${i}]`, item, 'names no check of every scenario of the matrix', fix);
      return;
    }
    if (m[1]) expect.perCheck[m[1]] = m[2] as Expectation;
    else expect.scenario = m[2] as Expectation;
  });
  const upgradeTo =
    typeof v['upgrade_to'] === 'string' && v['upgrade_to'].trim() ? { upgradeTo: v['upgrade_to'].trim() } : {};
  return {
    name: typeof name === 'string' && NAME.test(name) ? name : `#${i + 1}`,
    binary: typeof v['binary'] === 'string' ? v['binary'].trim() : '',
    ...upgradeTo,
    expect,
    field,
  };
}
