// rebootChecks order, factsFromEvidence, and expectations (--expect fail and per check).
import { readFileSync } from 'node:fs';
import t from 'tap';
import { factsFromEvidence, rebootChecks, REBOOT_CHECK_IDS } from '../../lib/checks/reboot.js';
import type { RebootEvidence } from '../../lib/model/evidence.js';
import type { CheckResult } from '../../lib/model/check.js';
import { applyExpectations, SCENARIO_EXPECTED_FAILURE, unknownExpectationIds } from '../../lib/checks/verdict.js';

const load = (name: string): RebootEvidence => JSON.parse(readFileSync(new URL(`../fixtures/checks/${name}.json`, import.meta.url), 'utf8')) as RebootEvidence;
const r = (id: string, status: CheckResult['status']): CheckResult => ({ id, title: id, status, message: `${id} ${status}`, evidence: [] });

t.test('rebootChecks runs every check in order', async (t) => {
  const results = rebootChecks(load('restored'));
  t.same(results.map((x) => x.id), REBOOT_CHECK_IDS);
  // a record from before the whole-alloc checks: they say so (skipped), the others judge as they did
  t.same(results.map((x) => x.status), [...Array(8).fill('passed'), ...Array(6).fill('skipped')]);
  t.match(results.find((x) => x.id === 'task-dirs')?.message, /not read in this run \(a record from before these checks\)/);
  const dup = rebootChecks(load('duplicate-ip'));
  t.same(Object.fromEntries(dup.map((x) => [x.id, x.status])), {
    'client-rebooted': 'passed',
    'node-back': 'passed',
    'alloc-restored': 'failed',
    'task-restarted': 'failed',
    'http-reachable': 'failed',
    'no-duplicate-ip': 'failed',
    'unique-ips': 'skipped',
    'no-leaks': 'failed',
    'task-dirs': 'skipped',
    'task-netns': 'skipped',
    'task-env': 'skipped',
    'alloc-exec': 'skipped',
    'services': 'skipped',
    'agent-resources': 'skipped',
  });
});

t.test('factsFromEvidence', async (t) => {
  t.match(factsFromEvidence(load('duplicate-ip')), {
    'alloc.address.before': '172.26.64.69',
    'alloc.ports.after': 'http=192.168.121.11:25432->8080',
    'cni.stateDir.after': '/var/lib/cni/networks/nomad',
    'nomad.version': '1.9.3',
    'cni.bridge.version': 'v1.6.2',
    'bootId.after': '9c8d7e6f-5a4b-4c3d-8e2f-1a0b9c8d7e6f',
    'alloc.outcome': 'failed',
  });
  const replaced = factsFromEvidence(load('replaced'));
  t.equal(replaced['alloc.outcome'], 'replaced');
  t.equal(replaced['alloc.replacement'], '5e1f0a9b-3c2d-4b7e-a1f6-8d9c0b1a2e3f');
  t.equal(factsFromEvidence(load('shared-ip'))['cni.stateDir.after'], '/var/run/cni/nomad, /var/lib/cni/networks/nomad');
  t.notOk('alloc.replacement' in factsFromEvidence(load('restored')), 'empty facts are left out');
});

t.test('per-check expectations', async (t) => {
  const v = applyExpectations([r('a', 'passed'), r('b', 'failed'), r('c', 'failed'), r('d', 'passed'), r('e', 'skipped'), r('f', 'skipped')], {
    perCheck: { c: 'fail', d: 'fail', f: 'fail' },
  });
  t.same(v.map((x) => [x.id, x.label, x.met, x.expected]), [
    ['a', 'passed', true, 'pass'],
    ['b', 'failed', false, 'pass'],
    ['c', 'expected failure', true, 'fail'],
    ['d', 'unexpected pass', false, 'fail'],
    ['e', 'skipped', true, 'pass'],
    ['f', 'skipped', false, 'fail'],
  ]);
});

t.test('scenario-level --expect fail', async (t) => {
  const v = applyExpectations(rebootChecks(load('duplicate-ip')), { scenario: 'fail', perCheck: {} });
  t.equal(v.length, 14, 'no synthetic verdict when something failed');
  t.ok(v.every((x) => x.met), 'failures are expected, passes stay passes');
  t.same(v.filter((x) => x.label === 'expected failure').map((x) => x.id), ['alloc-restored', 'task-restarted', 'http-reachable', 'no-duplicate-ip', 'no-leaks']);
  t.same(v.filter((x) => x.label === 'passed').map((x) => x.id), ['client-rebooted', 'node-back']);

  const fixed = applyExpectations(rebootChecks(load('restored')), { scenario: 'fail', perCheck: {} });
  t.equal(fixed.length, 15);
  t.match(fixed[14], { id: SCENARIO_EXPECTED_FAILURE, label: 'unexpected pass', met: false, message: 'the scenario was expected to fail (--expect fail) but every check passed' });

  const override = applyExpectations([r('client-rebooted', 'passed'), r('no-duplicate-ip', 'failed')], { scenario: 'fail', perCheck: { 'no-duplicate-ip': 'pass' } });
  t.match(override, [{ label: 'passed', met: true }, { label: 'failed', met: false, expected: 'pass' }], 'per-check expectation overrides the scenario');
});

t.test('unknownExpectationIds', async (t) => {
  t.same(unknownExpectationIds({ 'alloc-restored': 'fail', 'no-duplicat-ip': 'fail' }, REBOOT_CHECK_IDS), ['no-duplicat-ip']);
  t.same(unknownExpectationIds({}, REBOOT_CHECK_IDS), []);
});
