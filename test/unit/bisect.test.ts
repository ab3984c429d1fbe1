// The pure half of bisect: how many passes a pass needs, what tries decide, the confidence, the culprit's flags and
// references, git's bisect log, the build identity, the reports and exit codes.
import t from 'tap';
import {
  confidenceOf,
  culpritFlags,
  decideTries,
  directionOf,
  passConfidence,
  passesNeeded,
} from '../../lib/bisect/decide.js';
import { changelogIssues, prOf } from '../../lib/parse/git-commit.js';
import { gitBisectLog } from '../../lib/bisect/log.js';
import { blankedSha256 } from '../../lib/builds/identity.js';
import {
  bisectExitCode,
  renderBisectHtml,
  renderBisectJson,
  renderBisectJUnit,
  renderBisectSummary,
  type BisectReport,
} from '../../lib/report/bisect.js';
import type { BisectResult, BisectStep, CommitInfo } from '../../lib/model/bisect.js';

t.test('passes a pass needs: (1-p)^k <= 0.05, capped by --tries; syzbot-like numbers', async (t) => {
  t.equal(passesNeeded(1, 3), 1, 'a check that always reproduces: one pass');
  t.equal(passesNeeded(0.5, 10), 5, '0.5^5 = 0.031 <= 0.05 < 0.5^4');
  t.equal(passesNeeded(0.5, 3), 3, 'capped by --tries');
  t.equal(passesNeeded(2 / 3, 10), 3, '(1/3)^3 = 0.037');
  t.equal(passesNeeded(0.25, 20), 11, '0.75^11 = 0.042');
  t.equal(passesNeeded(0, 4), 4, 'no reproduction measured: the cap');
  t.equal(Math.round(passConfidence(0.5, 3) * 1000) / 1000, 0.875);
});

t.test('what tries decide, in both directions', async (t) => {
  const P = { verdict: 'passed' as const, message: '' };
  const F = { verdict: 'failed' as const, message: 'secrets/ on ext4' };
  const reg = { direction: 'regression' as const, p: 1, k: 1 };
  const fix = { direction: 'fix' as const, p: 0.5, k: 3 };
  t.match(decideTries([F], reg), { done: true, decision: 'new', probability: 1 }, 'a failure is the bad side at once');
  t.match(decideTries([P], reg), { done: true, decision: 'old', probability: 1 });
  t.match(decideTries([P, P], fix), { done: false }, 'two of three passes: try again');
  t.match(decideTries([P, P, F], fix), { done: true, decision: 'old' }, 'fix: the failure is the unfixed (old) side');
  t.match(decideTries([P, P, P], fix), { done: true, decision: 'new', probability: 0.875 });
  t.match(
    decideTries([{ verdict: 'skipped', message: 'the fault kind skips it' }], reg),
    { done: true, decision: 'skip', reason: /no verdict: skipped/ },
    'a skipped check is a skip, never good or bad',
  );
  t.match(decideTries([{ verdict: 'error', message: 'vagrant up failed' }], reg), { decision: 'skip' });
  t.equal(directionOf(false, true), 'regression');
  t.equal(directionOf(true, false), 'fix');
  t.equal(directionOf(true, true), undefined, 'no flip');
  t.equal(confidenceOf([1, 0.875, 0.875]), 0.765625);
});

t.test("a commit's references and flags", async (t) => {
  t.equal(prOf('Backport of secrets_hook: do not set done into release/2.0.x (#28304)', ''), '#28304');
  t.equal(
    prOf(
      'client: Remount alloc tmpfs on client and alloc recovery',
      'Backport of client: Remount alloc tmpfs on client and alloc recovery. into release/2.0.x (#28357)\n\nIn situations',
    ),
    '#28357',
    'the body of a backport names the PR',
  );
  t.equal(prOf('a commit with no number', 'nor here'), undefined);
  t.same(changelogIssues(['.changelog/28345.txt', 'client/allocdir/task_dir.go']), ['GH-28345']);
  const c = (files: string[], parents = ['a']): CommitInfo => ({
    sha: 'c',
    subject: 's',
    changelog: [],
    authorDate: '',
    parents,
    files,
  });
  t.same(culpritFlags(c(['website/content/docs/a.mdx', 'client/x_test.go', '.changelog/1.txt']), undefined), {
    merge: false,
    docsOrTestsOnly: true,
  });
  t.same(culpritFlags(c(['client/allocdir/task_dir.go'], ['a', 'b']), false), {
    sameBinaryAsParent: false,
    merge: true,
    docsOrTestsOnly: false,
  });
});

t.test("a build's identity blanks the commit stamps: equal code, equal identity", async (t) => {
  const sha1 = 'a'.repeat(40);
  const sha2 = 'b'.repeat(40);
  const bin = (sha: string, date: string, code = 'CODE') =>
    Buffer.from(`\x7fELF ${code} GitCommit=${sha} Date=${date} end`);
  t.equal(
    blankedSha256(bin(sha1, '2026-07-30T10:00:00Z'), [sha1, '2026-07-30T10:00:00Z']),
    blankedSha256(bin(sha2, '2026-07-31T08:42:26Z'), [sha2, '2026-07-31T08:42:26Z']),
  );
  t.not(
    blankedSha256(bin(sha1, 'D1-xxxxxxxx'), [sha1, 'D1-xxxxxxxx']),
    blankedSha256(bin(sha2, 'D2-xxxxxxxx', 'OTHER'), [sha2, 'D2-xxxxxxxx']),
    'other code, other identity',
  );
});

const info = (sha: string, subject: string, date: string): CommitInfo => ({
  sha: sha.repeat(40).slice(0, 40),
  subject,
  changelog: [],
  authorDate: date,
  parents: [],
  files: [],
});
const step = (
  n: number,
  c: CommitInfo,
  decision: BisectStep['decision'],
  role: BisectStep['role'] = 'step',
): BisectStep => ({
  n,
  role,
  commit: c,
  build: { ok: decision !== 'skip', ms: 180_000 },
  tries:
    decision === 'skip'
      ? []
      : [
          {
            verdict: decision === 'old' ? 'failed' : 'passed',
            message: 'm',
            ms: 240_000,
            runId: `r${n}`,
            // a step of an older bisect counts by its name, a newer one by its id whatever its name
            phases: [
              { name: 'bring up the server and client VMs', ms: 30_000 },
              { name: 'revert the warm lab', id: 'lab-up', ms: 6_000 },
              { name: 'swap in the build', id: 'install', ms: 4_000 },
              { name: 'install Nomad and start the agents', id: 'job-running', ms: 9_000 },
            ],
          },
        ],
  decision,
  probability: 1,
  reason: 'why',
  left: 3,
});

function report(result: BisectResult): BisectReport {
  const old = info('1', 'v2.0.4', '2026-07-01');
  const mid = info('2', 'Backport of a thing (#28349)', '2026-07-20');
  const broken = info('4', 'does not <compile>', '2026-07-25');
  const nw = info('3', 'v2.0.5', '2026-08-01');
  return {
    scenario: 'bridge-exec-reboot',
    check: 'task-dirs',
    source: 'git:/src/nomad',
    good: { ref: 'v2.0.4', sha: old.sha },
    bad: { ref: 'v2.0.5', sha: nw.sha },
    old: old.sha,
    new: nw.sha,
    steps: [
      step(1, old, 'old', 'old-endpoint'),
      step(2, nw, 'new', 'new-endpoint'),
      step(3, mid, 'new'),
      step(4, broken, 'skip'),
    ],
    result,
    startedAtMs: Date.parse('2026-12-06T06:00:00Z'),
    durationMs: 3_600_000,
    pages: { r3: 'runs/2222222222-try1/r3/report.html' },
  };
}

const FOUND: BisectResult = {
  status: 'found',
  direction: 'fix',
  culprit: {
    ...info('2', 'Backport of a thing (#28349)', '2026-07-20'),
    pr: '#28349',
    changelog: ['GH-28345'],
    flags: { merge: false, docsOrTestsOnly: false, sameBinaryAsParent: false },
  },
  range: ['2'.repeat(40)],
  confidence: 1,
  reproduction: { fails: 3, tries: 3, k: 1 },
  message: 'first fixed commit: 2222222222 Backport of a thing (#28349) (confidence 100%)',
};

t.test('reports: JSON, JUnit, HTML and the closing lines', async (t) => {
  const r = report(FOUND);
  const json = JSON.parse(renderBisectJson(r));
  t.equal(json.schema, 'nomad-reboot-harness/bisect@1');
  t.equal(json.exitCode, 0);
  t.same(
    json.steps.map((s: { term: string }) => s.term),
    ['unfixed', 'fixed', 'fixed', 'skip'],
  );
  t.same(json.steps[2].times, { build: 180_000, lab: 40_000, run: 200_000, total: 420_000 }, 'time split per step');
  const xml = renderBisectJUnit(r);
  t.match(xml, /<testsuite name="bisect:task-dirs@v2.0.4..v2.0.5" tests="5" failures="0" errors="0" skipped="1"/);
  t.match(xml, /<testcase name="4 4444444444 does not &lt;compile&gt;: skip"[^>]*>\s*<skipped/);
  t.match(xml, /<property name="bisect.culprit" value="2{40}"/);
  const html = renderBisectHtml(r);
  t.match(html, /<a href="runs\/2222222222-try1\/r3\/report.html">1: passed<\/a>/, 'a try links its run report');
  t.match(html, /issues\/28345">GH-28345/);
  t.notMatch(html, /<compile>/, 'escaped');
  const lines = renderBisectSummary(r);
  t.match(lines[0], /^first fixed commit: 2{40}$/);
  t.match(lines.join('\n'), /PR #28349, GH-28345; authored 2026-07-20/);
  t.match(
    lines.at(-1),
    /^FOUND bisect of task-dirs \(bridge-exec-reboot\) v2.0.4..v2.0.5: 4 commits tested, confidence 100%/,
  );
});

t.test('exit codes and the answer case by status', async (t) => {
  t.equal(bisectExitCode(FOUND), 0);
  const inc: BisectResult = { ...FOUND, status: 'inconclusive', confidence: 0.4, message: 'inconclusive: …' };
  t.equal(bisectExitCode(inc), 1);
  t.match(renderBisectJUnit(report(inc)), /<failure message="inconclusive: …" type="inconclusive"/);
  t.match(renderBisectSummary(report(inc))[0], /^most likely first fixed commit/);
  t.equal(bisectExitCode({ ...FOUND, status: 'aborted' }), 1);
  t.equal(bisectExitCode({ ...FOUND, status: 'no-flip' }), 2);
  const broken: BisectResult = { ...FOUND, status: 'broken', message: 'an endpoint broke' };
  t.equal(bisectExitCode(broken), 3);
  t.match(renderBisectJUnit(report(broken)), /errors="1"[\s\S]*<error message="an endpoint broke" type="broken"/);
  t.equal(bisectExitCode({ ...FOUND, status: 'interrupted' }), 130);
});

t.test("git's bisect log of the decisions, replayable by git bisect replay", async (t) => {
  const r = report(FOUND);
  const log = gitBisectLog({ old: r.old, new: r.new, direction: 'regression' }, r.steps.slice(0, 2), r.new);
  t.equal(
    log,
    [
      'git bisect start',
      `# good: [${'1'.repeat(40)}] v2.0.4`,
      `git bisect good ${'1'.repeat(40)}`,
      `# bad: [${'3'.repeat(40)}] v2.0.5`,
      `git bisect bad ${'3'.repeat(40)}`,
      `# first bad commit: [${'3'.repeat(40)}]`,
      '',
    ].join('\n'),
  );
});

t.test('a bisect stopped before any commit was tested has no confidence to show (Q166)', async (t) => {
  const stopped = { ...report({ ...FOUND, status: 'interrupted' }), steps: [] };
  t.match(renderBisectSummary(stopped).join('\n'), /^INTERRUPTED bisect of .*: 0 commits tested, confidence n\/a/m);
  t.match(renderBisectHtml(stopped), /<p>confidence n\/a/);
  t.match(renderBisectSummary(report(FOUND)).at(-1), /confidence 100%/, 'a tested bisect still shows its confidence');
});
