// The rest of the 2026-12-06 CLI review's rows (docs/cli-defects.md), each through the real main() with the stand-ins
// and --plan: a flag no cell reads is refused (N17), HARNESS_REPEAT is a checked variable of `repeat` (N18).
import t from 'tap';
import { mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import '../helpers/ts-loader.js';
import { main } from '../../lib/cli/main.js';
import { planOnlyCli as cli } from '../helpers/cli-plan-only.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import type { Plan } from '../../lib/plan/session-plan.js';

const NOMAD = '/stand-in/nomad-1.9.7';

t.test('a fault option or a cluster flag that no cell reads is refused, as --drain is (N17)', async (t) => {
  const c = cli(t);
  const both = await c.run(['run', '--nomad', NOMAD, '--off-for', '30s', '--partition-for', '2m', '--plan']);
  t.equal(both.code, 2, both.err);
  t.match(
    both.err,
    /--off-for: is read only by --reboot power-off and power-loss-all; .* is graceful, so it would be ignored/,
  );
  t.match(
    both.err,
    /--partition-for: is read only by --reboot partition and leader-partition; .*fix: drop --partition-for, or give --reboot partition/,
  );
  const leader = await c.run(['run', '--nomad', NOMAD, '--leader-within', '10s', '--plan']);
  t.equal(leader.code, 2);
  t.match(
    leader.err,
    /--leader-within: is not used by bridge-exec-reboot \(only by rolling-reboot and server-reboot\), so it would be ignored/,
  );
  for (const flag of ['--max-gap', '--probe-interval', '--drain-deadline']) {
    const r = await c.run(['run', '--nomad', NOMAD, flag, '5s', '--plan']);
    t.equal(r.code, 2, `${flag} on bridge-exec-reboot`);
    t.match(r.err, new RegExp(`${flag}: is not used by bridge-exec-reboot`));
  }
  // where they are read, they are taken
  const power = await c.run(['run', '--nomad', NOMAD, '--reboot', 'power-off', '--off-for', '30s', '--plan']);
  t.equal(power.code, 0, power.err);
  t.equal((JSON.parse(power.out) as { plan: Plan }).plan.cells[0]!.config.reboot.offForS, 30);
  const leaderPartition = await c.run([
    'run',
    'server-reboot',
    '--nomad',
    NOMAD,
    '--servers',
    '3',
    '--reboot',
    'leader-partition',
    '--partition-for',
    '40s',
    '--leader-within',
    '10s',
    '--plan',
  ]);
  t.equal(leaderPartition.code, 0, `leader-partition reads partition_for: ${leaderPartition.err}`);
});

t.test('HARNESS_REPEAT is the variable of `repeat`: read, checked and named as itself (N18, H11)', async (t) => {
  const c = cli(t);
  const three = await c.run(['run', '--nomad', NOMAD, '--plan'], { HARNESS_REPEAT: '3' });
  t.equal(three.code, 0, three.err);
  t.equal((JSON.parse(three.out) as { plan: Plan }).plan.cells.length, 3, 'three attempts');
  const bad = await c.run(['run', '--nomad', NOMAD, '--plan'], { HARNESS_REPEAT: 'abc' });
  t.equal(bad.code, 2);
  t.match(bad.err, /env HARNESS_REPEAT: must be a whole number from 1 to 100 \(got "abc"/);
  const compare = await c.run(['compare', '--before', NOMAD, '--after', NOMAD, '--plan'], { HARNESS_REPEAT: '5' });
  t.equal(compare.code, 2);
  t.match(
    compare.err,
    /env HARNESS_REPEAT: applies to run only, not compare \(got "5"; fix: unset HARNESS_REPEAT, or use run\)/,
  );
  t.notMatch(compare.err, /--repeat/, 'no flag that was never given');
});

t.test(
  'one problem per mistake: no cascade from a bad host, a refused --target, -- before options, --keep maybe (N32)',
  async (t) => {
    const c = cli(t);
    const dir = t.testdir({
      'hosts.yaml':
        'lab:\n  provider: ssh\n  hosts:\n    servers: [{address: "", user: root, key: k}]\n    clients: [{address: 10.0.0.2, user: root, key: k}]\n',
    });
    const hosts = await c.run(['run', '-c', join(dir, 'hosts.yaml'), '--nomad', NOMAD, '--plan']);
    t.equal(hosts.code, 2);
    t.match(hosts.err, /lab\.hosts\.servers\[0\]\.address: must be a non-empty string/);
    t.notMatch(hosts.err, /lab\.hosts\.servers: is required/, 'the list was given: its bad entry is the one problem');
    const target = await c.run(['run', '--nomad', NOMAD, '--target', 'client-9', '--plan']);
    t.equal(target.code, 2);
    t.match(
      target.err,
      /error: invalid configuration: reboot\.target \(--target\): applies to rolling-reboot and server-reboot/,
    );
    t.notMatch(target.err, /names a machine this lab lacks/, 'the flag goes: its value is moot');
    const rolling = await c.run(['run', 'rolling-reboot', '--nomad', NOMAD, '--target', 'client-9', '--plan']);
    t.match(rolling.err, /--target: names a machine this lab lacks/, 'where --target is read, its value is judged');
    const dashes = await c.run(['run', '--nomad', NOMAD, '--plan', '--', '--cpus', '0']);
    t.equal(dashes.code, 2);
    t.match(
      dashes.err,
      /error: invalid configuration: scenario: holds an option \(--cpus\): after -- every word is taken for a scenario name .*fix: put --cpus before --/,
    );
    t.notMatch(dashes.err, /only one scenario|not a known scenario/);
    const keep = await c.run(['run', '--nomad', NOMAD, '--keep', 'maybe', '--plan']);
    t.equal(keep.code, 2);
    t.match(keep.err, /--keep: takes no value but on-failure \(and "maybe" is no scenario either\)/);
    t.notMatch(keep.err, /scenario: is not a known scenario/);
    t.equal(
      (await c.run(['run', '--nomad', NOMAD, '--keep', 'bridge-exec-reboot', '--plan'])).code,
      0,
      '--keep <scenario>',
    );
  },
);

t.test(
  'the job is converted once per file, build and variables, not once per config that names it (N37)',
  async (t) => {
    const dir = t.testdir({
      nomad: 'a build on disk',
      'web.nomad.hcl':
        'job "web" {\n  group "g" {\n    network {\n      mode = "bridge"\n      port "http" { to = 8080 }\n    }\n    task "t" {\n      driver = "exec"\n      config { command = "/bin/sleep" }\n    }\n  }\n}\n',
    });
    const s = standInPerRun({ [join(dir, 'nomad')]: { timeline: 'restored', version: '1.9.7' } }, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const converted: string[] = [];
    const convertJob = s.deps.convertJob!;
    const deps = {
      ...s.deps,
      convertJob: (o: Parameters<typeof convertJob>[0]) => {
        converted.push(o.file);
        return convertJob(o);
      },
    };
    const argv = ['run', '--nomad', join(dir, 'nomad'), '--job', 'web.nomad.hcl', '--netns', '', '--plan'];
    t.equal(await main(argv, deps), 0, s.err.join(''));
    t.same(converted, [join(dir, 'web.nomad.hcl')], 'once');
  },
);

const COUNTS = `import { defineCheck, defineScenario, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck<{ n: number }>({ id: 'counted', title: 'counted', passesWhen: 'n is 3',
  judge: (e) => ({ status: e.n === 3 ? 'passed' : 'failed', message: \`n is \${e.n}\` }) })];
export default defineScenario({ name: 'counts-to-three', summary: 'counts', needsNomad: false, checks: CHECKS,
  async run(ctx) { const n = await ctx.step('count', async () => 3); return judgeAll(CHECKS, { n }); } });
`;

t.test(
  'merge finds a run in a renamed folder by its summary, and prints paths outside the cwd as given (N38)',
  async (t) => {
    const scenarios = mkdtempSync(join(tmpdir(), 'nrh-review-rest-'));
    t.teardown(() => rmSync(scenarios, { recursive: true, force: true }));
    writeFileSync(join(scenarios, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(scenarios, 'counts.ts'), COUNTS);
    const root = t.testdir({ cwd: {}, elsewhere: {} });
    const cwd = join(root, 'cwd');
    const elsewhere = join(root, 'elsewhere');
    const s = standInPerRun({}, { cwd });
    const reports = join(cwd, 'rep');
    const argv = ['run', 'counts-to-three', '--scenarios', scenarios, '--netns', '', '--reports-dir', reports];
    t.equal(await main(argv, s.deps), 0, s.err.join(''));
    const [runDir] = readdirSync(reports);
    renameSync(join(reports, runDir!), join(cwd, 'evil'));
    s.out.length = 0;
    s.err.length = 0;
    const out = join(elsewhere, 'merged');
    t.equal(await main(['merge', join(cwd, 'evil'), '--out', out, '--copy-attachments'], s.deps), 0, s.err.join(''));
    const said = s.out.join('');
    t.notMatch(said, /no HTML page/, 'its page is the one beside its summary.json');
    t.match(
      said,
      /copied [1-9]\d* files \(attachments and pages\) into \/\S+\/merged\n/,
      'the page copied; the path as given',
    );
    t.match(said, new RegExp(`reports: ${out}/junit\\.xml ${out}/summary\\.json ${out}/index\\.html`));
    t.notMatch(said, /\.\.\//, 'no ../../');
    t.match(readFileSync(join(out, 'index.html'), 'utf8'), /href="[^"]*report\.html"/, 'the index links its page');
  },
);

t.test('a problem names where the value was given, and a command judges only the keys it reads (old 29)', async (t) => {
  const root = t.testdir({ 'harness.yaml': 'lab:\n  cpus: 99\n', 'ok.yaml': '{}\n', reports: {} });
  const s = standInPerRun({ [NOMAD]: { timeline: 'restored', version: '1.9.7' } }, { cwd: root });
  t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
  const run = async (argv: string[], env: Record<string, string> = {}) => {
    s.out.length = 0;
    s.err.length = 0;
    const code = await main(argv, { ...s.deps, env: { ...s.deps.env, ...env } });
    return { code, err: s.err.join('') };
  };
  const merge = await run(['merge', join(root, 'nothing-here')]);
  t.equal(merge.code, 2);
  t.notMatch(merge.err, /lab\.cpus/, 'merge reads no lab key: its value is the run’s to judge');
  t.match(merge.err, /merge input: cannot be read \(ENOENT\)/);
  const plan = await run(['run', '--nomad', NOMAD, '--netns', '', '--plan']);
  t.match(plan.err, /harness\.yaml: lab\.cpus: must be a whole number from 1 to 16/, 'a run still judges it');
  // the build a problem would be told about is named by its source (the stand-in resolves every build)
  const fromEnv = await run(['run', '--netns', '', '--plan', '-c', join(root, 'ok.yaml')], { NOMAD_BUILD: NOMAD });
  t.equal(fromEnv.code, 0, fromEnv.err);
  t.match((JSON.parse(s.out.join('')) as { plan: Plan }).plan.builds, [{ field: 'env NOMAD_BUILD', spec: NOMAD }]);
  await run(['run', '--netns', '', '--plan', '-c', join(root, 'ok.yaml'), '--nomad', NOMAD], { NOMAD_BUILD: '1.9' });
  t.match((JSON.parse(s.out.join('')) as { plan: Plan }).plan.builds, [{ field: '--nomad' }], 'the flag wins');
  const job = await run(['run', '--nomad', NOMAD, '--netns', '', '--plan', '-c', join(root, 'ok.yaml')], {
    HARNESS_JOB: '/nonexistent.hcl',
  });
  t.match(job.err, /env HARNESS_JOB: cannot be read \(ENOENT\)/);
});

t.test(
  'the adversarial pass of 2026-12-06: a matrix file that cannot be read and --seed without a schedule',
  async (t) => {
    const c = cli(t);
    const m = await c.run(['matrix', '/nonexistent.yaml', '--shard', '3/2', '--cpus', '0', '--plan']);
    t.equal(m.code, 2);
    t.match(m.err, /invalid configuration \(3 problems\)/);
    t.match(m.err, /matrix file: cannot be read \(ENOENT\)/);
    t.match(m.err, /--shard: must be i\/n with 1 <= i <= n/);
    t.match(m.err, /--cpus: must be a whole number/);
    t.notMatch(m.err, /only one matrix file can be run/, 'one file was given');
    const seed = await c.run(['run', 'rolling-reboot', '--nomad', NOMAD, '--seed', '5', '--plan']);
    t.equal(seed.code, 2);
    t.match(
      seed.err,
      /--seed: is the seed of a fault schedule's picks \(--faults\); no schedule is given, so it would be ignored/,
    );
  },
);

t.test('the adversarial pass of 2026-12-06: --plan reads the known-issue file, with the other problems', async (t) => {
  const c = cli(t);
  const r = await c.run([
    'run',
    '--nomad',
    NOMAD,
    '--known-issues-file',
    '/nonexistent/ki.yaml',
    '--cpus',
    '0',
    '--plan',
  ]);
  t.equal(r.code, 2);
  t.match(r.err, /invalid configuration \(2 problems\)/);
  t.match(r.err, /known_issues_file \(--known-issues-file\): cannot be read: ENOENT/);
  t.match(r.err, /--cpus: must be a whole number/);
});
