// The reboot scenario's checks judged in its order, factsFromEvidence, and expectations (--expect fail and per check).
import { readFileSync } from 'node:fs';
import t from 'tap';
import { TASK_DIRS } from '../../lib/checks/task-dirs.js';
import { TASK_NETNS } from '../../lib/checks/task-netns.js';
import { TASK_ENV } from '../../lib/checks/task-env.js';
import { ALLOC_EXEC } from '../../lib/checks/alloc-exec.js';
import { SERVICES } from '../../lib/checks/services.js';
import { AGENT_RESOURCES } from '../../lib/checks/agent-resources.js';
import { factsFromEvidence } from '../../lib/checks/facts.js';
import { judgeAll } from '../../lib/checks/define.js';
import { CHECKS } from '../../scenarios/bridge-exec-reboot.js';
import { SENTINEL_CHECKS } from '../../lib/steps/sentinel-steps.js';
import { CLIENT_REBOOTED } from '../../lib/checks/client-rebooted.js';
import { NODE_BACK } from '../../lib/checks/node-back.js';
import { ALLOC_RESTORED } from '../../lib/checks/alloc-restored.js';
import { TASK_RESTARTED } from '../../lib/checks/task-restarted.js';
import { HTTP_REACHABLE } from '../../lib/checks/http-reachable.js';
import { NO_DUPLICATE_IP } from '../../lib/checks/no-duplicate-ip.js';
import { UNIQUE_IPS } from '../../lib/checks/unique-ips.js';
import { NO_LEAKS } from '../../lib/checks/no-leaks.js';
import type { RebootEvidence } from '../../lib/model/evidence.js';
import type { CheckResult } from '../../lib/model/check.js';
import { applyExpectations, SCENARIO_EXPECTED_FAILURE } from '../../lib/checks/verdict.js';

const load = (name: string): RebootEvidence =>
  JSON.parse(readFileSync(new URL(`../fixtures/checks/${name}.json`, import.meta.url), 'utf8')) as RebootEvidence;
const r = (id: string, status: CheckResult['status']): CheckResult => ({
  id,
  title: id,
  status,
  message: `${id} ${status}`,
  evidence: [],
});
const rebootChecks = (e: RebootEvidence) => judgeAll(CHECKS, e);
const IDS = CHECKS.map((c) => c.id);

t.test('the reboot scenario judges every check of its list, in order', async (t) => {
  t.ok(IDS.length > 0, 'the scenario lists its checks');
  const results = rebootChecks(load('restored'));
  t.same(
    results.map((x) => x.id),
    IDS,
  );
  // a record from before the whole-alloc checks and the sentinels: those say so (skipped); every check judged before passes
  const WHOLE = new Set(
    [TASK_DIRS, TASK_NETNS, TASK_ENV, ALLOC_EXEC, SERVICES, AGENT_RESOURCES, ...SENTINEL_CHECKS].map((c) => c.id),
  );
  t.same(
    results.map((x) => x.status),
    IDS.map((id) => (WHOLE.has(id) ? 'skipped' : 'passed')),
  );
  t.match(
    results.find((x) => x.id === TASK_DIRS.id)?.message,
    /not read in this run \(a record from before these checks\)/,
  );
  const dup = rebootChecks(load('duplicate-ip'));
  const expected = [
    [CLIENT_REBOOTED, 'passed'],
    [NODE_BACK, 'passed'],
    [ALLOC_RESTORED, 'failed'],
    [TASK_RESTARTED, 'failed'],
    [HTTP_REACHABLE, 'failed'],
    [NO_DUPLICATE_IP, 'failed'],
    [UNIQUE_IPS, 'skipped'],
    [NO_LEAKS, 'failed'],
  ] as const;
  // Note: what these checks do on the sample; a check added later is held to its own test, not to this list.
  t.match(
    Object.fromEntries(dup.map((x) => [x.id, x.status])),
    Object.fromEntries(expected.map(([c, s]) => [c.id, s])),
  );
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
  t.equal(
    factsFromEvidence(load('shared-ip'))['cni.stateDir.after'],
    '/var/lib/cni/networks/nomad, /var/run/cni/nomad',
  );
  t.notOk('alloc.replacement' in factsFromEvidence(load('restored')), 'empty facts are left out');
});

t.test('per-check expectations', async (t) => {
  const v = applyExpectations(
    [r('a', 'passed'), r('b', 'failed'), r('c', 'failed'), r('d', 'passed'), r('e', 'skipped'), r('f', 'skipped')],
    {
      perCheck: { c: 'fail', d: 'fail', f: 'fail' },
    },
  );
  t.same(
    v.map((x) => [x.id, x.label, x.met, x.expected]),
    [
      ['a', 'passed', true, 'pass'],
      ['b', 'failed', false, 'pass'],
      ['c', 'expected failure', true, 'fail'],
      ['d', 'unexpected pass', false, 'fail'],
      ['e', 'skipped', true, 'pass'],
      ['f', 'skipped', false, 'fail'],
    ],
  );
});

t.test('scenario-level --expect fail', async (t) => {
  const v = applyExpectations(rebootChecks(load('duplicate-ip')), { scenario: 'fail', perCheck: {} });
  t.equal(v.length, CHECKS.length, 'no synthetic verdict when something failed');
  t.ok(
    v.every((x) => x.met),
    'failures are expected, passes stay passes',
  );
  t.same(
    v.filter((x) => x.label === 'expected failure').map((x) => x.id),
    v.filter((x) => x.status === 'failed').map((x) => x.id),
    'every failure is an expected one',
  );
  const labels = Object.fromEntries(v.map((x) => [x.id, x.label]));
  t.match(
    labels,
    Object.fromEntries([
      ...[ALLOC_RESTORED, TASK_RESTARTED, HTTP_REACHABLE, NO_DUPLICATE_IP, NO_LEAKS].map((c) => [
        c.id,
        'expected failure',
      ]),
      ...[CLIENT_REBOOTED, NODE_BACK].map((c) => [c.id, 'passed']),
    ]),
  );

  const fixed = applyExpectations(rebootChecks(load('restored')), { scenario: 'fail', perCheck: {} });
  t.equal(fixed.length, CHECKS.length + 1);
  t.match(fixed[CHECKS.length], {
    id: SCENARIO_EXPECTED_FAILURE,
    label: 'unexpected pass',
    met: false,
    message: 'the scenario was expected to fail (--expect fail) but every check passed',
  });

  const override = applyExpectations([r('client-rebooted', 'passed'), r('no-duplicate-ip', 'failed')], {
    scenario: 'fail',
    perCheck: { 'no-duplicate-ip': 'pass' },
  });
  t.match(
    override,
    [
      { label: 'passed', met: true },
      { label: 'failed', met: false, expected: 'pass' },
    ],
    'per-check expectation overrides the scenario',
  );
});

t.test('a chain of consequences is met whatever the order of the list', async (t) => {
  const chain = [
    { ...r('task-restarted', 'failed'), causedBy: 'alloc-restored' },
    { ...r('alloc-restored', 'failed'), causedBy: 'no-duplicate-ip' },
    r('no-duplicate-ip', 'failed'),
    { ...r('http-reachable', 'failed'), causedBy: 'client-rebooted' },
    r('client-rebooted', 'failed'),
  ];
  const v = applyExpectations(chain, { perCheck: { 'no-duplicate-ip': 'fail' } });
  t.same(
    v.map((x) => [x.id, x.label, x.met]),
    [
      ['task-restarted', 'expected failure', true],
      ['alloc-restored', 'expected failure', true],
      ['no-duplicate-ip', 'expected failure', true],
      ['http-reachable', 'failed', false],
      ['client-rebooted', 'failed', false],
    ],
    'only failures that lead back to the expected one',
  );
  t.match(v[0]!.message, /a consequence of alloc-restored, which was expected to fail/);
});
