// rolling-reboot: the kured pattern on a lab of any size. A bridge-mode job runs (the shipped one spread over the
// clients, or yours: --job); every client (or --target) is in turn drained (the job's migrate block applies), rebooted
// for real, waited for, and marked eligible again, the next only once the job runs whole again. Meanwhile every mapped
// port is probed through the host ports of the live clients at a fixed interval. Judged: every target hit, every alloc
// followed across nodes (migrated by the drain, restored, replaced and why), the untouched clients' allocs undisturbed,
// and the service's gaps against reboot.max_gap. In a 1+1 lab it is today's reboot with a drain first.
// (lib/steps/cluster-run.ts)
import type { TargetSpec } from '../lib/model/target.js';
import { defineScenario, execDriverOnly, singleRebootOnly } from '../lib/run/scenario.js';
import { checkJobInput, CLUSTER_JOB_TYPES, CLUSTER_JOBS_TAKEN } from '../lib/steps/job-input.js';
import { JOB_CHECKS } from '../lib/steps/cluster-jobs.js';
import { TARGETS_HIT } from '../lib/checks/targets-hit.js';
import { ALLOCS_FOLLOWED } from '../lib/checks/allocs-followed.js';
import { UNTOUCHED_ALLOCS } from '../lib/checks/untouched-allocs.js';
import { SERVICE_CONTINUITY } from '../lib/checks/service-continuity.js';
import { faultProblems, scheduleProblems } from '../lib/steps/fault-step.js';
import { runClusterFault, type ClusterPlan } from '../lib/steps/cluster-run.js';
import { SENTINEL_CHECKS } from '../lib/steps/sentinel-steps.js';

export const CHECKS = [
  TARGETS_HIT,
  ALLOCS_FOLLOWED,
  UNTOUCHED_ALLOCS,
  ...JOB_CHECKS,
  SERVICE_CONTINUITY,
  ...SENTINEL_CHECKS,
];

/** rolling-reboot's own defaults: every client, one at a time, drained. */
export function rollingPlan(config: {
  reboot: { target?: TargetSpec | undefined; rolling?: boolean | undefined; drain?: boolean | undefined };
}): ClusterPlan {
  return {
    target: config.reboot.target ?? { kind: 'clients' },
    rolling: config.reboot.rolling ?? true,
    drain: config.reboot.drain ?? true,
  };
}

export default defineScenario({
  name: 'rolling-reboot',
  summary:
    'every client in turn (or --target) drained, rebooted for real and made eligible again, the next once the job runs whole; the service probed throughout',
  needsNomad: true,
  jobs: CLUSTER_JOBS_TAKEN,
  checks: CHECKS,
  validate: (config) => [
    ...singleRebootOnly('rolling-reboot', config),
    ...execDriverOnly('rolling-reboot', config),
    ...faultProblems('rolling-reboot', config, { hasNomadAgent: true, runsSchedules: true }),
    ...scheduleProblems('rolling-reboot', config, { hasNomadAgent: true }),
  ],
  preflight: (config, tools) => checkJobInput(config, tools.convertJob, CLUSTER_JOB_TYPES('rolling-reboot')),
  run: (ctx, env) => runClusterFault(ctx, env, rollingPlan(env.config), CHECKS),
});
