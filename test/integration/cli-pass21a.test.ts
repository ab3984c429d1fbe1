// The CLI's twenty-first adversarial pass, part A (docs/cli-defects.md, rows Q207 on): run, matrix, compare, bisect,
// build and list as a new and an adversarial user. Each line runs main() in this process (test/helpers/cli-no-lab.ts:
// the real CLI's checks, the user scenarios under tsx, no lab).
import t from 'tap';
import '../helpers/ts-loader.js';
import { join } from 'node:path';
import { noLabLines } from '../helpers/cli-no-lab.js';
import { realSteps } from '../../lib/cli/bisect-steps.js';
import type { CommandDeps, ParsedArgs } from '../../lib/cli/command.js';
import { lablessScenarioSource } from '../helpers/labless-scenario.js';

t.setTimeout(6 * 60_000); // a deadline, not a speed goal: beside the other tiers on 2 cores

/** The CLI's main() in `dir` (its working directory too), a line at a time; labless scenarios run, no lab is made. */
const cliAt = (dir: string) => noLabLines(dir, undefined, { labless: true, realChecks: true, chdir: true });

/**
 * A labless scenario whose check passes on its first run in the folder and fails on every later one (its marker
 * `late.marker` in the run's working directory).
 */
const PASS_THEN_FAIL = `import { existsSync, writeFileSync } from 'node:fs';
import { defineScenario, defineCheck, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck({ id: 'c', title: 'c', passesWhen: 'always',
  judge: (e: { first: boolean }) => (e.first ? { status: 'passed', message: 'first' } : { status: 'failed', message: 'later' }) })];
export default defineScenario({ name: 'late', summary: 'no lab', needsNomad: false, roles: ['client'], checks: CHECKS,
  async run() { const first = !existsSync('late.marker'); writeFileSync('late.marker', 'x'); return judgeAll(CHECKS, { first }); } });
`;

t.test('bisect --repeat N: a try is judged by every repeat, not by the first alone (Q207)', async (t) => {
  const dir = t.testdir({ usc: { 'package.json': '{ "type": "module" }\n', 'late.ts': PASS_THEN_FAIL } });
  const cli = cliAt(dir);
  // a try as bisect runs it (lib/cli/bisect-steps.ts): a `run` with the bisect's run flags into runs/<label>, here the
  // real CLI's run of a labless scenario (a bisect's own run needs a lab), then the check's verdict read back
  const steps = realSteps({
    deps: {} as CommandDeps,
    dir: join(dir, 'bisect'),
    check: 'c',
    scenario: 'late',
    runValues: { repeat: '3' },
    runCommand: async (args: ParsedArgs) =>
      (
        await cli(
          'run',
          'late',
          '--scenarios',
          'usc',
          '--netns',
          '',
          '--repeat',
          '3',
          '--reports-dir',
          String(args.values['reports-dir']),
        )
      ).status,
  } as unknown as Parameters<typeof realSteps>[0]);
  const tried = await steps.run(
    'c0ffee',
    { ok: true, ms: 0, path: '/nonexistent' },
    'c0ffee-try1',
    new AbortController().signal,
  );
  t.equal(tried.exitCode, 1, 'the run: repeat 1 passed, 2 and 3 failed');
  t.equal(tried.verdict, 'failed', 'not "passed" from the first repeat alone: a failure once is on the failing side');
  t.equal(tried.message, 'later');
});

const scenario = lablessScenarioSource;
const USC = {
  'package.json': '{ "type": "module" }\n',
  'ok.ts': scenario('ok', 'passed'),
  'bad.ts': scenario('bad', 'failed'),
};

t.test("a user scenario's fault schedule is read under --plan: a missing or broken file is told (Q208)", async (t) => {
  const dir = t.testdir({
    usc: USC,
    'bad.yaml': 'seed: -1\nfaults:\n  - { fault: nosuch }\n  - { fault: hard, wait: 99999999h }\n',
    'good.yaml': 'faults:\n  - { fault: graceful, wait: 5s }\n',
    'm.yaml':
      'scenario: [ok, bad]\naxes:\n  clients: [1]\ndefaults:\n  scenarios_dir: usc\n  reboot:\n    faults: nope.yaml\n',
  });
  const cli = cliAt(dir);
  const missing = await cli('run', 'ok', '--scenarios', 'usc', '--faults', 'nope.yaml', '--plan', '--netns', '');
  t.equal(missing.status, 2, 'not a plan (exit 0) of a schedule that is not there');
  t.match(missing.stderr, /--faults \(reboot\.faults\): cannot be read: ENOENT/);
  const broken = await cli(
    'run',
    'ok',
    '--scenarios',
    'usc',
    '--faults',
    'bad.yaml',
    '--plan',
    '--netns',
    '',
    '--cpus',
    '0',
  );
  t.equal(broken.status, 2);
  t.match(broken.stderr, /\(4 problems\)/, "the schedule's three and --cpus at once");
  t.match(broken.stderr, /bad\.yaml: faults\[0\]\.fault: is not a fault kind/);
  t.match(broken.stderr, /bad\.yaml: faults\[1\]\.wait: must be a duration/);
  const matrix = await cli('matrix', 'm.yaml', '--plan', '--netns', '');
  t.equal(matrix.status, 2, "a matrix of user scenarios whose defaults' schedule is missing");
  t.equal(matrix.stderr.match(/cannot be read: ENOENT/g)?.length, 1, 'told once for its two cells');
  t.equal((await cli('run', 'ok', '--scenarios', 'usc', '--faults', 'good.yaml', '--plan', '--netns', '')).status, 0);
});

t.test('the reports folder and the lab work dir as one folder are refused (Q209)', async (t) => {
  const dir = t.testdir({
    usc: USC,
    'm.yaml': 'scenario: [ok]\naxes:\n  reboot: [graceful]\ndefaults:\n  scenarios_dir: usc\n',
  });
  const cli = cliAt(dir);
  // a run's lab folder <work-dir>/<run id> was its reports folder <reports-dir>/<run id>: the lab's teardown, or the
  // `destroy <run id>` the run printed for a kept lab, removed the run's junit.xml, summary.json and report.html
  const run = await cli(
    'run',
    'cni-ipam-reboot',
    '--fresh',
    '--plan',
    '--netns',
    '',
    '--reports-dir',
    'W',
    '--work-dir',
    './W/',
  );
  t.equal(run.status, 2, 'not a plan (exit 0) whose run loses its reports');
  t.match(run.stderr, /--reports-dir \/ --work-dir: name the same folder: a run's lab folder/);
  const env = await cli(
    'run',
    'cni-ipam-reboot',
    '--plan',
    '--netns',
    '',
    '--reports-dir',
    join(dir, 'work'),
    '--cpus',
    '0',
  );
  t.equal(env.status, 2);
  t.match(env.stderr, /--reports-dir \/ env HARNESS_WORK_DIR: name the same folder/, 'the environment named');
  t.match(env.stderr, /--cpus/, 'with the other problems');
  const matrix = await cli('matrix', 'm.yaml', '--plan', '--netns', '', '--reports-dir', 'R', '--work-dir', 'R');
  t.equal(matrix.status, 2, "a matrix's cells too");
  const apart = await cli(
    'run',
    'cni-ipam-reboot',
    '--plan',
    '--netns',
    '',
    '--reports-dir',
    'R',
    '--work-dir',
    'R/labs',
  );
  t.equal(apart.status, 0, 'a work dir inside the reports folder is no clash (labs in R/labs/<id>, reports in R/<id>)');
});

t.test(
  "a matrix's axes.nomad over a scenario that installs no Nomad is refused, as --nomad is on its run (Q210)",
  async (t) => {
    const dir = t.testdir({
      usc: USC,
      'm.yaml':
        'scenario: [cni-ipam-reboot, bridge-exec-reboot]\naxes:\n  nomad:\n    - { name: a, binary: ./a }\n    - { name: b, binary: ./b }\n',
      'u.yaml': 'scenario: [ok]\naxes:\n  nomad:\n    - { name: a, binary: ./a }\ndefaults:\n  scenarios_dir: usc\n',
      a: '',
      b: '',
    });
    const cli = cliAt(dir);
    const run = await cli('run', 'cni-ipam-reboot', '--nomad', './a', '--plan', '--netns', '');
    t.match(run.stderr, /--nomad: is not used by cni-ipam-reboot/, 'the rule on a run');
    const matrix = await cli('matrix', 'm.yaml', '--list-cells', '--netns', '');
    // --list-cells refuses what every shard would (Q293): the same words as --plan
    t.equal(matrix.status, 2, '--list-cells refuses the file every shard refuses');
    t.match(matrix.stderr, /axes\.nomad: names each cell's Nomad build/);
    const plan = await cli('matrix', 'm.yaml', '--plan', '--netns', '');
    t.equal(plan.status, 2, 'exit 2 (the empty builds are told too)');
    t.match(
      plan.stderr,
      /m\.yaml: axes\.nomad: names each cell's Nomad build, and 2 cells cni-ipam-reboot\/nomad=a, cni-ipam-reboot\/nomad=b install none/,
      'not cells that install nothing and pass under the name of a build',
    );
    // a user scenario may read any key: its cells are left as they were (the builds are empty files: told as such)
    t.notMatch((await cli('matrix', 'u.yaml', '--plan', '--netns', '')).stderr, /axes\.nomad: names each cell/);
  },
);
