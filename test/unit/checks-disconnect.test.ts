// The outcome classifier against the job's own disconnect policy (lib/checks/disconnect-outcome.ts): an alloc that went
// `unknown` during a partition or power-off and reconnected in place, a replacement the reconcile stopped (or did not),
// an alloc lost past lost_after (expected) or before it (not), and the node-down explanation naming the job's policy.
// The sequences are the recorded samples (test/fixtures/checks/) with the AllocStates, descriptions and replacement
// real Nomad writes for a disconnected client (nomad/scheduler reconcile.go and generic_sched.go at v1.10.5).
import { readFileSync } from 'node:fs';
import t from 'tap';
import { judgeAll } from '../../lib/checks/define.js';
import { classifyAllocOutcome } from '../../lib/checks/alloc-outcome.js';
import { ALLOC_UNKNOWN } from '../../lib/checks/disconnect-outcome.js';
import { adjustForFault } from '../../lib/checks/fault-expectations.js';
import { effectiveDisconnect, type DisconnectFields } from '../../lib/model/disconnect.js';
import type { AllocSnap, RebootEvidence } from '../../lib/model/evidence.js';
import { CHECKS } from '../../scenarios/bridge-exec-reboot.js';
import { toAllocSnap } from '../../lib/nomad/parse.js';
import type { ApiAllocation } from '../../lib/nomad/api-types.js';

const load = (name: string): RebootEvidence =>
  JSON.parse(readFileSync(new URL(`../fixtures/checks/${name}.json`, import.meta.url), 'utf8')) as RebootEvidence;
const LOST_AFTER_2M: DisconnectFields = { block: { lostAfterMs: 120_000, replace: true, reconcile: 'best_score' } };
const policy = (f: DisconnectFields, line: '1.10+' | 'before-1.10' = '1.10+') => [effectiveDisconnect('web', f, line)];
const OTHER_NODE = '8b1e4d2a-6c3f-4a5b-9e7d-2f1a0c9b8d7e';
const judge = (e: RebootEvidence, partitionForS: number, lostAfterS = 120) =>
  new Map(
    adjustForFault(CHECKS, judgeAll(CHECKS, e), e, { partitionForS, heartbeatGraceS: 20, lostAfterS }).map((r) => [
      r.id,
      r,
    ]),
  );

/**
 * The restored sample as a partition of `heldS` seconds the alloc lived through as `unknown`: the same boot, its task
 * running since before the fault, AllocStates unknown (when the node TTL ran out) then running (on reconnect).
 */
function partitioned(heldS: number, f: DisconnectFields = LOST_AFTER_2M): RebootEvidence {
  const e = load('restored');
  const t0 = e.reboot.requestedAt;
  e.reboot = { ...e.reboot, kind: 'partition', bootIdAfter: e.reboot.bootIdBefore, backAt: t0 + heldS * 1000 };
  e.after.bootId = e.before.bootId;
  e.heartbeatGrace = '20s';
  e.disconnect = policy(f);
  e.settle = { settled: true, reason: 'every alloc decided', quietMs: 20_000 };
  const id = e.allocId;
  e.taskEvents[id] = e.taskEvents[id]!.filter((ev) => ev.timeMs < t0);
  const a = e.after.alloc!;
  const task = a.tasks[e.taskName]!;
  task.events = task.events.filter((ev) => ev.timeMs < t0);
  task.startedAt = e.before.alloc!.tasks[e.taskName]!.startedAt;
  a.clientStatusStates = [
    { status: 'unknown', atMs: t0 + 32_000 },
    { status: 'running', atMs: t0 + heldS * 1000 + 1500 },
  ];
  e.after.jobAllocs = [a];
  return e;
}

/** A replacement placed on another client while the original was unknown (PreviousAllocation set, as Nomad does). */
function replacement(e: RebootEvidence, over: Partial<AllocSnap>): AllocSnap {
  const a = e.after.alloc!;
  return {
    ...structuredClone(a),
    id: '7c2d9e1f-4b3a-4c5d-8e6f-0a1b2c3d4e5f',
    nodeId: OTHER_NODE,
    createIndex: 61,
    modifyIndex: 70,
    createTimeMs: e.reboot.requestedAt + 33_000,
    previousAllocation: a.id,
    address: '172.26.64.9',
    ...over,
  };
}

t.test('partition within lost_after: unknown, then reconnected in place; the task kept running', async (t) => {
  const e = partitioned(75);
  const c = classifyAllocOutcome(e);
  t.match(c, { outcome: 'restored', disconnected: true });
  t.match(
    c.reason,
    /went unknown at 2025-03-10T09:47:22.000Z \(node disconnected\), then reconnected in place on node f3a2c1d4.*; policy: disconnect \{ lost_after = "2m", replace = true, reconcile = "best_score" \} of group web \(Nomad 1.10\+\)/,
  );
  const v = judge(e, 75);
  t.match(v.get('alloc-restored'), { status: 'passed', message: /reconnected in place/ });
  t.match(v.get('task-restarted'), { status: 'passed', message: /kept running through partition/ });
});

t.test(
  'the replacement placed meanwhile is stopped by the reconcile: restored; still running after settle: failed',
  async (t) => {
    const e = partitioned(75);
    const stopped = replacement(e, {
      clientStatus: 'complete',
      desiredStatus: 'stop',
      // DesiredDescription of the alloc a reconnect made redundant (generic_sched.go allocReconnected)
      desiredDescription: 'alloc not needed due to disconnected client reconnect',
    });
    e.after.jobAllocs.push(stopped);
    const c = classifyAllocOutcome(e);
    t.equal(c.outcome, 'restored');
    t.match(
      c.reason,
      /the replacement 7c2d9e1f\S* placed meanwhile \(replace = true\) was stopped by the reconcile \("alloc not needed due to disconnected client reconnect"\)/,
    );
    t.equal(judge(e, 75).get('alloc-restored')?.status, 'passed');

    const both = partitioned(75);
    both.after.jobAllocs.push(replacement(both, { clientStatus: 'running', desiredStatus: 'run' }));
    const b = classifyAllocOutcome(both);
    t.equal(b.outcome, 'failed');
    t.match(b.reason, /still running \(desired run\) after the job settled: the reconcile kept both/);
    t.match(judge(both, 75).get('alloc-restored'), { status: 'failed', message: /reconcile kept both/ });
    both.settle = { settled: false, reason: 'deadline', quietMs: 20_000 };
    t.equal(classifyAllocOutcome(both).outcome, 'unknown', 'not settled: it may still be stopped');

    const noReplace = partitioned(75, { block: { lostAfterMs: 120_000, replace: false } });
    noReplace.after.jobAllocs.push(replacement(noReplace, { clientStatus: 'complete', desiredStatus: 'stop' }));
    t.match(classifyAllocOutcome(noReplace), {
      outcome: 'failed',
      reason: /Nomad placed a replacement 7c2d9e1f\S* although the group says replace = false/,
    });
  },
);

t.test(
  'the reconcile keeps the replacement (best_score): replaced, as the policy allows; keep_original: not',
  async (t) => {
    const make = (reconcile: string) => {
      const e = partitioned(75, { block: { lostAfterMs: 120_000, replace: true, reconcile } });
      const a = e.after.alloc!;
      Object.assign(a, { clientStatus: 'complete', desiredStatus: 'stop', desiredDescription: 'alloc not needed' });
      e.after.jobAllocs.push(replacement(e, { clientStatus: 'running', desiredStatus: 'run' }));
      return e;
    };
    const best = make('best_score');
    t.match(classifyAllocOutcome(best), {
      outcome: 'replaced',
      expectedByPolicy: true,
      replacementId: '7c2d9e1f-4b3a-4c5d-8e6f-0a1b2c3d4e5f',
      reason: /the reconcile \(reconcile = "best_score"\) kept the replacement/,
    });
    t.equal(judgeAll(CHECKS, best).find((r) => r.id === 'alloc-restored')?.status, 'passed');
    t.match(classifyAllocOutcome(make('keep_original')), { outcome: 'replaced', expectedByPolicy: false });
  },
);

/** The replaced sample as a fault past the group's lost_after: unknown first, lost once lost_after ran out. */
function lostPast(kind: 'partition' | 'power-off', unknownForS: number, f = LOST_AFTER_2M): RebootEvidence {
  const e = load('replaced');
  const t0 = e.reboot.requestedAt;
  e.reboot = { ...e.reboot, kind, backAt: t0 + 200_000 };
  if (kind === 'partition') e.reboot.bootIdAfter = e.reboot.bootIdBefore;
  e.heartbeatGrace = '20s';
  e.disconnect = policy(f);
  e.settle = { settled: true, reason: 'every alloc decided', quietMs: 20_000 };
  setStates(e, [
    { status: 'unknown', atMs: t0 + 32_000 },
    { status: 'lost', atMs: t0 + 32_000 + unknownForS * 1000 },
  ]);
  return e;
}

/** The old alloc's AllocStates in every copy the evidence holds of it after the fault (undefined: none). */
function setStates(e: RebootEvidence, states: AllocSnap['clientStatusStates']): void {
  for (const a of [e.after.alloc, ...e.after.jobAllocs]) {
    if (a?.id !== e.allocId) continue;
    if (states) a.clientStatusStates = states;
    else delete a.clientStatusStates;
  }
}

t.test('past lost_after: lost and replaced is what the policy asks for (partition and power-off)', async (t) => {
  const part = lostPast('partition', 121);
  const c = classifyAllocOutcome(part);
  t.match(c, { outcome: 'replaced', expectedByPolicy: true });
  t.match(c.reason, /it was unknown from .* and lost once lost_after 2m ran out: lost and replaced is what disconnect/);
  t.match(judge(part, 200).get('alloc-restored'), {
    status: 'passed',
    message: /replaced, as expected \(partition of 200s > heartbeat_grace 20s \+ lost_after 120s\)/,
  });

  const off = lostPast('power-off', 121);
  const v = new Map(judgeAll(CHECKS, off).map((r) => [r.id, r]));
  t.match(v.get('alloc-restored'), { status: 'passed' });
  t.match(v.get('alloc-restored')?.perAlloc?.[0]?.detail, /^replaced \(as its disconnect policy asks\)/);
  t.match(v.get('task-restarted'), { status: 'passed' }, "the replacement's task judged in the old alloc's place");
  t.match(v.get('task-restarted')?.perAlloc?.[0], {
    allocId: off.allocId,
    detail: /^replacement 5e1f0a9b\S* \(as the disconnect policy asks\)/,
  });
});

t.test('lost before lost_after ran out, or never unknown: not what the policy asks for', async (t) => {
  const early = lostPast('power-off', 10);
  const c = classifyAllocOutcome(early);
  t.match(c, { outcome: 'replaced', expectedByPolicy: false });
  t.match(c.reason, /it was unknown for only 10s before Nomad lost it, short of lost_after 2m/);
  t.equal(judgeAll(CHECKS, early).find((r) => r.id === 'alloc-restored')?.status, 'failed');

  const never = lostPast('power-off', 121);
  setStates(never, undefined);
  t.match(classifyAllocOutcome(never), {
    expectedByPolicy: false,
    reason: /keeps allocs through a disconnect .* but this one was never unknown: Nomad lost it at once/,
  });
  t.match(
    classifyAllocOutcome(never).reason,
    /or a lost_after longer than the fault \(the job has disconnect \{ lost_after = "2m", .*\): lost_after 2m\)\)/,
    'the node-down rule then names the policy the job has',
  );
});

t.test('power-off within lost_after: reconnected in place with its tasks started again after the boot', async (t) => {
  const e = load('restored');
  e.reboot = { ...e.reboot, kind: 'power-off' };
  e.heartbeatGrace = '20s';
  e.disconnect = policy(LOST_AFTER_2M);
  e.after.alloc!.clientStatusStates = [
    { status: 'unknown', atMs: e.reboot.requestedAt + 31_000 },
    { status: 'running', atMs: e.reboot.backAt + 2000 },
  ];
  const c = classifyAllocOutcome(e);
  t.match(c, { outcome: 'restored', disconnected: true });
  t.match(c.reason, /then reconnected in place on node \S+, its tasks started again after the boot; policy:/);
  t.equal(judgeAll(CHECKS, e).find((r) => r.id === 'task-restarted')?.status, 'passed');
});

t.test("the node-down explanation names the job's policy, one this line ignores, or its lack", async (t) => {
  const legacy = load('replaced');
  legacy.reboot = { ...legacy.reboot, kind: 'power-off' };
  legacy.heartbeatGrace = '20s';
  legacy.disconnect = policy({ maxClientDisconnectMs: 90_000 });
  const c = classifyAllocOutcome(legacy);
  t.equal(c.expectedByPolicy, undefined, 'no policy on 1.10+: the node-down rule alone');
  t.match(
    c.reason,
    /or disconnect \{ lost_after = "1m30s" \} in group web: the job's max_client_disconnect = "1m30s" is ignored from Nomad 1.10 \(GH-25284\)\)/,
  );
  legacy.disconnect = policy({ maxClientDisconnectMs: 90_000 }, 'before-1.10');
  setStates(legacy, [
    { status: 'unknown', atMs: legacy.reboot.requestedAt + 30_000 },
    { status: 'lost', atMs: legacy.reboot.requestedAt + 121_000 },
  ]);
  t.match(classifyAllocOutcome(legacy), {
    expectedByPolicy: true,
    reason:
      /lost once lost_after 1m30s ran out: lost and replaced is what max_client_disconnect = "1m30s" of group web \(Nomad before 1\.10\) asks for$/,
  });
  t.notMatch(classifyAllocOutcome(legacy).reason, /heartbeat_grace/, 'the policy says why on its own');
  const none = load('replaced');
  none.reboot = { ...none.reboot, kind: 'power-off' };
  none.disconnect = policy({});
  t.match(
    classifyAllocOutcome(none).reason,
    /or a disconnect \{ lost_after = "…" \} block in group web \(it has none\)\)/,
  );
  delete none.disconnect;
  t.match(
    classifyAllocOutcome(none).reason,
    /or a disconnect \{ lost_after = "…" \} block in group web\)/,
    'older records',
  );
});

t.test('an alloc still unknown when read: its description says so', async (t) => {
  const e = partitioned(75);
  const a = e.after.alloc!;
  delete a.clientStatusStates;
  Object.assign(a, { clientStatus: 'unknown', clientDescription: ALLOC_UNKNOWN });
  e.settle = { settled: false, reason: 'deadline', quietMs: 20_000 };
  const c = classifyAllocOutcome(e);
  t.equal(c.outcome, 'unknown');
  t.notOk(c.disconnected, 'not reconnected: alloc-outcome decides (neither restored nor replaced yet)');
});

t.test('toAllocSnap reads AllocStates: the ClientStatus entries (Field 0), oldest first', async (t) => {
  const sample = JSON.parse(
    readFileSync(new URL('../fixtures/nomad/alloc-running.json', import.meta.url), 'utf8'),
  ) as ApiAllocation;
  t.notOk('clientStatusStates' in toAllocSnap(sample), 'left out while Nomad has none');
  const states = [
    { Field: 0, Value: 'unknown', Time: '2025-03-10T09:47:22.123456789Z' },
    { Field: 0, Value: 'running', Time: '2025-03-10T09:48:27.5Z' },
  ];
  t.same(toAllocSnap({ ...sample, AllocStates: states }).clientStatusStates, [
    { status: 'unknown', atMs: Date.parse('2025-03-10T09:47:22.123Z') },
    { status: 'running', atMs: Date.parse('2025-03-10T09:48:27.5Z') },
  ]);
});
