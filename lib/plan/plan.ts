// The planner: arguments + harness.yaml + env (+ a matrix file) -> a plan of cells, with every problem of the whole
// input at once. `run` is one cell (one per scenario with --all), `compare` two cells on the build axis, `matrix` the
// expansion. Pure: files are read by the CLI and handed in; build files are checked by the CLI over `plan.builds`.
import { givenAt } from '../config/given-at.js';
import { resolve } from 'node:path';
import type { ConfigProblem } from '../errors.js';
import type { CheckInfo } from '../model/check.js';
import type { RepeatOf, Rerun } from '../model/session.js';
import { resolveConfig, type LabConfigRules } from '../config/validate.js';
import { expectableIds, formerIds, withCurrentIds } from '../checks/expect-ids.js';
import type { HarnessConfig } from '../config/schema.js';
import { cellConfig, expandCells, parseShard, planProblems, shard, shiftSubnet, type Cell } from '../matrix/expand.js';
import { parseMatrix, type MatrixSpec } from '../matrix/spec.js';
import { configVariant, deepMerge, type Side } from './names.js';

/** What the planner needs of a scenario (lib/run/scenario.ts Scenario fits). */
export interface PlannableScenario {
  name: string;
  needsNomad: boolean;
  /** the machines it brings up; default server and client */
  roles?: readonly string[];
  checks: readonly CheckInfo[];
  validate?(config: HarnessConfig): ConfigProblem[];
  missingInput?(config: HarnessConfig): string | undefined;
}

/** A build a cell installs: its spec as given, where it was given (relative paths), and the field it came from. */
export interface BuildRef {
  field: string;
  /** a path, a release version (1.9.7, latest) or a source tree (git:<dir>[@<ref>]); lib/builds resolves it */
  spec: string;
  /** the folder relative paths in the spec are taken from (the cwd; a matrix file's folder) */
  cwd: string;
  role: 'nomad' | 'upgrade-to';
}

/** One key per distinct build (the same spec from the same folder is resolved once). */
export const buildKey = (b: Pick<BuildRef, 'spec' | 'cwd'>): string => `${b.cwd}\u0000${b.spec}`;

/** One cell of the session: a scenario, its config and where it sits in the session. */
export interface PlannedCell {
  /** stable address: the matrix cell name (what --cell takes), or the scenario name (and side) */
  key: string;
  scenario: string;
  /** the config values that make this cell a variant, e.g. ["reboot=hard"]; part of the suite name */
  variant: string[];
  /** compare: which build this cell runs */
  side?: Side;
  /** the matrix's nomad entry name, when a matrix names the build */
  buildLabel?: string;
  /** false for compare's before build: shown, not judged for the exit code */
  counts: boolean;
  /** a visible skip: the cell is reported with every check skipped for this reason */
  skip?: string;
  /** run --repeat N: which attempt of N this cell is (its suite is `<suite>#<attempt>`), judged with its group */
  repeat?: RepeatOf;
  /** how the cell is re-run when it misses its expectations (repro.sh) */
  rerun: Rerun;
  /** the cell's config (the base subnets; configInSlot gives a parallel slot its own pair) */
  config: HarnessConfig;
  /** report properties known before the run (matrix axes, compare side) */
  properties: Record<string, string>;
  builds: BuildRef[];
}

type PlanCommand = 'run' | 'compare' | 'matrix';

/** The schema name of `--plan`'s output: the plan as JSON, which parses back to the same plan. */
export const PLAN_JSON_SCHEMA = 'nomad-reboot-harness/plan@1';

export interface Plan {
  command: PlanCommand;
  cells: PlannedCell[];
  /** the session's common config: reports, output, keep, lab host (netns), secrets */
  base: HarnessConfig;
  parallel: number;
  budgetMb: number | undefined;
  retryInfra: boolean;
  /** every distinct build of every cell */
  builds: BuildRef[];
  /** every lab subnet a cell may use (each guarded by a host-stack blackhole) */
  subnets: string[];
  matrix?: { file: string; path: string; shard: string; cellsInMatrix: number; all: Cell[] };
  /**
   * the two cells (by key) whose verdicts are set side by side; their suites are named by the two builds' versions
   * (or before/after), and a build compared with itself is warned about
   */
  comparison?: { before: string; after: string };
  /** the session's report folder under the reports dir: `<prefix><first run id>`, or `<prefix><fallback>` */
  reportFolder: { prefix: string; fallback: string };
  /** what the input still does but should not (an expectation under a renamed check's old id); the CLI prints them */
  warnings: string[];
}

export interface PlanInput {
  command: PlanCommand;
  positionals: readonly string[];
  /** option values by long name */
  values: Record<string, unknown>;
  /** harness.yaml, parsed, when there is one */
  harness?: { data: unknown; name: string };
  /** the matrix file, parsed (matrix only); `dir` resolves its relative build paths */
  matrixFile?: { data: unknown; name: string; path: string; dir: string };
  env: Record<string, string | undefined>;
  cwd: string;
  scenarios: readonly PlannableScenario[];
  /** the lab providers' own rules of the config (lib/lab/providers.ts `labConfigRules`; the CLI hands them down) */
  labRules?: LabConfigRules;
}

export type PlanResult = { ok: true; plan: Plan } | { ok: false; problems: ConfigProblem[]; builds: BuildRef[] };

/** Plan the session; every problem of the whole input in one list (builds are listed either way, to be checked too). */
export function planSession(input: PlanInput): PlanResult {
  const out =
    input.command === 'matrix' ? planMatrix(input) : input.command === 'compare' ? planCompare(input) : planRun(input);
  if (out.problems.length || !out.plan)
    return { ok: false, problems: out.problems, builds: out.plan?.builds ?? out.builds };
  return { ok: true, plan: out.plan };
}

interface Draft {
  plan?: Plan;
  problems: ConfigProblem[];
  builds: BuildRef[];
}

/** The config's per-check expectations under the scenario's current check ids; each old id moved is a warning. */
function currentExpectations(config: HarnessConfig, s: PlannableScenario, warnings: string[]): HarnessConfig {
  const moved = withCurrentIds(config.expect.perCheck, s.checks, s.name);
  for (const w of moved.warnings) if (!warnings.includes(w)) warnings.push(w);
  return { ...config, expect: { ...config.expect, perCheck: moved.perCheck } };
}

function scenarioProblem(name: string, known: readonly PlannableScenario[], field = 'scenario'): ConfigProblem {
  return {
    field,
    value: name,
    message: 'is not a known scenario',
    fix: `use one of: ${known.map((s) => s.name).join(', ')} (reboot-harness list)`,
  };
}

/** The config of one scenario from harness.yaml, env and flags; expectations checked against that scenario's checks. */
function configOf(
  input: PlanInput,
  s: PlannableScenario,
  extra: { file?: unknown; fileName?: string; knownChecks?: readonly string[]; formerChecks?: readonly string[] } = {},
) {
  const file = extra.file ?? input.harness?.data;
  const fileName = extra.fileName ?? input.harness?.name;
  return resolveConfig({
    file,
    ...(fileName ? { fileName } : {}),
    env: input.env,
    flags: input.values,
    knownChecks: extra.knownChecks ?? s.checks.map((c) => c.id),
    formerChecks: extra.formerChecks ?? formerIds(s.checks),
    scenario: s.name,
    ...(s.roles ? { roles: s.roles } : {}),
    ...(input.labRules ? { labRules: input.labRules } : {}),
  });
}

function nomadBuilds(c: HarnessConfig, cwd: string, field: string, upgradeField = '--upgrade-to'): BuildRef[] {
  const out: BuildRef[] = [];
  if (c.nomadBinary) out.push({ field, spec: c.nomadBinary, cwd, role: 'nomad' });
  if (c.upgradeTo) out.push({ field: upgradeField, spec: c.upgradeTo, cwd, role: 'upgrade-to' });
  return out;
}

/** Where a build setting was given (the flag, NOMAD_BUILD, harness.yaml), as a build's problems name it. */
function buildSource(input: PlanInput, keys: readonly string[], fallback: string): string {
  const file = input.harness ? { file: input.harness.data, fileName: input.harness.name } : {};
  return givenAt({ ...file, env: input.env, flags: input.values }, keys, fallback);
}

function baseSession(command: PlanCommand, base: HarnessConfig, cells: PlannedCell[]): Plan {
  const builds = uniqueBuilds(cells.flatMap((c) => c.builds));
  const subnets = [...new Set(cells.flatMap((c) => [c.config.lab.managementSubnet, c.config.lab.privateSubnet]))];
  const reportFolder = { prefix: '', fallback: 'run' };
  return {
    command,
    cells,
    base,
    parallel: 1,
    budgetMb: undefined,
    retryInfra: false,
    builds,
    subnets,
    reportFolder,
    warnings: [],
  };
}

/** The builds a run or matrix cell installs, as report properties, and the flags that pass them again. */
const SINGLE_BUILDS: Rerun['builds'] = [
  { property: 'nomad.binary', flag: '--nomad' },
  { property: 'nomad.upgrade_to', flag: '--upgrade-to' },
];

function uniqueBuilds(builds: BuildRef[]): BuildRef[] {
  const seen = new Map<string, BuildRef>();
  for (const b of builds) if (!seen.has(`${b.role}\u0000${buildKey(b)}`)) seen.set(`${b.role}\u0000${buildKey(b)}`, b);
  return [...seen.values()];
}

/**
 * The problems of the rest of the input when the scenario is unknown (every problem at once). Which checks an
 * expectation may name depends on the scenario, so those are left until the scenario is known.
 */
function restOf(input: PlanInput, union: readonly string[]): ConfigProblem[] {
  const fileName = input.harness?.name;
  const flags = input.values;
  const file = { file: input.harness?.data, ...(fileName ? { fileName } : {}) };
  const rules = input.labRules ? { labRules: input.labRules } : {};
  const res = resolveConfig({ ...file, env: input.env, flags, knownChecks: union, ...rules });
  return res.ok ? [] : res.problems.filter((p) => !p.message.startsWith('names no check of scenario'));
}

/** `run [scenario]` and `run --all`. */
function planRun(input: PlanInput): Draft {
  const problems: ConfigProblem[] = [];
  const all = Boolean(input.values['all']);
  const named = input.positionals[0];
  // Note: after `--` every word is a scenario name; an option there (`run -- --cpus 0`) is one mistake, told once
  const optionLike = input.positionals.filter((w) => w.startsWith('-'));
  if (optionLike.length) {
    problems.push({
      field: 'scenario',
      value: input.positionals,
      message: `holds ${optionLike.length === 1 ? 'an option' : 'options'} (${optionLike.join(', ')}): after -- every word is taken for a scenario name`,
      fix: `put ${optionLike.join(' ')} before --, or drop --`,
    });
    const union = [...new Set(input.scenarios.flatMap((s) => s.checks.map((c) => c.id)))];
    return { problems: [...problems, ...restOf(input, union)], builds: [] };
  }
  if (input.positionals.length > 1)
    problems.push({
      field: 'scenario',
      value: input.positionals,
      message: 'only one scenario can be named',
      fix: 'name one scenario, or use --all',
    });
  if (all && named !== undefined)
    problems.push({
      field: 'scenario',
      value: named,
      message: 'cannot be combined with --all',
      fix: 'drop the scenario name, or drop --all',
    });
  const chosen = all
    ? [...input.scenarios]
    : [input.scenarios.find((s) => s.name === (named ?? input.scenarios[0]?.name))];
  const union = [...new Set(input.scenarios.flatMap((s) => s.checks.map((c) => c.id)))];
  const formerUnion = [...new Set(input.scenarios.flatMap((s) => formerIds(s.checks)))];
  const warnings: string[] = [];
  if (!all && !chosen[0]) {
    const unknown = scenarioProblem(named ?? '', input.scenarios);
    return { problems: [...problems, unknown, ...restOf(input, union)], builds: [] };
  }
  const cells: PlannedCell[] = [];
  let base: HarnessConfig | undefined;
  const seen = new Set<string>();
  for (const s of chosen as PlannableScenario[]) {
    const res = configOf(input, s, all ? { knownChecks: union, formerChecks: formerUnion } : {});
    // Note: with problems, the values that were valid still let the other checks below run (every problem at once).
    if (!res.ok)
      for (const p of res.problems) if (!seen.has(JSON.stringify(p))) seen.add(JSON.stringify(p)), problems.push(p);
    const config = currentExpectations(res.config, s, warnings);
    // --all: an expectation of a check applies to the scenarios that have that check.
    const own = new Set(s.checks.map((c) => c.id));
    config.expect.perCheck = Object.fromEntries(Object.entries(config.expect.perCheck).filter(([id]) => own.has(id)));
    base ??= config;
    const builds = nomadBuilds(
      config,
      input.cwd,
      buildSource(input, ['nomad_binary', 'nomad_build'], '--nomad'),
      buildSource(input, ['upgrade_to'], '--upgrade-to'),
    );
    let skip: string | undefined;
    if (s.needsNomad && !config.nomadBinary) {
      if (all) skip = 'no Nomad build given (--nomad / NOMAD_BUILD)';
      else
        problems.push({
          field: '--nomad',
          value: undefined,
          message: `scenario ${s.name} installs Nomad and needs a build`,
          fix: 'pass --nomad with a release version (1.9.7, latest), git:<dir>[@<ref>] or the path of a linux/amd64 build; or NOMAD_BUILD, or nomad_build in harness.yaml',
        });
    }
    // --all: a scenario that needs an input nobody gave (a second build) is skipped with why, as one without a build is.
    if (all && !skip) skip = s.missingInput?.(config);
    if (!all || !skip)
      problems.push(...(s.validate?.(config) ?? []).map((q) => (all ? { ...q, field: `${s.name}: ${q.field}` } : q)));
    const cell: PlannedCell = {
      key: s.name,
      scenario: s.name,
      variant: configVariant(config),
      counts: true,
      ...(skip ? { skip } : {}),
      config,
      properties: {},
      builds: skip ? [] : builds,
      rerun: { scope: 'suite', argv: ['run', s.name], keepArgs: true, builds: SINGLE_BUILDS },
    };
    // run --repeat N (like go test -count N): the same cell N times, each on fresh VMs, judged together afterwards.
    const n = skip ? 1 : config.repeat;
    for (let k = 1; k <= n; k++) {
      cells.push(
        n > 1
          ? {
              ...cell,
              key: `${s.name}#${k}`,
              repeat: { group: s.name, attempt: k, of: n },
              properties: { 'repeat.attempt': `${k}/${n}` },
            }
          : cell,
      );
    }
  }
  if (!base) return { problems, builds: [] };
  return { plan: { ...baseSession('run', base, cells), warnings }, problems, builds: [] };
}

/** `compare <scenario> --before <build> --after <build>`: two cells on the build axis. */
function planCompare(input: PlanInput): Draft {
  const problems: ConfigProblem[] = [];
  const name = input.positionals[0] ?? input.scenarios[0]?.name ?? '';
  const s = input.scenarios.find((x) => x.name === name);
  if (input.positionals.length > 1)
    problems.push({
      field: 'scenario',
      value: input.positionals,
      message: 'only one scenario can be compared',
      fix: 'name one scenario (reboot-harness list)',
    });
  if (!s) problems.push(scenarioProblem(name, input.scenarios));
  else if (!s.needsNomad)
    problems.push({
      field: 'scenario',
      value: name,
      message: 'does not install Nomad, so two builds cannot differ',
      fix: 'compare a Nomad scenario, e.g. bridge-exec-reboot (reboot-harness list)',
    });
  const sides: Side[] = ['before', 'after'];
  const given: Partial<Record<Side, string>> = {};
  for (const side of sides) {
    const v = input.values[side];
    if (typeof v !== 'string' || v.trim() === '')
      problems.push({
        field: `--${side}`,
        value: v,
        message: 'is required',
        fix: `give the ${side === 'before' ? 'build released so far' : 'candidate build'}: --${side} ./path/to/nomad (linux/amd64)`,
      });
    else given[side] = v.trim();
  }
  for (const flag of ['nomad-binary', 'nomad'])
    if (input.values[flag] !== undefined)
      problems.push({
        field: `--${flag}`,
        value: input.values[flag],
        message: 'cannot be combined with --before/--after',
        fix: `drop --${flag}: compare installs --before, then --after`,
      });
  problems.push(...repeatOnlyForRun(input));
  const res = s ? configOf(input, s) : undefined;
  if (res && !res.ok) problems.push(...res.problems);
  if (!s || !res) return { problems, builds: buildsOfSides(given, input.cwd) };
  const warnings: string[] = [];
  const resolved = currentExpectations(res.config, s, warnings);
  const cells: PlannedCell[] = [];
  for (const side of sides) {
    const config: HarnessConfig = { ...structuredClone(resolved), nomadBinary: given[side] };
    // Note: --expect describes the build being validated (after); the before build is shown as it is.
    if (side === 'before') config.expect = { scenario: undefined, perCheck: {} };
    problems.push(...(side === 'after' ? (s.validate?.(config) ?? []) : []));
    const builds = given[side] ? nomadBuilds(config, input.cwd, `--${side}`) : [];
    cells.push({
      key: `${s.name}@${side}`,
      scenario: s.name,
      variant: configVariant(config),
      side,
      counts: side === 'after',
      config,
      properties: { 'compare.side': side },
      builds,
      rerun: {
        scope: 'session',
        argv: ['compare', s.name],
        keepArgs: true,
        builds: [{ property: 'nomad.binary', flag: `--${side}` }],
        title: 'this comparison',
      },
    });
  }
  const comparison = { before: cells[0]!.key, after: cells[1]!.key };
  // Note: the same spec on both sides is known before anything resolves, so --plan says it too; two specs of one binary
  // (a release and its downloaded path) are found only once both resolve, and warned about then.
  const [b, a] = [given.before, given.after];
  if (b !== undefined && a !== undefined && sameSpec(b, a, input.cwd))
    warnings.push(
      `--before ${b} and --after ${a} are the same build: the comparison runs it twice, so a check that flips is ` +
        'flakiness, not a difference between builds',
    );
  return { plan: { ...baseSession('compare', resolved, cells), comparison, warnings }, problems, builds: [] };
}

/** Two build specs that name the same thing as written: equal, or paths to the same file. */
function sameSpec(x: string, y: string, cwd: string): boolean {
  const [a, b] = [x.trim(), y.trim()];
  if (a === b) return true;
  const isPath = (t: string) => t.includes('/') && !t.startsWith('git:');
  return isPath(a) && isPath(b) && resolve(cwd, a) === resolve(cwd, b);
}

function buildsOfSides(given: Partial<Record<Side, string>>, cwd: string): BuildRef[] {
  return (Object.entries(given) as [Side, string][]).map(([side, spec]) => ({
    field: `--${side}`,
    spec,
    cwd,
    role: 'nomad' as const,
  }));
}

/** `matrix <file> [--shard i/n | --cell name]`: the expansion, this shard's cells. */
function planMatrix(input: PlanInput): Draft {
  const problems: ConfigProblem[] = [];
  const mf = input.matrixFile;
  if (input.positionals.length !== 1 || !mf) {
    // Note: one file that could not be read is the command's problem (told with why); the rest is still judged
    const unread = input.positionals.length === 1;
    const sh = parseShard(typeof input.values['shard'] === 'string' ? (input.values['shard'] as string) : undefined);
    const union = [...new Set(input.scenarios.flatMap((s) => s.checks.map((c) => c.id)))];
    return {
      problems: [
        ...(unread
          ? []
          : [
              {
                field: 'matrix file',
                value: input.positionals,
                message: input.positionals.length ? 'only one matrix file can be run' : 'is required',
                fix: 'reboot-harness matrix matrix.yaml [--shard i/n] (docs/matrix.md)',
              },
            ]),
        ...('field' in sh ? [sh] : []),
        ...restOf(input, union),
      ],
      builds: [],
    };
  }
  const known = Object.fromEntries(input.scenarios.map((s) => [s.name, expectableIds(s.checks)]));
  const spec = parseMatrix(mf.data, mf.name, known);
  const shardText = typeof input.values['shard'] === 'string' ? (input.values['shard'] as string) : undefined;
  const sh = parseShard(shardText);
  const only = typeof input.values['cell'] === 'string' ? (input.values['cell'] as string) : undefined;
  if ('field' in sh) problems.push(sh);
  problems.push(...repeatOnlyForRun(input));
  if (only !== undefined && shardText !== undefined)
    problems.push({
      field: '--cell',
      value: only,
      message: 'cannot be combined with --shard',
      fix: "give --cell to re-run one cell, or --shard to run a CI job's share",
    });
  if (!spec.ok) return { problems: [...spec.problems, ...problems], builds: [] };
  const m = spec.spec;
  problems.push(...axisFlagProblems(m, input.values, mf.name));
  const all = expandCells(m);
  if (only !== undefined && !all.some((c) => c.name === only))
    problems.push({
      field: '--cell',
      value: only,
      message: 'names no cell of this matrix',
      fix: `use one of: ${all.map((c) => c.name).join(', ')}`,
    });
  const { i, n } = 'field' in sh ? { i: 1, n: 1 } : sh;
  // Note: an unknown --cell is a problem; the shard's cells are still planned so their builds are checked too.
  const picked = only !== undefined ? all.filter((c) => c.name === only) : [];
  const cells: Cell[] = picked.length ? picked : shard(all, i, n);
  const bases = new Map<string, HarnessConfig>();
  for (const name of m.scenarios) {
    const s = input.scenarios.find((x) => x.name === name)!;
    const res = configOf(input, s, {
      file: deepMerge(input.harness?.data, m.defaults),
      fileName: `${input.harness ? `${input.harness.name} + ` : ''}${mf.name} defaults`,
    });
    bases.set(name, res.config);
    if (!res.ok) problems.push(...res.problems);
  }
  const warnings: string[] = [];
  const planned: PlannedCell[] = cells.map((cell) => {
    const s = input.scenarios.find((x) => x.name === cell.scenario)!;
    const p = matrixCell(cell, bases.get(cell.scenario)!, input, mf.dir);
    return { ...p, config: currentExpectations(p.config, s, warnings) };
  });
  problems.push(
    ...planProblems(
      planned.map((p) => ({ cell: cells.find((c) => c.name === p.key)!, config: p.config })),
      m.parallel,
      m.memoryBudgetMb,
      mf.name,
    ),
  );
  for (const p of planned) {
    const s = input.scenarios.find((x) => x.name === p.scenario)!;
    const c = p.config;
    if (s.needsNomad && !c.nomadBinary)
      problems.push({
        field: `cell ${p.key}`,
        value: undefined,
        message: 'installs Nomad and has no build',
        fix: 'add a nomad axis ({name, binary}) or nomad_binary under defaults',
      });
    problems.push(
      ...(s.validate?.(c) ?? []).map((q) => ({
        ...fromAxis(q, m, mf.name),
        field: `cell ${p.key}: ${fromAxis(q, m, mf.name).field}`,
      })),
    );
  }
  const base = bases.get(m.scenarios[0]!)!;
  const plan = baseSession('matrix', base, planned);
  // Every subnet a cell may get (slot 0 when run alone, 1..parallel otherwise) is guarded by a host blackhole.
  const slots = m.parallel > 1 ? Array.from({ length: m.parallel }, (_, k) => k + 1) : [0];
  plan.subnets = [
    ...new Set(
      planned.flatMap((p) =>
        slots.flatMap((slot) => [
          configInSlot(p.config, slot).lab.managementSubnet,
          configInSlot(p.config, slot).lab.privateSubnet,
        ]),
      ),
    ),
  ];
  Object.assign(plan, { parallel: m.parallel, budgetMb: m.memoryBudgetMb, retryInfra: m.retryInfra });
  plan.matrix = { file: mf.name, path: mf.path, shard: `${i}/${n}`, cellsInMatrix: all.length, all };
  plan.reportFolder = { prefix: 'matrix-', fallback: `shard-${i}-of-${n}` };
  const big = sizeWarning(cells.length, all.length, m.parallel);
  plan.warnings = big ? [...warnings, big] : warnings;
  return { plan, problems, builds: plan.builds };
}

/** More cells than this in one runner's share is worth a word before hours of VMs start. */
export const MANY_CELLS = 100;
/** About what one cell takes (a run under emulation, docs/benchmarks.md): only to size the warning. */
const CELL_MINUTES = 5;

/** A warning when the cells this runner would run are many: how long that is, and how to make it less. */
export function sizeWarning(selected: number, inMatrix: number, parallel: number): string | undefined {
  if (selected <= MANY_CELLS) return undefined;
  const hours = Math.round((selected * CELL_MINUTES) / Math.max(1, parallel) / 60);
  const share =
    selected === inMatrix
      ? `the matrix has ${selected} cells`
      : `this shard has ${selected} of the matrix's ${inMatrix} cells`;
  return (
    `${share}: at about ${CELL_MINUTES} min a cell and parallel ${parallel}, about ${hours} h; ` +
    'narrow an axis, or spread it over runners (matrix <file> --list-cells --shards N, then --shard i/N on each)'
  );
}

/** --repeat is run's: compare and matrix name their own attempts (a retry) and cells. */
function repeatOnlyForRun(input: PlanInput): ConfigProblem[] {
  const flag = input.values['repeat'];
  const given = flag ?? input.env['HARNESS_REPEAT'];
  if (given === undefined || given === '' || given === '1') return [];
  return [
    {
      field: flag !== undefined ? '--repeat' : 'env HARNESS_REPEAT',
      value: given,
      message: `applies to run only, not ${input.command}`,
      fix: flag !== undefined ? 'drop --repeat (repeat), or use run' : 'unset HARNESS_REPEAT, or use run',
    },
  ];
}

function matrixCell(cell: Cell, base: HarnessConfig, input: PlanInput, dir: string): PlannedCell {
  // Note: the specs stay as written; a relative path in an axis entry is taken from the matrix file's folder.
  const c0 = cellConfig(base, cell, 0);
  const file = input.matrixFile!.name;
  const builds: BuildRef[] = [];
  const entry = cell.nomad?.field;
  if (c0.nomadBinary)
    builds.push(
      entry
        ? { field: `${file}: ${entry}.binary`, spec: c0.nomadBinary, cwd: dir, role: 'nomad' }
        : { field: '--nomad', spec: c0.nomadBinary, cwd: input.cwd, role: 'nomad' },
    );
  if (c0.upgradeTo)
    builds.push(
      cell.nomad?.upgradeTo
        ? { field: `${file}: ${entry}.upgrade_to`, spec: c0.upgradeTo, cwd: dir, role: 'upgrade-to' }
        : { field: '--upgrade-to', spec: c0.upgradeTo, cwd: input.cwd, role: 'upgrade-to' },
    );
  const properties = {
    'matrix.cell': cell.name,
    ...Object.fromEntries(cell.values.map(([k, v]) => [`matrix.${k}`, v])),
  };
  const variant = cell.values.filter(([k]) => k !== 'nomad').map(([k, v]) => `${k}=${v}`);
  return {
    key: cell.name,
    scenario: cell.scenario,
    variant,
    ...(cell.nomad ? { buildLabel: cell.nomad.name } : {}),
    counts: true,
    config: c0,
    properties,
    builds,
    // Note: a matrix cell is re-run by its name in the file; its builds are the file's, only checked by checksum. The
    // flags given to the whole matrix (--netns '', --timeout) shaped the cell too: kept, the cell picks dropped.
    rerun: {
      scope: 'suite',
      argv: ['matrix', input.matrixFile!.path, '--cell', cell.name],
      keepArgs: true,
      builds: SINGLE_BUILDS.map(({ property }) => ({ property })),
    },
  };
}

/**
 * A cell's config in a parallel slot: slot 0 keeps its subnets, slot k > 0 gets a pair of its own (shifted by k), so
 * cells that run at once never share a lab network. Pure; the plan holds only slot 0.
 */
export function configInSlot(config: HarnessConfig, slot: number): HarnessConfig {
  if (slot <= 0) return config;
  const c = structuredClone(config);
  c.lab.privateSubnet = shiftSubnet(config.lab.privateSubnet, slot) ?? config.lab.privateSubnet;
  c.lab.managementSubnet = shiftSubnet(config.lab.managementSubnet, slot) ?? config.lab.managementSubnet;
  return c;
}

/** The flags that set what a matrix axis varies (the axis values win in every cell). */
const AXIS_FLAGS: Record<string, readonly string[]> = {
  nomad: ['nomad', 'nomad-binary'],
  reboot: ['reboot'],
  box: ['box'],
  driver: ['driver'],
  servers: ['servers'],
  clients: ['clients'],
};

/** A flag given for an axis the matrix varies would be ignored in every cell: a problem, as other unused flags are. */
function axisFlagProblems(m: MatrixSpec, values: Record<string, unknown>, file: string): ConfigProblem[] {
  return m.axes.flatMap((axis) =>
    (AXIS_FLAGS[axis.name] ?? [])
      .filter((flag) => values[flag] !== undefined)
      .map((flag) => ({
        field: `--${flag}`,
        value: values[flag],
        message: `every cell's ${axis.name} comes from axes.${axis.name} in ${file}, so the flag would be ignored`,
        fix: `drop --${flag}, or change axes.${axis.name} in ${file}`,
      })),
  );
}

/**
 * A scenario's problem with a value an axis gave (axes.driver: docker for a scenario that runs exec only) names the
 * axis, not the flag that was never given.
 */
function fromAxis(q: ConfigProblem, m: MatrixSpec, file: string): ConfigProblem {
  for (const axis of m.axes)
    for (const flag of AXIS_FLAGS[axis.name] ?? [])
      if (q.field === `--${flag}` || q.field.endsWith(`(--${flag})`))
        return {
          ...q,
          field: `${file}: axes.${axis.name}`,
          // Note: a value the scenario cannot use at all is removed from the axis; otherwise the fix stands as it was
          fix: q.message.startsWith('applies to')
            ? `remove ${typeof q.value === 'string' ? q.value : JSON.stringify(q.value)} from axes.${axis.name} for this scenario, or split the matrix`
            : q.fix,
        };
  return q;
}
