// JSON summary, console summary, outcomes and exit codes over the recorded runs.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { Verdict } from '../../lib/model/check.js';
import { renderConsoleSummary } from '../../lib/report/console.js';
import { renderSessionJson, SUMMARY_SCHEMA } from '../../lib/report/json.js';
import { sessionOf } from '../helpers/session.js';
import type { RunRecord } from '../../lib/model/run.js';
import { exitCodeOf, outcomeOf } from '../../lib/report/outcome.js';

/** The session JSON of runs, one suite each: the summary `--json` prints. */
const renderJsonSummary = (runs: RunRecord[]) => renderSessionJson(sessionOf(runs));

const loadRuns = (): RunRecord[] =>
  JSON.parse(readFileSync(new URL('../fixtures/report/runs.json', import.meta.url), 'utf8')) as RunRecord[];
const v = (met: boolean, label: Verdict['label'] = met ? 'passed' : 'failed'): Verdict => ({
  id: 'x',
  title: 'X',
  status: 'passed',
  message: '',
  evidence: [],
  expected: 'pass',
  met,
  label,
});

t.test('outcomeOf', async (t) => {
  t.equal(outcomeOf([v(true)]), 'passed');
  t.equal(outcomeOf([v(true), v(false)]), 'failed');
  t.equal(outcomeOf([], new Error('vagrant up failed')), 'error', 'error before any verdict');
  t.equal(outcomeOf([]), 'error', 'no verdict at all proves nothing');
  t.equal(
    outcomeOf([v(false)], new Error('teardown')),
    'failed',
    'a failed check stays a failure when teardown breaks later',
  );
  t.equal(outcomeOf([v(true)], new Error('teardown')), 'error', 'all met but the lab broke afterwards');
  t.equal(outcomeOf([v(true)], undefined, true), 'error', 'interrupted');
});

t.test('exitCodeOf', async (t) => {
  t.equal(exitCodeOf([{ outcome: 'passed' }, { outcome: 'passed' }]), 0);
  t.equal(exitCodeOf([{ outcome: 'passed' }, { outcome: 'failed' }]), 1);
  t.equal(
    exitCodeOf([{ outcome: 'failed' }, { outcome: 'error' }]),
    3,
    'an infrastructure error wins over a failed check',
  );
  t.equal(exitCodeOf([{ outcome: 'error', interrupted: true }, { outcome: 'failed' }]), 130);
  t.equal(exitCodeOf([]), 3, 'no runs is not a pass');
  t.equal(exitCodeOf(loadRuns()), 3);
});

t.test('JSON summary', async (t) => {
  const runs = loadRuns();
  const text = renderJsonSummary(runs);
  t.equal(text, renderJsonSummary(runs), 'stable');
  const doc = JSON.parse(text);
  t.match(doc, { schema: SUMMARY_SCHEMA, outcome: 'error', exitCode: 3 });
  t.equal(doc.runs.length, 4);
  t.match(doc.runs[0], {
    outcome: 'passed',
    counts: { total: 7, passed: 2, expectedFailures: 4, failed: 0, skipped: 1 },
    error: null,
    interrupted: false,
  });
  t.match(doc.runs[0].verdicts[5], {
    id: 'no-duplicate-ip',
    label: 'expected failure',
    met: true,
    expected: 'fail',
    status: 'failed',
  });
  t.same(
    Object.keys(doc.runs[0].properties),
    Object.keys(runs[0]!.properties),
    'properties in the order the run recorded them (as JUnit lists them, so a merge renders the same suite)',
  );
  t.match(doc.runs[0].artifacts[2], { name: 'vagrant-status.txt', caseName: null });
  t.match(doc.runs[1], { outcome: 'failed', counts: { failed: 4 } });
  t.match(doc.runs[2], {
    outcome: 'error',
    error: { step: 'bring up lab' },
    steps: [{ name: 'bring up lab', status: 'error' }],
  });
  t.match(JSON.parse(renderJsonSummary([runs[0]!])), { outcome: 'passed', exitCode: 0 });
});

t.test('console summary', async (t) => {
  const text = renderConsoleSummary(loadRuns(), { color: false });
  t.equal(text.includes('\u001b'), false, 'no colour when color is false');
  const failuresAt = text.indexOf('Failures and errors');
  const restAt = text.indexOf('Other checks');
  t.ok(failuresAt === 0 && restAt > failuresAt, 'failures come first');
  const failures = text.slice(failuresAt, restAt);
  t.match(
    failures,
    /FAIL {2}Alloc restored \(alloc-restored\): replaced:/,
    'the mark says FAIL; no "failed: " after it',
  );
  t.notMatch(text, /failed: failed:|FAIL {2}[^\n]*: failed: /, 'no doubled prefixes');
  t.match(failures, /XPASS Unique alloc IPs \(unique-ips\): unexpected pass:/);
  t.match(failures, /ERROR in step "bring up lab": command exited 1/);
  t.match(
    failures,
    /ERROR in step "bring up lab": command exited 1[^\n]*\n {8}its logs: \S*vagrant-up\.log\n/,
    'the error points at the output the command printed before it failed (N33)',
  );
  t.notMatch(failures, /ERROR waiting for SSH tunnel[^\n]*\n {8}its logs/, 'no logs line for a run that kept none');
  t.match(failures, /ERROR waiting for SSH tunnel/);
  t.match(failures, / {8}other alloc of job bridge-http/, 'evidence under a failure');
  t.notMatch(failures, /xfail/, 'expected failures are not failures');
  t.match(text.slice(restAt), /xfail No duplicate-IP error \(no-duplicate-ip\): expected failure:/);
  const lines = text.trimEnd().split('\n').slice(-4);
  t.same(lines, [
    'PASS bridge-exec-reboot[nomad=1.9.3] — 7 checks: 2 passed, 4 expected failures, 0 failed, 1 skipped (8m32s)',
    'FAIL bridge-exec-reboot[nomad=1.9.7,heartbeat_grace=10s] — 7 checks: 3 passed, 0 expected failures, 4 failed, 0 skipped (8m18s)',
    'ERROR bridge-exec-reboot[box=debian12] — 0 checks: 0 passed, 0 expected failures, 0 failed, 0 skipped (1m35s)',
    'ERROR bridge-exec-reboot[nomad=1.10.0] — 0 checks: 0 passed, 0 expected failures, 0 failed, 0 skipped (4.5s)',
  ]);
  const allGood = renderConsoleSummary([loadRuns()[0]!], { color: false });
  t.notMatch(allGood, /Other checks|Failures and errors/, 'nothing failed: no "Other checks" heading');
  t.match(allGood, /^Checks\nbridge-exec-reboot\[nomad=1\.9\.3\]:\n/);
  t.match(
    renderConsoleSummary(loadRuns(), { color: true }),
    /\u001b\[32mPASS\u001b\[0m bridge-exec-reboot\[nomad=1\.9\.3\]/,
    'coloured when asked',
  );
});
