// lib/report/flaky.ts: attempts of `run --repeat N` judged together: all passed, the same failure every time (a
// verdict), a failure that comes and goes or changes shape (flaky, with the attempts to compare named).
import t from 'tap';
import { attemptSignature, flakeReports, renderFlakeReports } from '../../lib/report/flaky.js';
import type { RunRecord } from '../../lib/model/run.js';
import type { Verdict } from '../../lib/model/check.js';

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
