// The CLI's seventeenth adversarial pass (docs/cli-defects.md, rows Q178 on), through the real CLI: a FIFO among the
// builds of a matrix or a compare that fails to plan (it held the command past SIGTERM), a FIFO among the inputs told
// with every other problem (not alone), and a report named through `<symlink>/..`.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { cliIn, PLANNED_RUN } from '../helpers/cli-in.js';
import { noLabLines } from '../helpers/cli-no-lab.js';

t.setTimeout(3 * 60_000);

const mkfifo = (path: string) => execFileSync('mkfifo', [path]);
/**
 * main() in `dir` as cliIn's child there ran it (its work and cache dirs inside, CI=true), for the lines that name no
 * FIFO: a FIFO's read that never ends would hold the test's process, so those stay children killed after 30 s.
 */
const cliAt = (dir: string) =>
  noLabLines(
    dir,
    { HOME: dir, HARNESS_WORK_DIR: join(dir, 'work'), XDG_CACHE_HOME: join(dir, 'cache'), CI: 'true' },
    { labless: true, realChecks: true, chdir: true },
  );

t.test('a FIFO as a build of a matrix or a compare that fails to plan is told, not read (Q178)', async (t) => {
  const dir = t.testdir({
    'm.yaml': 'scenario: rolling-reboot\naxes:\n  nomad:\n    - { name: a, binary: ./pipe }\nparallel: 99\n',
  });
  mkfifo(join(dir, 'pipe'));
  const cli = cliIn(dir);
  const matrix = cli('matrix', 'm.yaml', '--plan', '--netns', '');
  t.equal(matrix.signal, null, 'matrix ends by itself');
  t.equal(matrix.status, 2);
  t.match(matrix.stderr, /m\.yaml: parallel: must be a whole number/);
  t.match(matrix.stderr, /m\.yaml: axes\.nomad\[0\]\.binary: is a named pipe \(FIFO\), not a file/);
  const compare = cli('compare', '--before', './pipe', '--after', './nope', '--cpus', '0', '--plan', '--netns', '');
  t.equal(compare.signal, null, 'compare ends by itself');
  t.equal(compare.status, 2);
  t.match(compare.stderr, /--before: is a named pipe \(FIFO\)/);
  t.match(compare.stderr, /--cpus: must be a whole number/);
});

t.test('a FIFO among the inputs is told with every other problem, not in a round of its own (Q179)', async (t) => {
  const dir = t.testdir({ 'h.yaml': 'lab:\n  cpus: 0\n' });
  for (const f of ['sched', 'job', 'issues']) mkfifo(join(dir, f));
  const cli = cliIn(dir);
  const res = cli(
    ...PLANNED_RUN,
    '-c',
    'h.yaml',
    '--faults',
    'sched',
    '--job',
    'job',
    '--known-issues-file',
    'issues',
    '--memory',
    '1',
  );
  t.equal(res.signal, null);
  t.equal(res.status, 2);
  t.match(res.stderr, /reboot\.faults \(--faults\): is a named pipe/);
  t.match(res.stderr, /lab\.cpus: must be a whole number/, "harness.yaml's problem beside the schedule's");
  t.match(res.stderr, /--memory: must be a whole number/, "the command line's too");
  t.match(res.stderr, /job\.file \(--job\): is a named pipe/);
  t.match(res.stderr, /known_issues_file.*: is a named pipe/);
  t.match(res.stderr, /--nomad: no file at/, "and the build's");
});

t.test('a report named through <symlink>/.. is compared where it is written (Q180)', async (t) => {
  const dir = t.testdir({ a: { b: {} } });
  symlinkSync('a/b', join(dir, 'deep'));
  mkdirSync(join(dir, 'c'));
  const cli = cliAt(dir);
  const run = (...paths: string[]) =>
    cli('run', 'rolling-reboot', '--nomad', './nope', '--plan', '--netns', '', ...paths);
  const same = await run('--junit', 'deep/../y.xml', '--report-json', 'a/y.xml');
  t.equal(same.status, 2);
  t.match(same.stderr, /--junit \/ --report-json: name the same file/, 'deep/.. is a, where the kernel writes it');
  const apart = await run('--junit', 'deep/../y.xml', '--report-json', 'y.xml');
  t.notMatch(apart.stderr, /name the same/, 'deep/../y.xml is not ./y.xml');
  const folder = await run('--junit', 'a/j.xml', '--reports-dir', 'deep/../j.xml');
  t.notMatch(folder.stderr, /name the same/, 'the reports dir is joined to by name: deep/../j.xml is ./j.xml');
});

t.test(
  'a .env given by mistake as a matrix file, a schedule or a known-issue file shows no secret of it (Q181)',
  async (t) => {
    const dir = t.testdir({
      '.env': 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI-K7MDENG\nDB_PASSWORD=hunter2-xyz\nREGION=eu-1\n',
    });
    const cli = cliAt(dir);
    for (const args of [
      ['matrix', '.env', '--plan', '--netns', ''],
      ['run', 'rolling-reboot', '--nomad', './nope', '--plan', '--netns', '', '--faults', '.env'],
      ['run', '--nomad', './nope', '--plan', '--netns', '', '--known-issues-file', '.env'],
    ]) {
      const res = await cli(...args);
      t.equal(res.status, 2, args.join(' '));
      t.notMatch(res.stderr, /wJalrXUtnFEMI|hunter2/, `${args.join(' ')}: no secret`);
      t.match(res.stderr, /AWS_SECRET_ACCESS_KEY=\[REDACTED\]/, 'the name is left, to say which file it is');
    }
  },
);

/** A real Nomad build for Nomad's own parse of a job: $NOMAD_BINARY, else the first one in the build cache. */
function realNomad(): string | undefined {
  if (process.env['NOMAD_BINARY'] && existsSync(process.env['NOMAD_BINARY'])) return process.env['NOMAD_BINARY'];
  const cache = join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'nomad-reboot-harness/builds');
  const found = existsSync(cache) ? readdirSync(cache).map((d) => join(cache, d, 'nomad')) : [];
  return found.find((f) => existsSync(f));
}

const NOMAD = realNomad();

t.test(
  "a matrix file with a problem of its own has its defaults' job parsed by its build in the same exit 2 (Q182)",
  { skip: NOMAD ? false : 'no Nomad build: set NOMAD_BINARY or build one (reboot-harness build 2.0.5)' },
  async (t) => {
    const dir = t.testdir({
      'bad.hcl': 'job "x" {\n  group "g" {\n    task "t" {\n      driver = "exec"\n',
      'm.yaml': `scenario: rolling-reboot\naxes:\n  nomad:\n    - { name: a, binary: ${NOMAD} }\nparallel: 99\ndefaults:\n  job: { file: bad.hcl }\n`,
    });
    const res = cliIn(dir)('matrix', 'm.yaml', '--plan', '--netns', '');
    t.equal(res.status, 2);
    t.match(res.stderr, /m\.yaml: parallel: must be a whole number/);
    t.match(res.stderr, /Nomad cannot parse it: .*bad\.hcl/, "the job's parse error with the file's problem");
  },
);
