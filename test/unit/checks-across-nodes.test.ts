// Following allocs across nodes (lib/checks/across-nodes.ts) and the two checks over it, on alloc sequences in the
// shapes of the recorded payloads (test/fixtures/nomad: alloc-running, alloc-lost, alloc-replacement): a rolling drain
// of two clients, one client lost without a drain, and the failures each check must name.
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { ApiAllocation } from '../../lib/nomad/api-types.js';
import { toAllocSnap } from '../../lib/nomad/parse.js';
import type { AllocSnap, RebootRecord } from '../../lib/model/evidence.js';
import type { ClusterEvidence, FaultTurn } from '../../lib/model/cluster-evidence.js';
import { followAllocs } from '../../lib/checks/across-nodes.js';
import { judgeCheck } from '../../lib/checks/define.js';
import { ALLOCS_FOLLOWED } from '../../lib/checks/allocs-followed.js';
import { UNTOUCHED_ALLOCS } from '../../lib/checks/untouched-allocs.js';
import { TARGETS_HIT } from '../../lib/checks/targets-hit.js';

const fixture = (n: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/nomad/${n}`, import.meta.url), 'utf8')) as ApiAllocation;
const N1 = 'f2a4c9d1-3b5e-4f60-8a7b-9c0d1e2f3a4b';
const N2 = '0c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e';
const T0 = 1_760_000_000_000;

/** An alloc in the recorded shape: `base` fixture with the fields a sequence changes. */
function alloc(base: string, o: Partial<ApiAllocation> & { ID: string; Name: string; NodeID: string }): AllocSnap {
  const a = { ...fixture(base), ...o };
  return toAllocSnap(a);
}
const running = (id: string, name: string, node: string, createIndex = 38) =>
  alloc('alloc-running.json', { ID: id, Name: name, NodeID: node, CreateIndex: createIndex });
/** A drained alloc as Nomad leaves it: Migrate set, stopped by the scheduler, complete on the client, linked onward. */
const migratedAway = (id: string, name: string, node: string, next: string) =>
  alloc('alloc-running.json', {
    ID: id,
    Name: name,
    NodeID: node,
    ClientStatus: 'complete',
    DesiredStatus: 'stop',
    DesiredDescription: 'alloc is being migrated',
    DesiredTransition: { Migrate: true },
    NextAllocation: next,
  });
const replacement = (id: string, name: string, node: string, prev: string, createIndex: number) =>
  alloc('alloc-replacement.json', {
    ID: id,
    Name: name,
    NodeID: node,
    PreviousAllocation: prev,
    CreateIndex: createIndex,
  });

const reboot = (machine: string, at: number): RebootRecord => ({
  machine,
  kind: 'graceful',
  bootIdBefore: 'b0',
  bootIdAfter: 'b1',
  requestedAt: at,
  backAt: at + 40_000,
});
const turn = (machine: string, nodeId: string, at: number, drained?: string[]): FaultTurn => ({
  machine,
  role: 'client',
  targetedAs: 'clients',
  nodeId,
  reboot: reboot(machine, at),
  ...(drained
    ? { drain: { nodeId, requestedAt: at - 20_000, doneAt: at - 1000, status: 'complete', allocsOnNode: drained } }
    : {}),
});

function evidence(o: Partial<ClusterEvidence>): ClusterEvidence {
  return {
    topology: '3+2',
    jobId: 'web',
    expectedAllocs: 3,
    nodeNames: { [N1]: 'client-1', [N2]: 'client-2' },
    turns: [],
    disruptionIndex: 50,
    before: [],
    after: [],
    drain: false,
    maxGapMs: 0,
    ...o,
  };
}

const A0 = '11111111-0000-4000-8000-000000000000';
const A1 = '22222222-0000-4000-8000-000000000000';
const A2 = '33333333-0000-4000-8000-000000000000';
const id = (n: number) => `${n}${n}${n}${n}${n}${n}${n}${n}-aaaa-4000-8000-000000000000`;

t.test('a rolling drain of both clients: every alloc migrated, some twice, named with its machines', async (t) => {
  const before = [running(A0, 'web.web[0]', N1), running(A1, 'web.web[1]', N2), running(A2, 'web.web[2]', N1)];
  // client-1 drained: web[0], web[2] to client-2; then client-2 drained: web[1] and both newcomers back to client-1
  const after = [
    migratedAway(A0, 'web.web[0]', N1, id(4)),
    migratedAway(A2, 'web.web[2]', N1, id(5)),
    { ...migratedAway(id(4), 'web.web[0]', N2, id(7)), previousAllocation: A0 },
    { ...migratedAway(id(5), 'web.web[2]', N2, id(8)), previousAllocation: A2 },
    migratedAway(A1, 'web.web[1]', N2, id(6)),
    replacement(id(6), 'web.web[1]', N1, A1, 90),
    replacement(id(7), 'web.web[0]', N1, id(4), 91),
    replacement(id(8), 'web.web[2]', N1, id(5), 92),
  ];
  const e = evidence({
    before,
    after,
    drain: true,
    turns: [turn('client-1', N1, T0, [A0, A2]), turn('client-2', N2, T0 + 120_000, [A1, id(4), id(5)])],
  });
  const f = followAllocs(e);
  t.same(
    f.map((x) => [x.name, x.outcome, x.machineBefore, x.machineAfter, x.currentId?.slice(0, 8)]),
    [
      ['web.web[0]', 'migrated', 'client-1', 'client-1', '77777777'],
      ['web.web[1]', 'migrated', 'client-2', 'client-1', '66666666'],
      ['web.web[2]', 'migrated', 'client-1', 'client-1', '88888888'],
    ],
  );
  t.match(f[0]!.why, /^migrated by the drain: 44444444 on client-2; then migrated by the drain$/);
  const r = judgeCheck(ALLOCS_FOLLOWED, e);
  t.equal(r.status, 'passed', r.message);
  t.match(r.message, /3 migrated\); 3 of 3 run/);
  t.match(r.perAlloc?.[1]?.detail, /migrated client-2 -> client-1 as 66666666/);
  t.equal(judgeCheck(UNTOUCHED_ALLOCS, e).status, 'skipped', 'both clients were hit');
});

t.test(
  'one client lost without a drain: replaced elsewhere (unlinked, by name), restored in place, untouched',
  async (t) => {
    const before = [running(A0, 'web.web[0]', N1), running(A1, 'web.web[1]', N2), running(A2, 'web.web[2]', N1)];
    const lost = alloc('alloc-lost.json', { ID: A0, Name: 'web.web[0]', NodeID: N1, NextAllocation: '' });
    // real 1.9.x places a node-down replacement without PreviousAllocation: found by name, created after the fault
    const repl = alloc('alloc-replacement.json', {
      ID: id(9),
      Name: 'web.web[0]',
      NodeID: N2,
      PreviousAllocation: '',
      CreateIndex: 80,
    });
    const after = [lost, repl, running(A1, 'web.web[1]', N2), running(A2, 'web.web[2]', N1)];
    const e = evidence({ before, after, turns: [turn('client-1', N1, T0)] });
    t.same(
      followAllocs(e).map((x) => [x.outcome, x.machineBefore, x.machineAfter]),
      [
        ['replaced', 'client-1', 'client-2'],
        ['untouched', 'client-2', 'client-2'],
        ['restored', 'client-1', 'client-1'],
      ],
    );
    t.match(
      followAllocs(e)[0]!.why,
      /its node went down \(alloc is lost since its node is down\): 99999999 on client-2/,
    );
    t.equal(judgeCheck(ALLOCS_FOLLOWED, e).status, 'passed');
    const u = judgeCheck(UNTOUCHED_ALLOCS, e);
    t.equal(u.status, 'passed', u.message);
    t.match(u.message, /1 alloc of untouched clients ran throughout/);

    // the same with --drain: an alloc of the drained node lost rather than migrated fails
    const drained = evidence({ ...e, drain: true, turns: [turn('client-1', N1, T0, [A0, A2])] });
    const r = judgeCheck(ALLOCS_FOLLOWED, drained);
    t.equal(r.status, 'failed');
    t.match(r.message, /web\.web\[0\] it was on a drained node but was replaced, not migrated/);
  },
);

t.test(
  'untouched-allocs is skipped, naming the clients hit, when no alloc ran on a client the fault left alone',
  async (t) => {
    const before = [running(A0, 'web.web[0]', N1), running(A1, 'web.web[1]', N1)];
    const e = evidence({ before, after: before, expectedAllocs: 2, turns: [turn('client-1', N1, T0)] });
    t.match(judgeCheck(UNTOUCHED_ALLOCS, e), {
      status: 'skipped',
      message: 'no alloc ran on a client the fault left alone (hit: client-1)',
      evidence: [],
    });
    const all = [...before, running(A2, 'web.web[2]', N2)];
    const one = evidence({ ...e, before: all, after: all, expectedAllocs: 3 });
    t.match(judgeCheck(UNTOUCHED_ALLOCS, one), { status: 'passed', message: /^1 alloc of untouched clients ran/ });
  },
);

t.test('failures: a place not running, the count short, an untouched alloc restarted or moved', async (t) => {
  const before = [running(A0, 'web.web[0]', N1), running(A1, 'web.web[1]', N2)];
  const failed = alloc('alloc-running.json', {
    ID: A0,
    Name: 'web.web[0]',
    NodeID: N1,
    ClientStatus: 'failed',
    DesiredStatus: 'run',
  });
  // web[1] on the untouched client-2 restarted its task during the fault
  const restarted = running(A1, 'web.web[1]', N2);
  restarted.tasks['web'] = {
    ...restarted.tasks['web']!,
    restarts: 1,
    events: [
      ...restarted.tasks['web']!.events,
      { type: 'Restarting', timeMs: T0 + 5000, message: 'Task restarting in 0s', details: {}, failsTask: false },
    ],
  };
  const e = evidence({ before, after: [failed, restarted], expectedAllocs: 2, turns: [turn('client-1', N1, T0)] });
  const r = judgeCheck(ALLOCS_FOLLOWED, e);
  t.equal(r.status, 'failed');
  t.match(r.message, /1 of 2 allocs was not carried through: web\.web\[0\] its place is not running \(failed\)/);
  const u = judgeCheck(UNTOUCHED_ALLOCS, e);
  t.equal(u.status, 'failed');
  t.match(u.message, /web\.web\[1\] on client-2: task web restarted 1 time\(s\); task web: Restarting since the fault/);

  const moved = evidence({
    ...e,
    after: [running(A0, 'web.web[0]', N1), { ...running(A1, 'web.web[1]', N1) }],
  });
  t.match(judgeCheck(UNTOUCHED_ALLOCS, moved).message, /moved to client-1/);
  const short = evidence({
    ...e,
    expectedAllocs: 3,
    after: [running(A0, 'web.web[0]', N1), running(A1, 'web.web[1]', N2)],
  });
  t.match(judgeCheck(ALLOCS_FOLLOWED, short).message, /only 2 of the job's 3 allocs run/);
  t.match(judgeCheck(ALLOCS_FOLLOWED, evidence({ ...e, after: [] })).message, /not carried through.*missing/);
});

t.test('targets-hit: each target back with a new boot id; one that is not, or none hit, fails', async (t) => {
  const turns = [turn('client-1', N1, T0, [A0]), turn('client-2', N2, T0 + 60_000)];
  const ok = judgeCheck(TARGETS_HIT, evidence({ turns }));
  t.equal(ok.status, 'passed');
  t.match(ok.message, /every target hit: client-1, client-2/);
  t.match(
    ok.evidence[0],
    /client-1 \(clients\) graceful boot_id b0 -> b1, back after 40\.0s, drained 19\.0s \(complete\)/,
  );
  const same = [turns[0]!, { ...turns[1]!, reboot: { ...turns[1]!.reboot, bootIdAfter: 'b0' } }];
  const r = judgeCheck(TARGETS_HIT, evidence({ turns: same }));
  t.equal(r.status, 'failed');
  t.match(r.message, /client-2 did not come back with a new boot id/);
  const kill = [{ ...turns[1]!, reboot: { ...turns[1]!.reboot, kind: 'agent-kill' as const, bootIdAfter: 'b0' } }];
  t.equal(judgeCheck(TARGETS_HIT, evidence({ turns: kill })).status, 'passed', 'a fault that keeps the host up');
  t.equal(judgeCheck(TARGETS_HIT, evidence({ turns: [] })).status, 'failed');
});

t.test('targets-hit: the machines hit are the machines targeted, in their order', async (t) => {
  const turns = [turn('client-1', N1, T0, [A0]), turn('client-2', N2, T0 + 60_000)];
  const both = judgeCheck(TARGETS_HIT, evidence({ turns, targeted: ['client-1', 'client-2'] }));
  t.equal(both.status, 'passed');
  t.equal(both.evidence[0], 'targeted: client-1, client-2; hit: client-1, client-2');
  // the roll stopped after wave 1 (the job did not come back whole): client-2 was never hit
  const stopped = judgeCheck(TARGETS_HIT, evidence({ turns: [turns[0]!], targeted: ['client-1', 'client-2'] }));
  t.equal(stopped.status, 'failed', 'a target left unhit fails, though every machine hit rebooted');
  t.equal(stopped.message, 'client-2 targeted but not hit in turn');
  const extra = judgeCheck(TARGETS_HIT, evidence({ turns, targeted: ['client-1'] }));
  t.equal(extra.status, 'failed');
  t.equal(extra.message, 'client-2 hit but not targeted');
  const swapped = judgeCheck(
    TARGETS_HIT,
    evidence({ turns: [turns[1]!, turns[0]!], targeted: ['client-1', 'client-2'] }),
  );
  t.equal(swapped.status, 'failed', 'out of order');
  const leader = {
    ...turn('server-2', N1, T0),
    role: 'server' as const,
    targetedAs: 'leader',
    resolvedHow: 'member server-2.global at 10.0.0.12:4647',
  };
  t.equal(judgeCheck(TARGETS_HIT, evidence({ turns: [leader], targeted: ['leader'] })).status, 'passed');
});

t.test('a whole-lab power loss aimed at client-1 hit client-2 too: no client was left alone', async (t) => {
  const before = [running(A0, 'web.web[0]', N1), running(A1, 'web.web[1]', N2)];
  const t1 = turn('client-1', N1, T0);
  const whole = { ...t1, reboot: { ...t1.reboot, kind: 'power-loss-all' as const } };
  const r = judgeCheck(UNTOUCHED_ALLOCS, evidence({ before, after: before, turns: [whole] }));
  t.equal(r.status, 'skipped', `nothing ran on an untouched client: ${r.message}`);
  const one = judgeCheck(UNTOUCHED_ALLOCS, evidence({ before, after: before, turns: [t1] }));
  t.equal(one.status, 'passed', "a graceful reboot of client-1 leaves client-2's alloc to judge");
});
