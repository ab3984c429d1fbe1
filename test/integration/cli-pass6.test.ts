// The CLI's sixth adversarial pass (docs/cli-defects.md, rows Q36 on), through the real main() with the stand-ins:
// a bisect's build failure told by its reason, a bisect resumed from another directory or after its branch moved, a
// git: spec that is a URL with a token, job variables named as secrets, and a matrix's known-issue file told with the
// rest of its problems.
import { writeLablessScenario } from '../helpers/labless-scenario.js';
import t, { type Test } from 'tap';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import '../helpers/ts-loader.js';
import { main } from '../../lib/cli/main.js';
import { HarnessError } from '../../lib/errors.js';
import type { BuildLayer } from '../../lib/cli/deps.js';
import { createBuildLayer } from '../../lib/session/builds.js';
import { standInPerRun, type StandInBuild } from '../helpers/stand-in-env.js';
import { bisectFixture, linearHistory, type Fixture } from '../helpers/bisect-fixture.js';
import { PLAN_NOMAD, planOnlyCli } from '../helpers/cli-plan-only.js';

// Note: a bisect is dozens of git calls: seconds alone, longer on 2 loaded cores
t.setTimeout(4 * 60_000);

/** The error a real source build throws: what failed, the tool's words, then where its whole log is. */
const BUILD_ERROR =
  'building codecgen v2.1.5 (go get github.com/hashicorp/go-msgpack/v2/codec/codecgen@v2.1.5) failed:\n' +
  'go: module lookup disabled by GOPROXY=off\n' +
  'full log: /cache/builds/logs/abc.log';

/** Builds write the commit's `behaviour` as the binary; `broken` fails as a real source build does. */
function fixtureBuilds(fx: Fixture, dir: string): BuildLayer {
  return {
    async check(refs) {
      return refs
        .filter((r) => !r.spec.startsWith(`git:${fx.dir}@`))
        .map((r) => ({ field: r.field, value: r.spec, message: 'is not the fixture tree', fix: 'test setup' }));
    },
    async resolve(ref) {
      const commit = ref.spec.split('@').at(-1)!;
      const behaviour = fx.git('show', `${commit}:behaviour`);
      if (behaviour === 'broken') throw new HarnessError(`${ref.spec}: ${BUILD_ERROR}`, { exitCode: 3 });
      const path = join(dir, 'builds', commit, 'nomad');
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, behaviour);
      return {
        spec: ref.spec,
        path,
        sha256: createHash('sha256').update(behaviour).digest('hex'),
        version: '1.9.7',
        revision: commit,
        origin: { kind: 'git', dir: fx.dir, commit, dirty: false },
      };
    },
  };
}

const byFile: Record<string, StandInBuild> = new Proxy(
  {},
  {
    get: (_t, path: string) => {
      const b = readFileSync(path, 'utf8').trim();
      return { timeline: b === 'fail' ? 'duplicate-ip' : 'restored', version: '1.9.7' } satisfies StandInBuild;
    },
  },
);

/** main() for a bisect whose working directory is `cwd`; its output and the bisect folder it made under cwd/reports. */
async function bisectIn(cwd: string, fx: Fixture, argv: string[]) {
  const s = standInPerRun(byFile, { cwd });
  const code = await main(argv, { ...s.deps, builds: fixtureBuilds(fx, cwd) });
  const reports = join(cwd, 'reports');
  const folder = existsSync(reports) ? readdirSync(reports).find((f) => f.startsWith('bisect-')) : undefined;
  return { code, out: s.out.join(''), err: s.err.join(''), folder: folder && join(reports, folder) };
}

const start = (fx: Fixture, bad: string) => [
  'bisect',
  '--source',
  `git:${fx.dir}`,
  '--netns',
  '',
  '--good',
  fx.shas[0]!,
  '--bad',
  bad,
  '--check',
  'no-duplicate-ip',
];

t.test('a build that failed is told by its reason and its log, not by its "full log:" line alone (Q36)', async (t) => {
  const fx = bisectFixture(linearHistory(3, 1, 'broken', 'fail'));
  const cwd = t.testdir({});
  const r = await bisectIn(cwd, fx, [...start(fx, fx.shas[2]!), '--reports-dir', 'reports']);
  t.equal(r.code, 3, r.err);
  const reason =
    /building codecgen v2\.1\.5 \(go get [^)]*\) failed: go: module lookup disabled by GOPROXY=off \(full log: \/cache\/builds\/logs\/abc\.log\)/;
  t.match(r.out, new RegExp(`FAILED \\([^)]*\\): .*${reason.source}`), 'the build line says why');
  t.match(r.out, new RegExp(`did not build: .*${reason.source}`), 'the answer says why');
  const doc = JSON.parse(readFileSync(join(r.folder!, 'bisect.json'), 'utf8')) as { message: string };
  t.match(doc.message, reason, 'bisect.json says why');
});

t.test('--resume from another directory is refused with the cd that continues it (Q37)', async (t) => {
  const fx = bisectFixture(linearHistory(3, 1, 'broken', 'fail'));
  const cwd = t.testdir({ 'harness.yaml': 'lab:\n  cpus: 2\n' });
  const first = await bisectIn(cwd, fx, [...start(fx, fx.shas[2]!), '--reports-dir', 'reports']);
  t.equal(first.code, 3, first.err);
  const other = join(cwd, 'elsewhere');
  mkdirSync(other);
  const s = standInPerRun(byFile, { cwd: other });
  const code = await main(['bisect', '--resume', first.folder!], { ...s.deps, builds: fixtureBuilds(fx, other) });
  t.equal(code, 2, 'its ./harness.yaml and relative paths would be read from another place');
  t.match(
    s.err.join(''),
    new RegExp(
      `--resume: continues a bisect started in ${cwd}, whose paths .* fix: cd ${cwd} && reboot-harness bisect --resume ${first.folder}`,
    ),
  );
  const again = await bisectIn(cwd, fx, ['bisect', '--resume', first.folder!]);
  t.equal(again.code, 3, 'from where it started it goes on (and the endpoint still does not build)');
});

t.test('--resume goes on with the commits it started with, and takes --json (Q37)', async (t) => {
  const fx = bisectFixture(linearHistory(3, 1, 'broken', 'fail'));
  const cwd = t.testdir({});
  const first = await bisectIn(cwd, fx, [...start(fx, 'main'), '--reports-dir', 'reports']);
  t.equal(first.code, 3, first.err);
  // the branch moves on after the bisect started (a fetch)
  fx.git('commit', '-q', '--allow-empty', '-m', 'later work on main');
  const moved = fx.git('rev-parse', 'main');
  t.not(moved, fx.shas[2]);
  const again = await bisectIn(cwd, fx, ['bisect', '--resume', first.folder!, '--json']);
  t.equal(again.code, 3, again.err);
  const doc = JSON.parse(again.out) as { schema: string; bad: { ref: string; sha: string } };
  t.equal(doc.schema, 'nomad-reboot-harness/bisect@1', '--json with --resume: stdout is the bisect document');
  t.same(doc.bad, { ref: 'main', sha: fx.shas[2] }, 'the commit main named when the bisect started');
});

t.test('a git: spec that is a URL with a token: refused as a URL, the token never printed (Q38)', async (t) => {
  const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123';
  const specs = [`git:https://bob:${token}@github.com/hashicorp/nomad`, `git:https://${token}@github.com/x@v1.9.7`];
  const cli = planOnlyCli(t);
  for (const spec of specs) {
    const s = standInPerRun({}, { cwd: cli.dir });
    const build = await main(['build', spec], s.deps);
    t.equal(build, 2);
    const run = await main(['run', '--nomad', spec, '--netns', '', '--plan'], {
      ...s.deps,
      builds: createBuildLayer({ env: s.deps.env }),
    });
    t.equal(run, 2);
    const bisect = await main(['bisect', '--source', spec, '--good', 'a', '--bad', 'b', '--check', 'task-dirs'], {
      ...s.deps,
      builds: createBuildLayer({ env: s.deps.env }),
    });
    t.equal(bisect, 2);
    const all = s.out.join('') + s.err.join('');
    t.notMatch(all, token.slice(4), `${spec}: the token is nowhere`);
    t.equal(all.match(/names a URL: git: takes the directory of a clone/g)?.length, 3, 'each command says why');
  }
});

t.test('a job variable named as a secret is redacted in the plan and in an error (Q39)', async (t) => {
  const cli = planOnlyCli(t);
  const pw = 'Sup3rS3cretRegistryPw';
  writeFileSync(
    join(cli.dir, 'h.yaml'),
    `job:\n  file: ${join(process.cwd(), 'examples/jobs/count-3.nomad.hcl')}\n  vars:\n    count: 2\n    token_ttl: 60\n    registry_password: ${pw}\n`,
  );
  const plan = await cli.run(['run', '--nomad', PLAN_NOMAD, '-c', join(cli.dir, 'h.yaml'), '--plan']);
  t.equal(plan.code, 0, plan.err);
  t.match(plan.out, /"registry_password": "\[REDACTED\]"/);
  t.match(plan.out, /"count": 2/, 'a variable not named as a secret is shown');
  t.match(
    plan.out,
    /"token_ttl": 60/,
    'a number under a secret-like name is a setting, shown (and not redacted elsewhere)',
  );
  t.notMatch(plan.out + plan.err, pw);
  writeFileSync(join(cli.dir, 'v.yaml'), `job:\n  vars:\n    registry_password: ${pw}\n`);
  const bad = await cli.run(['run', '--nomad', PLAN_NOMAD, '-c', join(cli.dir, 'v.yaml'), '--plan', '--json']);
  t.equal(bad.code, 2);
  t.match(bad.err, /job\.vars: are variables for job\.file/);
  t.notMatch(bad.out + bad.err, pw, 'nor in the error or its JSON document');
});

t.test(
  "a matrix's defaults known_issues_file is told with the file's and the command line's problems (Q34)",
  async (t) => {
    const cli = planOnlyCli(t);
    const file = join(cli.dir, 'm.yaml');
    writeFileSync(
      file,
      `scenario: bridge-exec-reboot\ndefaults:\n  known_issues_file: ${join(cli.dir, 'no-such-ki.yaml')}\naxes:\n  nomad:\n    - { name: a, binary: ${PLAN_NOMAD} }\n  reboot: [graceful, bogus]\n`,
    );
    const r = await cli.run(['matrix', file, '--plan', '--memory', '1']);
    t.equal(r.code, 2);
    t.match(r.err, /invalid configuration \(3 problems\)/);
    t.match(r.err, /axes\.reboot\[1\]: is not a reboot kind/);
    t.match(r.err, /--memory: must be a whole number/);
    t.match(r.err, /known_issues_file \(--known-issues-file\): cannot be read: ENOENT/);
    const flag = await cli.run(['matrix', file, '--plan', '--memory', '1', '--known-issues-file', '/dev/null']);
    t.notMatch(flag.err, /no-such-ki/, 'the flag wins over the file, as when it plans');
  },
);

t.test('bisect writes its JUnit and JSON where --junit and --report-json say, checked up front (Q40)', async (t) => {
  const fx = bisectFixture(linearHistory(3, 1, 'broken', 'fail'));
  const cwd = t.testdir({});
  const r = await bisectIn(cwd, fx, [
    ...start(fx, fx.shas[2]!),
    '--reports-dir',
    'reports',
    '--junit',
    'ci/bisect-junit.xml',
    '--report-json',
    'ci/bisect.json',
  ]);
  t.equal(r.code, 3, r.err);
  const doc = JSON.parse(readFileSync(join(cwd, 'ci/bisect.json'), 'utf8')) as { schema: string };
  t.equal(doc.schema, 'nomad-reboot-harness/bisect@1', 'the JSON document where --report-json says');
  t.match(readFileSync(join(cwd, 'ci/bisect-junit.xml'), 'utf8'), /<testsuite name="bisect:no-duplicate-ip@/);
  t.match(r.out, new RegExp(`reports: ${join(cwd, 'ci/bisect-junit.xml')} ${join(cwd, 'ci/bisect.json')} `));
  const s = standInPerRun(byFile, { cwd });
  const same = await main([...start(fx, fx.shas[2]!), '--junit', 'x.xml', '--report-json', 'x.xml'], {
    ...s.deps,
    builds: fixtureBuilds(fx, cwd),
  });
  t.equal(same, 2, 'one file for both is refused before anything is built');
  t.match(s.err.join(''), /--junit \/ --report-json: name the same file/);
});

t.test("a matrix's defaults scenarios_dir is where its scenario is found, as harness.yaml's is (Q41)", async (t) => {
  const cli = planOnlyCli(t);
  const dir = join(cli.dir, 'mine');
  writeLablessScenario(dir, 'pure-matrix');
  const file = join(cli.dir, 'm.yaml');
  writeFileSync(file, `scenario: pure-matrix\ndefaults:\n  scenarios_dir: ${dir}\naxes:\n  reboot: [graceful, hard]\n`);
  const r = await cli.run(['matrix', file, '--list-cells']);
  t.equal(r.code, 0, r.err);
  t.match(r.out, /pure-matrix\/reboot=graceful/);
  writeFileSync(
    file,
    `scenario: pure-matrix\ndefaults:\n  scenarios_dir: ${join(cli.dir, 'none')}\naxes:\n  reboot: [graceful]\n`,
  );
  const missing = await cli.run(['matrix', file, '--list-cells']);
  t.equal(missing.code, 2);
  t.match(missing.err, /m\.yaml: defaults: scenarios_dir: does not exist/, 'named where it was given');
});

t.test('a password in lab.hard_reset_command (ipmitool -P) is redacted in the plan (Q42)', async (t) => {
  const cli = planOnlyCli(t);
  const key = join(cli.dir, 'key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  const pw = 'Ipm1S3cretPassw0rd';
  // a port each: one machine listed twice is refused (Q334)
  const host = (port: number) => `{address: 127.0.0.1, port: ${port}, user: root, key: ${key}}`;
  const yaml = (cmd: string) =>
    `lab:\n  provider: ssh\n  hard_reset_command: ${cmd}\n  hosts:\n    servers: [${host(2201)}]\n    clients: [${host(2202)}]\n`;
  for (const cmd of [
    `"ipmitool -I lanplus -H {address} -U admin -P ${pw} chassis power reset"`,
    `[my-reset, "--password=${pw}", "{role}"]`,
  ]) {
    writeFileSync(join(cli.dir, 'h.yaml'), yaml(cmd));
    const r = await cli.run(['run', '--nomad', PLAN_NOMAD, '-c', join(cli.dir, 'h.yaml'), '--plan']);
    t.equal(r.code, 0, r.err);
    t.match(r.out, /"hardResetCommand": \[/);
    t.notMatch(r.out + r.err, pw, `${cmd}: the password is nowhere`);
    t.match(r.out, /\[REDACTED\]/);
  }
});

t.test("bisect --help says what its --json prints: the bisect's document, not run's summary (Q47)", async (t) => {
  const s = standInPerRun({}, { cwd: t.testdir({}) });
  t.equal(await main(['bisect', '--help'], s.deps), 0);
  const line = s.out
    .join('')
    .split('\n')
    .find((l) => l.trimStart().startsWith('--json'));
  t.match(line, /the bisect's JSON document \(bisect@1\) on stdout/);
  t.notMatch(line, /run, compare, matrix: the JSON summary/);
});

t.test("--replay of another check's log is refused: its verdicts would be taken for this check's (Q48)", async (t) => {
  const fx = bisectFixture(linearHistory(4, 2, 'pass', 'fail'));
  const cwd = t.testdir({});
  const first = await bisectIn(cwd, fx, [...start(fx, fx.shas[3]!), '--reports-dir', 'reports', '--tries', '1']);
  t.equal(first.code, 0, first.err);
  const log = join(first.folder!, 'bisect-log.jsonl');
  const other = [...start(fx, fx.shas[3]!), '--tries', '1', '--reports-dir', 'reports2', '--replay', log];
  other[other.indexOf('no-duplicate-ip')] = 'task-dirs';
  const s = standInPerRun(byFile, { cwd });
  const code = await main(other, { ...s.deps, builds: fixtureBuilds(fx, cwd) });
  t.equal(code, 2, 'refused, not a bisect of task-dirs made of no-duplicate-ip verdicts');
  t.match(
    s.err.join(''),
    /--replay: is the log of a bisect of no-duplicate-ip on bridge-exec-reboot: its tries' verdicts are that check's, not task-dirs's/,
  );
  t.equal(s.runs.length, 0, 'nothing ran');
  const same = await bisectIn(cwd, fx, [
    ...start(fx, fx.shas[3]!),
    '--tries',
    '1',
    '--reports-dir',
    'reports3',
    '--replay',
    log,
  ]);
  t.equal(same.code, 0, 'the same line replays');
});
