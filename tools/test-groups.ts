// Which test files share a test process when the tiers run compiled (tools/build-tests.ts writes the group files):
// the names, how many groups, and what a shared integration file must not do, as data a unit test checks the files
// against.

/**
 * How many processes the unit files share (all of them, placed by UNIT_SECONDS). Four, round robin by name, until
 * session 9: the one with known-issues-mirror (30 s of git on the Nomad clone, mostly waiting) ended 26 s after the
 * next; three cost about 2 s of CPU less (a process pays about 1.3 s before its first assertion) and end together.
 */
export const UNIT_GROUPS = 3;

/**
 * The unit files that took a second or more inside their group (their top-level tests' times, summed, in one run of
 * the four groups at load 8-13, 2026-12-07 07:13); every other file counts 0.2 s (the 124 of them took 22 s).
 */
export const UNIT_SECONDS: Readonly<Record<string, number>> = {
  'bare-children': 4.3,
  'checks-job-types': 1.8,
  'cli-command-input': 1.8,
  'cli-command-registry': 1.0,
  'cli-input': 6.1,
  'cli-main': 5.2,
  'cli-review-rest': 1.5,
  'cluster-binary': 5.0,
  'cluster-provision': 1.1,
  'cni-plugins': 1.6,
  'docker-image': 4.4,
  'doctor-render': 1.3,
  'e2e-last-run': 4.8,
  'exec-run': 1.3,
  'fault-schedule': 1.2,
  'fixtures-no-tokens': 1.7,
  'known-issues-ancestry': 2.1,
  'known-issues-mirror': 30.2,
  'report-html': 1.7,
  'run-runner': 2.0,
  'ssh-provider': 3.3,
  'test-groups': 6.7,
  'vagrant-lock': 1.8,
};

/**
 * Integration files that share a test process, with the seconds each took inside its group (its top-level tests' times,
 * summed, in one run of the tiers at load 5-19, 2026-12-07 17:29, round 4 session 12, second step, the tests' Go build
 * cache warm: test/helpers/go-cache.ts). A group's first member also waits out the start of every test process at once
 * (its first tests took 2-17 times their share: `cli-pass4` 28 s against 1.6), so the first member of each of that
 * run's seven groups keeps its figure of the run before (16:33, load 7-27) times 0.78, the ratio of the others' two
 * figures. `cli-pass22a`, `cli-pass23a`, `exec-group` and `input-slots` joined then (each ran alone for 7-21 s under
 * that load, its seconds here that wall less its process's start). Placed by the seconds of session 12's first step, the groups' sums in that run were 107-143 s. Each loads
 * main() and the stand-ins (a process of one paid about 1.2 s of
 * CPU under tap's import hooks before its first assertion, against 0.45 s for a file that imports only tap), runs in
 * seconds, and keeps to itself (SHARED_FILE_MUST_NOT). Their tests run one after another in the group, so a file that
 * mostly waits (a long timer, a real sshd) stays alone, where tap runs it beside the others; the seconds place the
 * files (integrationGroups). Names without `.test.ts`.
 */
export const SHARED_INTEGRATION_SECONDS: Readonly<Record<string, number>> = {
  'build-cli': 6.2,
  'build-interrupt': 25.9,
  'build-log-secrets': 4.9,
  'builds-preflight': 5.5,
  'builds-release': 16.3,
  'ci-fetch-nomad': 15.1,
  'ci-templates': 5.5,
  'cli-compare-input': 12.2,
  'cli-defects': 10.3,
  'cli-pass10': 6.0,
  'cli-pass11': 7.2,
  'cli-pass12': 12.7,
  'cli-pass13': 4.2,
  'cli-pass15': 39.2,
  'cli-pass16': 2.1,
  'cli-pass22a': 11.0,
  'cli-pass23a': 5.5,
  'cli-pass4': 1.2,
  'cli-pass5': 3.2,
  'cli-pass6': 36.1,
  'cli-pass7': 16.9,
  'cli-pass8': 15.6,
  'cli-pass9': 4.0,
  'cli-plan': 2.3,
  'cli-quiet': 4.5,
  'cli-review-rest': 4.1,
  'cli-session-command': 5.8,
  'cni-host-local': 5.0,
  'compare-cli': 21.3,
  completion: 14.6,
  'deployment-wait': 8.4,
  'evidence-stand-in': 8.3,
  'exec-group': 11.0,
  'extension-diffstat': 26.9,
  'fake-nomad-order': 0.5,
  'fake-nomad-vs-real-cluster': 20.4,
  'fake-nomad-vs-real-volumes': 2.2,
  'host-vagrantfile': 22.2,
  'input-slots': 20.0,
  'lab-destroy': 1.1,
  'lab-faults-run': 28.2,
  'matrix-cli': 19.8,
  'matrix-list-cells': 1.0,
  'merge-cli': 45.4,
  'merge-copy': 7.9,
  'nomad-client': 3.7,
  'nomad-drain': 4.2,
  'nomad-event-stream': 2.0,
  'nomad-timelines': 5.8,
  'nomad-wait': 6.6,
  'probe-machine': 4.6,
  'report-html-chromium': 23.0,
  'run-repeat': 10.4,
  'scenario-allocs': 28.2,
  'scenario-event-stream': 4.1,
  'scenario-faults': 20.1,
  'scenario-whole-alloc': 21.1,
  'secrets-nowhere': 0.8,
  sentinels: 22.7,
  'server-reboot': 16.1,
  'settle-wait': 7.9,
  'ssh-iptables': 0.0,
  'step-names': 8.3,
  'upgrade-in-place': 11.4,
  'vagrant-cli': 23.7,
  'vms-scripts': 48.8,
  'warm-lab': 6.4,
  'whole-alloc-reads': 2.9,
};

/** The shared integration files by name. */
export const SHARED_INTEGRATION: readonly string[] = Object.keys(SHARED_INTEGRATION_SECONDS).sort();

/**
 * How many processes the shared integration files run in. A group's files run one after another and mostly wait on
 * the stand-ins' timelines, so a group's wall is the sum of its files' (about 80-100 s each of four under a VM lab's
 * load, as long as the rest of the tier): more groups shorten that chain for about 1.6 s of CPU per extra process
 * (six from session 8; seven since 64 files share them; nine since session 12's second step, when the seven's sums were
 * 107-143 s at load 5-19 against about 100 s for nine).
 */
export const INTEGRATION_GROUPS = 9;

/**
 * The shared files in INTEGRATION_GROUPS groups of about equal seconds (SHARED_INTEGRATION_SECONDS; a file not listed
 * there counts 5 s): the longest file first, each into the group with the fewest seconds so far (the first of them on
 * a tie); each group's files in name order. Round robin by name, as before, left one group with 92 s of the six's
 * 358 s (the others 44-62 s): the last to end.
 */
export function integrationGroups(
  names: readonly string[] = SHARED_INTEGRATION,
  groups = INTEGRATION_GROUPS,
  seconds: Readonly<Record<string, number>> = SHARED_INTEGRATION_SECONDS,
): string[][] {
  return balanced(names, groups, (n) => seconds[n] ?? 5);
}

/** The unit files (names without `.test.ts`) in UNIT_GROUPS groups of about equal seconds, as integrationGroups. */
export function unitGroups(names: readonly string[]): string[][] {
  return balanced(names, UNIT_GROUPS, (n) => UNIT_SECONDS[n] ?? 0.2);
}

/** `names` in `groups` groups: the costliest first, each into the group with the least so far; names sorted in each. */
function balanced(names: readonly string[], groups: number, cost: (n: string) => number): string[][] {
  const out = Array.from({ length: groups }, () => ({ s: 0, names: [] as string[] }));
  for (const n of [...names].sort((a, b) => cost(b) - cost(a) || a.localeCompare(b))) {
    const g = out.reduce((best, x) => (x.s < best.s ? x : best));
    g.s += cost(n);
    g.names.push(n);
  }
  return out.map((g) => g.names.sort());
}

/**
 * A group's own timeout: its files run one after another, each of which alone has tap's 60 s. Unit groups too: the
 * whole unit tier takes 15 s on an idle machine, but one group of 36 files took 80 s at load 13-16 (38 s of it
 * known-issues-mirror's git work on the Nomad clone) and tap timed it out at 60 s; the longest integration group took
 * about 4 minutes at load 25.
 */
export const GROUP_TIMEOUT_MS = 8 * 60_000;

/**
 * The module a group imports first (tools/build-tests.ts writes it as `group-timeout.js`): it sets the group's timeout
 * on the root test, and a member's own `t.setTimeout` on the root (what the file asks for when it runs alone) can
 * only lengthen it from then on: a shorter one would cut the files after it, which the group's timeout counts.
 */
export function groupTimeoutSource(ms = GROUP_TIMEOUT_MS): string {
  return [
    '// generated by tools/build-tests.ts',
    "import t from 'tap';",
    `t.setTimeout(${ms});`,
    'const groupTimeout = t.setTimeout.bind(t);',
    `t.setTimeout = (n) => (n > ${ms} ? groupTimeout(n) : undefined);`,
    '',
  ].join('\n');
}

/**
 * What would reach past a shared file into the others of its group: the root test is theirs too (its plan, hooks and
 * jobs; its timeout can only grow: groupTimeoutSource), so is the process (its environment, working directory and
 * signal handlers); a real sshd or a top-level await holds the whole group while it waits.
 */
export const SHARED_FILE_MUST_NOT: readonly { what: string; pattern: RegExp }[] = [
  {
    what: 'set a plan, hook or jobs on the root test',
    pattern: /^t\.(plan|before|beforeEach|after|afterEach|jobs)\b/m,
  },
  { what: 'start a real sshd', pattern: /helpers\/sshd\.js/ },
  { what: 'await at the top level', pattern: /^(?:(?:const|let|var) [^=\n]+ = )?await /m },
  { what: 'change process.env', pattern: /process\.env(?:\.\w+|\[[^\]]+\])\s*=(?!=)|delete process\.env/ },
  {
    what: "change the process's working directory or signal handlers",
    // `chdir: true`: test/helpers/cli-no-lab.ts's noLabLines moves the process into each line's folder
    pattern: /process\.(chdir|on|once|addListener)\(|\bchdir: true\b/,
  },
];
