// lib/nomad/wait.ts against the Nomad API STAND-IN (test/helpers/fake-nomad), not Nomad:
// waits use blocking queries, say what they saw last, fail fast on terminal states, honour deadlines.
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { TerminalStateError, TimeoutError } from '../../lib/errors.js';
import { createNomad } from '../../lib/nomad/client.js';
import { createHttpTransport } from '../../lib/nomad/transport.js';
import { waitForAlloc } from '../helpers/nomad-wait.js';
import { waitForAllocRunning, waitForLeader, waitForNodeReady, BRIDGE_CNI_ATTRIBUTES } from '../../lib/nomad/wait.js';
import { waitForBridgeClient } from '../../lib/steps/client-ready.js';
import type { Machine } from '../../lib/model/lab.js';
import type { LogEvent } from '../../lib/log/events.js';

const CNI_BRIDGE_ATTRIBUTE = 'plugins.cni.version.bridge';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { startFakeNomad, type Timeline } from '../helpers/fake-nomad/index.js';
import { WEB_JOB_HCL, deployWeb } from '../helpers/fake-nomad/sample-job.js';

async function setup(t: { teardown(fn: () => unknown): void }, timeline: Timeline = 'restored') {
  const fake = await startFakeNomad({ timeline, clientNodeName: 'nrh-abc-client', stepMs: 50 });
  t.teardown(() => fake.close());
  return { fake, nomad: createNomad({ transport: createHttpTransport({ addr: fake.addr }) }) };
}

t.test('leader and ready node', async (t) => {
  const { nomad } = await setup(t);
  t.equal(await waitForLeader(nomad, { deadline: deadlineIn(2000) }), '127.0.0.1:4647');
  const node = await waitForNodeReady(
    nomad,
    { nodeName: 'nrh-abc-client', driver: 'exec' },
    { deadline: deadlineIn(2000) },
  );
  t.equal(node.Status, 'ready');
  t.equal(node.Drivers?.exec?.Healthy, true);
  const byId = await waitForNodeReady(nomad, { nodeId: node.ID, driver: 'exec' }, { deadline: deadlineIn(2000) });
  t.equal(byId.ID, node.ID);
});

t.test('a node wait times out saying what it saw, within the deadline', async (t) => {
  const { nomad } = await setup(t);
  const t0 = performance.now();
  const err = await waitForNodeReady(
    nomad,
    { nodeName: 'nrh-other', driver: 'exec' },
    { deadline: deadlineIn(800) },
  ).catch((e: unknown) => e);
  const took = performance.now() - t0;
  t.ok(err instanceof TimeoutError);
  t.match(
    (err as Error).message,
    /waiting for node "nrh-other" ready with driver exec: gave up after .*; last: node "nrh-other" not registered \(nrh-abc-client=ready\)/,
  );
  // Note: the bounds say "capped by the 800 ms deadline, not a blocking query's own wait", with room for a loaded CI host
  t.ok(took < 4000, `blocking calls were capped by the deadline (${Math.round(took)}ms)`);
  const drv = await waitForNodeReady(
    nomad,
    { nodeName: 'nrh-abc-client', driver: 'docker' },
    { deadline: deadlineIn(400) },
  ).then(
    () => new Error('resolved'),
    (e: unknown) => e as Error,
  );
  t.match(drv.message, /status=ready, driver docker not detected/);
});

t.test('alloc running: reasons name status and last event; probes are blocking queries', async (t) => {
  const { fake, nomad } = await setup(t);
  const job = await nomad.parseJob(WEB_JOB_HCL);
  await nomad.registerJob(job, WEB_JOB_HCL);
  const reasons: string[] = [];
  const a = await waitForAllocRunning(nomad, 'web', { deadline: deadlineIn(3000), onReason: (r) => reasons.push(r) });
  t.equal(a.ClientStatus, 'running');
  t.equal(a.NetworkStatus?.Address, '172.26.64.2', 'the full alloc is returned');
  t.ok(
    reasons.some((r) => /^alloc [0-9a-f]{8} client_status=pending/.test(r) || r.startsWith('no allocations')),
    reasons.join(' | '),
  );
  const blocking = fake.requests.filter(
    (r) => r.path === '/v1/job/web/allocations' && r.query.index && /^\d+ms$/.test(r.query.wait ?? ''),
  );
  t.ok(blocking.length >= 1, 'used index + wait');
  t.ok(fake.requests.filter((r) => r.path === '/v1/job/web/allocations').length < 15, 'did not poll in a tight loop');
});

t.test('waitForAlloc times out at the deadline with the last alloc state', async (t) => {
  const { nomad } = await setup(t);
  const a = await deployWeb(nomad);
  const t0 = performance.now();
  const err = await waitForAlloc(nomad, a.ID, (x) => x.ClientStatus === 'complete', {
    deadline: deadlineIn(700),
    describe: `alloc ${a.ID.slice(0, 8)} complete`,
  }).catch((e: unknown) => e);
  t.ok(err instanceof TimeoutError);
  t.match(
    (err as Error).message,
    new RegExp(
      `last: alloc ${a.ID.slice(0, 8)} client_status=running \\(Tasks are running\\), last event "Started: Task started by client"`,
    ),
  );
  // Note: a wait that ignored its deadline would never return (the alloc never completes): the ceiling is headroom
  t.ok(performance.now() - t0 < 20_000, 'returned by the deadline');
});

t.test('duplicate-IP restore failure: waits fail fast with the setup failure', async (t) => {
  const { fake, nomad } = await setup(t, 'duplicate-ip');
  const a = await deployWeb(nomad);
  fake.clientDown();
  fake.clientUp();
  const t0 = performance.now();
  const err = await waitForAlloc(
    nomad,
    a.ID,
    (x) =>
      x.ClientStatus === 'running' && (x.TaskStates?.web?.Events ?? []).some((e) => e.Type === 'Failed Restoring Task'),
    {
      deadline: deadlineIn(60_000),
      describe: 'alloc restored',
      terminal: (x) => x.ClientStatus === 'failed',
    },
  ).catch((e: unknown) => e);
  t.ok(err instanceof TerminalStateError, String(err));
  t.match(
    (err as Error).message,
    /client_status=failed .*last event "Setup Failure: failed to setup alloc: pre-run hook "network" failed: .*duplicate allocation is not allowed"/,
  );
  t.ok(performance.now() - t0 < 30_000, 'failed fast, not at the 60 s deadline');
  const again = await waitForAllocRunning(nomad, 'web', { deadline: deadlineIn(10_000) }).catch((e: unknown) => e);
  t.ok(again instanceof TerminalStateError, 'no replacement coming: terminal');
});

t.test('never-ready: a node wait after the reboot times out on status=down', async (t) => {
  const { fake, nomad } = await setup(t, 'never-ready');
  await deployWeb(nomad);
  fake.clientDown();
  fake.clientUp();
  const err = await waitForNodeReady(
    nomad,
    { nodeName: 'nrh-abc-client', driver: 'exec' },
    { deadline: deadlineIn(700) },
  ).catch((e: unknown) => e);
  t.ok(err instanceof TimeoutError);
  t.match((err as Error).message, /last: node nrh-abc-client [0-9a-f]{8} status=down/);
});

t.test('updatedSinceS: "ready again" means re-registered after the reboot', async (t) => {
  const { fake, nomad } = await setup(t, 'restored');
  await deployWeb(nomad);
  const since = Math.floor(Date.now() / 1000);
  fake.clientDown();
  const early = await waitForNodeReady(
    nomad,
    { nodeName: 'nrh-abc-client', driver: 'exec', updatedSinceS: since },
    { deadline: deadlineIn(400) },
  ).then(
    () => new Error('resolved'),
    (e: unknown) => e as Error,
  );
  t.match(early.message, /not re-registered yet/, 'still "ready" from before the outage does not count');
  fake.clientUp();
  const node = await waitForNodeReady(
    nomad,
    { nodeName: 'nrh-abc-client', driver: 'exec', updatedSinceS: since },
    { deadline: deadlineIn(3000) },
  );
  t.ok(node.StatusUpdatedAt >= since);
});

t.test('modifiedAfterIndex: two re-registrations in one second are told apart by the index', async (t) => {
  const { fake, nomad } = await setup(t, 'restored');
  await deployWeb(nomad);
  const first = (await nomad.node((await nomad.nodes()).body[0]!.ID)).body;
  const stillReady = await waitForNodeReady(
    nomad,
    {
      nodeName: 'nrh-abc-client',
      driver: 'exec',
      updatedSinceS: first.StatusUpdatedAt,
      modifiedAfterIndex: first.ModifyIndex,
    },
    { deadline: deadlineIn(400) },
  ).then(
    () => new Error('resolved'),
    (e: unknown) => e as Error,
  );
  t.match(
    stillReady.message,
    /unchanged since index \d+ \(not re-registered yet\)/,
    'the same StatusUpdatedAt second and no new index: not back yet',
  );
  fake.clientDown();
  fake.clientUp();
  const node = await waitForNodeReady(
    nomad,
    {
      nodeName: 'nrh-abc-client',
      driver: 'exec',
      updatedSinceS: first.StatusUpdatedAt,
      modifiedAfterIndex: first.ModifyIndex,
    },
    { deadline: deadlineIn(3000) },
  );
  t.ok(node.ModifyIndex > first.ModifyIndex);
});

t.test(
  'a ready node without a required attribute ends the wait at once (its static fingerprint will not run again)',
  async (t) => {
    const { fake, nomad } = await setup(t);
    const ok = await waitForNodeReady(
      nomad,
      { nodeName: 'nrh-abc-client', driver: 'exec', attributes: BRIDGE_CNI_ATTRIBUTES },
      { deadline: deadlineIn(2000) },
    );
    t.match(ok.Attributes?.[CNI_BRIDGE_ATTRIBUTE], /^v\d/, 'the sample node has the bridge plugin version');
    // As on a real client whose `bridge` did not print its version within 3 s (seen at boot with dockerd starting).
    fake.cluster.commit(['nodes'], (idx) => {
      delete fake.cluster.node.Attributes![CNI_BRIDGE_ATTRIBUTE];
      fake.cluster.node.ModifyIndex = idx;
    });
    const t0 = performance.now();
    const err = await waitForNodeReady(
      nomad,
      { nodeName: 'nrh-abc-client', driver: 'exec', attributes: BRIDGE_CNI_ATTRIBUTES },
      { deadline: deadlineIn(60_000) },
    ).catch((e: unknown) => e);
    t.type(err, TerminalStateError);
    t.match(
      (err as Error).message,
      /status=ready, but without plugins\.cni\.version\.bridge: its static fingerprint ran once at agent start[^]*failed to detect CNI plugin version/,
    );
    t.ok(performance.now() - t0 < 30_000, 'no waiting for the 60 s deadline');
  },
);

t.test(
  'waitForBridgeClient: a missed CNI fingerprint gets one agent restart before any job; a second miss is the error',
  async (t) => {
    const { fake, nomad } = await setup(t);
    const drop = (attr: string) =>
      fake.cluster.commit(['nodes'], (idx) => {
        delete fake.cluster.node.Attributes![attr];
        fake.cluster.node.ModifyIndex = idx;
      });
    const restarts: string[] = [];
    let refingerprint = true;
    const client = {
      name: 'stand-in-client',
      async exec(cmd: string) {
        restarts.push(cmd);
        // the restarted agent registers again: with every plugin this time, or again without host-local
        fake.cluster.commit(['nodes'], (idx) => {
          if (refingerprint) fake.cluster.node.Attributes!['plugins.cni.version.host-local'] = 'v1.6.2';
          fake.cluster.node.ModifyIndex = idx;
        });
        return { code: 0, stdout: '', stderr: '', durationMs: 1 };
      },
    } as unknown as Machine;
    const notes: string[] = [];
    const ctx = {
      logger: (e: LogEvent) => void notes.push(`${e.kind}: ${'message' in e ? e.message : ''}`),
      elapsed: () => 0,
      fact: (k: string, v: string | number | undefined) => void notes.push(`${k}=${v}`),
    };
    drop('plugins.cni.version.host-local');
    const node = await waitForBridgeClient(
      ctx,
      nomad,
      client,
      { nodeName: 'nrh-abc-client', driver: 'exec' },
      deadlineIn(5000),
    );
    t.equal(node.Attributes?.['plugins.cni.version.host-local'], 'v1.6.2', 'ready with every plugin after the restart');
    t.same(restarts, ['systemctl restart nomad.service'], 'one restart');
    t.match(
      notes.join('\n'),
      /warn: .*without plugins\.cni\.version\.host-local[^]*restarting the client agent once[^]*client\.agent_restarted_for_fingerprint=yes/,
    );

    refingerprint = false;
    drop('plugins.cni.version.host-local');
    const err = await waitForBridgeClient(
      ctx,
      nomad,
      client,
      { nodeName: 'nrh-abc-client', driver: 'exec' },
      deadlineIn(5000),
    ).catch((e: unknown) => e);
    t.type(err, TerminalStateError, 'a second miss ends the wait');
    t.match((err as Error).message, /without plugins\.cni\.version\.host-local/);
    t.equal(restarts.length, 2, 'never more than one restart per wait');
  },
);
