// What each e2e file exercises, as repository paths (folders or files): a run of the file recorded in docs/findings.md
// is out of date once a commit after it changed one of these paths or the e2e file itself. Read by
// e2e-last-run.test.ts. Kept to the code that decides what a real run does and how it is judged: the CLI's parsing,
// the reports' layout and the docs are left out (their own tiers cover them), except where the file checks them.

/**
 * A scenario run on VMs: the runner, the steps, the checks, Nomad's client, the lab and its provisioning. lib/exec, the
 * runner of every vagrant, virsh and ssh command, belongs here too and is left out for now, as a debt: its last change
 * (a process group for the builds' go and git, an option the lab's commands do not take) came after the rows' runs;
 * it goes in when the rows next run together (the builds' rows list it already).
 */
const VM_RUN = [
  'lib/run',
  'lib/steps',
  'lib/checks',
  'lib/nomad',
  'lib/cluster',
  'lib/cni',
  'lib/ssh',
  'lib/lab',
  'lib/vagrant',
  'lib/faults',
  'lib/config/schema.ts',
  'vms',
  'test/helpers/real-nomad.ts',
  'test/helpers/cli-child.ts',
  'test/helpers/vm-prereqs.ts',
];
/**
 * Code only a run given a fault schedule (`--faults`) reaches: its parser, read by the cluster scenarios only (a
 * one-fault scenario refuses `--faults` without reading the file). A git pathspec that leaves it out.
 */
const NOT_SCHEDULES = ':!lib/faults/schedule.ts';
/** bridge-exec-reboot with its shipped jobs. */
const REBOOT = [...VM_RUN, 'scenarios/bridge-exec-reboot.ts', 'jobs', NOT_SCHEDULES];
/** The cluster scenarios (several servers or clients). */
const CLUSTER = [...VM_RUN, 'jobs'];

export const E2E_COVERS: Readonly<Record<string, readonly string[]>> = {
  'agent-configs.test.ts': ['lib/cluster', 'test/helpers/real-nomad.ts'],
  'bisect.test.ts': [
    ...REBOOT,
    'lib/bisect',
    'lib/git',
    'lib/builds',
    'lib/exec',
    'lib/session',
    'lib/cli/commands/bisect.ts',
    'lib/cli/bisect-steps.ts',
    'lib/report/bisect.ts',
  ],
  'cluster-faults.test.ts': [...CLUSTER, 'scenarios/server-reboot.ts', 'scenarios/bridge-exec-reboot.ts'],
  'bridge-docker-reboot.test.ts': [...REBOOT, 'lib/matrix', 'lib/plan'],
  'bridge-exec-reboot-allocs.test.ts': [...REBOOT, 'examples/jobs', 'lib/parse/nomad-job.ts'],
  'bridge-exec-reboot.test.ts': [...REBOOT, 'lib/report/compare.ts'],
  'builds-source.test.ts': [...REBOOT, 'lib/builds', 'lib/exec', 'lib/report/compare.ts'],
  'docker-restart.test.ts': [...REBOOT, 'lib/matrix', 'lib/cluster/docker-image.ts'],
  'event-stream-real.test.ts': ['lib/nomad', 'lib/parse/event-stream-frames.ts', 'lib/checks/transitions.ts'],
  'faults.test.ts': [...REBOOT, 'lib/matrix'],
  'gitlab-attachments.test.ts': [...REBOOT, 'lib/report/junit.ts', 'lib/report/attachment-paths.ts', 'lib/merge'],
  'job-types.test.ts': [...CLUSTER, 'scenarios/rolling-reboot.ts', 'examples/jobs', 'lib/parse/nomad-job.ts'],
  'known-issues.test.ts': [
    ...REBOOT,
    'lib/matrix',
    'lib/known-issues',
    'lib/builds',
    'lib/exec',
    'lib/report/junit.ts',
  ],
  'new-faults.test.ts': [...REBOOT, 'lib/matrix'],
  'partition-services.test.ts': [...REBOOT, 'examples/jobs/whole-alloc.nomad.hcl'],
  'rolling-reboot.test.ts': [...CLUSTER, 'scenarios/rolling-reboot.ts'],
  'server-reboot.test.ts': [...CLUSTER, 'scenarios/server-reboot.ts'],
  'ssh-hosts.test.ts': [...REBOOT, 'test/helpers/handed-over-hosts.ts'],
  'upgrade-in-place.test.ts': [...VM_RUN, 'scenarios/upgrade-in-place.ts', 'jobs'],
  'warm-rerun.test.ts': REBOOT,
  'whole-alloc.test.ts': [...REBOOT, 'lib/matrix', 'examples/jobs/whole-alloc.nomad.hcl'],
};
