// JUnit writer: structure (parsed back), escaping, schema validity (xmllint + junit-10.xsd) and a golden file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import t from 'tap';
import { renderJUnit as renderSuites } from '../../lib/report/junit.js';
import type { RunRecord } from '../../lib/model/run.js';

/** One suite per run, attachment paths as written (the reporter decides relative or absolute; tested separately). */
const renderJUnit = (runs: RunRecord[]) =>
  renderSuites(
    runs.map((r) => ({ name: r.suiteName, key: r.suiteName, scenario: r.scenario, counts: true, attempts: [r] })),
    { attachmentPath: (a) => a.path },
  );
import { cdata, cleanText, escapeAttr } from '../../lib/report/xml.js';
import { lintJUnit, xmllintMissing } from '../helpers/junit-schema.js';

const fixture = (name: string): string => new URL(`../fixtures/report/${name}`, import.meta.url).pathname;
const loadRuns = (): RunRecord[] => JSON.parse(readFileSync(fixture('runs.json'), 'utf8')) as RunRecord[];

type Node = Record<string, unknown> & { '@_name'?: string };
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseAttributeValue: false,
  isArray: (name) => ['testsuite', 'testcase', 'property', 'failure', 'error', 'skipped', 'system-out'].includes(name),
});
const parse = (xml: string): { testsuites: { testsuite: Node[] } & Node } => parser.parse(xml);
const cases = (s: Node): Node[] => (s['testcase'] as Node[] | undefined) ?? [];
const byName = (s: Node, name: string): Node => {
  const c = cases(s).find((x) => x['@_name'] === name);
  if (!c) throw new Error(`no testcase ${name}`);
  return c;
};
const out = (c: Node): string => ((c['system-out'] as unknown[] | undefined) ?? []).map(String).join('\n');

t.test('structure of a report with four runs', async (t) => {
  const doc = parse(renderJUnit(loadRuns()));
  const [a, b, c, d] = doc.testsuites.testsuite as [Node, Node, Node, Node];
  t.match(doc.testsuites, { '@_tests': '30', '@_failures': '4', '@_errors': '2' });

  // Run A: --expect fail reproduction of the duplicate-IP bug: passes, expected failures are passing cases.
  t.match(a, {
    '@_name': 'bridge-exec-reboot[nomad=1.9.3]',
    '@_tests': '14',
    '@_failures': '0',
    '@_errors': '0',
    '@_skipped': '2',
    '@_hostname': 'ci-runner-7',
    '@_timestamp': '2025-03-10T09:38:00.000Z',
  });
  const props = Object.fromEntries(
    ((a['properties'] as Node)['property'] as Node[]).map((p) => [p['@_name'], p['@_value']]),
  );
  t.match(props, {
    runId: 'r-20250310-0938-a1',
    scenario: 'bridge-exec-reboot',
    outcome: 'passed',
    'nomad.version': '1.9.3',
    'cni.stateDir.after': '/var/lib/cni/networks/nomad',
  });
  const dup = byName(a, 'No duplicate-IP error (no-duplicate-ip)');
  t.equal(dup['@_classname'], 'bridge-exec-reboot.checks');
  t.notOk(dup['failure'], 'an expected failure is a passing case');
  t.match(out(dup), /^expected failure: CNI refused a duplicate IP allocation/);
  t.match(
    out(dup),
    /\[\[ATTACHMENT\|reports\/r-20250310-0938-a1\/client-journal\.log\]\]$/,
    'artifact linked by case name',
  );
  t.match(
    out(byName(a, 'Alloc restored (alloc-restored)')),
    /\[\[ATTACHMENT\|reports\/r-20250310-0938-a1\/alloc-after\.json\]\]/,
    'artifact linked by check id',
  );
  t.match(
    String((a['system-out'] as unknown[])[0]),
    '[[ATTACHMENT|reports/r-20250310-0938-a1/vagrant-status.txt]]',
    'run-level artifact on the suite',
  );
  t.match(byName(a, 'diagnostics'), {
    '@_classname': 'bridge-exec-reboot.steps',
    skipped: [{ '@_message': 'no check failed unexpectedly' }],
  });
  t.match(byName(a, 'Unique alloc IPs (unique-ips)'), { skipped: [{ '@_message': /no running or pending alloc/ }] });

  // Run B: failures, and one unexpected pass.
  t.match(b, { '@_failures': '4', '@_errors': '0' });
  const restored = byName(b, 'Alloc restored (alloc-restored)')['failure'] as Node[];
  t.match(restored[0], { '@_type': 'failed', '@_message': /^replaced: alloc 2976d256.*heartbeat_grace/ });
  t.match(String(restored[0]!['#text']), /other alloc of job bridge-http: 5e1f0a9b/, 'evidence in the failure body');
  t.match((byName(b, 'Unique alloc IPs (unique-ips)')['failure'] as Node[])[0], {
    '@_type': 'unexpected pass',
    '@_message': /^unexpected pass: /,
  });
  t.equal(out(byName(b, 'diagnostics')).includes('\u001b'), false, 'ANSI escapes stripped');
  t.match(out(byName(b, 'diagnostics')), 'nomad job status: dead ]]> (end)', 'a ]]> in text survives the CDATA split');

  // Run C: died in a step: the step is the <error>, no synthetic case.
  t.match(c, { '@_tests': '1', '@_errors': '1', '@_failures': '0' });
  t.match(byName(c, 'bring up lab'), {
    error: [{ '@_type': 'infrastructure', '@_message': 'command exited 1: vagrant up --provider libvirt client' }],
  });
  t.match(String((byName(c, 'bring up lab')['error'] as Node[])[0]!['#text']), `<b>&'"`);

  // Run D: error outside any step: a synthetic case carries it.
  t.match(d, { '@_tests': '1', '@_errors': '1' });
  t.match(byName(d, 'run error'), {
    '@_classname': 'bridge-exec-reboot.run',
    error: [{ '@_message': /^waiting for SSH tunnel/ }],
  });
});

t.test('an interrupted run with nothing else still reports an error case', async (t) => {
  const run: RunRecord = { ...loadRuns()[3]!, error: undefined, interrupted: true, outcome: 'error' };
  const s = parse(renderJUnit([run])).testsuites.testsuite[0]!;
  t.match(s, { '@_tests': '1', '@_errors': '1' });
  t.match(byName(s, 'interrupted'), { error: [{ '@_type': 'interrupted' }] });
});

t.test('escaping helpers', async (t) => {
  t.equal(escapeAttr(`a&b<c>"d"\nline`), 'a&amp;b&lt;c&gt;&quot;d&quot;&#10;line');
  t.equal(cdata('x]]>y'), '<![CDATA[x]]]]><![CDATA[>y]]>');
  t.equal(cleanText('\u001b[1;31mred\u001b[0m\u0007 bell \u0000nul \uFFFE \uD800 ok\t\n'), 'red bell nul   ok\t\n');
  t.equal(cleanText('\u001b]8;;http://x\u0007link\u001b]8;;\u0007'), 'link', 'OSC hyperlinks stripped');
});

t.test('validates against junit-10.xsd', { skip: xmllintMissing() ?? false }, async (t) => {
  const dir = t.testdir();
  const runs = loadRuns();
  const lint = lintJUnit;
  const bad = join(dir, 'control.xml');
  writeFileSync(
    bad,
    '<testsuites><testsuite name="x"><testcase name="y"><stdout/></testcase></testsuite></testsuites>',
  );
  t.match(lint(bad), /INVALID/, 'control: the validator rejects a non-conforming document');
  const samples: Record<string, RunRecord[]> = {
    all: runs,
    'died-early': [runs[3]!],
    empty: [],
    nasty: [{ ...runs[1]!, suiteName: 'a"b<c>&\u001b[1m\u0001', properties: { 'k&"': '<v>\n' } }],
  };
  for (const [name, sample] of Object.entries(samples)) {
    const file = join(dir, `${name}.xml`);
    writeFileSync(file, renderJUnit(sample));
    t.notMatch(lint(file), /INVALID/, `${name} validates`);
  }
});

t.test('golden file', async (t) => {
  const xml = renderJUnit(loadRuns());
  if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(fixture('golden.junit.xml'), xml);
  t.equal(
    xml,
    readFileSync(fixture('golden.junit.xml'), 'utf8'),
    'matches test/fixtures/report/golden.junit.xml (UPDATE_GOLDEN=1 to refresh after a deliberate change)',
  );
});

t.test("each failed case's first attachment is its check's most telling evidence, then the run's page", async (t) => {
  // GitLab shows only the first [[ATTACHMENT|…]] of a case: it was alloc-after.json for every failed case.
  const run = loadRuns()[1]!;
  run.artifacts = ['alloc-after.json', 'client-nomad-journal.log', 'task-events.json', 'vagrant-up.log'].map(
    (name) => ({ name, path: `r/${name}` }),
  );
  const xml = renderSuites([{ name: run.suiteName, attempts: [run] }], {
    attachmentPath: (a) => a.path,
    pagePath: (r) => `${r.runId}/report.html`,
  });
  const suite = parse(xml).testsuites.testsuite[0]!;
  const attachments = (c: Node) => [...out(c).matchAll(/\[\[ATTACHMENT\|([^\]]+)\]\]/g)].map((m) => m[1]);
  const failed = cases(suite).filter((c) => c['failure'] || c['error']);
  const restored = failed.find((c) => String(c['@_name']).endsWith('(alloc-restored)'))!;
  t.same(
    attachments(restored),
    [
      'r/task-events.json',
      'r/alloc-after.json',
      `${run.runId}/report.html`,
      'r/client-nomad-journal.log',
      'r/vagrant-up.log',
    ],
    'alloc-restored: the task events first, the page next, the rest after',
  );
  const http = failed.find((c) => String(c['@_name']).endsWith('(http-reachable)'))!;
  t.equal(attachments(http)[0], `${run.runId}/report.html`, 'a check with no telling file: the page first');
  t.equal(attachments(http).length, 5, 'and every artifact after it');
  t.ok(
    failed.every((c) => attachments(c).length === 5),
    'every failed case lists every run-wide file',
  );
});

t.test("a step case's name is the step's fixed name; its values are in its output and its failure", async (t) => {
  const base = loadRuns()[0]!;
  const withValues = (id: string, count: number): RunRecord => ({
    ...base,
    steps: [
      { name: 'register the job', status: 'passed', startedAtMs: 0, durationMs: 1, values: { 'job.id': id } },
      {
        name: 'wait until every alloc of the job runs',
        status: 'failed',
        startedAtMs: 0,
        durationMs: 1,
        message: 'not all running',
        values: { 'job.expected_allocs': String(count) },
      },
    ],
  });
  const names = (r: RunRecord) => cases(parse(renderJUnit([r])).testsuites.testsuite[0]!).map((c) => c['@_name']);
  t.same(names(withValues('web', 3)), names(withValues('review-mixed', 2)), 'the same case names');
  const s = parse(renderJUnit([withValues('review-mixed', 2)])).testsuites.testsuite[0]!;
  t.match(out(byName(s, 'register the job')), /^job\.id: review-mixed$/m);
  const failed = byName(s, 'wait until every alloc of the job runs');
  const failure = (failed['failure'] as Node[])[0]!;
  t.equal(failure['@_message'], 'not all running [job.expected_allocs 2]');
  t.match(String(failure['#text']), /job\.expected_allocs: 2/);
});
