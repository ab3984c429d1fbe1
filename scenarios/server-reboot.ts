// server-reboot: the leader's host reboots for real (or --target: a server, servers). A bridge-mode job (the shipped one
// spread over the clients, or yours: --job) runs and is probed through the clients' host ports throughout; the leader
// is asked every second from a live machine. Judged: the target hit, another server leading within
// reboot.leader_within (with one server: the same one after its return), the old leader back as a Serf member and
// Raft voter, no alloc disturbed (none moved or restarted), and the service answering throughout. Promoted from the
// example user scenario (examples/scenarios/, which stays an example of the API under another name).
// (lib/steps/cluster-run.ts)
import type { TargetSpec } from '../lib/model/target.js';
import type { HarnessConfig } from '../lib/config/schema.js';
import type { ConfigProblem } from '../lib/errors.js';
import type { RebootKind } from '../lib/model/kinds.js';
import { defineScenario, execDriverOnly, singleRebootOnly } from '../lib/run/scenario.js';
import { checkJobInput, CLUSTER_JOB_TYPES, CLUSTER_JOBS_TAKEN } from '../lib/steps/job-input.js';
import { JOB_CHECKS } from '../lib/steps/cluster-jobs.js';
import { TARGETS_HIT } from '../lib/checks/targets-hit.js';
import { NEW_LEADER } from '../lib/checks/new-leader.js';
import { OLD_LEADER_REJOINED } from '../lib/checks/old-leader-rejoined.js';
import { UNTOUCHED_ALLOCS } from '../lib/checks/untouched-allocs.js';
import { SERVICE_CONTINUITY } from '../lib/checks/service-continuity.js';
import { FAULTS, faultKind } from '../lib/faults/registry.js';
import { faultProblems, scheduleProblems } from '../lib/steps/fault-step.js';
import { runClusterFault, type ClusterPlan } from '../lib/steps/cluster-run.js';
import { SENTINEL_CHECKS } from '../lib/steps/sentinel-steps.js';

export const CHECKS = [
  TARGETS_HIT,
  NEW_LEADER,
  OLD_LEADER_REJOINED,
  UNTOUCHED_ALLOCS,
  ...JOB_CHECKS,
  SERVICE_CONTINUITY,
  ...SENTINEL_CHECKS,
];

/** server-reboot's own defaults: the leader, no drain (servers run no allocs), one server at a time. */
export function serverPlan(config: {
  reboot: { target?: TargetSpec | undefined; rolling?: boolean | undefined };
}): ClusterPlan {
  return { target: config.reboot.target ?? { kind: 'leader' }, rolling: config.reboot.rolling ?? true, drain: false };
}

/** --drain: servers run no allocs; and the run's own --reboot and --target, as each step of a schedule is judged. */
function problems(config: HarnessConfig) {
  return [
    ...stepProblems(config.reboot.kind, config.reboot.target),
    ...(config.reboot.drain
      ? [
          {
            field: 'reboot.drain (--drain)',
            value: true,
            message: 'servers run no allocs to drain',
            fix: 'drop --drain',
          },
        ]
      : []),
  ];
}

/**
 * What server-reboot refuses of one fault (the run's, or a schedule's step): a client target, a kind no server can
 * take, a kind of the whole lab. `kind` absent: a step whose kind is wrong, its target still judged.
 */
function stepProblems(kind: RebootKind | undefined, t: TargetSpec | undefined): ConfigProblem[] {
  const clientTarget = t && (t.kind === 'clients' || (t.kind === 'machine' && t.name.startsWith('client')));
  return [
    ...(clientTarget
      ? [
          {
            field: '--target (reboot.target)',
            value: t.kind === 'machine' ? t.name : t.kind,
            message: 'server-reboot reboots servers',
            fix: 'give leader, servers or a server (server-2), or run rolling-reboot for clients',
          },
        ]
      : []),
    ...(!kind || faultKind(kind).roles.includes('server')
      ? []
      : [
          {
            field: '--reboot (reboot.kind)',
            value: kind,
            message: 'server-reboot reboots the server host',
            fix: `give one of ${FAULTS.kinds
              .filter((k) => k.roles.includes('server') && !k.wholeLab)
              .map((k) => k.name)
              .join(', ')}`,
          },
        ]),
    // its checks judge the clients' allocs undisturbed, which a fault of the whole lab disturbs by design
    ...(kind && faultKind(kind).wholeLab
      ? [
          {
            field: '--reboot (reboot.kind)',
            value: kind,
            message: 'server-reboot judges the clients untouched; this fault powers off every machine',
            fix: `run rolling-reboot --reboot ${kind} (every alloc followed)`,
          },
        ]
      : []),
  ];
}

export default defineScenario({
  name: 'server-reboot',
  summary:
    "the leader's host reboots (or --target servers/server-N); another server leads in time, the old one rejoins, no alloc is disturbed and the service answers throughout",
  needsNomad: true,
  jobs: CLUSTER_JOBS_TAKEN,
  checks: CHECKS,
  validate: (config) => [
    ...singleRebootOnly('server-reboot', config),
    ...execDriverOnly('server-reboot', config),
    ...faultProblems('server-reboot', config, {
      hasNomadAgent: true,
      defaultRole: 'server',
      runsSchedules: true,
      refuses: (k) => stepProblems(k as RebootKind, undefined).length > 0,
    }),
    ...scheduleProblems('server-reboot', config, {
      hasNomadAgent: true,
      defaultRole: 'server',
      stepRule: stepProblems,
    }),
    ...problems(config),
  ],
  preflight: (config, tools) => checkJobInput(config, tools.convertJob, CLUSTER_JOB_TYPES('server-reboot')),
  run: (ctx, env) => runClusterFault(ctx, env, serverPlan(env.config), CHECKS),
});
