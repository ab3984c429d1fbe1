// The planner: arguments + harness.yaml + env (+ a matrix file) -> a plan of cells, with every problem of the whole
// input at once. `run` is one cell (one per scenario with --all; run.ts), `compare` two cells on the build axis
// (compare.ts), `matrix` the expansion (matrix.ts); what a plan holds is session-plan.ts. Pure: files are read by the
// CLI and handed in; build files are checked by the CLI over `plan.builds`. A plan is built whole and never patched.
import type { ConfigProblem } from '../errors.js';
import { planCompare } from './compare.js';
import { planMatrix } from './matrix.js';
import { planRun } from './run.js';
import type { BuildRef, Plan, PlanInput } from './session-plan.js';

export type PlanResult = { ok: true; plan: Plan } | { ok: false; problems: ConfigProblem[]; builds: BuildRef[] };

/** Plan the session; every problem of the whole input in one list (builds are listed either way, to be checked too). */
export function planSession(input: PlanInput): PlanResult {
  const out =
    input.command === 'matrix' ? planMatrix(input) : input.command === 'compare' ? planCompare(input) : planRun(input);
  if (out.problems.length || !out.plan)
    return { ok: false, problems: out.problems, builds: out.plan?.builds ?? out.builds };
  return { ok: true, plan: out.plan };
}
