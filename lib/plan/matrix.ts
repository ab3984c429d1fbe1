// The planner of `matrix <file> [--shard i/n | --cell name]`: the matrix file expanded into named cells, this
// runner's share of them, each cell's config from the defaults and its axis values, and the session's parallel slots.
import type { ConfigProblem } from '../errors.js';
import { expectableIds } from '../checks/expect-ids.js';
import type { HarnessConfig } from '../config/schema.js';
import { cellConfig, expandCells, parseShard, planProblems, shard, type Cell } from '../matrix/expand.js';
import { COUNT_AXES, parseMatrix, type MatrixSpec } from '../matrix/spec.js';
import { targetProblem, targetText } from '../model/target.js';
import { configTopology } from '../config/topology.js';
import { deepMerge } from './names.js';
import { configInSlot, type BuildRef, type PlanInput, type PlannedCell } from './session-plan.js';
import {
  configOf,
  currentExpectations,
  repeatOnlyForRun,
  restOf,
  sessionPlan,
  SINGLE_BUILDS,
  type Draft,
} from './shared.js';

/** `matrix <file> [--shard i/n | --cell name]`: the expansion, this shard's cells. */
export function planMatrix(input: PlanInput): Draft {
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
  // A file with a problem of its own is not planned; its cells are still judged where its scenarios, axes and
  // defaults parsed, and the command line's and harness.yaml's values with it, so every problem is told at once.
  if (!spec.ok) {
    const told = [
      ...spec.problems,
      ...problems,
      ...restOf(input, [...new Set(input.scenarios.flatMap((s) => s.checks.map((c) => c.id)))]),
    ];
    const keys = new Set(told.map(problemKey));
    const cells = spec.partial ? judgedCells(spec.partial, input, mf, keys, false) : undefined;
    return { problems: [...told, ...(cells?.problems ?? [])], builds: [] };
  }
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
  const judged = judgedCells(m, input, mf, undefined, true, cells, problems);
  const { planned, bases, warnings } = judged;
  problems.push(...judged.problems);
  const base = bases.get(m.scenarios[0]!)!;
  // Every subnet a cell may get (slot 0 when run alone, 1..parallel otherwise) is guarded by a host blackhole.
  const slots = m.parallel > 1 ? Array.from({ length: m.parallel }, (_, k) => k + 1) : [0];
  const subnets = [
    ...new Set(
      planned.flatMap((p) =>
        slots.flatMap((slot) => [
          configInSlot(p.config, slot).lab.managementSubnet,
          configInSlot(p.config, slot).lab.privateSubnet,
        ]),
      ),
    ),
  ];
  const shardName = `${i}/${n}`;
  const big = sizeWarning(cells.length, all.length, m.parallel);
  const plan = sessionPlan('matrix', base, planned, {
    parallel: m.parallel,
    budgetMb: m.memoryBudgetMb,
    retryInfra: m.retryInfra,
    subnets,
    matrix: { file: mf.name, path: mf.path, shard: shardName, cellsInMatrix: all.length, all },
    reportFolder: { prefix: 'matrix-', fallback: `shard-${i}-of-${n}` },
    warnings: big ? [...warnings, big] : warnings,
    report: { matrix: { file: mf.name, path: mf.path, shard: shardName, cellsInMatrix: all.length } },
    runProperties: { attempt: 'matrix.attempt', fixed: { 'matrix.shard': shardName } },
  });
  return { plan, problems, builds: plan.builds };
}

/**
 * The cells' configs from the defaults and their axis values, and what each cell's lab and scenario refuse of it.
 * When planning, the base configs' problems are pushed to `baseProblems` (the planner's list, whose keys are then
 * told); a lab problem whose key is told already is not told again per cell. `planning` false: a file with problems
 * of its own (told in `toldBefore`), whose entries may lack a build: only what the cells' labs and scenarios refuse.
 */
function judgedCells(
  m: MatrixSpec,
  input: PlanInput,
  mf: NonNullable<PlanInput['matrixFile']>,
  toldBefore: Set<string> | undefined,
  planning: boolean,
  cells: Cell[] = expandCells(m),
  baseProblems: ConfigProblem[] = [],
): {
  planned: PlannedCell[];
  bases: Map<string, HarnessConfig>;
  warnings: string[];
  problems: ConfigProblem[];
} {
  const problems: ConfigProblem[] = [];
  const bases = new Map<string, HarnessConfig>();
  const defaultsName = `${input.harness ? `${input.harness.name} + ` : ''}${mf.name} defaults`;
  // Axes that set the counts or the fault kind make each cell's lab its own: its target and what its provider can do
  // are judged per cell (the base's lab is the defaults' 1+1 pair, which no such cell runs).
  const byCounts = m.axes.some((a) => COUNT_AXES.includes(a.name));
  const perCellLab = byCounts || m.axes.some((a) => a.name === 'reboot');
  for (const name of m.scenarios) {
    const s = input.scenarios.find((x) => x.name === name)!;
    // Note: with counts from an axis the provider's rules too are asked per cell (what it can do depends on them)
    const res = configOf(byCounts ? withoutLabRules(input) : input, s, {
      file: deepMerge(input.harness?.data, m.defaults),
      fileName: defaultsName,
      judgeTarget: !byCounts,
    });
    bases.set(name, res.config);
    // the defaults' problems of a file that did not plan were told by the file's own check
    if (!res.ok && planning) baseProblems.push(...res.problems);
  }
  const told = toldBefore ?? new Set(baseProblems.map(problemKey));
  const warnings: string[] = [];
  const planned: PlannedCell[] = cells.map((cell) => {
    const s = input.scenarios.find((x) => x.name === cell.scenario)!;
    const p = matrixCell(cell, bases.get(cell.scenario)!, input, mf.dir);
    return { ...p, config: currentExpectations(p.config, s, warnings) };
  });
  if (planning)
    problems.push(
      ...planProblems(
        planned.map((p) => ({ cell: cells.find((c) => c.name === p.key)!, config: p.config })),
        m.parallel,
        m.memoryBudgetMb,
        mf.name,
        (c) => input.vmOverheadMb?.(c) ?? 0,
      ),
    );
  for (const p of planned) {
    const s = input.scenarios.find((x) => x.name === p.scenario)!;
    const c = p.config;
    if (planning && s.needsNomad && !c.nomadBinary)
      problems.push({
        field: `cell ${p.key}`,
        value: undefined,
        message: 'installs Nomad and has no build',
        fix: 'add a nomad axis ({name, binary}) or nomad_binary under defaults',
      });
    const lab = perCellLab ? cellLabProblems(c, s.roles, m, mf.name, defaultsName, input, byCounts) : [];
    const own = planning ? (s.validate?.(c) ?? []) : (s.validate?.(c) ?? []).filter((q) => !told.has(problemKey(q)));
    problems.push(
      ...[...lab.filter((q) => !told.has(problemKey(q))), ...own].map((q) => ({
        ...fromAxis(q, m, mf.name),
        field: `cell ${p.key}: ${fromAxis(q, m, mf.name).field}`,
      })),
    );
  }
  return { planned, bases, warnings, problems };
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
      if (q.field === `--${flag}` || q.field.endsWith(`(--${flag})`) || q.field.startsWith(`--${flag} (`))
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

/** A key the base config's problems told already is not told again per cell (its text may differ: where it was set). */
const problemKey = (q: ConfigProblem): string => q.field;

/**
 * What the lab one cell makes refuses of it: a target naming a machine it lacks, and the provider's rules (a fault
 * kind it cannot do with that many servers, a host list of another length). Where a key was set is not known per
 * cell: the problems name the key.
 */
function cellLabProblems(
  c: HarnessConfig,
  roles: readonly string[] | undefined,
  m: MatrixSpec,
  file: string,
  defaultsName: string,
  input: PlanInput,
  byCounts: boolean,
): ConfigProblem[] {
  // the base judged the target against the same counts unless an axis sets them
  const target = byCounts && c.reboot.target ? targetProblem(c.reboot.target, configTopology(c)) : undefined;
  // the keys an axis sets are given by the axis (a host list of another length is then a problem, not a count to take)
  const byAxis: Record<string, string> = {
    'lab.servers': 'servers',
    'lab.clients': 'clients',
    'reboot.kind': 'reboot',
  };
  const givenBy = (path: string): string | undefined =>
    m.axes.some((a) => a.name === byAxis[path]) ? `${file}: axes.${byAxis[path]}` : undefined;
  const at = { file: defaultsName, roles: roles ?? ['server', 'client'], givenBy, refused: () => false };
  return [
    ...(target ? [{ field: '--target (reboot.target)', value: targetText(c.reboot.target!), ...target }] : []),
    ...(input.labRules?.(c, at) ?? []),
  ];
}

function withoutLabRules(input: PlanInput): PlanInput {
  const { labRules: _, ...rest } = input;
  return rest;
}
