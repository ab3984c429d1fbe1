// The planner of `compare <scenario> --before <build> --after <build>`: two cells of one scenario on the build axis;
// only the after build is judged, and a build compared with itself is warned about.
import { resolve } from 'node:path';
import type { ConfigProblem } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import { configVariant, type Side } from './names.js';
import type { BuildRef, PlanInput, PlannedCell } from './session-plan.js';
import {
  configOf,
  currentExpectations,
  nomadBuilds,
  repeatOnlyForRun,
  scenarioProblem,
  sessionPlan,
  type Draft,
} from './shared.js';

/** `compare <scenario> --before <build> --after <build>`: two cells on the build axis. */
export function planCompare(input: PlanInput): Draft {
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
  return { plan: sessionPlan('compare', resolved, cells, { comparison, warnings }), problems, builds: [] };
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
