// The Nomad API STAND-IN's reboot timelines (test/helpers/fake-nomad), not Nomad: each one must
// show, through the real client, what nomad-reference §2.7/§3 says the server shows after a reboot.
import t from 'tap';
import type { ApiAllocation } from '../../lib/nomad/api-types.js';
import { createNomad, type Nomad } from '../../lib/nomad/client.js';
import { createHttpTransport } from '../../lib/nomad/transport.js';
import { waitForAlloc } from '../helpers/nomad-wait.js';
import { waitForAllocRunning } from '../../lib/nomad/wait.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { OTHER_JOB, startFakeNomad, type FakeNomad, type Timeline } from '../helpers/fake-nomad/index.js';
import { deployWeb } from '../helpers/fake-nomad/sample-job.js';

const STEP = 50;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const events = (a: ApiAllocation) => a.TaskStates?.web?.Events ?? [];

async function rebootRig(
  t: { teardown(fn: () => unknown): void },
  timeline: Timeline,
): Promise<{ fake: FakeNomad; nomad: Nomad; before: ApiAllocation; upAtMs: number }> {
  const fake = await startFakeNomad({ timeline, clientNodeName: 'nrh-abc-client', stepMs: STEP });
  t.teardown(() => fake.close());
  const nomad = createNomad({ transport: createHttpTransport({ addr: fake.addr }) });
  const before = await deployWeb(nomad);
  fake.clientDown();
  await pause(6 * STEP);
  const upAtMs = Date.now();
  fake.clientUp();
  return { fake, nomad, before, upAtMs };
}

const restoredAndRunning = (a: ApiAllocation) =>
  a.ClientStatus === 'running' &&
  events(a).at(-1)?.Type === 'Started' &&
  events(a).some((e) => e.Type === 'Failed Restoring Task');

t.test('restored: same alloc restarted in place, node re-registered', async (t) => {
  const fake = await startFakeNomad({ timeline: 'restored', clientNodeName: 'nrh-abc-client', stepMs: STEP });
  t.teardown(() => fake.close());
  const nomad = createNomad({ transport: createHttpTransport({ addr: fake.addr }) });
  const before = await deployWeb(nomad);
  const nodeBefore = (await nomad.node(before.NodeID)).body;
  fake.clientDown();
  await pause(6 * STEP);
  t.equal(
    (await nomad.node(before.NodeID)).body.Status,
    'ready',
    'heartbeat_grace 5m: node stays ready during the outage',
  );
  const upAtMs = Date.now();
  fake.clientUp();
  const after = await waitForAlloc(nomad, before.ID, restoredAndRunning, {
    deadline: deadlineIn(3000),
    describe: 'alloc restored',
  });
  t.equal(after.ID, before.ID);
  t.equal(after.NodeID, before.NodeID);
  t.same(
    events(after)
      .slice(-2)
      .map((e) => [e.Type, e.DisplayMessage]),
    [
      ['Failed Restoring Task', 'failed to restore task; will not run until server is contacted'],
      ['Started', 'Task started by client'],
    ],
  );
  t.ok(
    events(after)
      .slice(-2)
      .every((e) => e.Time / 1e6 >= upAtMs - 5),
    'new events are after clientUp',
  );
  t.ok(
    Date.parse(after.TaskStates!.web!.StartedAt ?? '') > Date.parse(before.TaskStates!.web!.StartedAt ?? ''),
    'StartedAt moved',
  );
  t.equal(after.NetworkStatus?.Address, '172.26.64.2', 'address re-allocated');
  t.notOk(after.NextAllocation, 'no NextAllocation');
  const nodeAfter = (await nomad.node(before.NodeID)).body;
  t.equal(nodeAfter.Status, 'ready');
  t.ok(nodeAfter.StatusUpdatedAt > nodeBefore.StatusUpdatedAt, 'StatusUpdatedAt moved (re-registration)');
  t.equal((await nomad.jobAllocations('web')).body.length, 1, 'no replacement');
  const log = fake.clientLog();
  // real journal (VM run r386bw21c1b022, `journalctl -o short-iso`): the banner is not an hclog line, and a restoring
  // task runner journals a Received event again; the first fresh-placement events (Task Setup) are from the old boot
  t.ok(
    log.some((l) =>
      /^\S+\+0000 nrh-abc-client nomad\[\d+\]: ==> Nomad agent started! Log data will stream in below:$/.test(l),
    ),
    'agent banner',
  );
  t.notOk(
    log.some((l) => l.includes('type="Task Setup"')),
    'journal starts at the last agent start',
  );
  t.ok(log.some((l) => l.includes(`alloc_id=${before.ID} task=web type="Failed Restoring Task"`)));
});

t.test('duplicate-ip: Setup Failure with the CNI message, alloc failed, no replacement', async (t) => {
  const { fake, nomad, before } = await rebootRig(t, 'duplicate-ip');
  const after = await waitForAlloc(nomad, before.ID, (a) => a.ClientStatus === 'failed', {
    deadline: deadlineIn(3000),
    describe: 'alloc failed',
  });
  const msg = `failed to setup alloc: pre-run hook "network" failed: failed to configure networking for alloc: failed to configure network: plugin type="bridge" failed (add): failed to allocate for range 0: 172.26.64.2 has been allocated to ${before.ID}, duplicate allocation is not allowed`;
  const last = events(after).at(-1)!;
  t.match(last, { Type: 'Setup Failure', DisplayMessage: msg, FailsTask: true });
  t.match(after.TaskStates!.web, { State: 'dead', Failed: true });
  await pause(6 * STEP);
  t.equal((await nomad.jobAllocations('web')).body.length, 1, 'reschedule attempts 0: nothing replaced it');
  const err = fake.clientLog().find((l) => l.includes('[ERROR] client.alloc_runner: prerun failed'));
  t.ok(
    err?.endsWith(
      `prerun failed: alloc_id=${before.ID} error="pre-run hook \\"network\\" failed: failed to configure networking for alloc: failed to configure network: plugin type=\\"bridge\\" failed (add): failed to allocate for range 0: 172.26.64.2 has been allocated to ${before.ID}, duplicate allocation is not allowed"`,
    ),
    String(err),
  );
});

t.test(
  'replaced (real 1.9.7, heartbeat_grace 10s): node down, old alloc lost, a replacement of the same name with no links',
  async (t) => {
    const { nomad, before } = await rebootRig(t, 'replaced');
    const lost = (await nomad.allocation(before.ID)).body;
    t.match(lost, { DesiredStatus: 'stop', DesiredDescription: 'alloc is lost since its node is down' });
    const repl = await waitForAllocRunning(nomad, 'web', { deadline: deadlineIn(3000) });
    t.not(repl.ID, before.ID);
    t.equal(repl.Name, before.Name, 'the same name (web[0])');
    t.notOk(repl.PreviousAllocation, 'PreviousAllocation empty, as real 1.9.7 left it');
    t.equal(repl.NodeID, before.NodeID);
    const old = (await nomad.allocation(before.ID)).body;
    t.notOk(old.NextAllocation, 'NextAllocation empty too');
    t.match(
      old,
      { ClientStatus: 'pending', DesiredStatus: 'stop', ClientDescription: 'No tasks have started' },
      'the restarted client reports the old alloc pending (desired stop)',
    );
    t.ok(repl.CreateIndex > lost.ModifyIndex, 'placed once the node is back, after the alloc was marked lost');
    t.same(
      events(repl).map((e) => e.Type),
      ['Received', 'Task Setup', 'Started'],
      'fresh alloc, not a restore',
    );
    const node = (await nomad.node(before.NodeID)).body;
    t.equal(node.Status, 'ready');
    t.same(node.Events!.map((e) => e.Message).slice(-2), ['Node heartbeat missed', 'Node reregistered by heartbeat']);
    const evals = (await nomad.evaluations()).body;
    t.ok(evals.some((e) => e.TriggeredBy === 'node-update'));
  },
);

t.test('shared-ip: another live alloc on the node reports the same address', async (t) => {
  const { nomad, before } = await rebootRig(t, 'shared-ip');
  const other0 = (await nomad.nodeAllocations(before.NodeID)).body.find((a) => a.JobID === OTHER_JOB)!;
  t.not(other0.NetworkStatus?.Address, before.NetworkStatus?.Address, 'unique before the reboot');
  await waitForAlloc(nomad, before.ID, restoredAndRunning, { deadline: deadlineIn(3000), describe: 'alloc restored' });
  const live = (await nomad.nodeAllocations(before.NodeID)).body.filter((a) => a.ClientStatus === 'running');
  t.same(live.map((a) => a.JobID).sort(), [OTHER_JOB, 'web']);
  t.equal(live[0]!.NetworkStatus?.Address, live[1]!.NetworkStatus?.Address, 'same NetworkStatus.Address');
});

t.test('never-ready: the node stays down and the agent log says why', async (t) => {
  const { fake, nomad, before } = await rebootRig(t, 'never-ready');
  await pause(6 * STEP);
  t.equal((await nomad.node(before.NodeID)).body.Status, 'down');
  t.ok(fake.clientLog().some((l) => /\[ERROR\] client: error registering: error="rpc error/.test(l)));
  t.throws(() => fake.clientUp(), /without clientDown/);
});
