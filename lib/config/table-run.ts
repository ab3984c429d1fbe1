// The configuration keys of what a run does: the task driver and job files, the agent log rules, and the fault's
// schedule (target, count, settle, drain, probes), and the keys a fault registry makes. Part of the one table of keys
// (table.ts).
import { TASK_DRIVERS } from '../model/kinds.js';
import { FAULTS, type FaultRegistry } from '../faults/registry.js';
import {
  bool,
  described,
  hclVars,
  int,
  oneOf,
  str,
  textList,
  strList,
  configPathOf,
  type Field,
  type Parsed,
} from './fields.js';
import { goDurationWithin, timeoutSeconds } from './durations.js';
import { parseTarget, TARGET_WORDS } from '../model/target.js';

import type { FieldRow } from './fields.js';

/** `--target`: a machine name or one of the target words; whether the topology has it is checked in validate.ts. */
const targetField = described(
  (raw: unknown): Parsed => {
    const t = typeof raw === 'string' ? parseTarget(raw) : { error: 'must be a word' };
    return 'error' in t
      ? { ok: false, message: t.error, fix: 'e.g. --target client-2, --target leader or --target clients' }
      : { ok: true, value: t };
  },
  { type: 'string', pattern: `^\\s*(${TARGET_WORDS.join('|')}|(server|client)(-[1-9]\\d*)?)\\s*$` },
);

export const RUN_ROWS: FieldRow[] = [
  {
    yaml: 'task.driver',
    flag: 'driver',
    env: 'HARNESS_DRIVER',
    doc: "bridge-exec-reboot's task driver: exec, or docker (GH-24292; needs the Docker box: `npm run harness -- setup --docker`)",
    parse: oneOf(TASK_DRIVERS),
  },
  {
    yaml: 'job.file',
    file: 'read',
    flag: 'job',
    env: 'HARNESS_JOB',
    path: ['job', 'files'],
    multiple: true,
    doc: "your own job (HCL) for bridge-exec-reboot, rolling-reboot and server-reboot, repeatable (several jobs run and are judged together on the cluster scenarios): service jobs on every reboot scenario (bridge or host networking), system, sysbatch and batch jobs on rolling-reboot and server-reboot (default: the scenario's shipped job; `list` says what each takes)",
    parse: strList('give the path of a .nomad.hcl file, e.g. examples/jobs/count-3.nomad.hcl'),
  },
  {
    yaml: 'job.files',
    file: 'read',
    path: ['job', 'files'],
    aliasOf: 'job.file',
    doc: 'several jobs of your own (a list of HCL files; the list form of job.file)',
    parse: strList(
      'give a list of .nomad.hcl paths, e.g. [examples/jobs/count-3.nomad.hcl, examples/jobs/two-groups.nomad.hcl]',
    ),
  },
  {
    yaml: 'job.vars',
    doc: "HCL variables for job.file (a mapping; passed as -var to Nomad's parser)",
    parse: hclVars,
  },
  {
    yaml: 'agent_log.never',
    parse: textList('e.g. ["failed to reattach", "rpc error: Permission denied"]'),
    doc:
      'agent-log-invariants: texts no agent (servers included) may log after the fault, added to the shipped ' +
      'list (docs/checks.md); each hit fails the check with the line quoted',
  },
  {
    yaml: 'agent_log.allowed',
    parse: textList('e.g. ["failed to restore task; will not run until server is contacted"]'),
    doc: 'agent-log-invariants: texts that excuse a line the never-list caught (a known, accepted line)',
  },
  {
    yaml: 'reboot.settle_quiet',
    flag: 'settle-quiet',
    path: ['reboot', 'settleQuietS'],
    parse: timeoutSeconds(1, 600),
    doc:
      "after a reboot, once every alloc's place is decided but Nomad still holds something for the job (a blocked " +
      'eval, an active deployment): how long nothing may change before the wait ends anyway',
  },
  {
    yaml: 'reboot.settle_confirm',
    flag: 'settle-confirm',
    path: ['reboot', 'settleConfirmS'],
    parse: timeoutSeconds(1, 600),
    doc:
      "after a reboot, once every alloc's place is decided and Nomad has nothing pending for the job: how long the " +
      'job must stay unchanged before it has settled (at most reboot.settle_quiet)',
  },
  ...faultFields(FAULTS),
  {
    yaml: 'reboot.deadline',
    flag: 'reboot-deadline',
    path: ['reboot', 'deadlineS'],
    parse: timeoutSeconds(1, 3600),
    doc:
      'how long the client may take to answer SSH with a new boot id after the fault (after power-on for power-off, ' +
      'after the heal for partition); past it the run ends with exit 3 naming the last SSH error and the serial ' +
      'console tail',
  },
  {
    yaml: 'reboot.count',
    flag: 'reboots',
    doc: 'how many times bridge-exec-reboot reboots the client (restored after each; leaks checked after the last)',
    parse: int(1, 20),
  },
  {
    yaml: 'reboot.restart_task',
    flag: 'restart-task',
    parse: bool,
    doc:
      'after the fault restart one task per restored alloc through the API and judge the environment it gets (task-env); ' +
      'false skips the restart and the check',
  },
  {
    yaml: 'reboot.resources_window',
    flag: 'resources-window',
    path: ['reboot', 'resourcesWindowS'],
    parse: timeoutSeconds(0, 600),
    doc:
      "how long after the fault the client agent's fds and plugin processes are sampled (agent-resources; Go duration or " +
      'seconds; 0 = not sampled)',
  },
  {
    yaml: 'reboot.target',
    flag: 'target',
    doc:
      'the machines the fault hits: a machine (client-2, server-1; client or server in a 1+1 lab), leader (resolved ' +
      'when the fault starts), clients or servers (default: the first client)',
    parse: targetField,
  },
  {
    yaml: 'reboot.faults',
    file: 'read',
    flag: 'faults',
    doc: 'a fault schedule (YAML: faults: [{ fault, target, wait, its options }], docs/faults.md): several faults in turn, run by rolling-reboot and server-reboot in place of --reboot',
    parse: str('give the path of a schedule file, e.g. faults.yaml'),
  },
  {
    yaml: 'reboot.seed',
    flag: 'seed',
    doc: "the seed of a schedule's picks (target any-client, any-server): a run records the one it used, and --seed replays it (default: the file's seed, else a new one)",
    parse: int(0, 4294967295),
  },
  {
    yaml: 'reboot.rolling',
    flag: 'rolling',
    parse: bool,
    doc: "several targets: one at a time, the next once the previous is back and the job settled (false: all at once; default: the scenario's, rolling-reboot rolls)",
  },
  {
    yaml: 'reboot.drain',
    flag: 'drain',
    parse: bool,
    doc: "drain each client's node before its fault (the job's migrate block applies) and mark it eligible once it is back (default: the scenario's, rolling-reboot drains)",
  },
  {
    yaml: 'reboot.drain_deadline',
    flag: 'drain-deadline',
    path: ['reboot', 'drainDeadlineS'],
    parse: timeoutSeconds(1, 6 * 3600),
    doc: "the drain's deadline (Go duration or seconds): Nomad stops what is left on the node then",
  },
  {
    yaml: 'reboot.probe_interval',
    flag: 'probe-interval',
    parse: goDurationWithin(60),
    doc: "how often the job's ports are probed during the fault window for service-continuity (Go duration, at most 1m)",
  },
  {
    yaml: 'reboot.leader_within',
    flag: 'leader-within',
    parse: goDurationWithin(3600),
    doc: "new-leader: how soon after the leader's fault another server must lead (with one server: after its return)",
  },
  {
    yaml: 'reboot.max_gap',
    flag: 'max-gap',
    path: ['reboot', 'maxGapS'],
    parse: timeoutSeconds(0, 3600),
    doc: "service-continuity: the longest gap the job's ports may have during the fault window (Go duration or seconds; 0 = no gap)",
  },
];

/**
 * The keys a fault registry makes: `reboot.kind` (one of its kinds) and each kind's own options (reboot.off_for,
 * reboot.partition_for), declared in its file under lib/faults.
 */
export function faultFields(registry: FaultRegistry): Field[] {
  const kind: Field = {
    yaml: 'reboot.kind',
    flag: 'reboot',
    path: configPathOf('reboot.kind'),
    doc: `fault injected on the client: ${registry.names.join(', ')} (docs/faults.md)`,
    parse: oneOf(registry.names),
  };
  return [kind, ...registry.options];
}
