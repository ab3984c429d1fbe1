// lib/report/flaky.ts: attempts of `run --repeat N` judged together: all passed, the same failure every time (a
// verdict), a failure that comes and goes or changes shape (flaky, with the attempts to compare named).
import t from 'tap';
import { attemptSignature, judgeRepeats, renderFlakeReports } from '../../lib/report/flaky.js';
import type { RunRecord } from '../../lib/model/run.js';
import type { Verdict } from '../../lib/model/check.js';
import type { SessionReport, SuiteReport } from '../../lib/model/session.js';
import { REPORTERS } from '../../lib/report/reporters.js';
import { renderSessionConsole } from '../../lib/report/console.js';
import { contextIn, sessionOf } from '../helpers/session.js';

const verdict = (id: string, met: boolean): Verdict => ({
  id,
  title: id,
  status: met ? 'passed' : 'failed',
  message: '',
  evidence: [],
  expected: 'pass',
  met,
  label: met ? 'passed' : 'failed',
});
const rec = (
  runId: string,
  outcome: RunRecord['outcome'],
  failed: string[] = [],
  error?: RunRecord['error'],
): RunRecord => ({
  runId,
  scenario: 'bridge-exec-reboot',
  suiteName: 'x',
  hostname: 'h',
  startedAtMs: 0,
  durationMs: 1,
  properties: {},
  steps: [],
  verdicts:
    outcome === 'error' ? [] : ['alloc-restored', 'http-reachable'].map((id) => verdict(id, !failed.includes(id))),
  artifacts: [],
  timeline: [],
  outcome,
  ...(error ? { error } : {}),
});

/** The suites of one cell repeated (attempt k of n), as the executor reports them. */
const repeated = (runs: RunRecord[], group = 'bridge-exec-reboot'): SuiteReport[] =>
  runs.map((r, i) => ({
    name: `${group}@1.9.7#${i + 1}`,
    key: `${group}#${i + 1}`,
    scenario: r.scenario,
    counts: true,
    attempts: [r],
    rerun: { scope: 'suite', argv: ['run', r.scenario], keepArgs: true, builds: [] },
    repeat: { group, attempt: i + 1, of: runs.length },
  }));
const flakeReports = (runs: RunRecord[]) => judgeRepeats(repeated(runs));

t.test('signatures', async (t) => {
  t.equal(attemptSignature(rec('a', 'passed')), '');
  t.equal(
    attemptSignature(rec('a', 'failed', ['http-reachable', 'alloc-restored'])),
    'alloc-restored=failed, http-reachable=failed',
  );
  t.equal(
    attemptSignature(rec('a', 'error', [], { message: 'boom', step: 'bring up the VMs' })),
    'error in bring up the VMs',
  );
});

t.test('verdicts of repeated attempts', async (t) => {
  const [pass] = flakeReports([rec('r1', 'passed'), rec('r2', 'passed'), rec('r3', 'passed')]);
  t.match(pass, { verdict: 'passed', flakeRate: 0, message: 'passed 3 of 3 attempts' });
  const [same] = flakeReports([rec('r1', 'failed', ['alloc-restored']), rec('r2', 'failed', ['alloc-restored'])]);
  t.match(same, {
    verdict: 'failed',
    flakeRate: 1,
    message: 'failed 2 of 2 attempts the same way (alloc-restored=failed): a verdict, not a flake',
  });
  const [flaky] = flakeReports([
    rec('r1', 'passed'),
    rec('r2', 'failed', ['http-reachable']),
    rec('r3', 'passed'),
    rec('r4', 'passed'),
  ]);
  t.match(flaky, {
    verdict: 'flaky',
    flakeRate: 0.25,
    message: 'FLAKY: 1 of 4 attempts did not pass (flake rate 25%); compare r2 (http-reachable=failed) vs r1 (passed)',
  });
  const [shapes] = flakeReports([
    rec('r1', 'failed', ['alloc-restored']),
    rec('r2', 'error', [], { message: 'x', step: 'reboot the client (graceful)' }),
  ]);
  t.match(
    shapes,
    {
      verdict: 'flaky',
      flakeRate: 1,
      message: /compare r1 \(alloc-restored=failed\) vs r2 \(error in reboot the client \(graceful\)\)/,
    },
    'all failed but differently: flaky',
  );
  t.match(
    renderFlakeReports([flaky!]),
    /^bridge-exec-reboot: FLAKY: .*\n {2}attempt 1: r1 passed\n {2}attempt 2: r2 failed \(http-reachable=failed\)\n/,
  );
});

t.test('each repeated cell is judged apart; a suite that is no repeat is not judged', async (t) => {
  const a = repeated([rec('a1', 'passed'), rec('a2', 'failed', ['alloc-restored'])], 'a');
  const b = repeated([rec('b1', 'passed'), rec('b2', 'passed')], 'b');
  const plain = repeated([rec('p1', 'failed', ['alloc-restored'])]).map(({ repeat: _, ...x }) => x);
  const verdicts = judgeRepeats([...a, ...plain, ...b]);
  t.same(
    verdicts.map((v) => [v.group, v.verdict, v.suites]),
    [
      ['a', 'flaky', ['a@1.9.7#1', 'a@1.9.7#2']],
      ['b', 'passed', ['b@1.9.7#1', 'b@1.9.7#2']],
    ],
  );
  t.same(judgeRepeats(plain), [], 'no repeats, no verdicts');
});

/** A session of three attempts of one cell, the second failing: flaky, as the executor reports it. */
function flakySession(): SessionReport {
  const suites = repeated([rec('r1', 'passed'), rec('r2', 'failed', ['http-reachable']), rec('r3', 'passed')]);
  return { ...sessionOf([]), suites, exitCode: 1, repeats: judgeRepeats(suites) };
}

t.test('the flake verdict is in the SessionReport and every report shows it', async (t) => {
  const s = flakySession();
  t.equal(s.repeats.length, 1);
  t.equal(s.repeats[0]!.verdict, 'flaky');
  const dir = t.testdir({});
  const files = REPORTERS.flatMap((r) => r.files(s, contextIn(dir)));
  const junit = files.find((f) => f.kind === 'junit')!.text;
  for (const k of [1, 2, 3])
    t.match(
      junit,
      new RegExp(
        `<testsuite name="bridge-exec-reboot@1\\.9\\.7#${k}"[^]*?<property name="repeat.verdict" value="flaky"/>`,
      ),
      `JUnit: suite ${k} carries the verdict`,
    );
  t.match(junit, /<property name="repeat.flake_rate" value="0.33"\/>/);
  const json = JSON.parse(files.find((f) => f.kind === 'json')!.text) as {
    repeats: { group: string; verdict: string; suites: string[] }[];
    suites: { repeat: { attempt: number; of: number } | null }[];
  };
  t.same(
    json.repeats.map((r) => [r.group, r.verdict, r.suites.length]),
    [['bridge-exec-reboot', 'flaky', 3]],
  );
  t.same(
    json.suites.map((x) => x.repeat && `${x.repeat.attempt}/${x.repeat.of}`),
    ['1/3', '2/3', '3/3'],
  );
  const pages = files.filter((f) => f.kind === 'html');
  t.equal(pages.length, 3, 'a page per attempt');
  t.match(
    pages[1]!.text,
    /<p class="sub" id="repeat">attempt 2 of 3 · <b data-key="repeat.verdict">flaky<\/b>: FLAKY: 1 of 3/,
  );
  const console = renderSessionConsole(s, { color: false, written: files, errors: [] });
  t.match(console, /bridge-exec-reboot: FLAKY: 1 of 3 attempts did not pass/);
});

t.test('a session without repeats says nothing about flakes anywhere', async (t) => {
  const s = sessionOf([rec('r1', 'failed', ['http-reachable'])]);
  const files = REPORTERS.flatMap((r) => r.files(s, contextIn(t.testdir({}))));
  t.notMatch(files.find((f) => f.kind === 'junit')!.text, /repeat\./);
  t.same(JSON.parse(files.find((f) => f.kind === 'json')!.text).repeats, []);
  t.notMatch(files.find((f) => f.kind === 'html')!.text, /id="repeat"/);
  t.notMatch(renderSessionConsole(s, { color: false, written: files, errors: [] }), /FLAKY|attempts/);
});
