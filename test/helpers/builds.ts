// The builds of some specs resolved in one call, as the CLI does it in two (planBuilds, then resolvePlanned): the
// integration tests of releases and source trees resolve specs this way and want the first failure thrown.
import { combineErrors, planBuilds, resolvePlanned, type SpecInput } from '../../lib/builds/resolve.js';
import type { BuildContext } from '../../lib/builds/context.js';
import type { SourceProfile } from '../../lib/builds/source-profile.js';
import { ConfigError } from '../../lib/errors.js';
import type { ResolvedBuild } from '../../lib/model/build.js';

/**
 * Resolve every spec before a run: returns the builds in input order, or throws one error naming every failed spec
 * (a ConfigError, exit 2, when every failure is bad input; exit 3 when any is infrastructure).
 */
export async function resolveBuilds(
  inputs: readonly SpecInput[],
  ctx: BuildContext,
  profile?: SourceProfile,
): Promise<ResolvedBuild[]> {
  const plan = await planBuilds(inputs, ctx, profile);
  if ('problems' in plan) throw new ConfigError(plan.problems);
  const outcomes = await resolvePlanned(plan.planned, ctx);
  const errors = outcomes.flatMap((o) => ('error' in o ? [o.error] : []));
  if (errors.length) throw combineErrors(errors);
  return outcomes.map((o) => ('build' in o ? o.build : undefined!));
}
