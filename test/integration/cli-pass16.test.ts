// The CLI's sixteenth adversarial pass (docs/cli-defects.md, rows Q168 on), through the real CLI: report paths that
// name one place through a symlink (run's --junit and --report-json, merge's --out and its input), a matrix build's
// expectations that contradict themselves or override --expect, and a UTF-16 job file beside a bad build. Each line
// runs main() in this process (test/helpers/cli-no-lab.ts: the real CLI's checks, the user scenario under tsx, no
// lab); the process's working directory is not moved (the file shares a group process), so the paths the CLI takes
// from it (a run's --reports-dir, a schedule named in a matrix file) are given whole.
import t from 'tap';
import '../helpers/ts-loader.js';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLANNED_RUN } from '../helpers/cli-in.js';
import { noLabLines } from '../helpers/cli-no-lab.js';

t.setTimeout(3 * 60_000);

/** The CLI's main() in `dir`, a line at a time; labless scenarios run, no lab is made. */
const cliIn = (dir: string) => noLabLines(dir, undefined, { labless: true, realChecks: true });

const SCENARIO = `import { defineScenario, defineCheck, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck({ id: 'c', title: 'c', passesWhen: 'always', judge: () => ({ status: 'passed', message: 'ok' }) })];
export default defineScenario({ name: 'ok', summary: 'no lab', needsNomad: false, roles: ['client'], checks: CHECKS,
  async run() { return judgeAll(CHECKS, {}); } });
`;

t.test('run: --junit and --report-json naming one file through a symlinked folder are refused (Q168)', async (t) => {
  const dir = t.testdir({ o: {} });
  symlinkSync('o', join(dir, 'olink'));
  symlinkSync('.', join(dir, 'here'));
  const cli = cliIn(dir);
  const same = await cli(...PLANNED_RUN, '--junit', 'o/y.xml', '--report-json', 'olink/y.xml');
  t.equal(same.status, 2);
  t.match(same.stderr, /--junit \/ --report-json: name the same file: one report would overwrite the other/);
  const dirFile = await cli(...PLANNED_RUN, '--junit', 'r/j.xml', '--reports-dir', 'here/r/j.xml');
  t.equal(dirFile.status, 2);
  t.match(dirFile.stderr, /--junit \/ --reports-dir: name the same path, as a file and as a directory/);
  const apart = await cli(...PLANNED_RUN, '--junit', 'o/j.xml', '--report-json', 'olink/s.json');
  t.notMatch(apart.stderr, /name the same/, 'two files in one folder reached two ways are no collision');
});

t.test('merge: --out a symlink to an input folder is refused, the run left as it was (Q169)', async (t) => {
  const dir = t.testdir({ usc: { 'package.json': '{ "type": "module" }\n', 'ok.ts': SCENARIO } });
  const cli = cliIn(dir);
  const run = await cli('run', 'ok', '--scenarios', 'usc', '--reports-dir', join(dir, 'shard'), '--netns', '');
  t.equal(run.status, 0, run.stderr);
  const runDir = join(dir, 'shard', readdirSync(join(dir, 'shard'))[0]!);
  symlinkSync(runDir, join(dir, 'outlink'));
  const before = readFileSync(join(runDir, 'summary.json'), 'utf8');
  const r = await cli('merge', runDir, '--out', 'outlink');
  t.equal(r.status, 2, r.stdout + r.stderr);
  t.match(r.stderr, /--out: is the input folder .*: the merged reports would land among the ones they merge/);
  t.equal(readFileSync(join(runDir, 'summary.json'), 'utf8'), before, "the run's summary.json is not overwritten");
  t.notOk(existsSync(join(runDir, 'index.html')), 'no merged page written into the run');
});

t.test(
  'matrix: a build whose expect says fail and pass for one target is refused, as --expect is (Q170)',
  async (t) => {
    const dir = t.testdir({
      'm.yaml':
        'scenario: rolling-reboot\naxes:\n  nomad:\n    - { name: a, binary: ./nope, expect: [fail, pass] }\n' +
        '    - { name: b, binary: ./nope, expect: [no-agent-crash=fail, no-agent-crash=pass] }\n',
    });
    const r = await cliIn(dir)('matrix', 'm.yaml', '--plan', '--netns', '');
    t.equal(r.status, 2);
    t.match(r.stderr, /m\.yaml: axes\.nomad\[0\]\.expect: fail and pass for the scenario contradict each other/);
    t.match(
      r.stderr,
      /m\.yaml: axes\.nomad\[1\]\.expect: fail and pass for check no-agent-crash contradict each other/,
    );
  },
);

t.test("matrix: an --expect a build's own expect overrides is told, not ignored (Q171)", async (t) => {
  const dir = t.testdir({
    'm.yaml':
      'scenario: rolling-reboot\naxes:\n  nomad:\n    - { name: a, binary: ./nope, expect: [no-agent-crash=fail] }\n',
  });
  const cli = cliIn(dir);
  const r = await cli('matrix', 'm.yaml', '--plan', '--netns', '', '--expect', 'no-agent-crash=pass');
  t.equal(r.status, 2);
  t.match(
    r.stderr,
    /--expect: is overridden by m\.yaml: axes\.nomad\[0\]\.expect .* so the flag would be ignored there/,
  );
  const listed = await cli('matrix', 'm.yaml', '--list-cells', '--expect', 'no-agent-crash=pass');
  t.equal(listed.status, 2, '--list-cells checks the file as --plan does');
  const agrees = await cli(
    'matrix',
    'm.yaml',
    '--plan',
    '--netns',
    '',
    '--expect',
    'no-agent-crash=fail',
    '--expect',
    'fail',
  );
  t.notMatch(agrees.stderr, /is overridden/, 'a flag the file agrees with, or for another target, is no problem');
});

t.test('a UTF-16 job file is told beside a build that has a problem, not after it (Q172)', async (t) => {
  const dir = t.testdir({});
  writeFileSync(join(dir, 'j.hcl'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('job "x" {}\n', 'utf16le')]));
  writeFileSync(join(dir, 'l.hcl'), Buffer.from('job "x" { # caf\xe9\n}\n', 'latin1'));
  const cli = cliIn(dir);
  const r = await cli('run', 'rolling-reboot', '--nomad', './nope', '--job', 'j.hcl', '--plan', '--netns', '');
  t.equal(r.status, 2);
  t.match(r.stderr, /job\.file \(--job\): is UTF-16 text, not UTF-8/);
  t.match(r.stderr, /--nomad: no file at/, 'with the build, in one exit 2');
  const latin = await cli('run', 'rolling-reboot', '--nomad', './nope', '--job', 'l.hcl', '--plan', '--netns', '');
  t.notMatch(latin.stderr, /is not UTF-8 text/, 'a Latin-1 byte in a comment, which Nomad takes, is left to Nomad');
});

t.test(
  "a matrix file's own problem is told with its cells' fault-schedule problems, in one exit 2 (Q173)",
  async (t) => {
    const dir = t.testdir({
      'nomad-2.0.5': 'a build on disk',
      'fb2.yaml':
        'faults:\n  - { fault: graceful, target: client-1 }\n  - { fault: graceful, target: client-9 }\n  - { fault: executor-kill, target: server-1 }\n',
      'm.yaml':
        'scenario: rolling-reboot\naxes:\n  nomad:\n    - { name: a, binary: ./nomad-2.0.5 }\nparallel: 99\ndefaults:\n  reboot: { faults: FB2 }\n',
      // the nomad entry's own problem and a bad count: the other count's cell still judged
      'm3.yaml':
        'scenario: rolling-reboot\naxes:\n  nomad:\n    - { name: a, binary: ./nomad-2.0.5, expect: [nosuch=fail] }\n  servers: [0, 3]\ndefaults:\n  reboot: { faults: FB2 }\n',
    });
    // (the schedule whole: it is read from the process's working directory, which main() in-process does not move)
    for (const f of ['m.yaml', 'm3.yaml'])
      writeFileSync(join(dir, f), readFileSync(join(dir, f), 'utf8').replace('FB2', join(dir, 'fb2.yaml')));
    const matrix = (file: string) => cliIn(dir)('matrix', file, '--plan', '--netns', '');
    const r = await matrix('m.yaml');
    t.equal(r.status, 2);
    t.match(r.stderr, /m\.yaml: parallel: must be a whole number from 1 to 16/, "the file's own problem");
    t.match(
      r.stderr,
      /cell rolling-reboot\/nomad=a: \S*fb2\.yaml: faults\[1\]\.target: names a machine this lab lacks/,
    );
    t.match(r.stderr, /fb2\.yaml: faults\[2\] .*executor-kill is aimed at client machines/);
    const r3 = await matrix('m3.yaml');
    t.equal(r3.status, 2);
    t.match(r3.stderr, /m3\.yaml: axes\.nomad\[0\]\.expect\[0\]: names no check/);
    t.match(r3.stderr, /m3\.yaml: axes\.servers\[0\]: is not a server count/);
    t.match(
      r3.stderr,
      /cell rolling-reboot\/nomad=a\/servers=3: \S*fb2\.yaml: faults\[1\]\.target: names a machine this lab lacks/,
    );
    t.notMatch(
      r3.stderr,
      /installs Nomad and has no build/,
      'an entry with a problem is not told as missing its build',
    );
  },
);
