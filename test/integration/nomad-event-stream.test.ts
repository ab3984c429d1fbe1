// The event-stream client (lib/nomad/event-stream.ts) over real HTTP against the Nomad API STAND-IN (not Nomad;
// test/helpers/fake-nomad/events.ts speaks the real NDJSON format with `{}` heartbeats): frames in order, heartbeats,
// reconnecting from the last index after the connection drops mid-line, giving up in bounded time, never logging the token.
import t, { type Test } from 'tap';
import type { LogEvent } from '../../lib/log/events.js';
import { createNomad } from '../../lib/nomad/client.js';
import type { StreamEvent } from '../../lib/parse/event-stream-frames.js';
import { createHttpTransport } from '../../lib/nomad/transport.js';
import { waitFor } from '../../lib/time/wait-for.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { startFakeNomad } from '../helpers/fake-nomad/index.js';
import { deployWeb } from '../helpers/fake-nomad/sample-job.js';
import { waitForDeploymentDone } from '../../lib/steps/job-steps.js';

const STEP = 20;
const TOKEN = 'c7f0a3b2-secret-token-0000-000000000001';

/** Wait (bounded) until `cond` holds, naming what. */
const until = (what: string, cond: () => boolean, ms = 3000) =>
  waitFor(what, async () => (cond() ? { done: true, value: undefined } : { done: false, reason: 'not yet' }), {
    deadline: deadlineIn(ms),
    intervals: [10],
  });

async function rig(t: Test, o: { heartbeatMs?: number; token?: string } = {}) {
  const fake = await startFakeNomad({
    timeline: 'restored',
    clientNodeName: 'client',
    stepMs: STEP,
    heartbeatMs: o.heartbeatMs ?? 30_000,
    ...(o.token ? { token: o.token } : {}),
  });
  t.teardown(() => fake.close());
  const logs: LogEvent[] = [];
  const nomad = createNomad({
    transport: createHttpTransport({ addr: fake.addr }),
    logger: (e) => void logs.push(e),
    ...(o.token ? { token: o.token } : {}),
  });
  return { fake, nomad, logs };
}

t.test(
  'frames of the job and its node arrive in index order, each event once; heartbeats at once and then periodically',
  async (t) => {
    const { fake, nomad } = await rig(t, { heartbeatMs: 40 });
    const got: StreamEvent[] = [];
    let beats = 0;
    const ctl = new AbortController();
    const sub = nomad.events({
      topics: ['Allocation:web', 'Job:web', `Node:${fake.cluster.node.ID}`],
      signal: ctl.signal,
      onEvents: (_i, evs) => void got.push(...evs),
      onHeartbeat: () => void beats++,
    });
    await until('the first heartbeat', () => beats >= 1, 1000);
    const alloc = await deployWeb(nomad);
    fake.clientDown();
    fake.clientUp();
    await until(
      'the restored alloc running again',
      () =>
        got.filter(
          (e) => e.Key === alloc.ID && (e.Payload['Allocation'] as { ClientStatus: string }).ClientStatus === 'running',
        ).length >= 2,
    );
    await until('three heartbeats', () => beats >= 3, 2000);
    ctl.abort();
    const end = await sub.done;
    t.equal(end.reason, 'aborted');
    t.equal(end.reconnects, 0);
    const indexes = got.map((e) => e.Index);
    t.same(
      indexes,
      [...indexes].sort((a, b) => a - b),
      'index order',
    );
    t.equal(new Set(got.map((e) => `${e.Index}/${e.Topic}/${e.Type}/${e.Key}`)).size, got.length, 'no duplicates');
    t.ok(got.some((e) => e.Topic === 'Job' && e.Type === 'JobRegistered' && e.Key === 'web'));
    const allocEvents = got.filter((e) => e.Topic === 'Allocation');
    t.ok(
      allocEvents.every(
        (e) => (e.FilterKeys ?? [])[0] === 'web' && e.Key === (e.Payload['Allocation'] as { ID: string }).ID,
      ),
      'Allocation FilterKeys = [JobID, DeploymentID]',
    );
    t.equal(allocEvents[0]!.Type, 'PlanResult', 'the placement is a PlanResult');
    t.ok(
      allocEvents.some((e) => e.Type === 'AllocationUpdated'),
      'client updates are AllocationUpdated',
    );
    t.notOk(
      'Job' in (allocEvents[0]!.Payload['Allocation'] as object),
      'no Job in the alloc payload (real 1.9.3 capture)',
    );
    const nodeTypes = got
      .filter((e) => e.Topic === 'Node')
      .map((e) => `${e.Type}:${(e.Payload['Node'] as { Status: string }).Status}`);
    const statusChanges = nodeTypes.filter((x) => !x.startsWith('AllocationUpdated:'));
    t.same(
      statusChanges,
      ['NodeRegistration:initializing', 'NodeStreamEvent:ready'],
      'the reboot re-registers the node, then a status update',
    );
    t.ok(
      nodeTypes.includes('AllocationUpdated:ready'),
      'a client alloc update also sends the node (as real 1.9.3 does)',
    );
    t.ok(
      got.some((e) => e.Topic === 'Job' && e.Type === 'PlanResult'),
      'a placement also sends the job (as real 1.9.3 does)',
    );
    t.notOk(
      got.some((e) => e.Topic === 'Evaluation'),
      'topics filter: no Evaluation events asked for',
    );
  },
);

t.test(
  'a dropped connection (cut mid-line) reconnects from the last index: nothing lost, nothing twice, the half line ignored',
  async (t) => {
    const { fake, nomad, logs } = await rig(t, { token: TOKEN });
    const alloc = await deployWeb(nomad);
    const got: StreamEvent[] = [];
    const ctl = new AbortController();
    const sub = nomad.events({
      topics: ['Allocation:web', `Node:${fake.cluster.node.ID}`],
      signal: ctl.signal,
      logger: (e) => void logs.push(e),
      onEvents: (_i, evs) => void got.push(...evs),
      backoffMs: [150],
    });
    await until('the placement replayed from the buffer', () =>
      got.some((e) => e.Key === alloc.ID && e.Type === 'PlanResult'),
    );
    const before = sub.lastIndex();
    t.equal(fake.dropEventStreams({ midLine: true }), 1, 'one stream open, cut');
    fake.clientDown(); // happens while the harness is disconnected
    fake.clientUp();
    await until('the restore seen after the reconnect', () =>
      got.some(
        (e) =>
          e.Key === alloc.ID &&
          e.Index > before &&
          (e.Payload['Allocation'] as { ClientStatus: string }).ClientStatus === 'running',
      ),
    );
    ctl.abort();
    const end = await sub.done;
    t.equal(end.reconnects, 1, 'one reconnect');
    const streams = fake.requests.filter((r) => r.path === '/v1/event/stream');
    t.equal(streams.length, 2);
    t.equal(streams[1]!.query['index'], String(before + 1), 'reconnected from the last index + 1');
    t.ok(
      streams.every((r) => r.hasToken),
      'token sent on every connection',
    );
    const logIndexes = fake.cluster.eventLog
      .filter((f) => f.Events.some((e) => e.Topic === 'Allocation' || e.Topic === 'Node'))
      .map((f) => f.Index);
    t.same(
      [...new Set(got.map((e) => e.Index))],
      logIndexes,
      'every frame of the stand-in, once, none from the cut line (index 999999)',
    );
    const warn = logs.find((e) => e.kind === 'warn' && /reconnecting from index/.test(e.message));
    t.match(
      warn,
      { message: new RegExp(`connection lost .*reconnecting from index ${before + 1} in 150 ms \\(reconnect 1\\)`) },
      'the reconnect is logged',
    );
    t.notOk(JSON.stringify(logs).includes(TOKEN), 'the token is in no log event');
  },
);

t.test('a connection that goes silent (no heartbeat) is treated as dead and reopened', async (t) => {
  const { fake, nomad } = await rig(t, { heartbeatMs: 60_000 });
  const ctl = new AbortController();
  const sub = nomad.events({
    topics: ['Job:web'],
    signal: ctl.signal,
    onEvents: () => {},
    idleTimeoutMs: 150,
    backoffMs: [20],
  });
  await until(
    'two reconnects after silence',
    () => fake.requests.filter((r) => r.path === '/v1/event/stream').length >= 3,
  );
  ctl.abort();
  t.ok((await sub.done).reconnects >= 2);
});

t.test('gives up within the outage limit when the server is gone, and at once on 403', async (t) => {
  const { fake, nomad, logs } = await rig(t);
  const ctl = new AbortController();
  const sub = nomad.events({
    topics: ['Job:web'],
    signal: ctl.signal,
    onEvents: () => {},
    reconnectWithinMs: 400,
    backoffMs: [50, 100],
  });
  await until('connected', () => fake.openEventStreams() === 1);
  const t0 = Date.now();
  await fake.close();
  const end = await sub.done;
  t.equal(end.reason, 'gave-up');
  // Note: the limit is 0.4 s; the ceiling is headroom for a loaded host, far below the default limit
  t.ok(Date.now() - t0 < 20_000, `gave up in ${Date.now() - t0} ms`);
  t.match(end.error, /no connection for \d+s \(limit 0s\); last: .*cannot reach/);
  t.ok(logs.some((e) => e.kind === 'warn' && e.message.startsWith('event stream: giving up')));

  const locked = await rig(t, { token: TOKEN });
  const wrong = createNomad({ transport: createHttpTransport({ addr: locked.fake.addr }), token: 'not-the-token' });
  const denied = await wrong.events({ topics: ['Job:web'], signal: new AbortController().signal, onEvents: () => {} })
    .done;
  t.equal(denied.reason, 'gave-up');
  t.match(denied.error, /HTTP 403: ACL token not found/);
  t.equal(denied.reconnects, 0, 'no retry of a 403');
});

t.test('the stand-in honours index: a subscription from a later index gets only the frames from there', async (t) => {
  const { fake, nomad } = await rig(t);
  await deployWeb(nomad);
  // the stand-in is idle once the deployment is over: no frame comes after the ones counted here
  await waitForDeploymentDone(nomad, 'web', deadlineIn(5000));
  const frames = fake.cluster.eventLog.map((f) => f.Index);
  const from = frames[Math.floor(frames.length / 2)]!;
  const got: number[] = [];
  const ctl = new AbortController();
  const sub = nomad.events({ topics: ['*'], index: from, signal: ctl.signal, onEvents: (i) => void got.push(i) });
  await until('the buffered frames', () => got.length >= frames.filter((i) => i >= from).length);
  ctl.abort();
  await sub.done;
  t.same(
    got,
    frames.filter((i) => i >= from),
  );
});
