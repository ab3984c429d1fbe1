// The bisect loop over REAL git histories (a fake "nomad" whose behaviour changes at a planted commit), with a step
// runner that builds a commit by reading its tree and "runs" it by what its `behaviour` says: deterministic and flaky
// checks, a commit that does not compile, one whose build equals its parent's, both directions, interruption and
// resume from the log. The CLI through the Nomad stand-in is test/integration/bisect-cli.test.ts.
import t from 'tap';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { runBisect } from '../../lib/bisect/driver.js';
import type { BisectEvent, BisectIO, StepRunner } from '../../lib/bisect/io.js';
import { historyOf } from '../../lib/git/history.js';
import { appendEvent, gitBisectLog, readEvents } from '../../lib/bisect/log.js';
import type { BisectBuild, BisectTry } from '../../lib/model/bisect.js';
import { bisectFixture, linearHistory, type Fixture } from '../helpers/bisect-fixture.js';

// Note: each bisect here is dozens of git calls and, in bisect-cli, a stand-in run per try: seconds alone, a minute or
// more on 2 loaded cores (tap's default is 60 s a file)
t.setTimeout(5 * 60_000);

/** Builds read `main.go` and `behaviour` at the commit; runs follow `behaviour` (flaky:n fails every n-th try). */
function fakeRunner(fx: Fixture, o: { interruptAfterRuns?: number; controller?: AbortController } = {}) {
  // Note: read once from the tree (real git), then answered from memory: a process per question is slow under load
  const files = new Map<string, { behaviour: string; code: string }>();
  const tree = (commit: string) => {
    let f = files.get(commit);
    if (!f) {
      f = { behaviour: fx.git('show', `${commit}:behaviour`), code: fx.git('show', `${commit}:main.go`) };
      files.set(commit, f);
    }
    return f;
  };
  const runs: { commit: string; label: string }[] = [];
  const builds: string[] = [];
  const perCommit = new Map<string, number>();
  const runner: StepRunner = {
    async build(commit) {
      builds.push(commit);
      const { behaviour, code } = tree(commit);
      if (behaviour === 'broken') return { ok: false, ms: 5, error: 'main.go:3: syntax error: unexpected }' };
      const sha = (s: string) => createHash('sha256').update(s).digest('hex');
      return { ok: true, ms: 5, path: `/cache/${commit}/nomad`, sha256: sha(code + commit), codeSha256: sha(code) };
    },
    async run(commit, _build, label): Promise<BisectTry> {
      runs.push({ commit, label });
      if (o.interruptAfterRuns !== undefined && runs.length > o.interruptAfterRuns) {
        o.controller!.abort();
        return { verdict: 'interrupted', message: 'SIGTERM', ms: 1 };
      }
      const n = (perCommit.get(commit) ?? 0) + 1;
      perCommit.set(commit, n);
      const b = tree(commit).behaviour;
      const flaky = /^flaky:(\d+)$/.exec(b);
      const failed = b === 'fail' || (flaky !== null && n % Number(flaky[1]) === 0);
      if (b === 'skip') return { verdict: 'skipped', message: 'agent-kill does not reboot the host', ms: 1 };
      if (b === 'infra') return { verdict: 'error', message: 'vagrant up failed', ms: 1, runId: `r${runs.length}` };
      return { verdict: failed ? 'failed' : 'passed', message: b, ms: 1, runId: `r${runs.length}` };
    },
  };
  return { runner, runs, builds };
}

function io(fx: Fixture, runner: StepRunner, o: { earlier?: BisectEvent[]; log?: string; signal?: AbortSignal } = {}) {
  const events: BisectEvent[] = [];
  const said: string[] = [];
  const value: BisectIO = {
    history: historyOf(join(fx.dir, '.git')),
    runner,
    async record(e) {
      events.push(e);
      if (o.log) await appendEvent(o.log, e);
    },
    earlier: o.earlier ?? [],
    say: (l) => void said.push(l),
    signal: o.signal ?? new AbortController().signal,
  };
  return { io: value, events, said };
}

const setup = (fx: Fixture, goodI: number, badI: number, extra: { tries?: number; maxSkips?: number } = {}) => ({
  good: { ref: `c${goodI}`, sha: fx.shas[goodI]! },
  bad: { ref: `c${badI}`, sha: fx.shas[badI]! },
  check: 'task-dirs',
  tries: extra.tries ?? 3,
  maxSkips: extra.maxSkips ?? 5,
});

t.test('a regression over 32 commits: the planted commit, with git bisect order and about log2(n) steps', async (t) => {
  const fx = bisectFixture(linearHistory(32, 19, 'pass', 'fail'));
  const { runner, runs } = fakeRunner(fx);
  const { io: x, said } = io(fx, runner);
  const out = await runBisect(setup(fx, 0, 31), x);
  t.equal(out.result.status, 'found');
  t.equal(out.result.direction, 'regression');
  t.equal(out.result.culprit?.sha, fx.shas[19], 'the planted commit');
  t.equal(out.result.culprit?.pr, '#28019', 'its PR number from the subject');
  t.equal(out.result.confidence, 1, 'deterministic: every decision certain');
  t.same(out.result.reproduction, { fails: 3, tries: 3, k: 1 }, 'the failing endpoint ran --tries times; p = 1, k = 1');
  const steps = out.steps.filter((s) => s.role === 'step');
  t.ok(steps.length >= 4 && steps.length <= 6, `log2(30) steps, saw ${steps.length}`);
  t.equal(runs.filter((r) => r.commit === fx.shas[0]).length, 1, 'the passing endpoint: one pass is enough when p = 1');
  t.ok(
    said.some((l) => /first bad/.test(l) === false && /regression: the check fails/.test(l)),
    'the direction is said',
  );
});

t.test('a fix (fails on the older ref, passes on the newer): the first fixed commit, in fix terms', async (t) => {
  const fx = bisectFixture(linearHistory(24, 7, 'fail', 'pass'));
  const { runner } = fakeRunner(fx);
  const { io: x, said } = io(fx, runner);
  const out = await runBisect(setup(fx, 0, 23), x);
  t.equal(out.result.status, 'found');
  t.equal(out.result.direction, 'fix');
  t.equal(out.result.culprit?.sha, fx.shas[7]);
  t.match(out.result.message, /^first fixed commit: /);
  t.ok(
    said.some((l) => /: fixed \(/.test(l)),
    'steps say fixed/unfixed',
  );
  const log = gitBisectLog({ old: out.old, new: out.new, direction: 'fix' }, out.steps, out.result.culprit?.sha);
  t.match(log, /^git bisect start '--term-old=unfixed' '--term-new=fixed'\n/);
  t.match(log, new RegExp(`git bisect fixed ${fx.shas[23]}`));
});

t.test('the refs given newest first: the older is bisected from, and it is said', async (t) => {
  const fx = bisectFixture(linearHistory(12, 5, 'pass', 'fail'));
  const { runner } = fakeRunner(fx);
  const { io: x, said } = io(fx, runner);
  const out = await runBisect(setup(fx, 11, 0), x);
  t.equal(out.result.culprit?.sha, fx.shas[5]);
  t.ok(said.some((l) => /is older than --good/.test(l)));
});

t.test('a flaky check (fails one run in two): p measured, passes need more tries, confidence below 1', async (t) => {
  const fx = bisectFixture(linearHistory(20, 13, 'pass', 'flaky:2'));
  const { runner } = fakeRunner(fx);
  const { io: x } = io(fx, runner);
  const out = await runBisect(setup(fx, 0, 19, { tries: 4 }), x);
  t.equal(out.result.reproduction?.fails, 2, 'fails on tries 2 and 4 of the failing endpoint');
  t.equal(out.result.reproduction?.k, 4, 'p = 0.5 -> k = ceil(log 0.05 / log 0.5) = 5, capped by --tries 4');
  t.equal(out.result.culprit?.sha, fx.shas[13], 'still the planted commit');
  const passes = out.steps.filter((s) => s.decision === 'old');
  t.ok(
    passes.every((s) => s.tries.length === 4 && s.probability === 1 - 0.5 ** 4),
    'each pass: 4 tries, 93.75%',
  );
  t.ok(out.result.confidence < 1 && out.result.confidence > 0, `confidence ${out.result.confidence}`);
});

t.test('a check that rarely reproduces and few tries: inconclusive, with the range left', async (t) => {
  const fx = bisectFixture(linearHistory(40, 30, 'pass', 'flaky:3'));
  const { runner } = fakeRunner(fx);
  const { io: x } = io(fx, runner);
  const out = await runBisect(setup(fx, 0, 39, { tries: 3 }), x);
  t.equal(out.result.reproduction?.fails, 1, 'one of three');
  t.equal(out.result.status, 'inconclusive', `confidence ${out.result.confidence}`);
  t.ok(out.result.confidence < 0.66);
  t.ok(out.result.range.length > 1, `range of ${out.result.range.length}`);
  t.ok(out.result.range.includes(fx.shas[30]!), 'the range holds the planted commit');
});

t.test('a commit that does not compile and one whose run breaks are skipped, never good or bad', async (t) => {
  const commits = linearHistory(16, 9, 'pass', 'fail');
  commits[12] = { ...commits[12]!, behaviour: 'broken' };
  commits[4] = { ...commits[4]!, behaviour: 'infra' };
  const fx = bisectFixture(commits);
  const { runner } = fakeRunner(fx);
  const { io: x } = io(fx, runner);
  const out = await runBisect(setup(fx, 0, 15), x);
  t.equal(out.result.culprit?.sha, fx.shas[9]);
  const skips = out.steps.filter((s) => s.decision === 'skip');
  t.ok(skips.length >= 1, `${skips.length} skip(s)`);
  t.ok(
    skips.every((s) => s.commit.sha === fx.shas[12] || s.commit.sha === fx.shas[4]),
    'only the broken build and the broken run',
  );
  t.ok(
    skips.some((s) => /build failed/.test(s.reason)),
    'the build failure is named',
  );
});

t.test(
  'when the only commit left besides the first bad one is unbuildable: inconclusive between the two',
  async (t) => {
    const commits = linearHistory(10, 6, 'pass', 'fail');
    commits[5] = { ...commits[5]!, behaviour: 'broken' };
    const fx = bisectFixture(commits);
    const { runner } = fakeRunner(fx);
    const { io: x } = io(fx, runner);
    const out = await runBisect(setup(fx, 0, 9), x);
    t.equal(out.result.status, 'inconclusive');
    t.same([...out.result.range].sort(), [fx.shas[5], fx.shas[6]].sort(), 'the skipped commit and the first bad one');
  },
);

t.test('too many skips in a row abort with the range left', async (t) => {
  const commits = linearHistory(20, 15, 'pass', 'fail');
  for (let i = 1; i < 19; i++) if (i !== 15) commits[i] = { ...commits[i]!, behaviour: 'broken' };
  const fx = bisectFixture(commits);
  const { runner } = fakeRunner(fx);
  const { io: x } = io(fx, runner);
  const out = await runBisect(setup(fx, 0, 19, { maxSkips: 3 }), x);
  t.equal(out.result.status, 'aborted');
  t.match(out.result.message, /3 commits in a row were skipped/);
  t.ok(out.result.range.length > 3);
});

t.test("the culprit's flags: its build equals its parent's; it changes only docs; a merge", async (t) => {
  const commits = linearHistory(12, 6, 'pass', 'fail');
  // commit 6 flips the behaviour but its code is commit 5's: the binary would be the same
  commits[6] = { ...commits[6]!, code: 'code of commit 5' };
  const fx = bisectFixture(commits);
  const { runner } = fakeRunner(fx);
  const { io: x, said } = io(fx, runner);
  const out = await runBisect(setup(fx, 0, 11), x);
  t.equal(out.result.culprit?.flags.sameBinaryAsParent, true);
  t.equal(out.result.culprit?.flags.merge, false);
  t.equal(out.result.culprit?.flags.docsOrTestsOnly, false, 'it changes behaviour and main.go');
  t.ok(said.some((l) => /built .*the culprit's parent/.test(l)) || out.steps.some((s) => s.commit.sha === fx.shas[5]));

  const docs = linearHistory(8, 4, 'pass', 'pass');
  docs[4] = {
    subject: 'docs: a note',
    behaviour: '',
    only: { 'website/content/a.md': 'x', '.changelog/28345.txt': 'y' },
  };
  const fd = bisectFixture(docs);
  const info = await historyOf(join(fd.dir, '.git')).commitInfo(fd.shas[4]!);
  t.same(info.files.sort(), ['.changelog/28345.txt', 'website/content/a.md']);
  t.same(info.changelog, ['GH-28345'], 'the changelog entry names the public issue');
  const { culpritFlags } = await import('../../lib/bisect/decide.js');
  t.equal(culpritFlags(info, undefined).docsOrTestsOnly, true);
});

t.test('refs on two branches: bisected from their merge base, as git bisect does', async (t) => {
  const fx = bisectFixture(linearHistory(10, 6, 'pass', 'fail'));
  // a side branch from commit 3 with one commit: --good is there, not an ancestor of --bad
  fx.git('checkout', '-q', '-b', 'side', fx.shas[3]!);
  fx.git('commit', '-q', '--allow-empty', '-m', 'side: unrelated');
  const side = fx.git('rev-parse', 'HEAD');
  const { runner, runs } = fakeRunner(fx);
  const { io: x, said } = io(fx, runner);
  const out = await runBisect({ ...setup(fx, 0, 9), good: { ref: 'side', sha: side } }, x);
  t.equal(out.result.culprit?.sha, fx.shas[6]);
  t.equal(runs[0]!.commit, fx.shas[3], 'the merge base is tested first');
  t.ok(said.some((l) => /merge base/.test(l)));
  t.equal(out.steps[0]!.role, 'merge-base');
});

t.test('no flip: the check passes on both endpoints -> no-flip, nothing bisected', async (t) => {
  const fx = bisectFixture(linearHistory(8, 3, 'pass', 'pass'));
  const { runner, runs } = fakeRunner(fx);
  const { io: x } = io(fx, runner);
  const out = await runBisect(setup(fx, 0, 7, { tries: 2 }), x);
  t.equal(out.result.status, 'no-flip');
  t.match(out.result.message, /passed on both endpoints/);
  t.equal(runs.length, 4, 'each endpoint tried --tries times');
});

t.test('interrupted mid-bisect, resumed from its log: finished tries are not run again, same answer', async (t) => {
  const fx = bisectFixture(linearHistory(32, 21, 'pass', 'fail'));
  const log = join(t.testdir({}), 'bisect-log.jsonl');
  const controller = new AbortController();
  const first = fakeRunner(fx, { interruptAfterRuns: 6, controller });
  const a = io(fx, first.runner, { log, signal: controller.signal });
  const out1 = await runBisect(setup(fx, 0, 31), a.io);
  t.equal(out1.result.status, 'interrupted');
  const earlier = await readEvents(log);
  t.equal(earlier.filter((e) => e.e === 'try' && e.try.verdict !== 'interrupted').length, 6, 'six tries logged');

  const second = fakeRunner(fx);
  const b = io(fx, second.runner, { log, earlier });
  const out2 = await runBisect(setup(fx, 0, 31), b.io);
  t.equal(out2.result.status, 'found');
  t.equal(out2.result.culprit?.sha, fx.shas[21]);
  const rerun = second.runs.filter((r) => first.runs.slice(0, 6).some((f) => f.label === r.label));
  t.same(rerun, [], 'no finished try ran again');
  t.ok(
    b.said.some((l) => /from the log/.test(l)),
    'reused tries are said',
  );
  t.equal(second.builds.length + first.builds.length - new Set([...first.builds]).size >= 0, true);
  t.ok(
    second.builds.every((c) => !first.builds.includes(c)),
    'no build is asked twice: the log holds them',
  );
});

t.test(
  'an endpoint where the check is skipped is bad input (no-flip, exit 2); one whose run broke is broken (exit 3)',
  async (t) => {
    const skipped = bisectFixture(linearHistory(6, 3, 'skip', 'fail'));
    const a = io(skipped, fakeRunner(skipped).runner);
    const out = await runBisect(setup(skipped, 0, 5), a.io);
    t.equal(out.result.status, 'no-flip');
    t.match(out.result.message, /was skipped on the endpoint .*agent-kill does not reboot the host.*choose a check/);
    const infra = bisectFixture(linearHistory(6, 3, 'pass', 'infra'));
    const b = io(infra, fakeRunner(infra).runner);
    const out2 = await runBisect(setup(infra, 0, 5), b.io);
    t.equal(out2.result.status, 'broken');
    t.match(out2.result.message, /gave no verdict \(error: vagrant up failed\)/);
  },
);
