// The planner of `run [scenario]` and `run --all`: one cell per scenario (N with --repeat N); with --all, a scenario
// that lacks an input is a visible skip rather than a problem.
import type { ConfigProblem } from '../errors.js';
import { resolveConfig } from '../config/validate.js';
import { formerIds } from '../checks/expect-ids.js';
import type { HarnessConfig } from '../config/schema.js';
import { configVariant } from './names.js';
import type { PlanInput, PlannableScenario, PlannedCell } from './session-plan.js';
import {
  configOf,
  currentExpectations,
  buildGivenAt,
  nomadBuilds,
  scenarioProblem,
  sessionPlan,
  restOf,
  SINGLE_BUILDS,
  type Draft,
} from './shared.js';

/** `run [scenario]` and `run --all`. */
export function planRun(input: PlanInput): Draft {
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
      buildGivenAt(input, ['nomad_binary', 'nomad_build'], '--nomad'),
      buildGivenAt(input, ['upgrade_to'], '--upgrade-to'),
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
  return { plan: sessionPlan('run', base, cells, { warnings }), problems, builds: [] };
}
