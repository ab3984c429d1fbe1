// The CLI's ninth adversarial pass (docs/cli-defects.md, rows Q88 on), through the real main() with the stand-ins:
// the spellings of --json the parser takes, and whatever else the pass found.
import t from 'tap';
import '../helpers/ts-loader.js';
import { main } from '../../lib/cli/main.js';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BuildLayer } from '../../lib/cli/deps.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import { writeLablessScenario } from '../helpers/labless-scenario.js';

t.setTimeout(2 * 60_000);

t.test(
  '--json=yes, --json=1, --json=TRUE: an error is the JSON error document on stdout, as with --json (Q88)',
  async (t) => {
    for (const json of ['--json', '--json=yes', '--json=1', '--json=TRUE', '--json=true']) {
      const s = standInPerRun({}, { cwd: t.testdir({}) });
      const code = await main(['run', '--cpus', '0', '--plan', '--netns', '', json], s.deps);
      t.equal(code, 2, json);
      const doc = JSON.parse(s.out.join('')) as { schema: string; exitCode: number; problems: { field: string }[] };
      t.equal(doc.schema, 'nomad-reboot-harness/error@1', `${json}: the error document`);
      t.equal(doc.exitCode, 2);
      t.match(doc.problems, [{ field: '--cpus' }], `${json}: the problem in it`);
      t.match(s.err.join(''), /--cpus: must be a whole number/, `${json}: the text on stderr too`);
    }
    for (const json of ['--json=no', '--json=0', '--json=false']) {
      const s = standInPerRun({}, { cwd: t.testdir({}) });
      t.equal(await main(['run', '--cpus', '0', '--plan', '--netns', '', json], s.deps), 2, json);
      t.equal(s.out.join(''), '', `${json}: no document`);
    }
  },
);

const NOPORTS =
  'job "np" {\n  group "g" {\n    network { mode = "bridge" }\n    task "t" {\n      driver = "exec"\n      config { command = "/bin/sleep" }\n    }\n  }\n}\n';

t.test(
  "the job is parsed by a good build while another build has a problem, and by a matrix's build read from its folder (Q89, Q90)",
  async (t) => {
    const dir = t.testdir({ nomad: 'a build on disk', 'noports.nomad.hcl': NOPORTS, ci: {} });
    const s = standInPerRun({ [join(dir, 'nomad')]: { timeline: 'restored', version: '1.9.7' } }, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    // Note: builds as the real layer checks paths: a file that is not there is the problem of the flag naming it
    const builds: BuildLayer = {
      async check(refs) {
        return refs.flatMap((r) =>
          existsSync(resolve(r.cwd, r.spec))
            ? []
            : [{ field: r.field, value: r.spec, message: `no file at ${resolve(r.cwd, r.spec)}`, fix: 'give a build' }],
        );
      },
      async resolve() {
        throw new Error('nothing is resolved under --plan');
      },
    };
    const deps = {
      ...s.deps,
      builds,
      makeEnv: () => {
        throw new Error('nothing may be made');
      },
    };
    const noPorts = /job\.file \(--job\): job "np" group "g" is a bridge group the scenario cannot probe/;
    for (const argv of [
      ['compare', '--before', './nomad', '--after', './nomad-typo', '--job', 'noports.nomad.hcl', '--plan'],
      ['run', '--all', '--nomad', './nomad', '--upgrade-to', './nomad-typo', '--job', 'noports.nomad.hcl', '--plan'],
    ]) {
      s.err.length = 0;
      t.equal(await main([...argv, '--netns', ''], deps), 2, argv.join(' '));
      const err = s.err.join('');
      t.match(err, /--(after|upgrade-to): no file at .*nomad-typo/, `${argv[0]}: the build's problem`);
      t.match(err, noPorts, `${argv[0]}: and the job's, at once`);
    }
    // a matrix file's build paths are read from its own folder (docs/matrix.md): ../nomad from ci/ is the build
    writeFileSync(
      join(dir, 'ci', 'm.yaml'),
      'scenario: bridge-exec-reboot\ndefaults: { job: { file: noports.nomad.hcl } }\naxes:\n  nomad: [{name: b, binary: ../nomad}]\n',
    );
    s.err.length = 0;
    s.out.length = 0;
    t.equal(await main(['matrix', 'ci/m.yaml', '--plan', '--netns', ''], deps), 2, 'matrix --plan judges the job');
    t.match(s.err.join(''), /job "np" group "g" is a bridge group the scenario cannot probe/);
    t.equal(s.out.join(''), '', 'no plan printed');
  },
);

t.test(
  'a report named like a file the run reads (harness.yaml, a scenario file, the job, the build) is refused before anything is written (Q91)',
  async (t) => {
    const dir = t.testdir({ 'h.yaml': 'lab:\n  cpus: 1\n', nomad: 'a build on disk', 'noports.nomad.hcl': NOPORTS });
    writeLablessScenario(join(dir, 'usc'), 'pure');
    const scenario = readFileSync(join(dir, 'usc', 'pure.ts'), 'utf8');
    const s = standInPerRun({ [join(dir, 'nomad')]: { timeline: 'restored', version: '1.9.7' } }, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const argv = ['run', 'pure', '--scenarios', 'usc', '-c', 'h.yaml', '--netns', ''];
    // Note: absolute, as the reports are written from the process's directory, not the test's cwd
    const over = ['--report-json', join(dir, 'h.yaml'), '--junit', join(dir, 'usc', 'pure.ts')];
    t.equal(await main([...argv, ...over], s.deps), 2);
    const err = s.err.join('');
    t.match(err, /--report-json: is a file this command reads \(--config\): the report would be written over it/);
    t.match(err, /--junit: is a file this command reads \(--scenarios\)/);
    t.equal(readFileSync(join(dir, 'h.yaml'), 'utf8'), 'lab:\n  cpus: 1\n', 'harness.yaml is as it was');
    t.equal(readFileSync(join(dir, 'usc', 'pure.ts'), 'utf8'), scenario, 'the scenario file is as it was');
    s.err.length = 0;
    const run = ['run', '--nomad', './nomad', '--job', 'noports.nomad.hcl', '--netns', ''];
    t.equal(
      await main([...run, '--junit', join(dir, 'nomad'), '--report-json', join(dir, 'noports.nomad.hcl')], s.deps),
      2,
    );
    t.match(s.err.join(''), /--junit: is a file this command reads \(--nomad\)/);
    t.match(s.err.join(''), /--report-json: is a file this command reads \(job\.file \(--job\)\)/);
    t.equal(readFileSync(join(dir, 'nomad'), 'utf8'), 'a build on disk', 'the build is as it was');
    s.err.length = 0;
    t.equal(
      await main([...argv, '--junit', join(dir, 'j.xml'), '--reports-dir', join(dir, 'reports')], s.deps),
      0,
      'a path of its own is taken',
    );
  },
);

t.test(
  "merge of a run's own file with --out its folder is refused: the merged files would replace the run's (Q101)",
  async (t) => {
    const dir = t.testdir({});
    writeLablessScenario(join(dir, 'usc'), 'pure');
    const s = standInPerRun({}, { cwd: dir });
    const reports = join(dir, 'reports');
    t.equal(await main(['run', 'pure', '--scenarios', 'usc', '--reports-dir', reports, '--netns', ''], s.deps), 0);
    const run = join(reports, readdirSync(reports)[0]!);
    const summary = readFileSync(join(run, 'summary.json'), 'utf8');
    for (const input of ['junit.xml', 'summary.json']) {
      s.err.length = 0;
      t.equal(await main(['merge', join(run, input), '--out', run], s.deps), 2, input);
      t.match(s.err.join(''), /--out: is the input folder .*: the merged reports would land among the ones they merge/);
      t.equal(
        readFileSync(join(run, 'summary.json'), 'utf8'),
        summary,
        `${input}: the run's summary.json is as it was`,
      );
    }
    t.equal(
      await main(['merge', join(run, 'junit.xml'), '--out', join(run, 'merged')], s.deps),
      0,
      'a folder of its own',
    );
  },
);

t.test("harness.yaml's token is a secret even when the file fails to plan (Q98)", async (t) => {
  const token = 'Q98FileT0ken-abcdef-123';
  const dir = t.testdir({ 'h.yaml': `nomad:\n  token: ${token}\n  heartbeat_grace: ${token}\n` });
  const s = standInPerRun({}, { cwd: dir });
  t.equal(await main(['run', '-c', 'h.yaml', '--plan', '--netns', '', '--json'], s.deps), 2);
  t.match(s.err.join(''), /nomad\.heartbeat_grace: must be a Go duration/);
  t.notMatch(s.out.join('') + s.err.join(''), token, 'the token is nowhere');
});
