// A session's JUnit: a suite per cell, and a retried cell's first error as flakyError / rerunError in the right testcase,
// placed in the element tree (no string splicing).
import t from 'tap';
import { XMLParser } from 'fast-xml-parser';
import type { RunRecord, StepRecord } from '../../lib/model/run.js';
import { renderJUnit } from '../../lib/report/junit.js';

const renderMatrixJUnit = (cells: { cellName: string; attempts: RunRecord[] }[]) =>
  renderJUnit(
    cells.map((c) => ({
      name: c.cellName,
      key: c.cellName,
      scenario: 'bridge-exec-reboot',
      counts: true,
      attempts: c.attempts,
    })),
    { attachmentPath: (a) => a.path },
  );

const UP = 'bring up the server and client VMs';
const step = (name: string, status: StepRecord['status'], message?: string): StepRecord => ({
  name,
  status,
  startedAtMs: 0,
  durationMs: 10,
  ...(message ? { message } : {}),
});
const rec = (runId: string, suiteName: string, o: Partial<RunRecord>): RunRecord => ({
  runId,
  scenario: 'bridge-exec-reboot',
  suiteName,
  hostname: 'h',
  startedAtMs: 0,
  durationMs: 10,
  properties: {},
  steps: [],
  verdicts: [],
  artifacts: [],
  timeline: [],
  outcome: 'passed',
  ...o,
});
const ok = (id: string) => ({
  id,
  title: id,
  status: 'passed' as const,
  message: 'fine',
  evidence: ['x </testsuite> <testcase name="bring up the server and client VMs">'],
  expected: 'pass' as const,
  met: true,
  label: 'passed' as const,
});

const errored = (runId: string, cell: string) =>
  rec(runId, cell, {
    outcome: 'error',
    steps: [step(UP, 'error', 'vagrant up failed: domain exists')],
    error: { message: 'vagrant up failed: domain exists', detail: 'stderr tail ]]> here', step: UP },
  });
const passed = (runId: string, cell: string) =>
  rec(runId, cell, {
    steps: [step(UP, 'passed'), step('reboot the client (graceful)', 'passed')],
    verdicts: [ok('client-rebooted')],
  });

const parse = (xml: string) =>
  new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', cdataPropName: '#cdata' }).parse(xml);
const cases = (suite: Record<string, unknown>) => [suite['testcase']].flat() as Record<string, unknown>[];

t.test(
  'one suite per cell named by the cell; a retry that passed carries the first error as flakyError in the step that broke',
  async (t) => {
    const xml = renderMatrixJUnit([
      {
        cellName: 'bridge-exec-reboot/nomad=1.9.7/reboot=hard',
        attempts: [
          errored('r1', 'bridge-exec-reboot/nomad=1.9.7/reboot=hard'),
          passed('r2', 'bridge-exec-reboot/nomad=1.9.7/reboot=hard'),
        ],
      },
      {
        cellName: 'bridge-exec-reboot/nomad=1.9.7/reboot=graceful',
        attempts: [passed('r3', 'bridge-exec-reboot/nomad=1.9.7/reboot=graceful')],
      },
    ]);
    const doc = parse(xml);
    const suites = [doc.testsuites.testsuite].flat() as Record<string, unknown>[];
    t.same(
      suites.map((s) => s['name']),
      ['bridge-exec-reboot/nomad=1.9.7/reboot=hard', 'bridge-exec-reboot/nomad=1.9.7/reboot=graceful'],
    );
    t.same(
      suites.map((s) => s['id']),
      ['r2', 'r3'],
      'the final attempt is the suite',
    );
    t.equal(Number(suites[0]!['errors']), 0, 'the retried cell counts no error: its final attempt reached a verdict');
    const up = cases(suites[0]!).find((c) => c['name'] === UP)!;
    t.ok(up['flakyError'], 'flakyError inside the step that broke the first time');
    t.match(
      (up['flakyError'] as Record<string, string>)['message'],
      /attempt 1 \(run r1\) ended in an infrastructure error in "bring up the server and client VMs": vagrant up failed: domain exists; retried as run r2/,
    );
    t.equal((up['flakyError'] as Record<string, string>)['type'], 'infrastructure');
    t.match(JSON.stringify(up['flakyError']), /stderr tail/, 'the detail is in stackTrace (]]> split safely)');
    t.notMatch(xml.split('<testsuite ')[2] ?? '', /flakyError|rerunError/, 'the other cell has no rerun element');
  },
);

t.test('a retry that broke too: rerunError, and the final error stays an error', async (t) => {
  const xml = renderMatrixJUnit([{ cellName: 'c', attempts: [errored('r1', 'c'), errored('r2', 'c')] }]);
  const suite = parse(xml).testsuites.testsuite as Record<string, unknown>;
  t.equal(Number(suite['errors']), 1);
  const up = cases(suite).find((c) => c['name'] === UP)!;
  t.ok(up['error'], "the final attempt's error");
  t.ok(up['rerunError'], "and the first attempt's as rerunError");
});

t.test('text that looks like tags does not fool where the rerun element goes', async (t) => {
  const hostile = rec('r9', 'c', {
    steps: [step('prepare', 'passed', `<testcase name="${UP}"> </testsuite>`), step(UP, 'passed')],
    verdicts: [ok('client-rebooted')],
  });
  const xml = renderMatrixJUnit([{ cellName: 'c', attempts: [errored('r8', 'c'), hostile] }]);
  const all = cases(parse(xml).testsuites.testsuite);
  t.ok(
    all.find((c) => c['name'] === UP)!['flakyError'],
    'the rerun element is in the real testcase of the step that broke',
  );
  t.notOk(all.find((c) => c['name'] === 'prepare')!['flakyError'], 'not in the case whose text looks like it');
  t.match(JSON.stringify(all.find((c) => c['name'] === 'prepare')), /<testcase name=/, 'the look-alike text is intact');
  const other = rec('r10', 'c', { steps: [step('prepare', 'passed')], verdicts: [ok('client-rebooted')] });
  const fallback = cases(
    parse(renderMatrixJUnit([{ cellName: 'c', attempts: [errored('r8', 'c'), other] }])).testsuites.testsuite,
  );
  t.ok(fallback[0]!['flakyError'], "a step the retry never reached: the suite's first testcase");
});
