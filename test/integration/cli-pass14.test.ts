// The CLI's fourteenth adversarial pass (docs/cli-defects.md, rows Q150 on), through the real CLI or main() with the
// stand-ins: a user scenario that turns a failed run's exit code to 0 after the command, a matrix file's own problems
// told with its builds, its fault schedule and its axes.reboot beside a schedule, a known-issue file that is not UTF-8.
// A user scenario's timer that sets the exit code is about the process: those runs are CLI children; the other lines
// run main() in this process (test/helpers/cli-no-lab.ts: the real CLI's checks, no lab).
import t from 'tap';
import '../helpers/ts-loader.js';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliTs } from '../helpers/cli-tsx.js';
import { noLabLines } from '../helpers/cli-no-lab.js';
import { writeScenarioWithBody } from '../helpers/labless-scenario.js';

t.setTimeout(3 * 60_000);

/** The CLI's main() in `dir` (its working directory too), a line at a time; no lab is made. */
const cliAt = (dir: string) => noLabLines(dir, undefined, { realChecks: true, chdir: true });

t.test(
  "a user scenario's timer that sets process.exitCode = 0 or calls process.exit(0) after the command does not turn a FAIL into exit 0 (Q150)",
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    writeScenarioWithBody(
      usc,
      'codezero',
      'setTimeout(() => { process.exitCode = 0; }, 300); return judgeAll(CHECKS, {});',
      'failed',
    );
    writeScenarioWithBody(
      usc,
      'exitzero',
      'setTimeout(() => process.exit(0), 300); return judgeAll(CHECKS, {});',
      'failed',
    );
    // at once: the timer fires while the harness still judges and writes the reports (under load the 300 ms one did)
    writeScenarioWithBody(
      usc,
      'exitnow',
      'setTimeout(() => process.exit(0), 0); setImmediate(() => process.exit()); return judgeAll(CHECKS, {});',
      'failed',
    );
    writeScenarioWithBody(
      usc,
      'onexit',
      "process.on('exit', () => { process.exitCode = 0; }); return judgeAll(CHECKS, {});",
      'failed',
    );
    // Note: the four processes side by side
    const names = ['codezero', 'exitzero', 'exitnow', 'onexit'];
    const env = { ...process.env, HARNESS_WORK_DIR: join(dir, 'work'), CI: 'true' };
    const argv = (name: string) => [
      'run',
      name,
      '--scenarios',
      usc,
      '--reports-dir',
      join(dir, 'reports'),
      '--netns',
      '',
    ];
    const runs = await Promise.all(names.map((name) => runCliTs(argv(name), { cwd: dir, env })));
    for (const [i, name] of names.entries()) {
      const r = runs[i]!;
      t.match(r.stdout, new RegExp(`FAIL ${name}`), `${name}: the verdict is FAIL`);
      t.equal(r.status, 1, `${name}: exit 1, the verdict's code (${r.stderr.slice(-300)})`);
    }
  },
);

t.test(
  "a matrix file's own problem is told with its builds, its fault schedule's problems and axes.reboot beside the schedule (Q151)",
  async (t) => {
    const dir = t.testdir({
      'nomad-2.0.5': 'a build on disk',
      'f.yaml': 'seed: abc\nfaults:\n  - { fault: graceful, target: client }\n',
      'ok.yaml': 'faults:\n  - { fault: graceful, target: any-client }\n',
      'm.yaml':
        'scenario: rolling-reboot\naxes:\n  nomad:\n    - { name: a, binary: ./nomad-2.0.5 }\n    - { name: b, binary: ./nope, upgrade_to: ./nope2 }\n  reboot: [graceful, hard]\ndefaults:\n  reboot: { faults: f.yaml }\nextra: 1\n',
      // the file plans, one cell's target does not: the axis is told with it
      'm2.yaml':
        'scenario: [rolling-reboot, server-reboot]\naxes:\n  nomad:\n    - { name: a, binary: ./nomad-2.0.5 }\n  reboot: [graceful, hard]\ndefaults:\n  reboot: { faults: ok.yaml }\n',
    });
    const matrix = (file: string) => cliAt(dir)('matrix', file, '--plan', '--netns', '');
    const r = await matrix('m.yaml');
    t.equal(r.status, 2);
    const err = r.stderr;
    t.match(err, /m\.yaml: extra: is not a matrix key/);
    t.match(err, /m\.yaml: axes\.nomad\[1\]\.binary: no file at .*nope/, 'the build the file names');
    t.match(err, /m\.yaml: axes\.nomad\[1\]\.upgrade_to: no file at .*nope2/);
    t.match(err, /f\.yaml: seed: must be a whole number/, "the defaults' schedule");
    t.match(err, /m\.yaml: axes\.reboot: names each cell's fault, and its cells run the fault schedule f\.yaml/);
    const r2 = await matrix('m2.yaml');
    t.equal(r2.status, 2);
    const err2 = r2.stderr;
    t.match(err2, /server-reboot reboots servers/);
    t.match(err2, /m2\.yaml: axes\.reboot: names each cell's fault, and its cells run the fault schedule ok\.yaml/);
    t.equal((err2.match(/axes\.reboot: names/g) ?? []).length, 1, 'told once');
  },
);

t.test('a known-issue file in UTF-16 or Latin-1 is named by its encoding, with the iconv fix (Q152)', async (t) => {
  const dir = t.testdir({ 'nomad-2.0.5': 'a build on disk' });
  writeFileSync(join(dir, 'ki16.yaml'), Buffer.from('\ufeffissues: []\n', 'utf16le'));
  writeFileSync(join(dir, 'kilat.yaml'), Buffer.from('issues: [] # caf\xe9\n', 'latin1'));
  for (const [file, said] of [
    [
      'ki16.yaml',
      /known_issues_file \(--known-issues-file\): is UTF-16 text, not UTF-8 .*iconv -f utf-16 -t utf-8 ki16\.yaml/,
    ],
    ['kilat.yaml', /known_issues_file \(--known-issues-file\): is not UTF-8 text \(line 1: byte 0xe9.*iconv -f latin1/],
  ] as const) {
    const run = ['run', 'rolling-reboot', '--nomad', './nomad-2.0.5', '--known-issues-file', file, '--plan'];
    const r = await cliAt(dir)(...run, '--netns', '');
    t.equal(r.status, 2, file);
    t.match(r.stderr, said, file);
    t.notMatch(r.stderr, /issues: must be a list/, `${file}: not read as a mapping of garbage`);
  }
});

t.test('a build path that is a symlink loop is told as one, not as a missing file (Q148)', async (t) => {
  const dir = t.testdir({});
  symlinkSync(join(dir, 'loop2'), join(dir, 'loop1'));
  symlinkSync(join(dir, 'loop1'), join(dir, 'loop2'));
  const r = await cliAt(dir)('build', './loop1', './absent');
  t.equal(r.status, 2);
  t.match(r.stderr, /build spec 1: cannot be read \(ELOOP\): .*loop1/);
  t.match(r.stderr, /build spec 2: no file at .*absent/, 'a path with nothing there is still "no file"');
});
