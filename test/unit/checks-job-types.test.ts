// What Nomad promises each job type across a cluster fault (lib/checks/job-types.ts) and the checks over it
// (system-allocs, batch-outcome, no-extra-alloc; allocs-followed and untouched-allocs leaving the other types to them),
// on allocs in the recorded shape (test/fixtures/nomad/alloc-running.json) with Terminated events as real 1.9.3 writes
// them (Details.exit_code, test/fixtures/nomad/real-1.9.3/netns-missing/after-restart/allocation.json).
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { ApiAllocation, ApiNode } from '../../lib/nomad/api-types.js';
import { toAllocSnap } from '../../lib/nomad/parse.js';
import type { AllocSnap, RebootRecord } from '../../lib/model/evidence.js';
import type { ClusterEvidence, ClusterJob, FaultTurn, VolumeStateRead } from '../../lib/model/cluster-evidence.js';
import { judgeCheck } from '../../lib/checks/define.js';
import { batchOutcomes, perNodeJobs, SYSTEM_BACK_WITHIN_MS } from '../../lib/checks/job-types.js';
import { SYSTEM_ALLOCS } from '../../lib/checks/system-allocs.js';
import { BATCH_OUTCOME } from '../../lib/checks/batch-outcome.js';
import { extraAllocs, NO_EXTRA_ALLOC } from '../../lib/checks/no-extra-alloc.js';
import { ALLOCS_FOLLOWED } from '../../lib/checks/allocs-followed.js';
import { UNTOUCHED_ALLOCS } from '../../lib/checks/untouched-allocs.js';

const base = JSON.parse(
  readFileSync(new URL('../fixtures/nomad/alloc-running.json', import.meta.url), 'utf8'),
) as ApiAllocation;
const N1 = 'f2a4c9d1-3b5e-4f60-8a7b-9c0d1e2f3a4b';
const N2 = '0c1d2e3f-4a5b-4c6d-8e7f-901a2b3c4d5e';
const T0 = 1_760_000_000_000;
const ns = (ms: number) => ms * 1e6;

/** A task event in the shape real Nomad writes. */
function event(type: string, atMs: number, details: Record<string, string> = {}) {
  return {
    ...base.TaskStates!['web']!.Events![0]!,
    Type: type,
    Time: ns(atMs),
    Details: details,
    DisplayMessage: type,
  };
}
const terminated = (atMs: number, code: string) =>
  event('Terminated', atMs, { signal: '0', oom_killed: 'false', exit_code: code });

interface A {
  id: string;
  job: string;
  node: string;
  name?: string;
  client?: string;
  desired?: string;
  desc?: string;
  create?: number;
  prev?: string;
  next?: string;
  migrate?: boolean;
  startedMs?: number;
  task?: { state: string; failed?: boolean; events?: ReturnType<typeof event>[] };
}
function alloc(o: A): AllocSnap {
  const task = base.TaskStates!['web']!;
  const events = o.task?.events ?? [event('Started', o.startedMs ?? T0 - 60_000)];
  return toAllocSnap({
    ...base,
    ID: o.id,
    Name: o.name ?? `${o.job}.g[0]`,
    JobID: o.job,
    TaskGroup: 'g',
    NodeID: o.node,
    ClientStatus: o.client ?? 'running',
    DesiredStatus: o.desired ?? 'run',
    DesiredDescription: o.desc ?? '',
    CreateIndex: o.create ?? 38,
    CreateTime: ns(o.startedMs ?? T0 - 60_000),
    PreviousAllocation: o.prev ?? '',
    NextAllocation: o.next ?? '',
    DesiredTransition: o.migrate ? { Migrate: true } : {},
    TaskStates: {
      web: { ...task, State: o.task?.state ?? 'running', Failed: o.task?.failed ?? false, Events: events },
    },
  } as ApiAllocation);
}

const reboot = (machine: string, at: number, kind: RebootRecord['kind'] = 'graceful'): RebootRecord => ({
  machine,
  kind,
  bootIdBefore: 'b0',
  bootIdAfter: kind === 'graceful' ? 'b1' : 'b0',
  requestedAt: at,
  backAt: at + 40_000,
});
function turn(
  machine: string,
  nodeId: string,
  at: number,
  o: { drained?: string[]; eligibleAt?: number } = {},
): FaultTurn {
  return {
    machine,
    role: 'client',
    targetedAs: 'clients',
    nodeId,
    reboot: reboot(machine, at),
    ...(o.drained
      ? { drain: { nodeId, requestedAt: at - 20_000, doneAt: at - 1000, status: 'complete', allocsOnNode: o.drained } }
      : {}),
    ...(o.eligibleAt !== undefined ? { eligibleAt: o.eligibleAt } : {}),
  };
}
function evidence(jobs: ClusterJob[], o: Partial<ClusterEvidence>): ClusterEvidence {
  return {
    topology: '1+2',
    jobId: jobs[0]!.id,
    expectedAllocs: jobs.reduce((n, j) => n + j.expectedAllocs, 0),
    jobs,
    nodeNames: { [N1]: 'client-1', [N2]: 'client-2' },
    turns: [],
    disruptionIndex: 50,
    before: [],
    after: [],
    drain: true,
    maxGapMs: 0,
    ...o,
  };
}
const SYS: ClusterJob = { id: 'agent', expectedAllocs: 2, type: 'system' };

t.test(
  'system: a node drained, rebooted and eligible again runs its system alloc again within the bound',
  async (t) => {
    const eligibleAt = T0 + 60_000;
    const s1 = alloc({ id: 's1', job: 'agent', node: N1 });
    const s2 = alloc({ id: 's2', job: 'agent', node: N2 });
    const stopped = alloc({ id: 's1', job: 'agent', node: N1, client: 'complete', desired: 'stop' });
    const back = (afterMs: number) =>
      alloc({ id: 's3', job: 'agent', node: N1, create: 90, startedMs: eligibleAt + afterMs });
    const e = (after: AllocSnap[]) =>
      evidence([SYS], { before: [s1, s2], after, turns: [turn('client-1', N1, T0, { drained: ['s1'], eligibleAt })] });

    const ok = perNodeJobs(e([stopped, back(20_000), s2]));
    t.same(
      ok.map((n) => [n.machine, n.ok]),
      [
        ['client-1', true],
        ['client-2', true],
      ],
    );
    t.match(ok[0]!.detail, /drained, graceful, eligible again: s3 started 20\.0s after the node was eligible again/);
    t.match(ok[1]!.detail, /not hit: s2 ran throughout/);
    t.equal(judgeCheck(SYSTEM_ALLOCS, e([stopped, back(20_000), s2])).status, 'passed');

    const late = judgeCheck(SYSTEM_ALLOCS, e([stopped, back(SYSTEM_BACK_WITHIN_MS + 5000), s2]));
    t.equal(late.status, 'failed', 'back, but after the bound');
    t.match(late.message, /agent on client-1: .*started 125\.0s after the node was eligible again \(bound 120s\)/);

    // GH-27499's shape: the node came back eligible and got no system alloc at all
    const none = judgeCheck(SYSTEM_ALLOCS, e([stopped, s2]));
    t.equal(none.status, 'failed');
    t.match(
      none.message,
      /1 of 2 node places .*client-1: drained, graceful, eligible again: no alloc of the system job runs here \(s1 complete\/stop\)/,
    );
    t.equal(none.perAlloc?.find((p) => p.nodeBefore === 'client-1')?.nodeAfter, '(none)');
  },
);

t.test(
  'system: a node hit without a drain restores its system alloc in place; a replacement is a failure',
  async (t) => {
    const s1 = alloc({ id: 's1', job: 'agent', node: N1 });
    const s2 = alloc({ id: 's2', job: 'agent', node: N2 });
    const e = (after: AllocSnap[]) =>
      evidence([SYS], { before: [s1, s2], after, turns: [turn('client-1', N1, T0)], drain: false });
    const same = perNodeJobs(e([s1, s2]));
    t.ok(same.every((n) => n.ok));
    t.match(same[0]!.detail, /graceful without a drain: s1 restored in place/);
    const replaced = perNodeJobs(
      e([
        alloc({ id: 's1', job: 'agent', node: N1, client: 'failed' }),
        alloc({ id: 's9', job: 'agent', node: N1, create: 90 }),
        s2,
      ]),
    );
    t.equal(replaced[0]!.ok, false);
    t.match(replaced[0]!.detail, /s1 was replaced by s9 \(failed\/run\), not restored in place/);
    const lost = perNodeJobs(
      e([
        alloc({ id: 's1', job: 'agent', node: N1, client: 'lost', desired: 'stop' }),
        alloc({ id: 's9', job: 'agent', node: N1, create: 90 }),
        s2,
      ]),
    );
    t.equal(lost[0]!.ok, true, 'a node the servers lost gets a new system alloc once back');
    t.match(lost[0]!.detail, /s1 lost with its node, s9 placed when it was back/);
    const two = perNodeJobs(e([s1, alloc({ id: 's9', job: 'agent', node: N1, create: 90 }), s2]));
    t.match(two[0]!.detail, /2 allocs of the system job run here/);
    t.equal(two[0]!.ok, false);
  },
);

t.test(
  'system constrained to some clients: judged on the nodes Nomad placed it on before the fault, the others named',
  async (t) => {
    // the job's constraint keeps it on client-1: Nomad placed one alloc, client-2 never had one
    const job: ClusterJob = { id: 'agent', expectedAllocs: 1, type: 'system' };
    const s1 = alloc({ id: 's1', job: 'agent', node: N1 });
    const e = (after: AllocSnap[]) =>
      evidence([job], { before: [s1], after, turns: [turn('client-2', N2, T0)], drain: false });
    const nodes = perNodeJobs(e([s1]));
    t.same(
      nodes.map((n) => [n.machine, n.ok]),
      [['client-1', true]],
      'client-2 (no place before the fault) is not judged',
    );
    const r = judgeCheck(SYSTEM_ALLOCS, e([s1]));
    t.equal(r.status, 'passed');
    t.match(r.message, /\(1 node place\); 1 node without a place before the fault not judged/);
    t.match(
      r.evidence.join('\n'),
      /agent on client-2: not placed there before the fault .*not judged; after: no alloc/,
    );
    // the placed node losing its alloc still fails, whatever the other client does
    const gone = judgeCheck(SYSTEM_ALLOCS, e([alloc({ id: 's1', job: 'agent', node: N1, client: 'failed' })]));
    t.equal(gone.status, 'failed');
    t.match(gone.message, /1 of 1 node places .*agent on client-1: not hit: no alloc of the system job runs here/);
  },
);

t.test('sysbatch: once per node; twice is a failure of system-allocs and of no-extra-alloc', async (t) => {
  const job: ClusterJob = { id: 'sweep', expectedAllocs: 2, type: 'sysbatch' };
  const done = (id: string, node: string, create = 38) =>
    alloc({
      id,
      job: 'sweep',
      node,
      client: 'complete',
      create,
      task: { state: 'dead', events: [terminated(T0, '0')] },
    });
  const once = evidence([job], { before: [done('b1', N1), done('b2', N2)], after: [done('b1', N1), done('b2', N2)] });
  t.equal(judgeCheck(SYSTEM_ALLOCS, once).status, 'passed');
  t.equal(judgeCheck(NO_EXTRA_ALLOC, once).status, 'passed');
  const twice = evidence([job], {
    before: [done('b1', N1), done('b2', N2)],
    after: [done('b1', N1), done('b2', N2), done('b3', N1, 90)],
  });
  t.match(judgeCheck(SYSTEM_ALLOCS, twice).message, /client-1: not hit: ran 2 times/);
  const extra = judgeCheck(NO_EXTRA_ALLOC, twice);
  t.equal(extra.status, 'failed');
  t.match(
    extra.message,
    /1 place ran more than once: sweep\.g\[0\]@client-1: b1 complete on client-1 \(create index 38\), b3 complete/,
  );
});

const BATCH: ClusterJob = { id: 'etl', expectedAllocs: 1, type: 'batch' };

t.test('batch under a drain: the behaviour Nomad showed is named, each a pass', async (t) => {
  const b = alloc({ id: 'b1', job: 'etl', node: N1 });
  const turns = [turn('client-1', N1, T0, { drained: ['b1'], eligibleAt: T0 + 60_000 })];
  const cases: [string, AllocSnap[], string][] = [
    [
      'failed and rescheduled (1.10.3-1.10.5)',
      [
        alloc({ id: 'b1', job: 'etl', node: N1, client: 'failed', desired: 'stop', next: 'b2' }),
        alloc({ id: 'b2', job: 'etl', node: N2, prev: 'b1', create: 90 }),
      ],
      'fail-and-reschedule',
    ],
    [
      'left to complete in place (1.11.0+)',
      [
        alloc({
          id: 'b1',
          job: 'etl',
          node: N1,
          client: 'complete',
          task: { state: 'dead', events: [terminated(T0 - 5000, '0')] },
        }),
      ],
      'complete-in-place',
    ],
    [
      "stopped at the drain's deadline, not replaced (1.11.0+)",
      [
        alloc({
          id: 'b1',
          job: 'etl',
          node: N1,
          client: 'complete',
          desired: 'stop',
          task: { state: 'dead', events: [terminated(T0 - 5000, '0')] },
        }),
      ],
      'stopped-at-deadline',
    ],
    [
      'migrated like a service',
      [
        alloc({ id: 'b1', job: 'etl', node: N1, client: 'complete', desired: 'stop', migrate: true, next: 'b2' }),
        alloc({ id: 'b2', job: 'etl', node: N2, prev: 'b1', create: 90 }),
      ],
      'migrated',
    ],
  ];
  for (const [what, after, behaviour] of cases) {
    const e = evidence([BATCH], { before: [b], after, turns });
    const [o] = batchOutcomes(e);
    t.equal(o?.drainBehaviour, behaviour, what);
    t.equal(o?.ok, true, what);
    const r = judgeCheck(BATCH_OUTCOME, e);
    t.equal(r.status, 'passed', what);
    t.match(r.message, new RegExp(`under the drain: ${behaviour}`), what);
    t.equal(judgeCheck(NO_EXTRA_ALLOC, e).status, 'passed', `${what}: a replacement is no extra`);
  }
  const lostForGood = evidence([BATCH], {
    before: [b],
    after: [alloc({ id: 'b1', job: 'etl', node: N1, client: 'lost', desired: 'stop' })],
    turns,
  });
  t.match(
    judgeCheck(BATCH_OUTCOME, lostForGood).message,
    /not carried through: drained: ended lost\/stop with no replacement/,
  );
});

t.test('batch under a drain: a second alloc beside the completed one is an extra (GH-28018 shape)', async (t) => {
  const e = evidence([BATCH], {
    before: [alloc({ id: 'b1', job: 'etl', node: N1 })],
    after: [
      alloc({
        id: 'b1',
        job: 'etl',
        node: N1,
        client: 'complete',
        task: { state: 'dead', events: [terminated(T0, '0')] },
      }),
      alloc({ id: 'b2', job: 'etl', node: N1, create: 95 }),
    ],
    turns: [turn('client-1', N1, T0, { drained: ['b1'], eligibleAt: T0 + 60_000 })],
  });
  const extra = extraAllocs(e);
  t.same(
    extra.map((x) => [x.place, x.allocs.map((a) => a.id)]),
    [['etl.g[0]', ['b1', 'b2']]],
  );
  t.equal(judgeCheck(NO_EXTRA_ALLOC, e).status, 'failed');
});

t.test('batch across a reboot without a drain: restored, or rescheduled as the reschedule policy says', async (t) => {
  const b = alloc({ id: 'b1', job: 'etl', node: N1 });
  const turns = [turn('client-1', N1, T0)];
  const judge = (after: AllocSnap[], job = BATCH) =>
    batchOutcomes(evidence([job], { before: [b], after, turns, drain: false }))[0]!;
  t.same(pick(judge([alloc({ id: 'b1', job: 'etl', node: N1 })])), [true, 'restored in place']);
  const failed = alloc({ id: 'b1', job: 'etl', node: N1, client: 'failed' });
  t.same(pick(judge([failed])), [false, 'not rescheduled'], 'the default policy allows a reschedule');
  const none = { ...BATCH, noReschedule: ['g'] };
  t.same(pick(judge([failed], none)), [true, 'failed, not rescheduled'], 'attempts = 0: no reschedule is right');
  const rescheduled = [
    alloc({ id: 'b1', job: 'etl', node: N1, client: 'failed', desired: 'stop', next: 'b2' }),
    alloc({ id: 'b2', job: 'etl', node: N2, prev: 'b1', create: 90 }),
  ];
  t.same(pick(judge(rescheduled)), [true, 'rescheduled']);
  t.same(pick(judge(rescheduled, none)), [false, 'rescheduled against its policy']);
  const lost = alloc({ id: 'b1', job: 'etl', node: N1, client: 'lost', desired: 'stop' });
  t.same(pick(judge([lost], none)), [false, 'not rescheduled'], 'a lost alloc is replaced whatever the policy');
});

t.test('batch: a completed alloc is not run again', async (t) => {
  const done = alloc({
    id: 'b1',
    job: 'etl',
    node: N1,
    client: 'complete',
    task: { state: 'dead', events: [terminated(T0 - 9000, '0')] },
  });
  const turns = [turn('client-1', N1, T0)];
  const e = (after: AllocSnap[]) => evidence([BATCH], { before: [done], after, turns, drain: false });
  t.same(pick(batchOutcomes(e([done]))[0]!), [true, 'not run again']);
  const again = batchOutcomes(e([done, alloc({ id: 'b2', job: 'etl', node: N2, create: 90 })]))[0]!;
  t.same(pick(again), [false, 'run again']);
  t.match(again.detail, /then b2 ran it again \(running\/run\)/);
});

t.test('batch under executor-kill: "complete with exit code 0" fails, a restart passes (GH-25453)', async (t) => {
  const b = alloc({ id: 'b1', job: 'etl', node: N1 });
  const kill: FaultTurn = {
    machine: 'client-1',
    role: 'client',
    targetedAs: 'clients',
    nodeId: N1,
    reboot: { ...reboot('client-1', T0, 'executor-kill'), facts: { 'executor.alloc': 'b1', 'executor.task': 'web' } },
  };
  const e = (after: AllocSnap) => evidence([BATCH], { before: [b], after: [after], turns: [kill], drain: false });
  const zero = alloc({
    id: 'b1',
    job: 'etl',
    node: N1,
    client: 'complete',
    task: { state: 'dead', events: [event('Started', T0 - 60_000), terminated(T0 + 200, '0')] },
  });
  const bad = judgeCheck(BATCH_OUTCOME, e(zero));
  t.equal(bad.status, 'failed');
  t.match(
    bad.message,
    /complete with exit 0 after its executor was killed: its executor was killed \(task web\): Terminated with exit code 0/,
  );
  const restarted = alloc({
    id: 'b1',
    job: 'etl',
    node: N1,
    task: {
      state: 'running',
      events: [terminated(T0 + 200, '137'), event('Restarting', T0 + 300), event('Started', T0 + 15_000)],
    },
  });
  const good = judgeCheck(BATCH_OUTCOME, e(restarted));
  t.equal(good.status, 'passed');
  t.match(good.evidence.join('\n'), /Terminated with exit code 137, restarted after it/);
});

t.test(
  'allocs-followed judges service allocs only; untouched-allocs leaves batch allocs to batch-outcome',
  async (t) => {
    const web: ClusterJob = { id: 'web', expectedAllocs: 1, type: 'service' };
    const w = alloc({ id: 'w1', job: 'web', node: N2, name: 'web.g[0]' });
    const s = alloc({ id: 's1', job: 'agent', node: N1 });
    const done = alloc({
      id: 'b1',
      job: 'etl',
      node: N2,
      client: 'complete',
      task: { state: 'dead', events: [terminated(T0 + 5000, '0')] },
    });
    const b = alloc({ id: 'b1', job: 'etl', node: N2 });
    const e = evidence([web, { ...SYS, expectedAllocs: 1 }, BATCH], {
      before: [w, s, b],
      after: [w, s, done],
      turns: [turn('client-1', N1, T0)],
      drain: false,
    });
    const followed = judgeCheck(ALLOCS_FOLLOWED, e);
    t.equal(followed.status, 'passed');
    t.match(followed.message, /1 of 1 run/);
    t.match(followed.evidence.at(-1), /2 allocs of system, batch jobs not judged here/);
    const untouched = judgeCheck(UNTOUCHED_ALLOCS, e);
    t.equal(untouched.status, 'passed', 'the batch alloc that completed on an untouched client is no disturbance');
    t.same(
      untouched.perAlloc?.map((p) => p.allocId),
      ['w1'],
    );
    const onlySystem = evidence([SYS], { before: [s], after: [s], turns: [turn('client-1', N1, T0)] });
    t.equal(judgeCheck(ALLOCS_FOLLOWED, onlySystem).status, 'skipped');
    t.equal(judgeCheck(BATCH_OUTCOME, onlySystem).status, 'skipped');
    t.equal(judgeCheck(NO_EXTRA_ALLOC, onlySystem).status, 'skipped');
  },
);

t.test('older records without job types: every alloc is a service alloc, the new checks skip', async (t) => {
  const w = alloc({ id: 'w1', job: 'web', node: N1, name: 'web.g[0]' });
  const { jobs: _jobs, ...old } = evidence([{ id: 'web', expectedAllocs: 1 }], { before: [w], after: [w] });
  t.equal(judgeCheck(ALLOCS_FOLLOWED, old).status, 'passed');
  t.equal(judgeCheck(SYSTEM_ALLOCS, old).status, 'skipped');
});

function pick(o: { ok: boolean; outcome: string }): [boolean, string] {
  return [o.ok, o.outcome];
}

t.test(
  'volume-data: the marker where Nomad promises it: the same alloc, sticky on its node, migrate anywhere',
  async (t) => {
    const { VOLUME_DATA } = await import('../../lib/checks/volume-data.js');
    const web = (disk: { sticky: boolean; migrate: boolean }): ClusterJob => ({
      id: 'web',
      expectedAllocs: 1,
      type: 'service',
      keptDisks: [{ group: 'g', ...disk }],
    });
    const b = alloc({ id: 'w1', job: 'web', node: N1 });
    const moved = (node: string) => [
      alloc({ id: 'w1', job: 'web', node: N1, client: 'complete', desired: 'stop', migrate: true, next: 'w2' }),
      alloc({ id: 'w2', job: 'web', node, prev: 'w1', create: 90 }),
    ];
    const e = (disk: { sticky: boolean; migrate: boolean }, after: AllocSnap[], markers: Record<string, string>) =>
      evidence([web(disk)], {
        before: [b],
        after,
        turns: [turn('client-1', N1, T0, { drained: ['w1'], eligibleAt: T0 + 60_000 })],
        markers: {
          before: { w1: { content: 'w1\n' } },
          after: Object.fromEntries(Object.entries(markers).map(([k, v]) => [k, { content: v }])),
        },
      });
    const both = { sticky: true, migrate: true };
    t.equal(judgeCheck(VOLUME_DATA, e(both, [b], { w1: 'w1\n' })).status, 'passed', 'restored in place, kept');
    const kept = judgeCheck(VOLUME_DATA, e(both, moved(N2), { w2: 'w1\n' }));
    t.equal(kept.status, 'passed');
    t.match(kept.perAlloc?.[0]?.detail, /replaced by w2 on client-2: marker "w1" kept/);
    const lost = judgeCheck(VOLUME_DATA, e(both, moved(N2), { w2: 'w2\n' }));
    t.equal(lost.status, 'failed', 'a migrating disk came over empty');
    t.match(lost.message, /marker "w2", not "w1"; a migrating disk must keep it/);
    const stickyElsewhere = judgeCheck(VOLUME_DATA, e({ sticky: true, migrate: false }, moved(N2), { w2: 'w2\n' }));
    t.equal(stickyElsewhere.status, 'passed', 'sticky without migrate promises nothing on another node');
    t.match(stickyElsewhere.perAlloc?.[0]?.detail, /nothing is promised/);
    const stickySame = judgeCheck(VOLUME_DATA, e({ sticky: true, migrate: false }, moved(N1), { w2: 'w2\n' }));
    t.equal(stickySame.status, 'failed', 'sticky on the same node must keep it');
    const none = evidence([web(both)], {
      before: [b],
      after: [b],
      markers: { before: { w1: { error: 'HTTP 500' } }, after: {} },
    });
    t.match(judgeCheck(VOLUME_DATA, none).message, /no marker before the fault \(HTTP 500\)/);
    t.equal(judgeCheck(VOLUME_DATA, evidence([SYS], { before: [], after: [] })).status, 'skipped');
  },
);

t.test(
  'volume-data on the host volume: kept where the place runs on the same node again; another node promises nothing',
  async (t) => {
    const { VOLUME_DATA } = await import('../../lib/checks/volume-data.js');
    const { hostVolumeMarker } = await import('../../lib/model/volumes.js');
    t.equal(hostVolumeMarker('web.g[1]'), 'web.g-1.marker');
    t.equal(hostVolumeMarker('odd'), 'odd.marker');
    const web: ClusterJob = { id: 'web', expectedAllocs: 1, type: 'service', hostVolumes: ['g'] };
    const b = alloc({ id: 'w1', job: 'web', node: N1 });
    const replaced = (node: string) => [
      alloc({ id: 'w1', job: 'web', node: N1, client: 'failed', desired: 'stop', next: 'w2' }),
      alloc({ id: 'w2', job: 'web', node, prev: 'w1', create: 90 }),
    ];
    const e = (after: AllocSnap[], markers: Record<string, string>) =>
      evidence([web], {
        before: [b],
        after,
        turns: [turn('client-1', N1, T0)],
        drain: false,
        volumeMarkers: {
          before: { w1: { content: 'w1\n' } },
          after: Object.fromEntries(Object.entries(markers).map(([k, v]) => [k, { content: v }])),
        },
      });
    const same = judgeCheck(VOLUME_DATA, e(replaced(N1), { w2: 'w1\n' }));
    t.equal(same.status, 'passed');
    t.match(same.perAlloc?.[0]?.detail, /^host volume: replaced by w2 on the same node: marker "w1" kept/);
    t.equal(
      judgeCheck(VOLUME_DATA, e(replaced(N1), { w2: 'w2\n' })).status,
      'failed',
      "the same node's volume lost it",
    );
    const elsewhere = judgeCheck(VOLUME_DATA, e(replaced(N2), {}));
    t.equal(elsewhere.status, 'passed');
    t.match(elsewhere.perAlloc?.[0]?.detail, /another node's host volume is another directory, so nothing is promised/);
  },
);

t.test(
  'volume-state: the host volume ready on the node of every live alloc mounting it and of every node that had one; claims match',
  async (t) => {
    const { VOLUME_STATE } = await import('../../lib/checks/volume-data.js');
    const { nodeVolumeState } = await import('../../lib/steps/volume-steps.js');
    const { LAB_HOST_VOLUME } = await import('../../lib/model/volumes.js');
    const name = LAB_HOST_VOLUME.name;
    // the node as real 2.0.5 serves it (HostVolumes {} when the client declares none), then declaring the lab's
    const node = JSON.parse(
      readFileSync(new URL('../fixtures/nomad/real-2.0.5/reboot-sim/initial/node.json', import.meta.url), 'utf8'),
    ) as ApiNode;
    t.same(nodeVolumeState(node, name), { name, nodeId: node.ID, kind: 'static', state: 'absent' });
    const declared = { ...node, HostVolumes: { [name]: { Name: name, Path: '/srv/x', ReadOnly: false, ID: '' } } };
    t.same(nodeVolumeState(declared, name), { name, nodeId: node.ID, kind: 'static', state: 'ready', path: '/srv/x' });
    t.equal(nodeVolumeState({ ...declared, Status: 'down' }, name).state, 'node down');
    const dyn = { ...node, HostVolumes: { [name]: { Name: name, Path: '/d', ReadOnly: false, ID: 'v-123456789' } } };
    t.match(nodeVolumeState(dyn, name), { kind: 'dynamic', id: 'v-123456789', state: 'ready' });

    const web: ClusterJob = { id: 'web', expectedAllocs: 1, type: 'service', hostVolumes: ['g'] };
    const ready = (nodeId: string, o: Partial<VolumeStateRead> = {}): VolumeStateRead => ({
      name,
      nodeId,
      kind: 'static',
      state: 'ready',
      path: LAB_HOST_VOLUME.path,
      ...o,
    });
    const b = alloc({ id: 'w1', job: 'web', node: N1 });
    const moved = [
      alloc({ id: 'w1', job: 'web', node: N1, client: 'complete', desired: 'stop', next: 'w2' }),
      alloc({ id: 'w2', job: 'web', node: N2, prev: 'w1', create: 90 }),
    ];
    const e = (after: AllocSnap[], volumeStates: VolumeStateRead[]) =>
      evidence([web], { before: [b], after, turns: [turn('client-1', N1, T0)], volumeStates });
    const ok = judgeCheck(VOLUME_STATE, e(moved, [ready(N1), ready(N2)]));
    t.equal(ok.status, 'passed');
    t.match(ok.message, /ready on 2 nodes; 1 live alloc mounts it where it is ready/);
    t.same(
      ok.perAlloc?.map((p) => [p.name, p.status]),
      [
        ['web.g[0]', 'passed'],
        [`${name} on client-1`, 'passed'],
      ],
      'the alloc now on client-2, and client-1 that ran it before',
    );
    t.match(ok.perAlloc?.[0]?.detail, /on client-2: static volume "reboot-harness" ready .*Nomad holds no claims/);
    const gone = judgeCheck(VOLUME_STATE, e(moved, [ready(N1, { state: 'absent' }), ready(N2)]));
    t.equal(gone.status, 'failed', 'the node that ran it no longer declares it after its reboot');
    t.match(
      gone.message,
      /1 of 2 .*: reboot-harness on client-1 \(no live alloc mounts it now\): static volume "reboot-harness" absent.*, not ready/,
    );
    const down = judgeCheck(VOLUME_STATE, e([b], [ready(N1, { state: 'node down' })]));
    t.equal(down.status, 'failed');
    t.match(down.perAlloc?.[0]?.detail, /on client-1: static volume "reboot-harness" node down .*not ready/);
    // a dynamic volume whose claims were read: exactly the live allocs on its node
    const dynamic = (claims: string[]) => ready(N1, { kind: 'dynamic', id: 'vol-1234abcd', claims });
    t.equal(judgeCheck(VOLUME_STATE, e([b], [dynamic(['w1'])])).status, 'passed');
    const unclaimed = judgeCheck(VOLUME_STATE, e([b], [dynamic([])]));
    t.equal(unclaimed.status, 'failed');
    t.match(unclaimed.message, /dynamic volume "reboot-harness" vol-1234 ready .*not among its claims/);
    const stale = judgeCheck(VOLUME_STATE, e([b], [dynamic(['w1', 'old-alloc-1'])]));
    t.equal(stale.status, 'failed', 'a claim left behind by an alloc that no longer runs');
    t.match(stale.message, /still claimed by old-allo, which runs no live alloc mounting it there/);
    t.equal(judgeCheck(VOLUME_STATE, evidence([SYS], { before: [], after: [] })).status, 'skipped');
  },
);

t.test(
  'a batch alloc a drain stopped at its deadline holds its place: a new alloc there after the node is eligible again is extra (GH-28018, real 1.11.3)',
  async (t) => {
    const b = alloc({ id: 'b1', job: 'etl', node: N1 });
    const turns = [turn('client-1', N1, T0, { drained: ['b1'], eligibleAt: T0 + 60_000 })];
    const stopped = alloc({
      id: 'b1',
      job: 'etl',
      node: N1,
      client: 'complete',
      desired: 'stop',
      migrate: true,
      task: { state: 'dead', events: [terminated(T0, '137')] },
    });
    const fixed = evidence([BATCH], { before: [b], after: [stopped], turns });
    t.equal(judgeCheck(NO_EXTRA_ALLOC, fixed).status, 'passed', 'not replaced (2.0.5): nothing extra');
    const again = evidence([BATCH], {
      before: [b],
      after: [stopped, alloc({ id: 'b2', job: 'etl', node: N1, create: 122 })],
      turns,
    });
    const r = judgeCheck(NO_EXTRA_ALLOC, again);
    t.equal(r.status, 'failed', "a new alloc in the stopped one's place (1.11.3)");
    t.match(r.message, /1 place ran more than once: etl\.g\[0\]: b1 complete on client-1 .*, b2 running on client-1/);
    const replaced = evidence([BATCH], {
      before: [b],
      after: [{ ...stopped, nextAllocation: 'b2' }, alloc({ id: 'b2', job: 'etl', node: N2, prev: 'b1', create: 90 })],
      turns,
    });
    t.equal(judgeCheck(NO_EXTRA_ALLOC, replaced).status, 'passed', 'a migration Nomad linked is no extra');
  },
);
