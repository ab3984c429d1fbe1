// Which test files share a test process when the tiers run compiled (tools/build-tests.ts writes the group files):
// the names, how many groups, and what a shared integration file must not do, as data a unit test checks the files
// against.

/** How many processes the unit files share (all of them, round robin by name). */
export const UNIT_GROUPS = 4;

/**
 * Integration files that share a test process, in INTEGRATION_GROUPS groups. Each loads main() and the stand-ins (a
 * process of one paid about 1.2 s of CPU under tap's import hooks before its first assertion, against 0.45 s for a
 * file that imports only tap), runs in seconds, and keeps to itself (SHARED_FILE_MUST_NOT). Their tests run one after
 * another in the group, so a file that mostly waits (a long timer, a real sshd) stays alone, where tap runs it beside
 * the others. Names without `.test.ts`.
 */
export const SHARED_INTEGRATION = [
  'build-cli',
  'build-interrupt',
  'build-log-secrets',
  'builds-preflight',
  'builds-release',
  'ci-fetch-nomad',
  'ci-templates',
  'cli-compare-input',
  'cli-defects',
  'cli-pass4',
  'cli-pass5',
  'cli-pass7',
  'cli-plan',
  'cli-quiet',
  'cli-review-rest',
  'cli-session-command',
  'cni-host-local',
  'compare-cli',
  'completion',
  'deployment-wait',
  'evidence-stand-in',
  'fake-nomad-order',
  'fake-nomad-vs-real-volumes',
  'host-vagrantfile',
  'lab-destroy',
  'lab-faults-run',
  'matrix-cli',
  'matrix-list-cells',
  'merge-copy',
  'nomad-client',
  'nomad-drain',
  'nomad-event-stream',
  'nomad-timelines',
  'nomad-wait',
  'probe-machine',
  'run-repeat',
  'scenario-allocs',
  'scenario-event-stream',
  'scenario-faults',
  'scenario-whole-alloc',
  'secrets-nowhere',
  'sentinels',
  'server-reboot',
  'settle-wait',
  'ssh-iptables',
  'step-names',
  'upgrade-in-place',
  'vagrant-cli',
  'warm-lab',
  'whole-alloc-reads',
];

/**
 * How many processes the shared integration files run in. A group's files run one after another and mostly wait on
 * the stand-ins' timelines, so a group's wall is the sum of its files' (about 80-100 s each of four under a VM lab's
 * load, as long as the rest of the tier): six shorten that chain for about 1.6 s of CPU per extra process.
 */
export const INTEGRATION_GROUPS = 6;

/**
 * What would reach past a shared file into the others of its group: the root test is theirs too (its timeout, plan
 * and hooks), so is the process (its environment, working directory and signal handlers); a real sshd or a top-level
 * await holds the whole group while it waits.
 */
export const SHARED_FILE_MUST_NOT: readonly { what: string; pattern: RegExp }[] = [
  {
    what: 'set a timeout, plan or hook on the root test',
    pattern: /^t\.(setTimeout|plan|before|beforeEach|after|afterEach|jobs)\b/m,
  },
  { what: 'start a real sshd', pattern: /helpers\/sshd\.js/ },
  { what: 'await at the top level', pattern: /^(?:(?:const|let|var) [^=\n]+ = )?await /m },
  { what: 'change process.env', pattern: /process\.env(?:\.\w+|\[[^\]]+\])\s*=(?!=)|delete process\.env/ },
  {
    what: "change the process's working directory or signal handlers",
    pattern: /process\.(chdir|on|once|addListener)\(/,
  },
];
