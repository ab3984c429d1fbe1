// merge's pure parts: JUnit parsing that loses nothing (a single report merged is byte-identical), counts recounted,
// duplicate suites refused or kept once, axes from summary / properties / cell name, the index page's table.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parseJUnit, looksLikeJUnit, type JUnitDoc } from '../../lib/report/parse-junit.js';
import { parseSummary } from '../../lib/report/parse-summary.js';
import { countCases, mergeReports, rewriteAttachments, type MergeSource } from '../../lib/report/merge.js';
import { attachmentLocator } from '../../lib/merge/locate.js';
import { attachmentBase, attachmentPath } from '../../lib/report/attachment-paths.js';
import { dirname } from 'node:path';
import { renderMergedJUnit } from '../../lib/report/merge-junit.js';
import { renderIndexHtml } from '../../lib/report/html-index.js';
import { renderJUnit } from '../../lib/report/junit.js';
import type { RunRecord as Run } from '../../lib/model/run.js';

const renderMatrixJUnit = (cells: { cellName: string; attempts: Run[] }[]) =>
  renderJUnit(
    cells.map((c) => ({
      name: c.cellName,
      key: c.cellName,
      scenario: c.attempts[0]!.scenario,
      counts: true,
      attempts: c.attempts,
    })),
    { attachmentPath: (a) => a.path },
  );
import { renderJsonSummary } from '../../lib/report/json.js';
import type { RunRecord } from '../../lib/model/run.js';

const golden = readFileSync(new URL('../fixtures/report/golden.junit.xml', import.meta.url), 'utf8');
const doc = (text: string): JUnitDoc => {
  const p = parseJUnit(text);
  if (!p.ok) throw new Error(p.message);
  return p.doc;
};
const noPages = () => undefined;
const merge = (junit: MergeSource[], summaries: Parameters<typeof mergeReports>[0]['summaries'] = []) =>
  mergeReports({ junit, summaries, pageFor: noPages });

const rec = (runId: string, suiteName: string, o: Partial<RunRecord> = {}): RunRecord => ({
  runId,
  scenario: 'bridge-exec-reboot',
  suiteName,
  hostname: 'h',
  startedAtMs: 0,
  durationMs: 1500,
  properties: {},
  steps: [],
  verdicts: [],
  artifacts: [],
  timeline: [],
  outcome: 'passed',
  ...o,
});
const UP = 'bring up the server and client VMs';
const hostile = 'a ]]> b & <c> "d"\n\ttab \u001b[31mred\u001b[0m';
const flaky = () =>
  renderMatrixJUnit([
    {
      cellName: 'bridge-exec-reboot/nomad=1.9.7',
      attempts: [
        rec('r1', 'bridge-exec-reboot/nomad=1.9.7', {
          outcome: 'error',
          steps: [{ name: UP, status: 'error', startedAtMs: 0, durationMs: 5, message: hostile }],
          error: { message: hostile, detail: hostile, step: UP },
        }),
        rec('r2', 'bridge-exec-reboot/nomad=1.9.7', {
          steps: [{ name: UP, status: 'passed', startedAtMs: 0, durationMs: 5 }],
          verdicts: [
            {
              id: 'node-back',
              title: 'node back',
              status: 'passed',
              message: hostile,
              evidence: [hostile],
              expected: 'pass',
              met: true,
              label: 'passed',
            },
          ],
          properties: { 'matrix.nomad': '1.9.7', 'matrix.shard': '2/2', note: hostile },
        }),
      ],
    },
  ]);

/** The suite elements of a document we serialized (two-space indent). */
const SUITES = /^ {2}<testsuite [\s\S]*?^ {2}<\/testsuite>\n/gm;
const suiteBlocks = (xml: string): string[] => xml.match(SUITES) ?? [];

t.test(
  'one report merged alone is the same document, byte for byte up to the suite order (nothing lost in parsing)',
  async (t) => {
    for (const [what, text] of [
      ['the golden report', golden],
      ['a retried cell with hostile text', flaky()],
    ] as const) {
      const m = merge([{ path: 'x.xml', doc: doc(text) }]);
      t.ok(m.ok, what);
      if (!m.ok) continue;
      const out = renderMergedJUnit(m.report);
      t.ok(
        suiteBlocks(text).length >= (what === 'the golden report' ? 3 : 1),
        `${what}: ${suiteBlocks(text).length} suites compared`,
      );
      t.same(suiteBlocks(out).sort(), suiteBlocks(text).sort(), `${what}: every suite unchanged, byte for byte`);
      t.equal(out.replace(SUITES, ''), text.replace(SUITES, ''), `${what}: the same root and counts`);
      t.same(m.report.warnings, [], `${what}: no warnings`);
    }
    t.match(flaky(), /<flakyError /, 'the sample has a Surefire element');
  },
);

t.test('parse errors name what was expected and quote what was found', async (t) => {
  t.match(parseJUnit('<testsuites><testsuite name="a"></testsuites>'), {
    ok: false,
    message: /not well-formed XML at line 1, column \d+: .*near "<testsuites>/,
  });
  t.match(parseJUnit('<?xml version="1.0"?>\n<report/>'), {
    ok: false,
    message: 'is not JUnit: expected one root <testsuites> or <testsuite>, got <report>',
  });
  t.match(parseJUnit('<testsuites><foo/></testsuites>'), {
    ok: false,
    message: /may hold only <testsuite>, got <foo>/,
  });
  t.match(parseJUnit('<!DOCTYPE x [<!ENTITY a "aaaa">]><testsuites/>'), { ok: false, message: /DOCTYPE/ });
  const single = parseJUnit(
    '<testsuite name="only" tests="1" failures="0" errors="0"><testcase name="c"/></testsuite>',
  );
  t.match(
    single,
    { ok: true, doc: { root: 'testsuite', suites: [{ name: 'testsuite', attrs: { name: 'only' } }] } },
    'a file with one <testsuite> root',
  );
  t.ok(looksLikeJUnit('\uFEFF<?xml version="1.0"?>\n<!-- tap -->\n<testsuites name="x">'));
  t.notOk(looksLikeJUnit('<domain type="kvm">'));
});

t.test('counts are recounted from the testcases; a wrong declared count is fixed and said', async (t) => {
  const text = `<testsuites><testsuite name="s" tests="9" failures="0" errors="0" skipped="0">
    <testcase name="a"><failure message="x"/></testcase><testcase name="b"><error message="y"/><failure/></testcase>
    <testcase name="c"><skipped/></testcase><testcase name="d"><flakyError type="infrastructure"/></testcase>
    <testsuite name="inner" tests="1" failures="1" errors="0"><testcase name="e"><failure/></testcase></testsuite>
  </testsuite></testsuites>`;
  t.same(
    countCases(doc(text).suites[0]!),
    { tests: 5, failures: 2, errors: 1, skipped: 1 },
    'error wins over failure; flakyError alone passed; nested cases count',
  );
  const m = merge([{ path: 'a.xml', doc: doc(text) }]);
  if (!m.ok) return t.fail('merged');
  t.match(m.report.warnings, [
    new RegExp(
      'suite s in a\\.xml: tests said 9, counted 5, failures said 0, counted 2, ' +
        'errors said 0, counted 1, skipped said 0, counted 1',
    ),
  ]);
  t.match(
    renderMergedJUnit(m.report),
    /<testsuites name="nomad-reboot-harness" tests="5" failures="2" errors="1" time="0.000">/,
  );
  t.equal(m.report.exitCode, 3, 'an error case makes the cell an infrastructure error');
});

t.test(
  'suites from many files: sorted by name, root counts add up, a name twice is refused unless it is the same run',
  async (t) => {
    const a =
      '<testsuites><testsuite name="x/n=10" id="r1" tests="1" failures="1" errors="0" time="2.5">' +
      '<testcase name="c"><failure/></testcase></testsuite></testsuites>';
    const b =
      '<testsuites><testsuite name="x/n=9" id="r2" tests="2" failures="0" errors="0" time="1">' +
      '<testcase name="c"/><testcase name="d"/></testsuite></testsuites>';
    const m = merge([
      { path: 'a.xml', doc: doc(a) },
      { path: 'b.xml', doc: doc(b) },
    ]);
    if (!m.ok) return t.fail('merged');
    t.same(
      m.report.cells.map((c) => c.name),
      ['x/n=9', 'x/n=10'],
      'numeric-aware name order',
    );
    t.match(m.report.totals, { tests: 3, failures: 1, errors: 0, timeS: 3.5 });
    t.same(
      m.report.cells.map((c) => c.axes),
      [{ n: '9' }, { n: '10' }],
      'axes from the cell name when nothing else says',
    );
    t.equal(m.report.exitCode, 1);
    const again = merge([
      { path: 'a.xml', doc: doc(a) },
      { path: 'copy/a.xml', doc: doc(a) },
    ]);
    t.match(again, {
      ok: true,
      report: { warnings: [/suite x\/n=10 \(run r1\) is in a\.xml and copy\/a\.xml: the same run, kept once/] },
    });
    const other = merge([
      { path: 'a.xml', doc: doc(a) },
      { path: 'b.xml', doc: doc(b) },
      { path: 'c.xml', doc: doc(a.replace('r1', 'r9')) },
    ]);
    t.match(other, {
      ok: false,
      problems: [
        {
          field: 'c.xml: testsuite "x/n=10"',
          message: /is also in a\.xml \(run ids r1 and r9\): one cell ran on two runners/,
        },
      ],
    });
  },
);

t.test('a summary gives the outcome, the axes and the attempts; properties are the fallback', async (t) => {
  const r2 = rec('r2', 'bridge-exec-reboot/nomad=1.9.7', {
    outcome: 'passed',
    properties: { 'matrix.nomad': '1.9.7', 'matrix.reboot': 'hard', 'matrix.shard': '2/2', 'matrix.cell': 'x' },
  });
  const summary = JSON.parse(renderJsonSummary([r2]));
  summary.matrix = { cells: [{ name: r2.suiteName, runIds: ['r1', 'r2'], outcomes: ['error', 'passed'] }] };
  const s = parseSummary(JSON.stringify(summary));
  if (!s.ok) return t.fail(s.message);
  const withSummary = merge([{ path: 'j.xml', doc: doc(flaky()) }], [{ path: 'summary.json', summary: s.summary }]);
  if (!withSummary.ok) return t.fail('merged');
  t.match(withSummary.report.cells[0], {
    axes: { nomad: '1.9.7', reboot: 'hard' },
    attempts: 2,
    shard: '2/2',
    outcome: 'passed',
    runId: 'r2',
  });
  const alone = merge([{ path: 'j.xml', doc: doc(flaky()) }]);
  if (!alone.ok) return t.fail('merged');
  t.match(
    alone.report.cells[0],
    { axes: { nomad: '1.9.7' }, attempts: 2, shard: '2/2' },
    'from the suite properties and the flakyError',
  );
  t.match(parseSummary('{"schema":"other"}'), {
    ok: false,
    message: 'is not a harness summary: expected "schema": "nomad-reboot-harness/summary@1", got "other"',
  });
  t.match(parseSummary('{'), { ok: false, message: /is not JSON/ });
});

t.test('the index page: a row per cell with its axes and link, failures first, text escaped', async (t) => {
  const a =
    '<testsuites><testsuite name="s/k=&lt;b&gt;" id="r1" tests="1" failures="1" errors="0">' +
    '<properties><property name="outcome" value="failed"/></properties><testcase name="c"><failure/></testcase>' +
    '</testsuite><testsuite name="s/k=a" id="r2" tests="1" failures="0" errors="0"><testcase name="c"/></testsuite>' +
    '</testsuites>';
  const m = mergeReports({
    junit: [{ path: 'a.xml', doc: doc(a) }],
    summaries: [],
    pageFor: (id) => (id === 'r2' ? '../runner 1/r2/report.html' : undefined),
  });
  if (!m.ok) return t.fail('merged');
  const html = renderIndexHtml(m.report);
  t.match(html, /<span class="badge failed" id="verdict">FAIL<\/span>/);
  const rows = [...html.matchAll(/<tr class="(\w+)" data-cell="([^"]+)">/g)].map((x) => `${x[2]}:${x[1]}`);
  t.same(rows, ['s/k=&lt;b&gt;:failed', 's/k=a:passed'], 'failures first, names escaped');
  t.match(html, '<a href="../runner%201/r2/report.html">s/k=a</a>', 'the link, percent-encoded per segment');
  t.match(html, 's/k=&lt;b&gt; <span class="note">(no page)</span>');
  t.match(html, '<td data-axis="k">&lt;b&gt;</td>');
  t.notMatch(html, /<b>/);
});

t.test('attachments follow the reports: matched by their last segments, relative to the output folder', async (t) => {
  const files = [
    '/dl/reports-shard-1/r1/alloc.json',
    '/dl/reports-shard-2/r2/alloc.json',
    '/dl/a/same/x.log',
    '/dl/b/same/x.log',
    '/dl/c/deep/same/y.log',
  ];
  const locate = attachmentLocator(files);
  const at = (p: string) => {
    const f = locate(p);
    return f === undefined
      ? undefined
      : attachmentPath({ mode: 'relative', projectDir: '/' }, '/dl/merged/junit.xml', f);
  };
  t.equal(
    at('reports/r1/alloc.json'),
    '../reports-shard-1/r1/alloc.json',
    'the path the run wrote, found under another root',
  );
  t.equal(
    at('/old/runner/reports/r2/alloc.json'),
    '../reports-shard-2/r2/alloc.json',
    'an absolute path from another machine',
  );
  t.equal(at('reports/same/x.log'), undefined, 'two files share the suffix: not guessed');
  t.equal(at('a/same/x.log'), '../a/same/x.log', 'a longer suffix tells them apart');
  t.equal(at('alloc.json'), undefined, 'a bare file name with no JUnit folder to go on is not guessed');
  t.equal(at('reports/r9/alloc.json'), undefined);
  const tally = { rewritten: 0, unresolved: 0 };
  const el = rewriteAttachments(
    {
      name: 'testcase',
      children: [
        { name: 'system-out', text: 'x\n[[ATTACHMENT|reports/r1/alloc.json]]\n[[ATTACHMENT|reports/r9/gone.log]]' },
      ],
    },
    at,
    tally,
  );
  t.equal(
    el.children![0]!.text,
    'x\n[[ATTACHMENT|../reports-shard-1/r1/alloc.json]]\n[[ATTACHMENT|reports/r9/gone.log]]',
  );
  t.same(tally, { rewritten: 1, unresolved: 1 });
});

const junitDoc = (name: string, id: string, out: string): JUnitDoc =>
  doc(
    `<testsuites><testsuite name="${name}" id="${id}" tests="1" failures="1"><testcase name="c"><failure message="m"/><system-out>${out}</system-out></testcase></testsuite></testsuites>`,
  );

t.test('a JUnit file inside its run folder names bare files: they resolve from that file, not by suffix', async (t) => {
  // A real run writes reports/<run id>/junit.xml with `[[ATTACHMENT|alloc-after.json]]`; merging four such runs said
  // every attachment named "files not among the inputs".
  const files = ['/w/a/r1/alloc-after.json', '/w/b/r2/alloc-after.json', '/w/b/r2/sub/x.log'];
  const locate = attachmentLocator(files);
  t.equal(locate('alloc-after.json', '/w/a/r1'), '/w/a/r1/alloc-after.json');
  t.equal(locate('alloc-after.json', '/w/b/r2'), '/w/b/r2/alloc-after.json', 'the same name in another run: its own');
  t.equal(locate('sub/x.log', '/w/b/r2'), '/w/b/r2/sub/x.log');
  t.equal(locate('../r2/alloc-after.json', '/w/b/matrix-r2'), '/w/b/r2/alloc-after.json', 'relative upwards');
  t.equal(locate('gone.json', '/w/a/r1'), undefined);
  const merged = mergeReports({
    junit: [
      { path: '/w/a/r1/junit.xml', doc: junitDoc('s/a', 'r1', '[[ATTACHMENT|alloc-after.json]]') },
      { path: '/w/b/r2/junit.xml', doc: junitDoc('s/b', 'r2', '[[ATTACHMENT|alloc-after.json]]') },
    ],
    summaries: [],
    pageFor: () => undefined,
    attachmentFor: (p, source) => {
      const f = locate(p, dirname(source));
      return f && attachmentPath({ mode: 'project', projectDir: '/w' }, '/w/merged/junit.xml', f);
    },
  });
  if (!merged.ok) throw new Error('merge failed');
  const texts = JSON.stringify(merged.report.suites);
  t.match(texts, '[[ATTACHMENT|a/r1/alloc-after.json]]', 'from the project directory');
  t.match(texts, '[[ATTACHMENT|b/r2/alloc-after.json]]');
  t.same(merged.report.attachments, { rewritten: 2, unresolved: 0 });
});

t.test('attachment paths for each CI: from the JUnit folder, the project directory, or absolute', async (t) => {
  const j = '/p/reports/shard-1/junit.xml';
  const f = '/p/reports/shard-1/r1/client-journal.txt';
  t.equal(attachmentPath({ mode: 'relative', projectDir: '/p' }, j, f), 'r1/client-journal.txt');
  t.equal(attachmentPath({ mode: 'project', projectDir: '/p' }, j, f), 'reports/shard-1/r1/client-journal.txt');
  t.equal(attachmentPath({ mode: 'absolute', projectDir: '/p' }, j, f), f);
  t.same(attachmentBase('auto', { CI_PROJECT_DIR: '/builds/g/p' }, '/x'), {
    mode: 'project',
    projectDir: '/builds/g/p',
  });
  t.same(attachmentBase('auto', {}, '/x'), { mode: 'relative', projectDir: '/x' }, 'outside GitLab: relative');
  t.same(attachmentBase('project', {}, '/x'), { mode: 'project', projectDir: '/x' }, 'project without GitLab: the cwd');
  t.same(attachmentBase('relative', { CI_PROJECT_DIR: '/b' }, '/x').mode, 'relative', 'a choice beats the default');
});
