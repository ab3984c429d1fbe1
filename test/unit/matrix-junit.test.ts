// Merged matrix JUnit: a suite per cell, and a retried cell's first error as flakyError / rerunError in the right testcase.
import t from 'tap';
import { XMLParser } from 'fast-xml-parser';
import type { RunRecord, StepRecord } from '../../lib/model/run.js';
import { insertIntoCase, renderMatrixJUnit, tagsOutsideCdata } from '../../lib/matrix/junit.js';

const UP = 'bring up the server and client VMs';
const step = (name: string, status: StepRecord['status'], message?: string): StepRecord => ({ name, status, startedAtMs: 0, durationMs: 10, ...(message ? { message } : {}) });
const rec = (runId: string, suiteName: string, o: Partial<RunRecord>): RunRecord => ({
  runId, scenario: 'bridge-exec-reboot', suiteName, hostname: 'h', startedAtMs: 0, durationMs: 10, properties: {}, steps: [], verdicts: [], artifacts: [], timeline: [], outcome: 'passed', ...o,
});
const ok = (id: string) => ({ id, title: id, status: 'passed' as const, message: 'fine', evidence: ['x </testsuite> <testcase name="bring up the server and client VMs">'], expected: 'pass' as const, met: true, label: 'passed' as const });

const errored = (runId: string, cell: string) => rec(runId, cell, { outcome: 'error', steps: [step(UP, 'error', 'vagrant up failed: domain exists')], error: { message: 'vagrant up failed: domain exists', detail: 'stderr tail ]]> here', step: UP } });
const passed = (runId: string, cell: string) => rec(runId, cell, { steps: [step(UP, 'passed'), step('reboot the client (graceful)', 'passed')], verdicts: [ok('client-rebooted')] });

const parse = (xml: string) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', cdataPropName: '#cdata' }).parse(xml);
const cases = (suite: Record<string, unknown>) => [suite['testcase']].flat() as Record<string, unknown>[];

t.test('one suite per cell named by the cell; a retry that passed carries the first error as flakyError in the step that broke', async (t) => {
  const xml = renderMatrixJUnit([
    { cellName: 'bridge-exec-reboot/nomad=1.9.7/reboot=hard', attempts: [errored('r1', 'bridge-exec-reboot/nomad=1.9.7/reboot=hard'), passed('r2', 'bridge-exec-reboot/nomad=1.9.7/reboot=hard')] },
    { cellName: 'bridge-exec-reboot/nomad=1.9.7/reboot=graceful', attempts: [passed('r3', 'bridge-exec-reboot/nomad=1.9.7/reboot=graceful')] },
  ]);
  const doc = parse(xml);
  const suites = [doc.testsuites.testsuite].flat() as Record<string, unknown>[];
  t.same(suites.map((s) => s['name']), ['bridge-exec-reboot/nomad=1.9.7/reboot=hard', 'bridge-exec-reboot/nomad=1.9.7/reboot=graceful']);
  t.same(suites.map((s) => s['id']), ['r2', 'r3'], 'the final attempt is the suite');
  t.equal(Number(suites[0]!['errors']), 0, 'the retried cell counts no error: its final attempt reached a verdict');
  const up = cases(suites[0]!).find((c) => c['name'] === UP)!;
  t.ok(up['flakyError'], 'flakyError inside the step that broke the first time');
  t.match((up['flakyError'] as Record<string, string>)['message'], /attempt 1 \(run r1\) ended in an infrastructure error in "bring up the server and client VMs": vagrant up failed: domain exists; retried as run r2/);
  t.equal((up['flakyError'] as Record<string, string>)['type'], 'infrastructure');
  t.match(JSON.stringify(up['flakyError']), /stderr tail/, 'the detail is in stackTrace (]]> split safely)');
  t.notMatch(xml.split('<testsuite ')[2] ?? '', /flakyError|rerunError/, 'the other cell has no rerun element');
});

t.test('a retry that broke too: rerunError, and the final error stays an error', async (t) => {
  const xml = renderMatrixJUnit([{ cellName: 'c', attempts: [errored('r1', 'c'), errored('r2', 'c')] }]);
  const suite = parse(xml).testsuites.testsuite as Record<string, unknown>;
  t.equal(Number(suite['errors']), 1);
  const up = cases(suite).find((c) => c['name'] === UP)!;
  t.ok(up['error'], 'the final attempt\'s error');
  t.ok(up['rerunError'], 'and the first attempt\'s as rerunError');
});

t.test('the scanner skips CDATA: text that looks like tags does not fool the insertion', async (t) => {
  const hostile = rec('r9', 'c', { steps: [step('prepare', 'passed', `<testcase name="${UP}"> </testsuite>`), step(UP, 'passed')], verdicts: [ok('client-rebooted')] });
  const xml = renderMatrixJUnit([{ cellName: 'c', attempts: [hostile] }]);
  const cdata = [...xml.matchAll(/<!\[CDATA\[[\s\S]*?\]\]>/g)].map((m) => [m.index!, m.index! + m[0].length] as const);
  t.ok(xml.indexOf(`<testcase name="${UP}"`) < xml.indexOf(`<testcase name="${UP}" classname`), 'the look-alike comes first in the text');
  t.notOk(tagsOutsideCdata(xml).some((x) => cdata.some(([a, b]) => x.at > a && x.at < b)), 'no tag is taken from inside CDATA');
  const el = '<flakyError type="infrastructure" message="m"/>';
  const out = insertIntoCase(xml, 'r9', UP, el);
  const up = cases(parse(out).testsuites.testsuite).find((c) => c['name'] === UP)!;
  t.ok(up['flakyError'], 'inserted into the real testcase (it was self-closing)');
  t.match(JSON.stringify(cases(parse(out).testsuites.testsuite).find((c) => c['name'] === 'prepare')), /<testcase name=/, 'the look-alike text is intact');
  t.equal(insertIntoCase(xml, 'nope', UP, el), xml, 'an unknown suite leaves the document alone');
  const fallback = insertIntoCase(xml, 'r9', 'a step the retry never reached', el);
  t.ok(cases(parse(fallback).testsuites.testsuite)[0]!['flakyError'], 'else the suite\'s first testcase');
});
