// Every reporter shows a failed check's label: a recorded 1.9.3 duplicate-IP run (test/fixtures/report/reboot-run.json)
// labelled, then rendered as the console, JUnit (valid against junit-10.xsd), JSON (read back by merge), the HTML page
// and the merge index; and a 2.0.5 run of the same failure as a regression of the fix, loud on every one.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { RunRecord } from '../../lib/model/run.js';
import type { SessionReport, SuiteReport } from '../../lib/model/session.js';
import { KNOWN_ISSUES } from '../../lib/known-issues/table.js';
import { labelRecord } from '../../lib/session/known-issues.js';
import { renderConsoleSummary, renderQuietSummary } from '../../lib/report/console.js';
import { renderJUnit } from '../../lib/report/junit.js';
import { renderSessionJson } from '../../lib/report/json.js';
import { parseSessionJson } from '../../lib/report/parse-session.js';
import { renderHtml } from '../../lib/report/html.js';
import { indexOf, renderIndexHtml } from '../../lib/report/html-index.js';
import { compareRuns, renderComparison } from '../../lib/report/compare.js';
import { lintJUnit, xmllintMissing } from '../helpers/junit-schema.js';

const recorded = (): RunRecord =>
  JSON.parse(readFileSync(new URL('../fixtures/report/reboot-run.json', import.meta.url), 'utf8')) as RunRecord;
const config = (knownIssues: 'label' | 'expect' | 'off') => ({
  knownIssues,
  reboot: { kind: 'graceful' } as never,
  task: { driver: 'exec' as const },
});
const build = (version: string) => ({ describe: `/b/nomad-${version} (${version})`, version, origin: 'path' as const });
const labelled = (version: string, policy: 'label' | 'expect' | 'off' = 'label') =>
  labelRecord(recorded(), config(policy), KNOWN_ISSUES, build(version));
const session = (runs: RunRecord[]): SessionReport => ({
  command: 'run',
  startedAtMs: 0,
  durationMs: 1,
  suites: runs.map(
    (r): SuiteReport => ({
      name: r.suiteName,
      key: r.runId,
      scenario: r.scenario,
      counts: true,
      attempts: [r],
      rerun: { scope: 'suite', argv: ['run', r.scenario], keepArgs: true, builds: [] },
    }),
  ),
  interrupted: false,
  exitCode: 1,
  builds: [],
  repeats: [],
  kept: [],
});

t.test('the console: the label ends the check line; a regression of a fix is loud on top', async (t) => {
  const text = renderConsoleSummary([labelled('1.9.3')], { color: false });
  t.match(
    text,
    /FAIL {2}No duplicate-IP error \(no-duplicate-ip\): .* — known: GH-24650 \(fixed in 1\.9\.4, 1\.10\.0\)\n/,
  );
  t.match(text, /\(alloc-restored\): .* — known: GH-24650 \(fixed in 1\.9\.4, 1\.10\.0, via no-duplicate-ip\)/);
  t.notMatch(text, /Known issues: look at these/);
  const regressed = { ...labelled('2.0.5'), runId: 'r2', suiteName: 'bridge-exec-reboot@2.0.5' };
  const loud = renderConsoleSummary([regressed], { color: false });
  t.ok(loud.startsWith('Known issues: look at these\n  FIX REGRESSED bridge-exec-reboot@2.0.5 (run r2): '), loud);
  t.match(loud, /no-duplicate-ip\): .* — REGRESSION of the fix of GH-24650/);
  t.match(
    renderQuietSummary(session([regressed]), { color: false, errors: [] }),
    /not met: .*no-duplicate-ip \(REGRESSION of the fix of GH-24650/,
  );
  t.notMatch(renderConsoleSummary([labelled('1.9.3', 'off')], { color: false }), /known:|new\b/);
});

t.test('JUnit: the failure message and the known_issue properties, valid against junit-10.xsd', async (t) => {
  const xml = renderJUnit([{ name: 'x', attempts: [labelled('1.9.3')] }], { attachmentPath: (a) => a.path });
  t.match(xml, /<property name="known_issue" value="GH-24650"\/>/);
  t.match(
    xml,
    /<property name="known_issue.no-duplicate-ip" value="known: GH-24650 \(fixed in 1.9.4, 1.10.0\) https:\/\/github.com\/hashicorp\/nomad\/issues\/24650"\/>/,
  );
  t.match(xml, /<property name="known_issue.policy" value="label"\/>/);
  t.match(xml, /<failure message="[^"]* \[known: GH-24650 \(fixed in 1.9.4, 1.10.0\)\]" type="failed">/);
  const expected = renderJUnit([{ name: 'x', attempts: [labelled('1.9.3', 'expect')] }], {
    attachmentPath: (a) => a.path,
  });
  t.notMatch(expected, /<failure /, 'expect: no failure, the known issue is an expected failure');
  t.match(expected, /<property name="known_issue" value="GH-24650"\/>/);
  const regressed = renderJUnit([{ name: 'x', attempts: [labelled('2.0.5')] }], { attachmentPath: (a) => a.path });
  t.match(regressed, /<property name="known_issue.finding.1" value="fix-regressed: /);
  t.notMatch(regressed, /name="known_issue" /, 'a regression is never known');
  const skip = xmllintMissing();
  if (skip) {
    t.comment(skip);
    return;
  }
  const dir = t.testdir({});
  for (const [name, text] of Object.entries({ xml, expected, regressed })) {
    writeFileSync(join(dir, `${name}.xml`), text);
    t.equal(lintJUnit(join(dir, `${name}.xml`)), 'ok', name);
  }
});

t.test('JSON: labels and findings, read back as merge reads them', async (t) => {
  const s = session([labelled('1.9.3'), { ...labelled('2.0.5'), runId: 'r2' }]);
  const doc = JSON.parse(renderSessionJson(s));
  t.match(doc.knownIssues, { policy: 'label', known: 4, regression: 4, new: 0, issues: ['GH-24650'] });
  t.match(doc.knownIssues.findings, [{ runId: 'r2', kind: 'fix-regressed', issue: 'GH-24650' }]);
  const back = parseSessionJson(renderSessionJson(s));
  if (!back.ok) throw new Error(back.message);
  t.same(back.session.suites[0]!.attempts[0]!.verdicts, s.suites[0]!.attempts[0]!.verdicts, 'labels survive');
  t.same(back.session.suites[1]!.attempts[0]!.knownIssues, s.suites[1]!.attempts[0]!.knownIssues);
});

t.test(
  "merged runs of different policies: the summary's policy is `mixed`, not the first run's (pass 4, Q9)",
  async (t) => {
    const one = JSON.parse(
      renderSessionJson(session([labelled('1.9.3', 'expect'), { ...labelled('2.0.5'), runId: 'r2' }])),
    );
    t.equal(one.knownIssues.policy, 'mixed');
    const same = JSON.parse(
      renderSessionJson(session([labelled('1.9.3', 'off'), { ...labelled('2.0.5', 'off'), runId: 'r2' }])),
    );
    t.equal(same.knownIssues.policy, 'off');
  },
);

t.test('HTML: a badge linking the issue, the findings on top', async (t) => {
  const page = renderHtml(labelled('1.9.3'));
  t.match(
    page,
    /<code>no-duplicate-ip<\/code> <span class="known known" data-known-issue="GH-24650"><a href="https:\/\/github.com\/hashicorp\/nomad\/issues\/24650">known: GH-24650 \(fixed in 1.9.4, 1.10.0\)<\/a><\/span> — /,
  );
  const regressed = renderHtml(labelled('2.0.5'));
  t.match(
    regressed,
    /<div class="error-box" data-finding="fix-regressed"><span class="tag fail">FIX REGRESSED<\/span> <a href="https:\/\/github.com\/hashicorp\/nomad\/issues\/24650">GH-24650<\/a>/,
  );
  t.match(regressed, /<span class="known regression" data-known-issue="GH-24650">/);
  t.notMatch(renderHtml(labelled('1.9.3', 'off')), /class="known/);
});

t.test('compare: the fix that explains a flip, either way round', async (t) => {
  const passing = (version: string): RunRecord => {
    const r = recorded();
    const ok = {
      ...r,
      verdicts: r.verdicts.map((v) => ({ ...v, status: 'passed' as const, label: 'passed' as const, met: true })),
    };
    return labelRecord(ok, config('label'), KNOWN_ISSUES, build(version));
  };
  const rows = compareRuns(labelled('1.9.3'), passing('1.9.4'));
  t.match(
    rows.find((r) => r.id === 'no-duplicate-ip'),
    {
      flipped: true,
      explainedBy: { issue: 'GH-24650', has: 'after', fixedIn: '1.9.4, 1.10.0' },
    },
  );
  t.notOk(rows.find((r) => r.id === 'client-rebooted')?.explainedBy, 'no flip, nothing to explain');
  t.match(
    compareRuns(passing('1.9.4'), labelled('1.9.3')).find((r) => r.id === 'no-duplicate-ip'),
    {
      explainedBy: { has: 'before' },
    },
  );
  t.notOk(
    compareRuns(labelled('1.9.3', 'off'), passing('1.9.4')).some((r) => r.explainedBy),
    'off: no labels, no explanation',
  );
  t.match(
    renderComparison(rows, { color: false, beforeName: 'a@1.9.3', afterName: 'a@1.9.4' }),
    /\n {2}no-duplicate-ip: the fix of GH-24650 explains the flip \(a@1\.9\.4 has it; fixed in 1\.9\.4, 1\.10\.0\) https:\/\/github\.com\/hashicorp\/nomad\/issues\/24650\n/,
  );
});

t.test('the merge index links a row of your own to its url, not to a Nomad issue of that name (Q382)', async (t) => {
  const own = labelled('1.9.3');
  for (const v of own.verdicts)
    if (v.knownIssue?.kind === 'known')
      v.knownIssue = { ...v.knownIssue, issue: 'ACME-7', url: 'https://t.example/ACME-7' };
  const html = renderIndexHtml(
    indexOf(session([{ ...own, runId: 'r1', suiteName: 'c' }]), {
      pageFor: () => undefined,
      sourceOf: () => 'x',
      warnings: [],
    }),
  );
  t.match(html, /known: <a href="https:\/\/t\.example\/ACME-7">ACME-7<\/a>/);
  t.notMatch(html, /issues\/ACME-7/);
});

t.test('the merge index: known/new per cell, the new failures on top', async (t) => {
  const a = { ...labelled('1.9.3'), runId: 'r1', suiteName: 'c@1.9.3' };
  const b = { ...labelled('2.0.5'), runId: 'r2', suiteName: 'c@2.0.5' };
  const report = indexOf(session([a, b]), { pageFor: () => undefined, sourceOf: () => 'x', warnings: [] });
  t.match(report.cells, [
    { known: ['GH-24650'], newFailures: 0, findings: 0 },
    { known: [], newFailures: 0, regressions: 4, findings: 1 },
  ]);
  const html = renderIndexHtml(report);
  t.match(
    html,
    /<p class="counts" id="known-issues">4 failures on a build that has the fix; known issues reproduced: GH-24650; 1 known-issue finding to look at<\/p>/,
  );
  t.match(
    html,
    /<td class="n" data-key="new">0<\/td><td data-key="known"><b>regression: 4<\/b>; <b>1 finding<\/b><\/td>/,
  );
  const none = renderIndexHtml(
    indexOf(session([labelled('1.9.3', 'off')]), { pageFor: () => undefined, sourceOf: () => 'x', warnings: [] }),
  );
  t.notMatch(none, /id="known-issues"/, 'nothing on top when nothing is labelled');
});
