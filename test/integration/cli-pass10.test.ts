// The CLI's tenth adversarial pass (docs/cli-defects.md, rows Q102 on), through the real main() with the stand-ins:
// a report named by a symlink to a file the command reads, and inputs that are named pipes (FIFOs).
import t from 'tap';
import '../helpers/ts-loader.js';
import { main } from '../../lib/cli/main.js';
import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { standInPerRun } from '../helpers/stand-in-env.js';
import { writeLablessScenario } from '../helpers/labless-scenario.js';

t.setTimeout(2 * 60_000);

t.test(
  'a report named by a symlink to a file the run reads (harness.yaml, the build) is refused: it would be written through the link (Q102)',
  async (t) => {
    const dir = t.testdir({ 'h.yaml': 'lab:\n  cpus: 1\n', 'nomad-1.9.7': 'a build on disk' });
    writeLablessScenario(join(dir, 'usc'), 'pure');
    symlinkSync('h.yaml', join(dir, 'latest.xml'));
    symlinkSync('nomad-1.9.7', join(dir, 'nomad'));
    const s = standInPerRun({ [join(dir, 'nomad')]: { timeline: 'restored', version: '1.9.7' } }, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const argv = ['run', 'pure', '--scenarios', 'usc', '-c', 'h.yaml', '--netns', ''];
    t.equal(await main([...argv, '--junit', join(dir, 'latest.xml')], s.deps), 2);
    t.match(s.err.join(''), /--junit: is a file this command reads \(--config\): the report would be written over it/);
    t.equal(readFileSync(join(dir, 'h.yaml'), 'utf8'), 'lab:\n  cpus: 1\n', 'harness.yaml is as it was');
    s.err.length = 0;
    // the build named by a symlink, the report by the file it points at
    const run = ['run', '--nomad', './nomad', '--plan', '--netns', ''];
    t.equal(await main([...run, '--report-json', join(dir, 'nomad-1.9.7')], s.deps), 2);
    t.match(s.err.join(''), /--report-json: is a file this command reads \(--nomad\)/);
    s.err.length = 0;
    t.equal(
      await main([...argv, '--junit', join(dir, 'j.xml'), '--reports-dir', join(dir, 'reports')], s.deps),
      0,
      'a path of its own is taken',
    );
  },
);

t.test(
  'an input that is a named pipe (FIFO) is refused with the other problems instead of waiting for a writer for ever (Q103)',
  async (t) => {
    const dir = t.testdir({ 'ok.yaml': 'lab:\n  cpus: 1\n', usc: {} });
    writeLablessScenario(join(dir, 'usc'), 'pure');
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const fifo = /is a named pipe \(FIFO\), not a file: reading it would wait for a writer/;
    const cases: [string[], RegExp, number][] = [
      [['run', '-c', 'pipe', '--cpus', '0', '--plan'], /--config: is a named pipe/, 2],
      [['run', '--job', 'pipe', '--cpus', '0', '--plan'], /job\.file \(--job\): is a named pipe/, 2],
      [['run', '--known-issues-file', 'pipe', '--plan'], /known_issues_file: is a named pipe/, 1],
      [['run', 'rolling-reboot', '--faults', 'pipe', '--plan'], /reboot\.faults \(--faults\): is a named pipe/, 1],
      [['run', '--nomad', './pipe', '--plan'], /--nomad: is a named pipe/, 1],
      [['compare', '--before', './pipe', '--after', './pipe', '--plan'], /--before: is a named pipe/, 1],
      [['matrix', 'pipe', '--plan'], /matrix file: is a named pipe/, 1],
      [['list-labs', '-c', 'pipe'], /--config: is a named pipe/, 1],
    ];
    for (const [argv, said, count] of cases) {
      s.err.length = 0;
      t.equal(await main([...argv, '--netns', ''], s.deps), 2, argv.join(' '));
      const err = s.err.join('');
      t.match(err, said, `${argv.join(' ')}: named`);
      t.match(err, fifo);
      if (count > 1) t.match(err, /--cpus: must be a whole number/, `${argv.join(' ')}: with the other problem`);
    }
    for (const argv of [
      ['merge', 'pipe'],
      ['build', './pipe', '1.9'],
    ]) {
      s.err.length = 0;
      t.equal(await main(argv, s.deps), 2, argv.join(' '));
      t.match(s.err.join(''), fifo, `${argv.join(' ')}: named`);
    }
    t.match(s.err.join(''), /build spec 2: looks like a release version/, 'build: the other spec told too');
  },
);
