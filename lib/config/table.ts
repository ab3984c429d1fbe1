// Every configuration key, once: harness.yaml key, flag, environment variable, check and doc line.
import { PROVIDER_NAMES, TASK_DRIVERS, UPGRADE_MODES } from './schema.js';
import { FAULTS, type FaultRegistry } from '../faults/registry.js';
import { MAX_CLIENTS, SERVER_COUNTS } from '../model/topology.js';
import {
  argvList,
  boxName,
  cpuModel,
  bool,
  described,
  keepMode,
  goDurationWithin,
  HOST_KEYS,
  hclVars,
  hostList,
  httpUrl,
  int,
  intOneOf,
  netnsName,
  oneOf,
  str,
  textList,
  strList,
  subnet24,
  timeoutSeconds,
  configPathOf,
  type Field,
  type Parsed,
} from './fields.js';
import { parseTarget, TARGET_WORDS } from '../model/target.js';
import { KNOWN_ISSUE_POLICIES } from '../model/known-issue.js';

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

/** A row of the table: `path` is left out where it is the key's own path in camelCase (configPathOf). */
type Row = Omit<Field, 'path'> & { path?: string[] };

const ROWS: Row[] = [
  {
    yaml: 'scenarios_dir',
    flag: 'scenarios',
    env: 'HARNESS_SCENARIOS_DIR',
    doc: 'directory of your own scenario files (*.ts, docs/scenarios.md), loaded next to the shipped ones',
    parse: str('give the directory holding your scenario files, e.g. ./my-scenarios'),
  },
  {
    yaml: 'nomad_binary',
    flag: 'nomad-binary',
    env: 'NOMAD_BINARY',
    aliasOf: 'nomad_build',
    doc: 'the path of a linux/amd64 Nomad build (the older name of --nomad)',
    parse: str('give the path of a linux/amd64 nomad binary, e.g. ./pkg/linux_amd64/nomad'),
  },
  {
    yaml: 'nomad_build',
    flag: 'nomad',
    env: 'NOMAD_BUILD',
    path: ['nomadBinary'],
    doc: 'Nomad build to install: a release version (1.9.7, 1.9.7+ent, latest), git:<dir>[@<ref>], or the path of a linux/amd64 binary',
    parse: str('give a release version (1.9.7, latest), git:<dir>[@<ref>], or the path of a linux/amd64 nomad binary'),
  },
  {
    yaml: 'upgrade_to',
    flag: 'upgrade-to',
    env: 'NOMAD_UPGRADE_TO',
    doc: 'Nomad build the client is upgraded to in place (upgrade-in-place): a release version, git:<dir>[@<ref>] or a path',
    parse: str('give the build to upgrade to: a release version (1.9.7), git:<dir>[@<ref>] or a path'),
  },
  {
    yaml: 'builds.releases_url',
    flag: 'releases-url',
    env: 'NOMAD_RELEASES_URL',
    doc: 'base URL of the Nomad releases layout for version specs (the official site or a mirror)',
    parse: httpUrl,
  },
  {
    yaml: 'builds.releases_key',
    flag: 'releases-key',
    env: 'NOMAD_RELEASES_KEY',
    doc: "public key file a mirror signs its SHA256SUMS with (default: HashiCorp's release key, shipped)",
    parse: str('give the path of an OpenPGP public key file'),
  },
  {
    yaml: 'upgrade.mode',
    flag: 'upgrade-mode',
    doc: 'upgrade-in-place variant: upgrade, restart-only (same build, control case) or upgrade-then-reboot',
    parse: oneOf(UPGRADE_MODES),
  },
  {
    yaml: 'nomad.token',
    env: 'NOMAD_TOKEN',
    doc: 'ACL token for the Nomad API (never logged or reported)',
    secret: true,
    parse: str('give the SecretID of an ACL token'),
  },
  // Note: at most the longest whole-run budget (--timeout): a grace no run can outlast never expires in one
  {
    yaml: 'nomad.heartbeat_grace',
    flag: 'heartbeat-grace',
    doc: 'server heartbeat_grace; shorter than a reboot means the node goes down and allocs are replaced',
    parse: goDurationWithin(6 * 3600),
  },
  {
    yaml: 'nomad.retry_for',
    flag: 'nomad-retry-for',
    path: ['nomad', 'retryForS'],
    parse: timeoutSeconds(0, 3600),
    doc:
      'how long one Nomad API call is retried while Nomad answers 5xx (Go duration or seconds; 0 = not retried); ' +
      'then exit 3 with the status and body',
  },
  {
    yaml: 'lab.provider',
    flag: 'provider',
    env: 'HARNESS_PROVIDER',
    doc: 'libvirt or virtualbox (VMs made by Vagrant), or ssh (machines that already exist: lab.hosts)',
    parse: oneOf(PROVIDER_NAMES),
  },
  {
    yaml: 'lab.servers',
    flag: 'servers',
    env: 'HARNESS_SERVERS',
    doc: 'how many Nomad servers (one Raft cluster): 1, 3 or 5; with lab.provider ssh, the length of lab.hosts.servers',
    parse: intOneOf(SERVER_COUNTS, 'give 1, 3 or 5 (Raft wants an odd number of servers)'),
  },
  {
    yaml: 'lab.clients',
    flag: 'clients',
    env: 'HARNESS_CLIENTS',
    doc: `how many Nomad clients, 1 to ${MAX_CLIENTS}; with lab.provider ssh, the length of lab.hosts.clients`,
    parse: int(1, MAX_CLIENTS),
  },
  ...(['servers', 'clients'] as const).map(
    (list): Field => ({
      yaml: `lab.hosts.${list}`,
      path: ['lab', 'hosts', list],
      doc: `lab.provider ssh: the ${list.slice(0, -1)} hosts, a list of {address, user, key, port, jump} (port 22 unless given)`,
      parse: hostList,
    }),
  ),
  ...(['server', 'client'] as const).flatMap((role): Field[] => {
    const at = (k: keyof typeof HOST_KEYS) => ({
      yaml: `lab.hosts.${role}.${k}`,
      path: ['lab', 'hosts', role, k],
      parse: HOST_KEYS[k],
    });
    const doc = (what: string) =>
      `lab.provider ssh: ${what} of the one ${role} host (older form of lab.hosts.${role}s)`;
    return [
      { ...at('address'), doc: doc('address') },
      { ...at('user'), doc: doc('SSH user (root or passwordless sudo)') },
      { ...at('key'), doc: doc('private key file') },
      { ...at('port'), doc: doc('SSH port') },
      { ...at('jump'), doc: doc('jump host [user@]host[:port] (same key)') },
    ];
  }),
  {
    yaml: 'lab.hard_reset_command',
    parse: argvList,
    doc: 'lab.provider ssh: power reset of a host, an argv list ({role}, {address} replaced); hard reboots need it',
  },
  {
    yaml: 'lab.hosts_netns',
    flag: 'hosts-netns',
    parse: netnsName,
    doc:
      'lab.provider ssh: reach the hosts from inside this existing network namespace (e.g. VMs of a libvirtd ' +
      'that runs in one); "" = where the CLI runs',
  },
  {
    yaml: 'lab.box',
    flag: 'box',
    env: 'HARNESS_BOX',
    doc: 'Vagrant box (built offline by `reboot-harness setup`, or any public box)',
    parse: boxName,
  },
  { yaml: 'lab.cpus', flag: 'cpus', doc: 'vCPUs per VM', parse: int(1, 16) },
  {
    yaml: 'lab.memory_mb',
    flag: 'memory',
    doc: 'memory per VM in MiB',
    parse: int(512, 65536, ' MiB'),
  },
  {
    yaml: 'lab.libvirt_driver',
    flag: 'libvirt-driver',
    env: 'HARNESS_LIBVIRT_DRIVER',
    doc: 'libvirt domain type: auto (KVM when a probe boots the box kernel under it, else emulation), qemu or kvm',
    parse: oneOf(['auto', 'qemu', 'kvm'] as const),
  },
  {
    yaml: 'lab.tb_cache_mb',
    flag: 'tb-cache',
    doc: 'QEMU translation-cache cap per VM under software emulation (0 = QEMU default)',
    parse: int(0, 4096, ' MiB'),
  },
  {
    yaml: 'lab.cpu_model',
    flag: 'cpu-model',
    doc: 'guest CPU model under software emulation',
    parse: cpuModel,
  },
  {
    yaml: 'lab.netns',
    flag: 'netns',
    env: 'HARNESS_NETNS',
    doc: 'run libvirtd and the lab inside this network namespace ("" = host network)',
    parse: netnsName,
  },
  {
    yaml: 'lab.private_subnet',
    flag: 'private-subnet',
    doc: 'private server<->client network (/24)',
    parse: subnet24('10.199.0.0/24'),
  },
  {
    yaml: 'lab.management_subnet',
    flag: 'management-subnet',
    doc: 'vagrant-libvirt management network used for SSH (/24)',
    parse: subnet24('10.198.0.0/24'),
  },
  {
    yaml: 'lab.boot_timeout_s',
    flag: 'boot-timeout',
    doc: 'seconds Vagrant waits for a VM to boot',
    parse: int(30, 3600, ' s'),
  },
  {
    yaml: 'lab.work_dir',
    flag: 'work-dir',
    env: 'HARNESS_WORK_DIR',
    doc: "where each run's Vagrant directory is made",
    parse: str('give a directory path'),
  },
  {
    yaml: 'lab.warm',
    env: 'HARNESS_WARM',
    parse: bool,
    doc: 'libvirt: start from a snapshot of the prepared lab (VMs up, Nomad ready) of the same key; false or --fresh: cold',
  },
  {
    yaml: 'lab.warm_snapshot',
    flag: 'warm-snapshot',
    env: 'HARNESS_WARM_SNAPSHOT',
    doc: "what a warm lab's snapshot holds: after-nomad (VMs up, Nomad installed and ready: the build is part of its key) or before-nomad (VMs up, no Nomad ever run: one lab for every build, each installed after the revert; what bisect uses)",
    parse: oneOf(['after-nomad', 'before-nomad'] as const),
  },
  {
    yaml: 'task.driver',
    flag: 'driver',
    env: 'HARNESS_DRIVER',
    doc: "bridge-exec-reboot's task driver: exec, or docker (GH-24292; needs the Docker box: `npm run harness -- setup --docker`)",
    parse: oneOf(TASK_DRIVERS),
  },
  {
    yaml: 'job.file',
    flag: 'job',
    env: 'HARNESS_JOB',
    path: ['job', 'files'],
    multiple: true,
    doc: "your own job (HCL) for bridge-exec-reboot, rolling-reboot and server-reboot, repeatable (several jobs run and are judged together on the cluster scenarios): a service job with a bridge-mode group, any count and groups (default: the scenario's shipped job; `list` says what each takes)",
    parse: strList('give the path of a .nomad.hcl file, e.g. examples/jobs/count-3.nomad.hcl'),
  },
  {
    yaml: 'job.files',
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
  {
    yaml: 'repeat',
    flag: 'repeat',
    env: 'HARNESS_REPEAT',
    doc: "run each scenario N times (each attempt from the warm lab's snapshot, or on fresh VMs with --fresh) and report every attempt and the flake rate (a failure that repeats the same way is a verdict)",
    parse: int(1, 100),
  },
  {
    yaml: 'keep',
    flag: 'keep',
    env: 'HARNESS_KEEP',
    doc: 'keep the VMs after the run and print how to reach them (reboot-harness login) and destroy them; `on-failure`: only when the run did not meet its expectations',
    parse: keepMode,
  },
  {
    yaml: 'reports.dir',
    flag: 'reports-dir',
    doc: 'where reports/<run-id>/ artifacts go',
    parse: str('give a directory path'),
  },
  {
    yaml: 'reports.junit',
    flag: 'junit',
    doc: 'JUnit XML output path (default <reports-dir>/<run-id>/junit.xml)',
    parse: str('give a file path, e.g. reports/junit.xml'),
  },
  {
    yaml: 'reports.json',
    flag: 'report-json',
    doc: 'JSON summary output path (default <reports-dir>/<run-id>/summary.json)',
    parse: str('give a file path'),
  },
  {
    yaml: 'reports.attachment_paths',
    flag: 'attachment-paths',
    doc: "JUnit [[ATTACHMENT|...]] paths: `relative` to the JUnit file's folder, from the `project` directory ($CI_PROJECT_DIR, else the working directory: what GitLab resolves them from) or `absolute` (Jenkins); `auto`: project under GitLab CI, else relative",
    parse: oneOf(['auto', 'relative', 'project', 'absolute'] as const),
  },
  {
    yaml: 'reports.artifacts',
    flag: 'artifacts',
    doc: 'when to collect artifacts',
    parse: oneOf(['on-failure', 'always', 'never'] as const),
  },
  {
    yaml: 'timeout',
    flag: 'timeout',
    env: 'HARNESS_TIMEOUT',
    path: ['timeoutS'],
    doc: 'whole-run budget (Go duration or seconds)',
    parse: timeoutSeconds(10, 6 * 3600),
  },
  {
    yaml: 'known_issues',
    flag: 'known-issues',
    env: 'HARNESS_KNOWN_ISSUES',
    doc: 'the public Nomad issue a failed check reproduces (docs/known-issues.md): `label` it (exit codes unchanged), `expect` it (a known failure is an expected failure: exit 0 when only known issues reproduced) or `off`; a known issue not reproduced, or a fix regressed, is reported under each',
    parse: oneOf(KNOWN_ISSUE_POLICIES),
  },
  {
    yaml: 'known_issues_file',
    flag: 'known-issues-file',
    env: 'HARNESS_KNOWN_ISSUES_FILE',
    doc: 'your own known-issue rows (YAML or JSON, docs/known-issues.md), added to the shipped table; a row with a shipped id replaces it',
    parse: str('give the path of a known-issue table, e.g. ./known-issues.yaml'),
  },
  {
    yaml: 'output.json',
    flag: 'json',
    doc: 'print JSON on stdout instead of text (run, compare, matrix: the JSON summary; list, doctor, build and matrix --list-cells: their own document)',
    parse: bool,
  },
  {
    yaml: 'output.verbose',
    flag: 'verbose',
    doc: "also print every local command, every SSH command with its output, every Nomad API request and Vagrant's own output",
    parse: bool,
  },
  {
    yaml: 'output.quiet',
    flag: 'quiet',
    doc: 'print only the verdict line and the checks that did not meet their expectation',
    parse: bool,
  },
];

/** All keys. docs/config.md's table is written from this list (npm run docs). */
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

export const FIELDS: Field[] = ROWS.map((r) => ({ ...r, path: r.path ?? configPathOf(r.yaml) }));
