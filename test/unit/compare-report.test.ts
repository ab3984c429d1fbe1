// compareRuns / renderComparison: pairing by check id, flips marked, suite names from the builds' versions.
import t from 'tap';
import type { Verdict } from '../../lib/model/check.js';
import type { RunRecord } from '../../lib/model/run.js';
import { compareRuns, renderComparison } from '../../lib/report/compare.js';
import { sideLabels, suiteName } from '../../lib/plan/names.js';
import { renderSessionJson } from '../../lib/report/json.js';
import { sessionOf } from '../helpers/session.js';

const v = (id: string, label: Verdict['label'], met = label !== 'failed' && label !== 'unexpected pass'): Verdict => ({
  id,
  title: id.replace(/-/g, ' '),
  status: label === 'expected failure' || label === 'failed' ? 'failed' : label === 'skipped' ? 'skipped' : 'passed',
  message: `${id} ${label}`,
  evidence: [],
  expected: label === 'expected failure' || label === 'unexpected pass' ? 'fail' : 'pass',
  met,
  label,
});

const run = (runId: string, verdicts: Verdict[], props: Record<string, string> = {}): RunRecord => ({
  runId,
  scenario: 'bridge-exec-reboot',
  suiteName: 'bridge-exec-reboot',
  hostname: 'h',
  startedAtMs: 0,
  durationMs: 1000,
  properties: props,
  steps: [],
  verdicts,
  artifacts: [],
  timeline: [],
  outcome: verdicts.every((x) => x.met) ? 'passed' : 'failed',
});

// The 1.9.3 -> 1.9.4 story: the duplicate-IP failure and its consequences flip to passes; the rest stays.
const before = run(
  'rB',
  [
    v('client-rebooted', 'passed'),
    v('alloc-restored', 'failed'),
    v('no-duplicate-ip', 'failed'),
    v('unique-ips', 'skipped'),
    v('old-only', 'passed'),
  ],
  { 'nomad.version': '1.9.3' },
);
const after = run(
  'rA',
  [
    v('client-rebooted', 'passed'),
    v('alloc-restored', 'passed'),
    v('no-duplicate-ip', 'passed'),
    v('unique-ips', 'passed'),
  ],
  { 'nomad.version': 'Nomad v1.9.4 (stand-in)' },
);

t.test("rows pair checks by id in the after run's order and mark exactly the flips", async (t) => {
  const rows = compareRuns(before, after);
  t.same(
    rows.map((r) => r.id),
    ['client-rebooted', 'alloc-restored', 'no-duplicate-ip', 'unique-ips', 'old-only'],
  );
  t.same(
    rows.map((r) => r.flipped),
    [false, true, true, true, true],
  );
  t.same(rows[1]!.before, { label: 'failed', met: false, message: 'alloc-restored failed' });
  t.same(rows[1]!.after, { label: 'passed', met: true, message: 'alloc-restored passed' });
  t.equal(rows[4]!.after, undefined, 'a check only the before run had');
});

t.test('a flip is a change of label or of met, not of message', async (t) => {
  const a = run('a', [v('x', 'expected failure')]);
  const b = run('b', [{ ...v('x', 'expected failure'), message: 'other words' }]);
  t.equal(compareRuns(a, b)[0]!.flipped, false, 'same label, same met');
  t.equal(compareRuns(a, run('c', [v('x', 'failed')]))[0]!.flipped, true, 'expected failure -> failed');
  t.equal(
    compareRuns(run('d', [v('x', 'passed')]), run('e', [v('x', 'passed', false)]))[0]!.flipped,
    true,
    'met changed',
  );
});

t.test('the table shows both labels and FLIPPED only on flipped rows, and counts them', async (t) => {
  const text = renderComparison(compareRuns(before, after), {
    color: false,
    beforeName: 'x@1.9.3',
    afterName: 'x@1.9.4',
  });
  const lines = text.split('\n');
  t.match(lines[0], /^check\s+x@1\.9\.3\s+x@1\.9\.4\s+flipped\?$/);
  t.match(text, /client rebooted \(client-rebooted\)\s+passed\s+passed\s*\n/);
  t.notMatch(
    lines.find((l) => l.includes('(client-rebooted)')),
    /FLIPPED/,
  );
  t.match(
    lines.find((l) => l.includes('(no-duplicate-ip)')),
    /failed\s+passed\s+FLIPPED$/,
  );
  t.match(
    lines.find((l) => l.includes('(old-only)')),
    /passed\s+\(not run\)\s+FLIPPED$/,
  );
  t.match(text, /4 of 5 checks flipped between x@1\.9\.3 and x@1\.9\.4/);
  t.notMatch(text, /\x1b\[/, 'no colour when color=false');
  t.match(
    renderComparison(compareRuns(before, after), { color: true }),
    /\x1b\[31mfailed/,
    'unmet labels are red with color',
  );
});

t.test("suite names come from the builds' versions, falling back to @before/@after", async (t) => {
  const names = (b: string | undefined, a: string | undefined) => {
    const l = sideLabels(b, a);
    return { before: suiteName('s', l.before, []), after: suiteName('s', l.after, []) };
  };
  t.same(names('1.9.3', '1.9.4'), { before: 's@1.9.3', after: 's@1.9.4' });
  t.same(names('1.9.3', '1.9.3'), { before: 's@before', after: 's@after' }, 'equal versions would collide');
  t.same(names(undefined, '1.9.4'), { before: 's@before', after: 's@after' }, 'unknown version');
});

t.test('the JSON comparison section lists flips and both runs', async (t) => {
  const base = sessionOf([before, after]);
  const suites = base.suites.map((x, i) => ({ ...x, side: i ? ('after' as const) : ('before' as const) }));
  const comparison = {
    scenario: 'x',
    beforeName: suites[0]!.name,
    afterName: suites[1]!.name,
    rows: compareRuns(before, after),
  };
  const j = JSON.parse(renderSessionJson({ ...base, suites, comparison })).comparison as {
    flipped: string[];
    before: { runId: string; suiteName: string };
    rows: unknown[];
  };
  t.same(j.flipped, ['alloc-restored', 'no-duplicate-ip', 'unique-ips', 'old-only']);
  t.match(j.before, { runId: 'rB', suiteName: before.suiteName });
  t.equal(j.rows.length, 5);
});
