// What the e2e files hold each real run to, check by check (test/helpers/real-nomad.ts expectedVerdicts), against the
// verdict maps the real runs recorded in docs/findings.md; and assertVerdicts fails a run whose check was skipped, is
// missing, or failed a varying check with evidence other than the known variation.
import t, { type Test } from 'tap';
import { isDeepStrictEqual } from 'node:util';
import {
  assertVerdicts,
  classify,
  expectedVerdicts,
  SHIPPED_JOB_SKIP_WHY,
  type Verdict,
  type Want,
} from '../helpers/real-nomad.js';
import { checkIds } from '../helpers/check-ids.js';

const IDS = checkIds('bridge-exec-reboot');
const b = (v: string) => classify('nomad', v);
/** "status" of each check, "either" for a varying one. */
const shape = (m: Map<string, Want>) =>
  Object.fromEntries([...m].map(([id, w]) => [id, 'status' in w ? w.status : 'either']));
const ids = (m: Map<string, Want>, x: string) =>
  Object.entries(shape(m))
    .filter(([, s]) => s === x)
    .map(([id]) => id)
    .sort();

/** The four sentinels every Nomad scenario judges since the real runs below were recorded: each must pass. */
const SENTINELS = ['agent-log-invariants', 'fault-exercised', 'no-agent-crash', 'servers-agree'];

t.test('1.9.3 panic (rbvoz06f9c5616: 3 passed, 5 failed, 6 skipped; the sentinels since, passed)', async (t) => {
  const m = expectedVerdicts(b('v1.9.3'), 'panic', IDS, SHIPPED_JOB_SKIP_WHY);
  t.same(ids(m, 'passed'), ['agent-resources', 'client-rebooted', 'node-back', ...SENTINELS].sort());
  t.match(m.get('fault-exercised'), { why: /a sentinel/ }, 'not "not affected by the failed restore": held always');
  t.same(ids(m, 'failed'), ['alloc-restored', 'http-reachable', 'no-duplicate-ip', 'task-restarted']);
  t.same(ids(m, 'either'), ['no-leaks'], 'no-leaks: stale or already released');
  t.same(ids(m, 'skipped'), ['alloc-exec', 'services', 'task-dirs', 'task-env', 'task-netns', 'unique-ips']);
});

t.test('agent-kill: the CHANGELOG failures fail, the possible ones vary, the rest pass', async (t) => {
  const m = expectedVerdicts(b('v1.9.3'), 'agent-kill', IDS, SHIPPED_JOB_SKIP_WHY);
  t.same(ids(m, 'failed'), ['agent-resources', 'task-env']);
  t.same(ids(m, 'either'), ['alloc-exec', 'task-netns']);
  t.same(ids(m, 'skipped'), ['services']);
  const m11 = expectedVerdicts(b('v1.11.3'), 'agent-kill', IDS, {});
  t.same(ids(m11, 'failed'), ['agent-resources']);
  t.same(ids(m11, 'either'), ['alloc-exec']);
  t.same(ids(m11, 'skipped'), [], 'the whole-alloc job has services: nothing skips');
  t.same(ids(expectedVerdicts(b('v2.0.5'), 'agent-kill', IDS, {}), 'passed'), [...IDS].sort());
});

t.test(
  'partition (faults: replaced; partition-services: 9 passed, 5 skipped; the sentinels since, passed)',
  async (t) => {
    const m = expectedVerdicts(b('v1.10.5'), 'partition', IDS, {});
    t.same(ids(m, 'skipped'), ['agent-resources', 'alloc-exec', 'task-dirs', 'task-env', 'task-netns']);
    t.equal(ids(m, 'passed').length, 9 + SENTINELS.length);
    t.same(
      SENTINELS.filter((id) => ids(m, 'passed').includes(id)),
      SENTINELS,
      'the sentinels among them',
    );
    t.match(m.get('task-dirs'), { why: /partition restores nothing on the client/ });
  },
);

t.test('graceful on 1.11.3: task-dirs fails (GH-28345), the rest pass', async (t) => {
  const m = expectedVerdicts(b('v1.11.3'), 'graceful', IDS, {});
  t.same(ids(m, 'failed'), ['task-dirs']);
  t.equal(ids(m, 'passed').length, IDS.length - 1);
});

/** A verdict map with every check as `want` says (varying ones passed), then `change` applied. */
function verdicts(want: Map<string, Want>, change: Record<string, Partial<Verdict> | null> = {}) {
  const v = new Map<string, Verdict>();
  for (const [id, w] of want) {
    const status = 'status' in w ? w.status : 'passed';
    v.set(id, { id, label: status, status, message: '', evidence: [] });
  }
  for (const [id, c] of Object.entries(change)) {
    if (c === null) v.delete(id);
    else v.set(id, { ...v.get(id)!, ...c });
  }
  return v;
}

/**
 * How many of assertVerdicts' assertions fail on `v`: it is given a recorder with the four assertions it uses (same,
 * equal, match with a RegExp, comment), so a map that must fail can be tried without failing this file.
 */
function failures(v: Map<string, Verdict>, want: Map<string, Want>): number {
  let failed = 0;
  const count = (ok: boolean) => {
    if (!ok) failed++;
    return ok;
  };
  const recorder = {
    same: (a: unknown, b: unknown) => count(isDeepStrictEqual(a, b)),
    equal: (a: unknown, b: unknown) => count(a === b),
    match: (a: string, re: RegExp) => count(re.test(a)),
    comment: () => undefined,
  };
  assertVerdicts(recorder as unknown as Test, 'x', v, want);
  return failed;
}

t.test('assertVerdicts: a skipped, missing or wrongly failing check fails; the map as wanted passes', async (t) => {
  const want = expectedVerdicts(b('v1.11.3'), 'agent-kill', IDS, SHIPPED_JOB_SKIP_WHY);
  t.equal(failures(verdicts(want), want), 0, 'as wanted');
  t.ok(failures(verdicts(want, { 'task-dirs': { status: 'skipped' } }), want) > 0, 'a check that stopped');
  t.ok(failures(verdicts(want, { 'unique-ips': null }), want) > 0, 'a check missing');
  t.ok(failures(verdicts(want, { 'alloc-exec': { status: 'skipped' } }), want) > 0, 'a varying check skipped');
  t.ok(
    failures(verdicts(want, { 'alloc-exec': { status: 'failed', message: 'timed out' } }), want) > 0,
    'a varying check failing for another reason',
  );
  t.equal(
    failures(
      verdicts(want, { 'alloc-exec': { status: 'failed', message: 'failed to exec into task: plugin is shut down' } }),
      want,
    ),
    0,
    'a varying check failing as the CHANGELOG says',
  );
});
