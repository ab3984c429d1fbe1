// The planner as a test drives it: the input of a command line over a set of scenarios, and the plan it gives or the
// problems it names.
import { labConfigRules, vmOverheadMb } from '../../lib/lab/providers.js';
import { planSession } from '../../lib/plan/plan.js';
import type { PlanInput, PlannableScenario } from '../../lib/plan/session-plan.js';

export function plannerOver(scenarios: readonly PlannableScenario[]) {
  /** A command line's input, with no environment, in /w, over the scenarios. */
  const input = (
    command: PlanInput['command'],
    positionals: string[],
    values: Record<string, unknown>,
    more: Partial<PlanInput> = {},
  ): PlanInput => ({
    command,
    positionals,
    values,
    env: {},
    cwd: '/w',
    scenarios,
    labRules: labConfigRules,
    vmOverheadMb,
    ...more,
  });
  /** The plan; an input with problems throws, naming each. */
  const ok = (i: PlanInput) => {
    const r = planSession(i);
    if (!r.ok) throw new Error(r.problems.map((p) => `${p.field}: ${p.message}`).join('; '));
    return r.plan;
  };
  /** The problems; an input that plans throws. */
  const problems = (i: PlanInput) => {
    const r = planSession(i);
    if (r.ok) throw new Error('expected problems');
    return r;
  };
  return { input, ok, problems };
}
