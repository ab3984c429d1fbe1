// `bisect` through the real CLI code path (main -> the bisect command -> each try a `run` through the session
// machinery) against STAND-INS: a fixture git history of a fake "nomad" (real git) whose commits say which
// timeline a build of them follows in the Nomad stand-in (restored, or the 1.9.3 duplicate-IP failure), a build layer
// that "builds" a commit by writing what its tree says, and a fresh stand-in lab per try. Planted culprits in both
// directions, a commit that does not compile, resume after SIGTERM mid-bisect, bad input at once.
import t, { type Test } from 'tap';
import { EventEmitter } from 'node:events';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import { HarnessError } from '../../lib/errors.js';
import type { BuildLayer } from '../../lib/cli/deps.js';
import { standInPerRun, type StandInBuild } from '../helpers/stand-in-env.js';
import { bisectFixture, linearHistory, type Fixture } from '../helpers/bisect-fixture.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import { CLI_COMPILED } from '../helpers/cli-child.js';

// Note: each bisect here is dozens of git calls and, in bisect-cli, a stand-in run per try: seconds alone, a minute or
// more on 2 loaded cores (tap's default is 60 s a file)
t.setTimeout(5 * 60_000);
// Note: each test has its own fixture repository, directories, stand-ins and signal source, and most of a bisect's
// time is its tries waiting on the stand-ins' timelines: side by side they overlap those waits.
t.jobs = 4;

/** Builds write `behaviour` of the commit to <dir>/builds/<commit>/nomad; `broken` does not compile. */
function fixtureBuilds(fx: Fixture, dir: string): { layer: BuildLayer; built: string[] } {
  const built: string[] = [];
  const layer: BuildLayer = {
    async check(refs) {
      return refs
        .filter((r) => !r.spec.startsWith(`git:${fx.dir}@`))
        .map((r) => ({ field: r.field, value: r.spec, message: 'is not the fixture tree', fix: 'test setup' }));
    },
    async resolve(ref) {
      const commit = ref.spec.split('@').at(-1)!;
      const behaviour = fx.git('show', `${commit}:behaviour`);
      built.push(commit);
      if (behaviour === 'broken')
        throw new HarnessError(`${ref.spec}: go build failed (exit 1); last lines:\n    main.go:3: syntax error`, {
          exitCode: 3,
        });
      const path = join(dir, 'builds', commit, 'nomad');
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, behaviour);
      const sha256 = createHash('sha256').update(behaviour).digest('hex');
      return {
        spec: ref.spec,
        path,
        sha256,
        version: '1.9.7',
        revision: commit,
        origin: { kind: 'git', dir: fx.dir, commit, dirty: false },
      };
    },
  };
  return { layer, built };
}

/** Run a process to its end: its exit status and stderr (what spawnSync gives, without blocking the event loop). */
function spawnCli(
  file: string,
  args: string[],
  o: { cwd: string; env: NodeJS.ProcessEnv; timeout: number },
): Promise<{ status: number | null; stderr: string }> {
  return new Promise((res) => {
    execFile(file, args, { ...o, encoding: 'utf8' }, (err, _stdout, stderr) =>
      res({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stderr }),
    );
  });
}

/** Each binary's stand-in behaviour, read from the file the build layer wrote. */
const byFile: Record<string, StandInBuild> = new Proxy(
  {},
  {
    get: (_t, path: string) => {
      const b = readFileSync(path, 'utf8').trim();
      return { timeline: b === 'fail' ? 'duplicate-ip' : 'restored', version: '1.9.7' } satisfies StandInBuild;
    },
  },
);

async function bisect(t: Test, fx: Fixture, args: string[], o: { signals?: EventEmitter; cwd?: string } = {}) {
  const dir = o.cwd ?? t.testdir({});
  const s = standInPerRun(byFile, { cwd: dir });
  const b = fixtureBuilds(fx, dir);
  const deps = { ...s.deps, builds: b.layer, ...(o.signals ? { signalSource: o.signals } : {}) };
  const code = await main(
    [
      'bisect',
      'bridge-exec-reboot',
      '--source',
      `git:${fx.dir}`,
      '--reports-dir',
      join(dir, 'reports'),
      '--netns',
      '',
      ...args,
    ],
    deps,
  );
  const folder = existsSync(join(dir, 'reports'))
    ? readdirSync(join(dir, 'reports')).find((f) => f.startsWith('bisect-'))
    : undefined;
  const doc = () => JSON.parse(readFileSync(join(dir, 'reports', folder!, 'bisect.json'), 'utf8'));
  return { code, dir, folder, doc, out: s.out.join(''), err: s.err.join(''), runs: s.runs, built: b.built };
}

t.test('a regression over 24 commits: the planted commit, its PR, reports, each try a real run', async (t) => {
  const fx = bisectFixture(linearHistory(24, 15, 'pass', 'fail'), { 'v1.0.0': 0, 'v1.1.0': 23 });
  const r = await bisect(t, fx, ['--good', 'v1.0.0', '--bad', 'v1.1.0', '--check', 'no-duplicate-ip', '--tries', '1']);
  t.equal(r.code, 0, `exit 0\n${r.out}\n${r.err}`);
  const doc = r.doc();
  t.equal(doc.status, 'found');
  t.equal(doc.direction, 'regression');
  t.equal(doc.culprit.sha, fx.shas[15]);
  t.equal(doc.culprit.pr, '#28015');
  t.match(r.out, new RegExp(`first bad commit: ${fx.shas[15]}`));
  t.match(r.out, /FOUND bisect of no-duplicate-ip \(bridge-exec-reboot\) v1.0.0..v1.1.0/);
  t.ok(
    r.runs.every((x) => x.lab.destroyed),
    'every stand-in lab torn down',
  );
  const tries = doc.steps.flatMap((s: { tries: { reportDir: string; runId: string }[] }) => s.tries);
  t.equal(tries.length, r.runs.length, 'one run per try');
  for (const x of tries) t.ok(existsSync(join(r.dir, 'reports', r.folder!, x.reportDir, 'report.html')), x.runId);
  validateJUnit(t, join(r.dir, 'reports', r.folder!, 'junit.xml'));
  const html = readFileSync(join(r.dir, 'reports', r.folder!, 'report.html'), 'utf8');
  t.match(html, /first bad commit:/);
  const log = readFileSync(join(r.dir, 'reports', r.folder!, 'git-bisect.log'), 'utf8');
  t.match(log, new RegExp(`^# first bad commit: \\[${fx.shas[15]}\\]$`, 'm'));
  t.ok(
    r.runs.every((x) => x.config.lab.warmSnapshot === 'before-nomad'),
    'every try asks for the snapshot taken before any Nomad ran',
  );
});

t.test('a fix, with a commit that does not compile on the way: skipped, the first fixed commit found', async (t) => {
  const commits = linearHistory(16, 9, 'fail', 'pass');
  commits[12] = { ...commits[12]!, behaviour: 'broken' };
  commits[4] = { ...commits[4]!, behaviour: 'broken' };
  const fx = bisectFixture(commits);
  const r = await bisect(t, fx, [
    '--good',
    fx.shas[0]!,
    '--bad',
    fx.shas[15]!,
    '--check',
    'no-duplicate-ip',
    '--tries',
    '2',
  ]);
  t.equal(r.code, 0, r.out);
  const doc = r.doc();
  t.equal(doc.direction, 'fix');
  t.equal(doc.culprit.sha, fx.shas[9]);
  t.match(r.out, /first fixed commit/);
  t.same(doc.reproduction, { fails: 2, tries: 2, k: 1 });
});

t.test('bad input, every problem at once, before any build or run (exit 2)', async (t) => {
  const fx = bisectFixture(linearHistory(6, 3, 'pass', 'fail'), { 'v1.9.3': 0 });
  const r = await bisect(t, fx, [
    '--good',
    'v1.9.9',
    '--bad',
    'nope',
    '--check',
    'task-dirz',
    '--tries',
    '0',
    '--nomad',
    '1.9.7',
  ]);
  t.equal(r.code, 2);
  t.match(r.err, /--good: names no commit .*the nearest tags: v1\.9\.3/);
  t.match(r.err, /--bad: names no commit/);
  t.match(r.err, /--check: is not a check of bridge-exec-reboot .*did you mean task-dirs\?/);
  t.match(r.err, /--tries: must be a whole number from 1 to 20/);
  t.match(r.err, /--nomad: is an option of .*not of `bisect`/);
  t.same(r.built, [], 'nothing built');
  t.equal(r.runs.length, 0, 'nothing run');
  const same = await bisect(t, fx, ['--good', 'v1.9.3', '--bad', fx.shas[0]!, '--check', 'task-dirs']);
  t.equal(same.code, 2);
  t.match(same.err, /--good\/--bad: name the same commit/);
  const missing = await bisect(t, fx, []);
  t.match(missing.err, /--good: is required[\s\S]*--bad: is required[\s\S]*--check: is required/);
  // its own report named like harness.yaml, which it reads: refused, the file left as it was
  const dir = t.testdir({ 'h.yaml': 'lab:\n  cpus: 1\n' });
  const args = ['--good', 'v1.9.3', '--bad', fx.shas[5]!, '--check', 'task-dirs', '-c', join(dir, 'h.yaml')];
  const over = await bisect(t, fx, [...args, '--report-json', join(dir, 'h.yaml')], { cwd: dir });
  t.equal(over.code, 2);
  t.match(over.err, /--report-json: is a file this command reads \(--config\): the report would be written over it/);
  t.equal(readFileSync(join(dir, 'h.yaml'), 'utf8'), 'lab:\n  cpus: 1\n', 'harness.yaml is as it was');
  t.same(over.built, [], 'nothing built');
});

t.test('a dirty work tree or a directory that is no repository is refused', async (t) => {
  const fx = bisectFixture(linearHistory(4, 2, 'pass', 'fail'));
  writeFileSync(join(fx.dir, 'main.go'), 'package main // edited\n');
  const r = await bisect(t, fx, ['--good', fx.shas[0]!, '--bad', fx.shas[3]!, '--check', 'no-duplicate-ip']);
  t.equal(r.code, 2);
  t.match(r.err, /--source: has uncommitted changes \(1 file: M main\.go\)/);
  // Note: outside the project's own repository (a test folder inside it is part of its work tree)
  const dir = mkdtempSync(join(tmpdir(), 'nrh-not-a-repo-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const s = standInPerRun(byFile, { cwd: dir });
  const code = await main(
    ['bisect', '--source', `git:${dir}`, '--good', 'a', '--bad', 'b', '--check', 'task-dirs', '--netns', ''],
    s.deps,
  );
  t.equal(code, 2);
  t.match(s.err.join(''), /--source: is not a git repository/);
  // the same without --source, through the CLI process with its real build layer (the stand-ins' builds take any
  // tree): the default git:. of a folder that is no repository, told once and not again as the first try's build
  // Note: spawned, not spawnSync: the tests beside this one keep running while the CLI starts; the compiled entry
  // when the tests run compiled (no TypeScript of the test's own to load: tsx's loader would cost a second of CPU)
  const child = await spawnCli(
    process.execPath,
    [CLI_COMPILED, 'bisect', '--good', 'a', '--bad', 'b', '--check', 'task-dirs', '--netns', ''],
    { cwd: dir, env: { ...process.env, CI: 'true' }, timeout: 120_000 },
  );
  t.equal(child.status, 2, child.stderr);
  t.match(child.stderr, /--source: is not a git repository .*got "git:\."/);
  t.equal(child.stderr.match(/--source: /g)?.length, 1, `git:. told once (Q26): ${child.stderr}`);
});

t.test('no flip between the endpoints: exit 2 with the evidence, nothing bisected', async (t) => {
  const fx = bisectFixture(linearHistory(8, 4, 'pass', 'pass'));
  const r = await bisect(t, fx, [
    '--good',
    fx.shas[0]!,
    '--bad',
    fx.shas[7]!,
    '--check',
    'no-duplicate-ip',
    '--tries',
    '1',
  ]);
  t.equal(r.code, 2);
  t.match(r.out, /passed on both endpoints/);
  t.equal(r.runs.length, 2, 'each endpoint once (--tries 1)');
});

t.test('SIGTERM mid-bisect: exit 130, then --resume finishes without running a finished try again', async (t) => {
  const fx = bisectFixture(linearHistory(20, 13, 'pass', 'fail'));
  const cwd = t.testdir({});
  const signals = new EventEmitter();
  const args = ['--good', fx.shas[0]!, '--bad', fx.shas[19]!, '--check', 'no-duplicate-ip', '--tries', '1'];
  // SIGTERM as the third try starts its run
  let started = 0;
  const s = standInPerRun(byFile, { cwd });
  const b = fixtureBuilds(fx, cwd);
  const makeEnv: typeof s.deps.makeEnv = (config, runId, logger, sc) => {
    if (++started === 3) setImmediate(() => signals.emit('SIGTERM', 'SIGTERM'));
    return s.deps.makeEnv(config, runId, logger, sc);
  };
  const code = await main(
    ['bisect', '--source', `git:${fx.dir}`, '--reports-dir', join(cwd, 'reports'), '--netns', '', ...args],
    { ...s.deps, makeEnv, builds: b.layer, signalSource: signals },
  );
  t.equal(code, 130, s.err.join(''));
  const folder = readdirSync(join(cwd, 'reports')).find((f) => f.startsWith('bisect-'))!;
  t.match(s.err.join(''), new RegExp(`bisect --resume ${join(cwd, 'reports', folder)}`));
  t.ok(
    s.runs.every((x) => x.lab.destroyed),
    'the interrupted try tore its lab down',
  );
  const firstRuns = s.runs.length;

  const again = standInPerRun(byFile, { cwd });
  const b2 = fixtureBuilds(fx, cwd);
  const code2 = await main(['bisect', '--resume', join(cwd, 'reports', folder)], { ...again.deps, builds: b2.layer });
  t.equal(code2, 0, again.out.join(''));
  const doc = JSON.parse(readFileSync(join(cwd, 'reports', folder, 'bisect.json'), 'utf8'));
  t.equal(doc.culprit.sha, fx.shas[13]);
  t.match(again.out.join(''), /from the log/);
  t.ok(again.runs.length > 0 && firstRuns >= 2, `${firstRuns} runs before, ${again.runs.length} after`);
  const endpointsAgain = again.runs.filter((x) => x.binary.includes(fx.shas[0]!) || x.binary.includes(fx.shas[19]!));
  t.same(endpointsAgain, [], 'the endpoints, finished before the signal, are not run again');
  const resumeWithMore = await main(['bisect', '--resume', join(cwd, 'reports', folder), '--tries', '2'], again.deps);
  t.equal(resumeWithMore, 2, '--resume takes nothing else');
});

t.test(
  "the first try's problems are told as they are: a build problem under --source, a run flag under its name (pass 4)",
  async (t) => {
    const fx = bisectFixture(linearHistory(4, 2, 'pass', 'fail'));
    const dir = t.testdir({});
    const s = standInPerRun(byFile, { cwd: dir });
    // a build layer that cannot build any commit of the tree (as with no Go on PATH)
    const noGo: BuildLayer = {
      async check(refs) {
        return refs.map((r) => ({
          field: r.field,
          value: r.spec,
          message: 'building it needs Go >= 1.23 (go.mod), and there is no go on PATH',
          fix: 'install Go 1.23 or newer',
        }));
      },
      async resolve() {
        throw new Error('not reached');
      },
    };
    const args = ['bisect', '--source', `git:${fx.dir}`, '--good', fx.shas[0]!, '--bad', fx.shas[3]!];
    const code = await main([...args, '--check', 'task-dirs', '--nomad-retry-for', 'abc', '--netns', ''], {
      ...s.deps,
      builds: noGo,
    });
    t.equal(code, 2);
    const err = s.err.join('');
    t.match(err, /--source: at [0-9a-f]{10} \(--good\): building it needs Go >= 1\.23/, 'the build problem, named');
    t.match(err, /--nomad-retry-for: must be a duration/, 'a run flag of the try is told, not hidden');
    t.notMatch(err, /could not be read/);
    // upgrade-in-place: the build to upgrade to is named where bisect takes it, not as a flag it refuses
    const u = standInPerRun(byFile, { cwd: dir });
    const code2 = await main(
      ['bisect', 'upgrade-in-place', ...args.slice(1), '--check', 'state-agrees', '--netns', ''],
      {
        ...u.deps,
        builds: fixtureBuilds(fx, dir).layer,
      },
    );
    t.equal(code2, 2);
    t.match(u.err.join(''), /upgrade_to \(NOMAD_UPGRADE_TO\): is required .*fix: bisect installs each commit/);
    t.notMatch(u.err.join(''), /pass --upgrade-to/);
  },
);

t.test('--json: stdout holds the bisect document alone, the progress goes to stderr (pass 4)', async (t) => {
  const fx = bisectFixture(linearHistory(3, 1, 'broken', 'fail'));
  const r = await bisect(t, fx, ['--good', fx.shas[0]!, '--bad', fx.shas[2]!, '--check', 'task-dirs', '--json']);
  t.equal(r.code, 3, 'the endpoint does not build');
  const doc = JSON.parse(r.out);
  t.equal(doc.schema, 'nomad-reboot-harness/bisect@1');
  t.equal(doc.status, 'broken');
  t.same(doc, r.doc(), 'the document written to bisect.json');
  t.match(r.err, /BROKEN bisect of task-dirs/);
});
