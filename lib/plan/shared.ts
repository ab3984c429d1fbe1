// What the three planners share: a scenario's config from the input, its expectations under current check ids, the
// builds a cell installs, the plan built whole in one step, and the problems every planner reports alike.
import { givenAt } from '../config/given-at.js';
import type { ConfigProblem } from '../errors.js';
import type { Rerun } from '../model/session.js';
import { resolveConfig } from '../config/validate.js';
import { formerIds, withCurrentIds } from '../checks/expect-ids.js';
import type { HarnessConfig } from '../config/schema.js';
import {
  buildKey,
  type BuildRef,
  type Plan,
  type PlanCommand,
  type PlanInput,
  type PlannableScenario,
  type PlannedCell,
} from './session-plan.js';

/** A planner's answer: the plan when it could be built, every problem, and the builds to check either way. */
export interface Draft {
  plan?: Plan;
  problems: ConfigProblem[];
  builds: BuildRef[];
}

/** The config's per-check expectations under the scenario's current check ids; each old id moved is a warning. */
export function currentExpectations(config: HarnessConfig, s: PlannableScenario, warnings: string[]): HarnessConfig {
  const moved = withCurrentIds(config.expect.perCheck, s.checks, s.name);
  for (const w of moved.warnings) if (!warnings.includes(w)) warnings.push(w);
  return { ...config, expect: { ...config.expect, perCheck: moved.perCheck } };
}

export function scenarioProblem(name: string, known: readonly PlannableScenario[], field = 'scenario'): ConfigProblem {
  return {
    field,
    value: name,
    message: 'is not a known scenario',
    fix: `use one of: ${known.map((s) => s.name).join(', ')} (reboot-harness list)`,
  };
}

/** The config of one scenario from harness.yaml, env and flags; expectations checked against that scenario's checks. */
export function configOf(
  input: PlanInput,
  s: PlannableScenario,
  extra: {
    file?: unknown;
    fileName?: string;
    knownChecks?: readonly string[];
    formerChecks?: readonly string[];
    judgeTarget?: boolean;
  } = {},
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
    ...(extra.judgeTarget === false ? { judgeTarget: false } : {}),
  });
}

export function nomadBuilds(c: HarnessConfig, cwd: string, field: string, upgradeField = '--upgrade-to'): BuildRef[] {
  const out: BuildRef[] = [];
  if (c.nomadBinary) out.push({ field, spec: c.nomadBinary, cwd, role: 'nomad' });
  if (c.upgradeTo) out.push({ field: upgradeField, spec: c.upgradeTo, cwd, role: 'upgrade-to' });
  return out;
}

/** Where a build setting was given (the flag, NOMAD_BUILD, harness.yaml), as a build's problems name it. */
export function buildGivenAt(input: PlanInput, keys: readonly string[], fallback: string): string {
  const file = input.harness ? { file: input.harness.data, fileName: input.harness.name } : {};
  return givenAt({ ...file, env: input.env, flags: input.values }, keys, fallback);
}

/** What a planner decides beyond the cells; what it leaves out is a plain session (one at a time, no retries). */
type SessionShape = Partial<
  Pick<
    Plan,
    | 'parallel'
    | 'budgetMb'
    | 'retryInfra'
    | 'subnets'
    | 'matrix'
    | 'comparison'
    | 'reportFolder'
    | 'warnings'
    | 'report'
    | 'runProperties'
  >
>;

/** The plan, whole in one step: the builds and subnets of its cells (unless the planner gives its own), and the rest. */
export function sessionPlan(
  command: PlanCommand,
  base: HarnessConfig,
  cells: PlannedCell[],
  shape: SessionShape = {},
): Plan {
  const builds = uniqueBuilds(cells.flatMap((c) => c.builds));
  const subnets = [...new Set(cells.flatMap((c) => [c.config.lab.managementSubnet, c.config.lab.privateSubnet]))];
  return {
    command,
    cells,
    base,
    parallel: 1,
    budgetMb: undefined,
    retryInfra: false,
    builds,
    subnets,
    reportFolder: { prefix: '', fallback: 'run' },
    warnings: [],
    ...shape,
  };
}

/** The builds a run or matrix cell installs, as report properties, and the flags that pass them again. */
export const SINGLE_BUILDS: Rerun['builds'] = [
  { property: 'nomad.binary', flag: '--nomad' },
  { property: 'nomad.upgrade_to', flag: '--upgrade-to' },
];

function uniqueBuilds(builds: BuildRef[]): BuildRef[] {
  const seen = new Map<string, BuildRef>();
  for (const b of builds) if (!seen.has(`${b.role}\u0000${buildKey(b)}`)) seen.set(`${b.role}\u0000${buildKey(b)}`, b);
  return [...seen.values()];
}

/** --repeat is run's: compare and matrix name their own attempts (a retry) and cells. */
export function repeatOnlyForRun(input: PlanInput): ConfigProblem[] {
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

/**
 * The problems of the rest of the input when the scenario is unknown (every problem at once). Which checks an
 * expectation may name depends on the scenario, so those are left until the scenario is known.
 */
export function restOf(input: PlanInput, union: readonly string[]): ConfigProblem[] {
  const fileName = input.harness?.name;
  const flags = input.values;
  const file = { file: input.harness?.data, ...(fileName ? { fileName } : {}) };
  const rules = input.labRules ? { labRules: input.labRules } : {};
  const res = resolveConfig({ ...file, env: input.env, flags, knownChecks: union, ...rules });
  return res.ok ? [] : res.problems.filter((p) => !p.message.startsWith('names no check of scenario'));
}
