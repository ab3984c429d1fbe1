// A drain before a client's fault, through the real Nomad client against the Nomad API STAND-IN (not Nomad) with two
// client nodes: drain client-1 (its allocs migrate to client-2), reboot it, wait for it back, mark it eligible, then
// judge the allocs across nodes. And a drain that cannot finish: its wait ends at its deadline naming the last state.
import t from 'tap';
import { createNomad, type Nomad } from '../../lib/nomad/client.js';
import { createHttpTransport } from '../../lib/nomad/transport.js';
import { drainNode, markEligible } from '../../lib/nomad/drain.js';
import { waitForNodeReady } from '../../lib/nomad/wait.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { waitFor } from '../../lib/time/wait-for.js';
import { TimeoutError } from '../../lib/errors.js';
import { readJobAllocs } from '../../lib/steps/reboot-steps.js';
import { followAllocs } from '../../lib/checks/across-nodes.js';
import { judgeCheck } from '../../lib/checks/define.js';
import { ALLOCS_FOLLOWED } from '../../lib/checks/allocs-followed.js';
import type { ClusterEvidence } from '../../lib/model/cluster-evidence.js';
import { addClientNode, startFakeNomad, type FakeNomad } from '../helpers/fake-nomad/index.js';
import { WEB_JOB_HCL } from '../helpers/fake-nomad/sample-job.js';

const STEP = 40;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rig(t: { teardown(fn: () => unknown): void }, second: boolean) {
  const fake: FakeNomad = await startFakeNomad({ timeline: 'restored', clientNodeName: 'client-1', stepMs: STEP });
  t.teardown(() => fake.close());
  const nomad: Nomad = createNomad({ transport: createHttpTransport({ addr: fake.addr }) });
  const node2 = second ? addClientNode(fake.cluster, 'client-2', '10.199.0.22') : undefined;
  const hcl = WEB_JOB_HCL.replace('count = 1', 'count = 2');
  const job = await nomad.parseJob(hcl);
  await nomad.registerJob(job, hcl);
  const d = deadlineIn(5000);
  await waitFor(
    'both allocs running',
    async () => {
      const n = (await nomad.jobAllocations(job.ID)).body.filter((a) => a.ClientStatus === 'running').length;
      return n === 2 ? { done: true, value: n } : { done: false, reason: `${n} running` };
    },
    { deadline: d },
  );
  return { fake, nomad, jobId: job.ID, node1: fake.cluster.node.ID, node2: node2?.ID };
}

t.test('drain, fault, back, eligible: both allocs migrated to the other client, judged', async (t) => {
  const { fake, nomad, jobId, node1, node2 } = await rig(t, true);
  const before = await readJobAllocs(nomad, jobId, deadlineIn(2000));
  t.same(
    before.map((a) => a.nodeId),
    [node1, node1],
    'the stand-in placed both on client-1',
  );
  const disruptionIndex = (await nomad.jobAllocations(jobId)).index;
  const reasons: string[] = [];
  const drain = await drainNode(nomad, node1, 60_000, { deadline: deadlineIn(5000), onReason: (r) => reasons.push(r) });
  t.same(drain.allocsOnNode.sort(), before.map((a) => a.id).sort(), 'the drain names the allocs it found there');
  t.equal(drain.status, 'complete');
  t.ok(drain.doneAt >= drain.requestedAt);
  t.match(
    reasons.join('\n'),
    /node client-1: draining \(deadline 60s, forced at .*\), ineligible, last drain draining/,
  );
  const n1 = (await nomad.node(node1)).body;
  t.same([n1.DrainStrategy, n1.SchedulingEligibility, n1.LastDrain?.Status], [null, 'ineligible', 'complete']);
  const drainEvents = fake.cluster.eventLog.flatMap((f) => f.Events).filter((e) => e.Type === 'NodeDrain');
  t.ok(drainEvents.length >= 2, 'the Node topic carried the drain start and end (NodeDrain)');

  // the fault: the host goes down and comes back with nothing of the job left on it
  const statusBefore = n1.StatusUpdatedAt;
  const requestedAt = Date.now();
  fake.clientDown();
  await pause(4 * STEP);
  fake.clientUp();
  await waitForNodeReady(
    nomad,
    { nodeId: node1, driver: 'exec', statusUpdatedAfterS: statusBefore },
    { deadline: deadlineIn(3000) },
  );
  const backAt = Date.now();
  const eligible = await markEligible(nomad, node1, { deadline: deadlineIn(2000) });
  t.equal(eligible.SchedulingEligibility, 'eligible');

  const after = await readJobAllocs(nomad, jobId, deadlineIn(2000));
  const e: ClusterEvidence = {
    topology: '1+2',
    jobId,
    expectedAllocs: 2,
    nodeNames: { [node1]: 'client-1', [node2!]: 'client-2' },
    turns: [
      {
        machine: 'client-1',
        role: 'client',
        targetedAs: 'clients',
        nodeId: node1,
        drain: { ...drain },
        reboot: { machine: 'client-1', kind: 'graceful', bootIdBefore: 'a', bootIdAfter: 'b', requestedAt, backAt },
        eligibleAt: Date.now(),
      },
    ],
    disruptionIndex,
    before,
    after,
    drain: true,
    maxGapMs: 0,
  };
  t.same(
    followAllocs(e).map((f) => [f.outcome, f.machineBefore, f.machineAfter]),
    [
      ['migrated', 'client-1', 'client-2'],
      ['migrated', 'client-1', 'client-2'],
    ],
  );
  const old = after.find((a) => a.id === before[0]!.id)!;
  t.same([old.migrate, old.desiredDescription, old.clientStatus], [true, 'alloc is being migrated', 'complete']);
  const r = judgeCheck(ALLOCS_FOLLOWED, e);
  t.equal(r.status, 'passed', r.message);
  t.match(r.perAlloc?.[0]?.detail, /^migrated client-1 -> client-2 as \w{8}: migrated by the drain/);
});

t.test('a drain slower than its wait: the wait ends at its deadline naming the drain and what is left', async (t) => {
  const { fake, nomad, node1 } = await rig(t, true);
  // the stand-in's drainer slowed down once the job runs: each of its steps now takes 2 s
  Object.assign(fake.cluster, { stepMs: 2000 });
  const err = await drainNode(nomad, node1, 3_600_000, { deadline: deadlineIn(1500) }).catch((x: unknown) => x);
  t.type(err, TimeoutError);
  t.match((err as Error).message, /waiting for the drain of node client-1 \(\w{8}\) to finish: gave up after/);
  t.match((err as Error).message, /draining \(deadline 3600s.*still on it: web\.web\[0\] \w{8} running, web\.web\[1\]/);
});

t.test('the last client drained: its allocs stop with nowhere to go, and come back once it is eligible', async (t) => {
  const { nomad, jobId, node1 } = await rig(t, false);
  const before = await readJobAllocs(nomad, jobId, deadlineIn(2000));
  const drain = await drainNode(nomad, node1, 60_000, { deadline: deadlineIn(5000) });
  t.equal(drain.status, 'complete');
  const stopped = await readJobAllocs(nomad, jobId, deadlineIn(2000));
  t.same(
    stopped.map((a) => [a.clientStatus, a.desiredDescription]),
    [
      ['complete', 'alloc is being migrated'],
      ['complete', 'alloc is being migrated'],
    ],
    'stopped, no replacement yet',
  );
  await markEligible(nomad, node1, { deadline: deadlineIn(2000) });
  await waitFor(
    'the two places running again',
    async () => {
      const n = (await nomad.jobAllocations(jobId)).body.filter((a) => a.ClientStatus === 'running').length;
      return n === 2 ? { done: true, value: n } : { done: false, reason: `${n} running` };
    },
    { deadline: deadlineIn(3000) },
  );
  const after = await readJobAllocs(nomad, jobId, deadlineIn(2000));
  const e: ClusterEvidence = {
    topology: '1+1',
    jobId,
    expectedAllocs: 2,
    nodeNames: { [node1]: 'client' },
    turns: [
      {
        machine: 'client',
        role: 'client',
        targetedAs: 'clients',
        nodeId: node1,
        drain,
        reboot: { machine: 'client', kind: 'graceful', bootIdBefore: 'a', bootIdAfter: 'b', requestedAt: 0, backAt: 0 },
      },
    ],
    disruptionIndex: 0,
    before,
    after,
    drain: true,
    maxGapMs: 0,
  };
  t.same(
    followAllocs(e).map((f) => [f.outcome, f.machineBefore, f.machineAfter]),
    [
      ['migrated', 'client', 'client'],
      ['migrated', 'client', 'client'],
    ],
  );
});
