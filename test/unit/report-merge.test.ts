// merge's pure parts: a session's JSON report read back into the same SessionReport, sessions merged (suites sorted,
// a suite name from two runs refused, the same run kept once, JUnit files vouching for their suites), a merged report
// that agrees with a direct report of the same runs, the index page, attachments that follow the reports.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parseJUnit, looksLikeJUnit } from '../../lib/report/parse-junit.js';
import { parseSessionJson } from '../../lib/report/parse-session.js';
import { mergeSessions, type MergeSource } from '../../lib/report/merge.js';
import { attachmentLocator } from '../../lib/merge/locate.js';
import { indexOf, renderIndexHtml } from '../../lib/report/html-index.js';
import { renderSessionJson } from '../../lib/report/json.js';
import { REPORTERS, junitReporter } from '../../lib/report/reporters.js';
import { judgeRepeats } from '../../lib/report/flaky.js';
import { sessionExitCode } from '../../lib/report/outcome.js';
import { attachmentBase, attachmentPath } from '../../lib/report/attachment-paths.js';
import { dirname } from 'node:path';
import type { RunRecord } from '../../lib/model/run.js';
import type { SessionReport, SuiteReport } from '../../lib/model/session.js';
import { contextIn, sessionOf } from '../helpers/session.js';

const fixture = (name: string): string => new URL(`../fixtures/report/${name}`, import.meta.url).pathname;
// Note: the recorded runs predate the timeline; a run has one now (maybe empty).
const recorded = (): RunRecord[] =>
  (JSON.parse(readFileSync(fixture('runs.json'), 'utf8')) as RunRecord[]).map((r) => ({
    ...r,
    timeline: r.timeline ?? [],
  }));

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

/** A suite of one or more attempts, as the executor reports it. */
const suite = (name: string, attempts: RunRecord[], o: Partial<SuiteReport> = {}): SuiteReport => ({
  ...sessionOf(attempts.slice(-1)).suites[0]!,
  name,
  key: name,
  attempts,
  ...o,
});
const session = (suites: SuiteReport[], o: Partial<SessionReport> = {}): SessionReport => ({
  ...sessionOf([]),
  command: 'matrix',
  startedAtMs: Date.parse('2026-01-02T03:04:05.000Z'),
  durationMs: 9000,
  suites,
  exitCode: sessionExitCode(suites, false),
  repeats: judgeRepeats(suites),
  ...o,
});
/** A session as merge gets it: rendered to its JSON report and read back. */
const viaJson = (s: SessionReport, path = 'summary.json'): MergeSource => {
  const p = parseSessionJson(renderSessionJson(s));
  if (!p.ok) throw new Error(p.message);
  return { path, session: p.session };
};
const merge = (sessions: MergeSource[], junit: Parameters<typeof mergeSessions>[0]['junit'] = []) =>
  mergeSessions({ sessions, junit, attachmentFor: (p) => p, outDir: '/out' });

/** Four cells of a matrix, one retried after an infrastructure error, with hostile text and a timeline. */
function cells(): SuiteReport[] {
  const [a, b, c, d] = recorded();
  const broke = rec('r-retry-1', 'x', {
    outcome: 'error',
    steps: [{ name: UP, status: 'error', startedAtMs: 5, durationMs: 5, message: hostile }],
    error: { message: hostile, detail: hostile, step: UP },
  });
  const timeline = [{ atMs: 1000, lane: 'host' as const, label: 'reboot', detail: hostile, severity: 'warn' as const }];
  return [
    suite('cell/nomad=1.9.3', [{ ...a!, timeline }]),
    suite('cell/nomad=1.9.7', [
      broke,
      { ...b!, properties: { ...b!.properties, 'matrix.nomad': '1.9.7', note: hostile } },
    ]),
    suite('cell/nomad=1.10.0', [c!]),
    suite('cell/nomad=1.11.0', [{ ...d!, interrupted: true }]),
  ].sort((x, y) => x.name.localeCompare(y.name, 'en', { numeric: true }));
}

t.test('a session read back from its JSON report is the same SessionReport', async (t) => {
  const s = session(cells(), {
    builds: [
      {
        spec: '1.9.7',
        path: '/c/nomad',
        sha256: 'ab',
        version: '1.9.7',
        revision: 'r',
        origin: { kind: 'release', url: 'https://x', verified: 'checksum and signature verified' },
      },
    ],
    matrix: { file: 'm.yaml', path: '/w/m.yaml', shard: '1/2', cellsInMatrix: 8 },
    kept: [{ runId: 'r1', what: ['lab'] }],
  });
  const back = viaJson(s).session;
  t.same(back, s, 'every field survives');
  t.equal(renderSessionJson(back), renderSessionJson(s), 'and renders to the same JSON');
  t.match(parseSessionJson('{"schema":"other"}'), {
    ok: false,
    message: 'is not a harness summary: expected "schema": "nomad-reboot-harness/summary@1", got "other"',
  });
  t.match(parseSessionJson('{'), { ok: false, message: /is not JSON/ });
});

t.test('a summary written before sessions carried everything still reads', async (t) => {
  const [a] = recorded();
  const old = JSON.parse(renderSessionJson(sessionOf([a!])));
  delete old.suites;
  delete old.earlierAttempts;
  delete old.repeats;
  for (const r of old.runs) delete r.timeline;
  const p = parseSessionJson(JSON.stringify(old));
  if (!p.ok) return t.fail(p.message);
  t.same(
    p.session.suites.map((x) => [x.name, x.attempts.map((r) => r.runId), x.rerun.argv]),
    [[a!.suiteName, [a!.runId], ['run', a!.scenario]]],
  );
  t.same(p.session.suites[0]!.attempts[0]!.timeline, [], 'no timeline is an empty one');
});

t.test('a merged report and a direct report of the same runs agree, file for file', async (t) => {
  const all = cells();
  const direct = session(all);
  // Two runners, each with half the cells (a matrix run as two shards), merged.
  const shards = [session(all.filter((_, i) => i % 2 === 0)), session(all.filter((_, i) => i % 2 === 1))];
  const m = merge(shards.map((s, i) => viaJson(s, `runner-${i}/summary.json`)));
  if (!m.ok) return t.fail(JSON.stringify(m.problems));
  const merged = m.merged.session;
  t.same(merged.suites, direct.suites, 'the same suites, attempts and runs');
  t.equal(merged.exitCode, direct.exitCode, `the same exit code (${direct.exitCode})`);
  const dir = t.testdir({});
  const files = (s: SessionReport) => REPORTERS.flatMap((r) => r.files(s, contextIn(dir)));
  const [d, g] = [files(direct), files(merged)];
  t.same(
    g.map((f) => [f.kind, f.path]),
    d.map((f) => [f.kind, f.path]),
    'the same files',
  );
  for (const [i, f] of d.entries()) {
    if (f.kind === 'json') continue;
    t.equal(g[i]!.text, f.text, `${f.kind} ${f.path.slice(dir.length)}: the same text`);
  }
  const strip = (text: string) => {
    const { command: _c, startedAt: _s, durationMs: _d, ...rest } = JSON.parse(text);
    return rest;
  };
  const json = d.find((f) => f.kind === 'json')!;
  t.same(strip(g.find((f) => f.kind === 'json')!.text), strip(json.text), 'the JSON: the same but for when and what');
  t.match(d.find((f) => f.kind === 'junit')!.text, /<flakyError /, 'the sample has a retried cell');
  t.same(m.merged.warnings, []);
  t.same(
    [...m.merged.sources.values()],
    ['runner-0/summary.json', 'runner-1/summary.json', 'runner-0/summary.json', 'runner-1/summary.json'],
  );
});

t.test('the flake verdicts of a repeat are judged again over the merged suites', async (t) => {
  const rep = (k: number, outcome: RunRecord['outcome']) =>
    suite(`s@1.9.7#${k}`, [rec(`r${k}`, `s@1.9.7#${k}`, { outcome })], { repeat: { group: 's', attempt: k, of: 2 } });
  const m = merge([viaJson(session([rep(1, 'passed')]), 'a.json'), viaJson(session([rep(2, 'failed')]), 'b.json')]);
  if (!m.ok) return t.fail('merged');
  t.same(
    m.merged.session.repeats.map((r) => [r.group, r.verdict, r.suites]),
    [['s', 'flaky', ['s@1.9.7#1', 's@1.9.7#2']]],
  );
});

t.test('a suite name from two runs is refused; the same run given twice is kept once; JUnit files vouch', async (t) => {
  const a = session([suite('x/n=10', [rec('r1', 'x/n=10', { outcome: 'failed' })])]);
  const b = session([suite('x/n=9', [rec('r2', 'x/n=9')])]);
  const ok = merge([viaJson(a, 'a.json'), viaJson(b, 'b.json')]);
  if (!ok.ok) return t.fail('merged');
  t.same(
    ok.merged.session.suites.map((x) => x.name),
    ['x/n=9', 'x/n=10'],
    'numeric-aware name order',
  );
  t.equal(ok.merged.session.exitCode, 1);
  t.equal(ok.merged.session.command, 'merge');
  const again = merge([viaJson(a, 'a.json'), viaJson(a, 'copy/a.json')]);
  t.match(again, {
    ok: true,
    merged: { warnings: [/suite x\/n=10 \(run r1\) is in a\.json and copy\/a\.json: the same run, kept once/] },
  });
  const other = merge([
    viaJson(a, 'a.json'),
    viaJson(b, 'b.json'),
    viaJson(session([suite('x/n=10', [rec('r9', 'x/n=10')])]), 'c.json'),
  ]);
  t.match(other, {
    ok: false,
    problems: [
      {
        field: 'c.json: testsuite "x/n=10"',
        message: /is also in a\.json \(run ids r1 and r9\): one cell ran on two runners/,
      },
    ],
  });
  const vouched = merge(
    [viaJson(a, 'a.json')],
    [
      { path: 'a/junit.xml', suites: [{ name: 'x/n=10', id: 'r1' }] },
      { path: 'copy/junit.xml', suites: [{ name: 'x/n=10', id: 'r1' }] },
    ],
  );
  t.match(vouched, {
    ok: true,
    merged: { warnings: [/is in a\/junit\.xml and copy\/junit\.xml: the same run, kept once/] },
  });
  const foreign = merge(
    [viaJson(a, 'a.json')],
    [
      {
        path: 'z.xml',
        suites: [
          { name: 'x/n=10', id: 'r7' },
          { name: 'other', id: 'q' },
        ],
      },
    ],
  );
  t.match(foreign, {
    ok: false,
    problems: [
      { field: 'z.xml: testsuite "x/n=10"', message: /is of run r7, whose summary\.json is not among the inputs/ },
      { field: 'z.xml: testsuite "other"', message: /is in no JSON report among the inputs/ },
    ],
  });
});

t.test('the index page: a row per cell with its axes and link, failures first, text escaped', async (t) => {
  const s = session([
    suite('s/k=<b>', [rec('r1', 's/k=<b>', { outcome: 'failed' })]),
    suite('s/k=a', [rec('r2', 's/k=a', { properties: { 'matrix.k': 'a', 'matrix.shard': '2/2' } })]),
  ]);
  const index = indexOf(s, {
    pageFor: (id) => (id === 'r2' ? '../runner 1/r2/report.html' : undefined),
    sourceOf: () => 'summary.json',
    warnings: [],
  });
  t.match(index.cells[1], { axes: { k: 'a' }, shard: '2/2', attempts: 1, outcome: 'passed' }, 'axes from properties');
  t.same(index.cells[0]!.axes, { k: '<b>' }, 'else from the cell name');
  const html = renderIndexHtml(index);
  t.match(html, /<span class="badge failed" id="verdict">FAIL<\/span>/);
  const rows = [...html.matchAll(/<tr class="(\w+)" data-cell="([^"]+)">/g)].map((x) => `${x[2]}:${x[1]}`);
  t.same(rows, ['s/k=&lt;b&gt;:failed', 's/k=a:passed'], 'failures first, names escaped');
  t.match(html, '<a href="../runner%201/r2/report.html">s/k=a</a>', 'the link, percent-encoded per segment');
  t.match(html, 's/k=&lt;b&gt; <span class="note">(no page)</span>');
  t.match(html, '<td data-axis="k">&lt;b&gt;</td>');
  t.notMatch(html, /<b>/);
});

t.test('attachments follow the reports: matched by their last segments, pointed at the file found', async (t) => {
  const files = [
    '/dl/reports-shard-1/r1/alloc.json',
    '/dl/reports-shard-2/r2/alloc.json',
    '/dl/a/same/x.log',
    '/dl/b/same/x.log',
    '/dl/c/deep/same/y.log',
  ];
  const at = attachmentLocator(files);
  t.equal(at('reports/r1/alloc.json'), '/dl/reports-shard-1/r1/alloc.json', 'the path the run wrote, found elsewhere');
  t.equal(
    at('/old/runner/reports/r2/alloc.json'),
    '/dl/reports-shard-2/r2/alloc.json',
    'an absolute path from another machine',
  );
  t.equal(at('reports/same/x.log'), undefined, 'two files share the suffix: not guessed');
  t.equal(at('a/same/x.log'), '/dl/a/same/x.log', 'a longer suffix tells them apart');
  t.equal(at('alloc.json'), undefined, 'a bare file name is too little to go on');
  t.equal(at('reports/r9/alloc.json'), undefined);
  const artifacts = [
    { name: 'alloc.json', path: 'reports/r1/alloc.json' },
    { name: 'gone.log', path: 'reports/r9/gone.log' },
  ];
  const s = session([suite('c', [rec('r1', 'c', { artifacts })])]);
  const m = mergeSessions({ sessions: [viaJson(s)], junit: [], attachmentFor: (p) => at(p), outDir: '/dl/merged' });
  if (!m.ok) return t.fail('merged');
  t.same(
    m.merged.session.suites[0]!.attempts[0]!.artifacts.map((a) => a.path),
    ['/dl/reports-shard-1/r1/alloc.json', '/dl/merged/reports/r9/gone.log'],
    'found: where it is now; not found: as written, from the output folder',
  );
  t.same(m.merged.attachments, { rewritten: 1, unresolved: 1 });
  const junit = REPORTERS[0]!.files(m.merged.session, contextIn('/dl/merged')).find((f) => f.kind === 'junit')!.text;
  t.match(junit, '[[ATTACHMENT|../reports-shard-1/r1/alloc.json]]');
  t.match(junit, '[[ATTACHMENT|reports/r9/gone.log]]', 'a line whose file was not found is kept as written');
});

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

t.test('a report inside its run folder names bare files: they resolve from that report, not by suffix', async (t) => {
  // A run's report in its run folder names `alloc-after.json`; merging four such runs said every attachment named
  // "files not among the inputs".
  const files = ['/w/a/r1/alloc-after.json', '/w/b/r2/alloc-after.json', '/w/b/r2/sub/x.log'];
  const locate = attachmentLocator(files);
  t.equal(locate('alloc-after.json', '/w/a/r1'), '/w/a/r1/alloc-after.json');
  t.equal(locate('alloc-after.json', '/w/b/r2'), '/w/b/r2/alloc-after.json', 'the same name in another run: its own');
  t.equal(locate('sub/x.log', '/w/b/r2'), '/w/b/r2/sub/x.log');
  t.equal(locate('../r2/alloc-after.json', '/w/b/matrix-r2'), '/w/b/r2/alloc-after.json', 'relative upwards');
  t.equal(locate('gone.json', '/w/a/r1'), undefined);
  t.equal(locate('alloc-after.json'), undefined, 'no report folder to go on: a bare name is not guessed');
  const bare = [{ name: 'alloc-after.json', path: 'alloc-after.json' }];
  const m = mergeSessions({
    sessions: [
      viaJson(session([suite('s/a', [rec('r1', 's/a', { artifacts: bare })])]), '/w/a/r1/summary.json'),
      viaJson(session([suite('s/b', [rec('r2', 's/b', { artifacts: bare })])]), '/w/b/r2/summary.json'),
    ],
    junit: [],
    attachmentFor: (p, source) => locate(p, dirname(source)),
    outDir: '/w/merged',
  });
  if (!m.ok) return t.fail('merged');
  t.same(
    m.merged.session.suites.map((x) => x.attempts[0]!.artifacts[0]!.path),
    ['/w/a/r1/alloc-after.json', '/w/b/r2/alloc-after.json'],
  );
  t.same(m.merged.attachments, { rewritten: 2, unresolved: 0 });
  // --attachment-paths project: the merged JUnit names them from the project directory (what GitLab resolves from)
  const [junit] = junitReporter.files(m.merged.session, {
    cwd: '/w',
    reportsDir: '/w/merged',
    junitPath: '/w/merged/junit.xml',
    jsonPath: '/w/merged/summary.json',
    attachments: { mode: 'project', projectDir: '/w' },
    cli: '/cli.js',
    rawArgs: [],
    secrets: [],
    pageFile: () => undefined,
  });
  t.match(junit!.text, '[[ATTACHMENT|a/r1/alloc-after.json]]', 'from the project directory');
  t.match(junit!.text, '[[ATTACHMENT|b/r2/alloc-after.json]]');
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
