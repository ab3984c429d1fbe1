// The outcome classifier and the checks on a real disconnect (test/fixtures/nomad/real-1.10.5/disconnect: a 1.10.5
// server and client on loopback, the client agent stopped for 42 s and then for 98 s, the job's
// disconnect { lost_after = "1m" }): reconnected in place within lost_after; lost and replaced past it, which the
// policy asks for; the same loss judged against a longer lost_after is not.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { classifyAllocOutcome } from '../../lib/checks/alloc-outcome.js';
import { judgeAll } from '../../lib/checks/define.js';
import { adjustForFault } from '../../lib/checks/fault-expectations.js';
import type { AllocSnap, Observation, RebootEvidence } from '../../lib/model/evidence.js';
import type { ApiAllocation, ApiNode } from '../../lib/nomad/api-types.js';
import { toAllocSnap, toNodeSnap } from '../../lib/nomad/parse.js';
import { jobDisconnectPolicies, shortestLostAfterS } from '../../lib/parse/job-disconnect.js';
import { jobInfo } from '../../lib/parse/nomad-job.js';
import { CHECKS } from '../../scenarios/bridge-exec-reboot.js';

const DIR = new URL('../fixtures/nomad/real-1.10.5/disconnect/', import.meta.url);
const text = (p: string) => readFileSync(new URL(p, DIR), 'utf8');
const json = <T>(p: string) => JSON.parse(text(p)) as T;
const ALLOC = '4c1c9843-d58e-4781-b39d-82d1ce900c51';

/** One read of the job: its node and every alloc the read holds. */
function observation(run: 'within' | 'past', read: string): Observation {
  const files = readdirSync(new URL(`${run}/`, DIR)).filter((f) => f.startsWith(`${read}-allocation-`));
  const jobAllocs = files.map((f) => toAllocSnap(json<ApiAllocation>(`${run}/${f}`)));
  return {
    label: read,
    atMs: 0,
    bootId: 'same-boot',
    uptimeS: undefined,
    node: toNodeSnap(json<ApiNode>(`${run}/${read}-node.json`)),
    alloc: jobAllocs.find((a) => a.id === ALLOC),
    jobAllocs,
    nodeAllocs: [],
    http: [],
    cniState: [],
  };
}

/** The evidence the scenario would hold after `read`, for a partition from stop-at to cont-at. */
function evidence(run: 'within' | 'past', read: string, settled = true): RebootEvidence {
  const before = observation(run, 'before');
  const after = observation(run, read);
  const info = jobInfo(json('job-parsed.json')).info!;
  const index = (a: AllocSnap[]) => Math.max(...a.map((x) => x.modifyIndex));
  return {
    jobId: 'disc',
    taskName: 'sleep',
    allocId: ALLOC,
    allocIds: [ALLOC],
    disruptionIndex: index(before.jobAllocs),
    heartbeatGrace: '5s',
    disconnect: jobDisconnectPolicies(info.groups, 'Nomad v1.10.5'),
    settle: { settled, reason: settled ? 'every alloc decided' : 'deadline', quietMs: 3000 },
    before,
    after,
    reboot: {
      machine: 'client',
      kind: 'partition',
      bootIdBefore: 'same-boot',
      bootIdAfter: 'same-boot',
      requestedAt: Date.parse(text(`${run}/stop-at.txt`).trim()),
      backAt: Date.parse(text(`${run}/cont-at.txt`).trim()),
    },
    taskEvents: {},
    clientLog: [],
  };
}

const judged = (e: RebootEvidence) => {
  const heldS = Math.round((e.reboot.backAt - e.reboot.requestedAt) / 1000);
  const f = { partitionForS: heldS, heartbeatGraceS: 5, lostAfterS: shortestLostAfterS(e.disconnect ?? []) };
  return new Map(adjustForFault(CHECKS, judgeAll(CHECKS, e), e, f).map((r) => [r.id, r]));
};

t.test("the job's policy as 1.10.5 canonicalized it", async (t) => {
  const e = evidence('within', 'after');
  t.same(e.disconnect, [
    {
      group: 'web',
      line: '1.10+',
      lostAfterMs: 60_000,
      replace: true,
      reconcile: 'best_score',
      written: 'disconnect { lost_after = "1m", replace = true, reconcile = "best_score" }',
      ignored: [],
    },
  ]);
});

t.test('42 s inside lost_after: unknown, then running again in place, the task not restarted', async (t) => {
  const e = evidence('within', 'after');
  const c = classifyAllocOutcome(e);
  t.match(c, { outcome: 'restored', disconnected: true });
  t.match(c.reason, /went unknown at 2026-12-04T19:02:21\.142Z \(node disconnected\), then reconnected in place/);
  const v = judged(e);
  t.match(v.get('alloc-restored'), { status: 'passed' });
  t.match(v.get('task-restarted'), { status: 'passed', message: /kept running through partition/ });
  t.match(v.get('client-rebooted'), {
    status: 'passed',
    message: /partition of 42s <= heartbeat_grace 5s \+ lost_after 60s/,
  });

  const during = evidence('within', 'disconnected', false);
  t.match(
    classifyAllocOutcome(during),
    { outcome: 'unknown' },
    'read while still unknown: neither restored nor replaced yet',
  );
});

t.test(
  '98 s, past lost_after: lost and replaced (matched by name: Nomad links neither way), as the policy asks',
  async (t) => {
    const e = evidence('past', 'after');
    const c = classifyAllocOutcome(e);
    t.match(c, { outcome: 'replaced', matchedBy: 'name', expectedByPolicy: true });
    t.match(
      c.reason,
      /it was unknown from 2026-12-04T19:03:58\.080Z and lost once lost_after 1m ran out: lost and replaced is what disconnect \{ lost_after = "1m"/,
    );
    t.notMatch(c.reason, /kept the replacement/, 'not taken for a replacement the reconcile kept');
    const v = judged(e);
    t.match(v.get('alloc-restored'), {
      status: 'passed',
      message: /^replaced, as expected \(partition of 98s > heartbeat_grace 5s \+ lost_after 60s\)/,
    });
    t.match(v.get('task-restarted'), { status: 'passed', message: /replacement .* task is running/ });
  },
);

t.test(
  'the same loss judged against a lost_after of 5m: Nomad lost it inside it, so not what the policy asks',
  async (t) => {
    const e = evidence('past', 'after');
    e.disconnect = e.disconnect!.map((p) => ({
      ...p,
      lostAfterMs: 300_000,
      written: 'disconnect { lost_after = "5m" }',
    }));
    const c = classifyAllocOutcome(e);
    t.match(c, { outcome: 'replaced', expectedByPolicy: false });
    t.match(
      c.reason,
      /the client was back 1m29s after the alloc went unknown, inside lost_after 5m .* yet Nomad lost it/,
    );
    t.equal(judgeAll(CHECKS, e).find((r) => r.id === 'alloc-restored')?.status, 'failed');
  },
);
