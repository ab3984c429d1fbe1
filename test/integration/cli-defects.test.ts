// CLI defects of the 2026-12-06 review (docs/cli-defects.md), each through the real main() with the stand-ins: the
// Nomad API stand-in and the stand-in lab (no VMs), a user scenario that counts to three where no lab is needed.
import t, { type Test } from 'tap';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import '../helpers/ts-loader.js';
import { standIn } from '../helpers/stand-in-env.js';

const COUNTS = `import { defineCheck, defineScenario, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck<{ n: number }>({ id: 'counted', title: 'counted', passesWhen: 'n is 3',
  judge: (e) => ({ status: e.n === 3 ? 'passed' : 'failed', message: \`n is \${e.n}\` }) })];
export default defineScenario({ name: 'counts-to-three', summary: 'counts', needsNomad: false, checks: CHECKS,
  async run(ctx) { const n = await ctx.step('count', async () => 3); return judgeAll(CHECKS, { n }); } });
`;

/** A scenario directory outside the repository, as a user's would be. */
function scenarioDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'nrh-cli-defects-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'counts.ts'), COUNTS);
  return dir;
}

async function cli(argv: string[], cwd: string, token?: string) {
  const s = await standIn('restored', { cwd, ...(token ? { token } : {}) });
  const code = await main(argv, s.deps);
  await s.nomad.close();
  return { code, out: s.out.join(''), err: s.err.join('') };
}

/** The one run folder under a reports dir. */
function runDir(reports: string): string {
  const [id] = readdirSync(reports);
  return join(reports, id!);
}

t.test('repro.sh of a run started with the short -c <file> keeps the file (N3)', async (t) => {
  const dir = scenarioDir(t);
  const cwd = t.testdir({ 'tok.yaml': 'lab:\n  cpus: 2\n' });
  const reports = join(cwd, 'reports');
  const r = await cli(
    // a run that did not meet its expectations gets a repro.sh
    [
      'run',
      'counts-to-three',
      '-c',
      'tok.yaml',
      '--scenarios',
      dir,
      '--netns',
      '',
      '--reports-dir',
      reports,
      '--expect',
      'counted=fail',
    ],
    cwd,
  );
  t.equal(r.code, 1, r.err);
  const repro = readFileSync(join(runDir(reports), 'repro.sh'), 'utf8');
  t.match(repro, / -c tok\.yaml /, 'the file follows -c');
  t.notMatch(repro, / -c --/, 'not the next flag');
});

t.test('a config file that is no mapping is shown as a short excerpt, never its content (N4)', async (t) => {
  const cwd = t.testdir({
    dotenv: 'AWS_SECRET_ACCESS_KEY=MARKER-aws-1\nDB_PASSWORD=MARKER-db-2\n',
    environ: 'MYSECRET=MARKER-env-abc\0HOME=/root\0PATH=/bin\0',
  });
  for (const file of ['dotenv', 'environ']) {
    const r = await cli(['run', '-c', file, '--plan', '--netns', ''], cwd);
    t.equal(r.code, 2, file);
    t.notMatch(r.err + r.out, /MARKER/, `${file}: no value of the file is shown`);
    t.match(
      r.err,
      new RegExp(
        `${file}: must be a YAML mapping of keys to values \\(got a text of \\d+ lines? \\(\\d+ characters\\) starting "[A-Z_]+=…"`,
      ),
    );
  }
  const long = 'x'.repeat(100_000);
  const r = await cli(['run', long, '--plan', '--netns', ''], cwd);
  t.equal(r.code, 2);
  t.ok(r.err.length < 2000, `a 100 000-character name is not echoed whole (${r.err.length} characters)`);
  t.match(r.err, /got "x{60}…" \(100000 characters\)/);
});

t.test(
  '--releases-url: a query string is refused as such and never shown; a port out of range is named (N5)',
  async (t) => {
    const cwd = t.testdir({});
    const q = await cli(['build', '1.9.7', '--releases-url', 'http://127.0.0.1:18081/?token=MARKER-query'], cwd);
    t.equal(q.code, 2);
    t.notMatch(q.err + q.out, /MARKER/);
    t.match(q.err, /--releases-url: must have no query string/);
    const p = await cli(['build', '1.9.7', '--releases-url', 'http://u:MARKER-port@127.0.0.1:99999/'], cwd);
    t.equal(p.code, 2);
    t.notMatch(p.err + p.out, /MARKER/);
    t.match(p.err, /--releases-url: has port 99999, out of range/);
  },
);

t.test('a NOMAD_TOKEN that is a common word corrupts no report, repro or merge (N8)', async (t) => {
  const dir = scenarioDir(t);
  const cwd = t.testdir({});
  const reports = join(cwd, 'reports');
  const argv = ['run', 'counts-to-three', '--scenarios', dir, '--netns', '', '--reports-dir', reports];
  const r = await cli([...argv, '--expect', 'counted=fail'], cwd, 'nomad');
  t.equal(r.code, 1, r.err);
  const run = runDir(reports);
  const summary = readFileSync(join(run, 'summary.json'), 'utf8');
  t.match(summary, /"schema": "nomad-reboot-harness\/summary@1"/, 'the schema id is whole');
  t.notMatch(summary, /REDACTED/);
  const repro = readFileSync(join(run, 'repro.sh'), 'utf8');
  t.notMatch(repro, /REDACTED|"\$NOMAD_TOKEN"/, 'no argument of the repro is taken for the token');
  t.match(repro, /reboot-harness\.js run counts-to-three /);
  const listed = await cli(['list'], cwd, 'boot');
  t.match(listed.out, /^bridge-exec-reboot /m, 'list shows names containing the token whole');
  t.notMatch(
    listed.out,
    /\w\[REDACTED\]|\[REDACTED\]\w/,
    'never a part of a word (a standalone "boot" is taken for the token)',
  );
  const merged = await cli(['merge', reports, '--out', join(cwd, 'merged')], cwd, 'nomad');
  t.equal(merged.code, 1, `merge reads the report (${merged.err})`);
});

t.test(
  "the README's CI flow: run --all with a build and no --upgrade-to skips upgrade-in-place with why (N6, H1)",
  async (t) => {
    const cwd = t.testdir({});
    const r = await cli(
      [
        'run',
        '--all',
        '--nomad',
        '/stand-in/nomad',
        '--junit',
        join(cwd, 'junit.xml'),
        '--netns',
        '',
        '--plan',
        '--json',
      ],
      cwd,
    );
    t.equal(r.code, 0, r.err);
    const { plan } = JSON.parse(r.out) as { plan: { cells: { scenario: string; skip?: string }[] } };
    const upgrade = plan.cells.find((c) => c.scenario === 'upgrade-in-place');
    t.match(upgrade?.skip, /no build to upgrade to given \(--upgrade-to/, 'skipped, saying why');
    t.notOk(plan.cells.find((c) => c.scenario === 'bridge-exec-reboot')?.skip, 'the others run');
    const alone = await cli(['run', 'upgrade-in-place', '--nomad', '/stand-in/nomad', '--netns', '', '--plan'], cwd);
    t.equal(alone.code, 2, 'run alone, it is still a problem of the input');
    t.match(alone.err, /--upgrade-to: is required by scenario upgrade-in-place/);
  },
);

t.test(
  'merge takes the JUnit file a run wrote, finding its summary by run id under --reports-dir (N7, H2)',
  async (t) => {
    const dir = scenarioDir(t);
    const cwd = t.testdir({});
    const ci = join(cwd, 'ci');
    const run = await cli(
      [
        'run',
        'counts-to-three',
        '--scenarios',
        dir,
        '--netns',
        '',
        '--junit',
        join(ci, 'junit.xml'),
        '--reports-dir',
        join(ci, 'reports'),
      ],
      cwd,
    );
    t.equal(run.code, 0, run.err);
    const merged = await cli(['merge', join(ci, 'junit.xml'), '--out', join(cwd, 'm1')], cwd);
    t.equal(merged.code, 0, `the reports folder under the JUnit file's (${merged.err})`);
    t.match(merged.out, /merged 1 suites from 1 JSON reports/);
    t.notMatch(merged.out, /no HTML page/, 'the run page is found too');
    // the JUnit file elsewhere: found through --reports-dir, or a message saying what is needed
    mkdirSync(join(cwd, 'elsewhere'));
    writeFileSync(join(cwd, 'elsewhere', 'junit.xml'), readFileSync(join(ci, 'junit.xml')));
    const via = await cli(
      ['merge', join(cwd, 'elsewhere', 'junit.xml'), '--reports-dir', join(ci, 'reports'), '--out', join(cwd, 'm2')],
      cwd,
    );
    t.equal(via.code, 0, via.err);
    const lost = await cli(['merge', join(cwd, 'elsewhere', 'junit.xml'), '--out', join(cwd, 'm3')], cwd);
    t.equal(lost.code, 2);
    t.match(lost.err, /is a JUnit file whose run's summary\.json \(run r[0-9a-z]+\) is neither beside it nor under/);
    t.match(lost.err, /give the report folder that run wrote \(its --reports-dir\)/);
  },
);

t.test('output paths that collide are exit 2 up front, naming both flags (N9)', async (t) => {
  const dir = scenarioDir(t);
  const cwd = t.testdir({});
  const base = ['run', 'counts-to-three', '--scenarios', dir, '--netns', ''];
  const a = await cli([...base, '--junit', 'j.xml', '--reports-dir', 'j.xml'], cwd);
  t.equal(a.code, 2, a.err);
  t.match(a.err, /--junit \/ --reports-dir: name the same path, as a file and as a directory/);
  const b = await cli([...base, '--junit', 'same.xml', '--report-json', './same.xml', '--plan'], cwd);
  t.equal(b.code, 2, b.err);
  t.match(b.err, /--junit \/ --report-json: name the same file: one report would overwrite the other/);
  t.same(readdirSync(cwd), [], 'nothing written');
});

t.test(
  'a report that cannot be written: exit 3 naming it, the others written, the verdict printed (N10)',
  async (t) => {
    const dir = scenarioDir(t);
    const cwd = t.testdir({});
    const r = await cli(
      [
        'run',
        'counts-to-three',
        '--scenarios',
        dir,
        '--netns',
        '',
        '--report-json',
        '/dev/full',
        '--reports-dir',
        join(cwd, 'rep'),
        '--junit',
        join(cwd, 'j.xml'),
      ],
      cwd,
    );
    t.equal(r.code, 3, r.err);
    t.match(r.out, /could not write the JSON summary \/dev\/full \(--report-json, or under --reports-dir\): ENOSPC/);
    t.match(r.out, /^PASS counts-to-three/m, 'the verdict is printed');
    t.match(readFileSync(join(cwd, 'j.xml'), 'utf8'), /<testsuites/, 'the JUnit file is written');
    t.ok(readdirSync(runDir(join(cwd, 'rep'))).includes('report.html'), 'the page is written');
  },
);

t.test('compare of a build with itself: --plan warns, as the run does (N40)', async (t) => {
  const cwd = t.testdir({});
  const r = await cli(['compare', '--before', '1.9.7', '--after', '1.9.7', '--plan', '--netns', '', '--json'], cwd);
  t.equal(r.code, 0, r.err);
  const { plan } = JSON.parse(r.out) as { plan: { warnings: string[] } };
  t.match(plan.warnings.join('\n'), /--before 1\.9\.7 and --after 1\.9\.7 are the same build/);
  const paths = await cli(
    ['compare', '--before', '/stand-in/n', '--after', '/stand-in/./n', '--plan', '--netns', '', '--json'],
    cwd,
  );
  t.match((JSON.parse(paths.out) as { plan: { warnings: string[] } }).plan.warnings.join('\n'), /are the same build/);
});

t.test('the checks a broken run never reached are one line, not one per check repeating the error (N33)', async (t) => {
  const dir = scenarioDir(t);
  writeFileSync(
    join(dir, 'breaks.ts'),
    COUNTS.replace('counts-to-three', 'breaks')
      .replace(
        'const CHECKS = [defineCheck',
        "const mk = (id: string) => defineCheck<{ n: number }>({ id, title: id, passesWhen: 'x', judge: () => ({ status: 'passed', message: 'x' }) });\nconst CHECKS = [mk('a1'), mk('a2'), mk('a3'), defineCheck",
      )
      .replace(
        "await ctx.step('count', async () => 3);",
        "await ctx.step('bring up', async () => { throw new Error('vagrant up failed: a long reason'); });",
      ),
  );
  const cwd = t.testdir({});
  const r = await cli(['run', 'breaks', '--scenarios', dir, '--netns', '', '--reports-dir', join(cwd, 'rep')], cwd);
  t.equal(r.code, 3, r.err);
  t.match(
    r.out,
    /skip {2}4 checks not reached \(a1, a2, a3, counted\): the run broke in step "bring up" \(the error above\)/,
  );
  t.equal(r.out.split('vagrant up failed').length - 1, 1, 'the error is said once');
});
