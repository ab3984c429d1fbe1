// The Nomad API stand-in (test/helpers/fake-nomad/, NOT Nomad) against REAL Nomad recordings: every payload kind the
// stand-in serves must have the key set of the real 1.9.3/1.9.7 payload (test/fixtures/nomad/real-*), the types the
// harness reads, the real task-event sequences of a restore (1.9.7) and of the duplicate-IP Setup Failure (1.9.3), and
// the real client journal line shapes (VM run r386bw21c1b022). Fails when someone moves the stand-in away from Nomad.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { call, keys, sleep, typeOf, type Got, type Obj } from '../helpers/fake-nomad-call.js';
import { startFakeNomad, type Timeline } from '../helpers/fake-nomad/index.js';

const REAL = new URL('../fixtures/nomad/', import.meta.url);
const real = <T = Obj>(p: string): T => JSON.parse(readFileSync(new URL(p, REAL), 'utf8')) as T;
const realText = (p: string): string => readFileSync(new URL(p, REAL), 'utf8');
const JOB_HCL = readFileSync(new URL('../../jobs/bridge-exec-http.nomad.hcl', import.meta.url), 'utf8');
const R7 = 'real-1.9.7/reboot-sim/';
const R3 = 'real-1.9.3/reboot-sim/';
const STEP = 25;
// keys real Nomad leaves out while they hold Go's zero value (seen present in one capture, absent in another)
const OPTIONAL_ALLOC = ['DeploymentStatus'];
// These 1.9 captures come from a plain `go build`, which leaves out the list stubs' null keys every release build
// sends (real-1.9.7/release-build, the stand-in's shape on every line: fake-nomad/lines.ts)
const RELEASE_BUILD_STUB = ['AllocatedResources'];
const RELEASE_BUILD_NODE_STUB = ['Attributes', 'NodeResources', 'ReservedResources'];

const obj = (o: unknown, ...path: (string | number)[]): Obj =>
  path.reduce<unknown>((x, k) => (x as Obj)[k as string], o) as Obj;

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 4000): Promise<T> {
  // Note: the deadline is checked after a probe, never between a pause and the next probe: a process the machine
  // stalls past the deadline still looks once more before it says "never"
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() >= end) throw new Error(`stand-in never reached: ${what} (looked for ${ms} ms)`);
    await sleep(STEP);
  }
}

/** Deploy the real job file on a stand-in, then reboot the client: everything a real recording has, as the stand-in serves it. */
async function rig(t: Test, timeline: Timeline, nomadVersion: string) {
  const fake = await startFakeNomad({ timeline, clientNodeName: 'vm', nomadVersion, stepMs: STEP });
  t.teardown(() => fake.close());
  const parse = await call(fake, '/v1/jobs/parse', {
    method: 'POST',
    body: JSON.stringify({ JobHCL: JOB_HCL, Canonicalize: true }),
  });
  const register = await call(fake, '/v1/jobs', {
    method: 'POST',
    body: JSON.stringify({ Job: parse.body, Submission: { Source: JOB_HCL, Format: 'hcl2' } }),
  });
  const running = (a: Obj) => a.ClientStatus === 'running';
  const stub = await until('alloc running', async () =>
    ((await call(fake, '/v1/job/bridge-exec-http/allocations')).body as Obj[]).find(running),
  );
  const id = stub.ID as string;
  const before = await call(fake, `/v1/allocation/${id}`);
  const nodes = await call(fake, '/v1/nodes');
  const nodeId = obj(nodes.body, 0).ID as string;
  const nodeBefore = await call(fake, `/v1/node/${nodeId}`);
  await sleep(1100); // StatusUpdatedAt is in seconds
  fake.clientDown();
  await sleep(STEP);
  fake.clientUp();
  const settled = (a: Obj) =>
    a.ClientStatus === 'failed' ||
    (running(a) &&
      obj(a, 'TaskStates', 'web').Events !== null &&
      (obj(a, 'TaskStates', 'web').Events as Obj[]).at(-1)?.Type === 'Started' &&
      (obj(a, 'TaskStates', 'web').Events as Obj[]).length > 3);
  await until('alloc restored or failed', async () => {
    const a = (await call(fake, `/v1/allocation/${id}`)).body as Obj;
    return settled(a) ? a : undefined;
  });
  await sleep(3 * STEP);
  const after = await call(fake, `/v1/allocation/${id}`);
  return {
    fake,
    id,
    nodeId,
    parse,
    register,
    before,
    after,
    nodes,
    nodeBefore,
    nodeAfter: await call(fake, `/v1/node/${nodeId}`),
    stubs: await call(fake, '/v1/job/bridge-exec-http/allocations'),
    nodeAllocs: await call(fake, `/v1/node/${nodeId}/allocations`),
    evals: await call(fake, '/v1/evaluations'),
    self: await call(fake, '/v1/agent/self'),
    e404: await call(fake, '/v1/job/no-such-job'),
    e400wait: await call(fake, '/v1/job/bridge-exec-http/allocations?index=1&wait=5'),
    e400index: await call(fake, '/v1/job/bridge-exec-http/allocations?index=abc'),
    e500: await call(fake, `/v1/allocation/${id.slice(0, 8)}`),
  };
}
type Rig = Awaited<ReturnType<typeof rig>>;
let restored: Rig;
let failed: Rig;

t.before(async () => {
  restored = await rig(t, 'restored', '1.9.7');
  failed = await rig(t, 'duplicate-ip', '1.9.3');
});

t.test('key sets equal the real payloads', async (t) => {
  const same = (what: string, stand: unknown, rec: unknown, drop: string[] = []) =>
    t.same(keys(stand, drop), keys(rec, drop), `${what}: key set of real Nomad`);
  for (const [name, r, dir] of [
    ['restored/1.9.7', restored, R7],
    ['duplicate-ip/1.9.3', failed, R3],
  ] as const) {
    const ra = real(`${dir}after-reboot-sim/allocation.json`);
    t.test(name, async (t) => {
      const same2 = (what: string, stand: unknown, rec: unknown, drop: string[] = []) =>
        t.same(keys(stand, drop), keys(rec, drop), `${what}: key set of real Nomad`);
      same2('Allocation', r.after.body, ra, OPTIONAL_ALLOC);
      same2('Allocation (running, before)', r.before.body, real(`${dir}initial/allocation.json`), OPTIONAL_ALLOC);
      same2(
        'node allocations[0]',
        obj(r.nodeAllocs.body, 0),
        real<Obj[]>(`${dir}after-reboot-sim/node-allocations.json`)[0],
        OPTIONAL_ALLOC,
      );
      same2(
        'AllocListStub',
        obj(r.stubs.body, 0),
        real<Obj[]>(`${dir}after-reboot-sim/job-allocations.json`)[0],
        RELEASE_BUILD_STUB,
      );
      same2('TaskState', obj(r.after.body, 'TaskStates', 'web'), obj(ra, 'TaskStates', 'web'));
      same2(
        'TaskEvent',
        obj(r.after.body, 'TaskStates', 'web', 'Events', 0),
        obj(ra, 'TaskStates', 'web', 'Events', 0),
      );
      same2('NetworkStatus', obj(r.after.body, 'NetworkStatus'), obj(ra, 'NetworkStatus'));
      same2(
        'AllocatedResources.Shared.Ports[0]',
        obj(r.after.body, 'AllocatedResources', 'Shared', 'Ports', 0),
        obj(ra, 'AllocatedResources', 'Shared', 'Ports', 0),
      );
      same2('Node', r.nodeAfter.body, real(`${dir}after-reboot-sim/node.json`));
      same2(
        'Node.Events[0]',
        obj(r.nodeAfter.body, 'Events', 0),
        obj(real(`${dir}after-reboot-sim/node.json`), 'Events', 0),
      );
      same2(
        'NodeListStub',
        obj(r.nodes.body, 0),
        real<Obj[]>(`${dir}after-reboot-sim/nodes.json`)[0],
        RELEASE_BUILD_NODE_STUB,
      );
      same2('job register response', r.register.body, real(`${dir}initial/jobs-register.json`));
      same2(
        'Evaluation (job-register)',
        (r.evals.body as Obj[]).find((e) => e.TriggeredBy === 'job-register'),
        real<Obj[]>(`${dir}initial/evaluations.json`)[0],
      );
    });
  }
  const self = real(`${R7}after-reboot-sim/agent-self.json`);
  same('agent/self', restored.self.body, self);
  same('agent/self config', obj(restored.self.body, 'config'), obj(self, 'config'));
  same('agent/self config.Version', obj(restored.self.body, 'config', 'Version'), obj(self, 'config', 'Version'));
  same('agent/self config.Client', obj(restored.self.body, 'config', 'Client'), obj(self, 'config', 'Client'));
  same('agent/self member', obj(restored.self.body, 'member'), obj(self, 'member'));
  same('agent/self member.Tags', obj(restored.self.body, 'member', 'Tags'), obj(self, 'member', 'Tags'));
  same('jobs/parse', restored.parse.body, real(`${R7}initial/jobs-parse.json`));
  same(
    'jobs/parse network',
    obj(restored.parse.body, 'TaskGroups', 0, 'Networks', 0),
    obj(real(`${R7}initial/jobs-parse.json`), 'TaskGroups', 0, 'Networks', 0),
  );
});

t.test('types of the keys the harness reads', async (t) => {
  const ra = real(`${R7}after-reboot-sim/allocation.json`);
  const checks: [string, unknown, unknown, string[]][] = [
    [
      'Allocation',
      restored.after.body,
      ra,
      [
        'ID',
        'Name',
        'NodeID',
        'JobID',
        'TaskGroup',
        'ClientStatus',
        'DesiredStatus',
        'ClientDescription',
        'CreateIndex',
        'ModifyIndex',
        'CreateTime',
        'ModifyTime',
        'TaskStates',
        'NetworkStatus',
        'AllocatedResources',
        'Job',
      ],
    ],
    [
      'AllocListStub',
      obj(restored.stubs.body, 0),
      real<Obj[]>(`${R7}after-reboot-sim/job-allocations.json`)[0],
      [
        'ID',
        'ClientStatus',
        'DesiredStatus',
        'DesiredDescription',
        'NextAllocation',
        'TaskStates',
        'CreateIndex',
        'CreateTime',
        'ModifyTime',
      ],
    ],
    [
      'TaskState',
      obj(restored.after.body, 'TaskStates', 'web'),
      obj(ra, 'TaskStates', 'web'),
      ['State', 'Failed', 'Restarts', 'LastRestart', 'StartedAt', 'FinishedAt', 'Events', 'Paused', 'TaskHandle'],
    ],
    [
      'TaskEvent',
      obj(restored.after.body, 'TaskStates', 'web', 'Events', 1),
      obj(ra, 'TaskStates', 'web', 'Events', 1),
      ['Type', 'Time', 'DisplayMessage', 'Message', 'Details', 'FailsTask', 'SetupError', 'KillReason'],
    ],
    [
      'NetworkStatus',
      obj(restored.after.body, 'NetworkStatus'),
      obj(ra, 'NetworkStatus'),
      ['Address', 'InterfaceName', 'AddressIPv6'],
    ],
    [
      'Port',
      obj(restored.after.body, 'AllocatedResources', 'Shared', 'Ports', 0),
      obj(ra, 'AllocatedResources', 'Shared', 'Ports', 0),
      ['Label', 'Value', 'To', 'HostIP'],
    ],
    [
      'Node',
      restored.nodeAfter.body,
      real(`${R7}after-reboot-sim/node.json`),
      [
        'ID',
        'Name',
        'Status',
        'StatusDescription',
        'StatusUpdatedAt',
        'Drivers',
        'Attributes',
        'Events',
        'ModifyIndex',
        'LastMissedHeartbeatIndex',
      ],
    ],
    [
      'NodeListStub',
      obj(restored.nodes.body, 0),
      real<Obj[]>(`${R7}after-reboot-sim/nodes.json`)[0],
      ['ID', 'Name', 'Status', 'Drivers', 'Version', 'Address'],
    ],
    [
      'agent/self config.Version',
      obj(restored.self.body, 'config', 'Version'),
      obj(real(`${R7}after-reboot-sim/agent-self.json`), 'config', 'Version'),
      ['Version', 'VersionPrerelease', 'Revision'],
    ],
    [
      'register',
      restored.register.body,
      real(`${R7}initial/jobs-register.json`),
      ['EvalID', 'EvalCreateIndex', 'JobModifyIndex', 'Index', 'Warnings'],
    ],
  ];
  for (const [what, stand, rec, ks] of checks) {
    t.same(
      Object.fromEntries(ks.map((k) => [k, typeOf((stand as Obj)[k])])),
      Object.fromEntries(ks.map((k) => [k, typeOf((rec as Obj)[k])])),
      `${what}: types`,
    );
  }
  t.match(
    obj(restored.after.body, 'TaskStates', 'web').StartedAt,
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/,
    'StartedAt is RFC3339 with nanoseconds',
  );
  t.match(
    obj(failed.after.body, 'TaskStates', 'web').FinishedAt,
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/,
    'FinishedAt is RFC3339 with nanoseconds',
  );
});

t.test('errors: status, plain-text body and headers as real Nomad', async (t) => {
  const cases: [string, Got][] = [
    ['error-404-job-not-found', restored.e404],
    ['error-400-invalid-wait', restored.e400wait],
    ['error-400-invalid-index', restored.e400index],
    ['error-500-alloc-short-id', restored.e500],
  ];
  for (const [name, got] of cases) {
    const headers = realText(`${R7}initial/${name}.headers.txt`);
    t.equal(got.status, Number(/^HTTP\/1\.1 (\d+)/.exec(headers)![1]), `${name}: status`);
    t.equal(got.text, realText(`${R7}initial/${name}.body.txt`).trimEnd(), `${name}: body`);
    t.equal(got.headers.get('content-type'), 'text/plain; charset=utf-8', `${name}: content-type`);
    t.equal(
      got.headers.has('x-nomad-index'),
      /X-Nomad-Index/i.test(headers),
      `${name}: X-Nomad-Index present as in real`,
    );
  }
  t.equal(
    restored.register.headers.get('x-nomad-index'),
    String(obj(restored.register.body).Index),
    'register: X-Nomad-Index = Index',
  );
  t.equal(restored.register.headers.has('x-nomad-knownleader'), false, 'register: no X-Nomad-KnownLeader (real)');
  t.equal(restored.after.headers.get('x-nomad-knownleader'), 'true');
});

const events = (a: unknown) => obj(a, 'TaskStates', 'web').Events as Obj[];
const pick = (e: Obj) => ({
  Type: e.Type,
  DisplayMessage: e.DisplayMessage,
  Message: e.Message,
  Details: e.Details,
  FailsTask: e.FailsTask,
  SetupError: e.SetupError,
  KillReason: e.KillReason,
});

t.test('restored: the real 1.9.7 restore sequence', async (t) => {
  const rec = real(`${R7}after-reboot-sim/allocation.json`);
  t.same(
    events(restored.after.body).map(pick),
    events(rec).map(pick),
    'Types, DisplayMessages, Details, FailsTask of real 1.9.7',
  );
  t.equal(obj(restored.after.body, 'TaskStates', 'web').Restarts, 0, 'Restarts stays 0 (real)');
  t.ok(
    Date.parse(obj(restored.after.body, 'TaskStates', 'web').StartedAt as string) >
      Date.parse(obj(restored.before.body, 'TaskStates', 'web').StartedAt as string),
    'StartedAt moved (real)',
  );
});

t.test('duplicate-ip: the real 1.9.3 Setup Failure, text equal up to alloc id and IP', async (t) => {
  const rec = real(`${R3}after-reboot-sim/allocation.json`);
  const recId = rec.ID as string;
  const recIp = obj(rec, 'NetworkStatus').Address as string;
  const ip = obj(failed.after.body, 'NetworkStatus').Address as string;
  const expected = events(rec)
    .map(pick)
    .map((e) => ({
      ...e,
      DisplayMessage: (e.DisplayMessage as string).replaceAll(recId, failed.id).replaceAll(recIp, ip),
    }));
  t.same(events(failed.after.body).map(pick), expected, 'the whole real event sequence');
  const last = events(failed.after.body).at(-1)!;
  t.equal(
    last.DisplayMessage,
    `failed to setup alloc: pre-run hook "network" failed: failed to configure networking for alloc: failed to configure network: plugin type="bridge" failed (add): failed to allocate for range 0: ${ip} has been allocated to ${failed.id}, duplicate allocation is not allowed`,
  );
  const st = obj(failed.after.body, 'TaskStates', 'web');
  t.match(st, { State: 'dead', Failed: true, Restarts: 0 });
  t.equal(
    st.StartedAt,
    obj(failed.before.body, 'TaskStates', 'web').StartedAt,
    'StartedAt kept from before the reboot (real)',
  );
  t.match(failed.after.body, { ClientStatus: 'failed', ClientDescription: 'Failed tasks', DesiredStatus: 'run' });
});

t.test('node across the reboot: no new node event, StatusUpdatedAt moved, LastMissedHeartbeatIndex 0', async (t) => {
  for (const [dir, r] of [
    [R7, restored],
    [R3, failed],
  ] as const) {
    const recBefore = real(`${dir}initial/node.json`);
    const recAfter = real(`${dir}after-reboot-sim/node.json`);
    t.equal(
      (obj(r.nodeAfter.body).Events as Obj[]).length,
      (recAfter.Events as Obj[]).length,
      `${dir}: node events as real`,
    );
    t.same(
      (obj(r.nodeAfter.body).Events as Obj[]).map((e) => e.Message),
      (recAfter.Events as Obj[]).map((e) => e.Message),
    );
    t.equal(
      (recAfter.StatusUpdatedAt as number) > (recBefore.StatusUpdatedAt as number),
      true,
      'real: StatusUpdatedAt moved',
    );
    t.ok(
      (obj(r.nodeAfter.body).StatusUpdatedAt as number) > (obj(r.nodeBefore.body).StatusUpdatedAt as number),
      `${dir}: stand-in StatusUpdatedAt moved`,
    );
    t.equal(obj(r.nodeAfter.body).LastMissedHeartbeatIndex, recAfter.LastMissedHeartbeatIndex);
  }
});

// journal line -> its shape: times, host, pid, UUIDs, bridge IPs and executor task ids replaced
const shape = (l: string) =>
  l
    .replace(/^\S+\+0000 \S+ (nomad|systemd)\[\d+\]:/, '<TS> <HOST> $1[<PID>]:')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<T>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<ID>')
    .replace(/<ID>\/web\/[0-9a-f]{8}/g, '<TASKID>')
    .replace(/172\.26\.\d+\.\d+/g, '<IP>');

t.test('client journal: real 1.9.3 VM journal lines (short-iso) appear with the same shape', async (t) => {
  const rec = real<{ lines: string[] }>('real-journal-1.9.3-vm-reboot.json').lines.map(shape);
  const mine = new Set(failed.fake.clientLog().map(shape));
  for (const l of new Set(rec)) t.ok(mine.has(l), `stand-in journals: ${l.slice(0, 150)}`);
  const order = (ls: string[]) =>
    ls
      .filter((l) => /prerun failed|type="Setup Failure"|type="Failed Restoring Task"|type=Received/.test(l))
      .map((l) => /prerun failed|Setup Failure|Failed Restoring Task|Received/.exec(l)![0]);
  t.same(
    order(failed.fake.clientLog()),
    order(real<{ lines: string[] }>('real-journal-1.9.3-vm-reboot.json').lines),
    'same order of the restore/failure lines',
  );
});

t.test('client journal: real 1.9.7 restore lines (hclog part) appear with the same shape', async (t) => {
  const want =
    /Task event|failed to reattach to executor|error recovering task|task failed to restore|server contacted/;
  const rec = realText(`${R7}after-reboot-sim/client-log-excerpt.txt`)
    .split('\n')
    .filter((l) => want.test(l))
    .map(shape);
  t.ok(rec.length >= 6, 'the real excerpt has the restore lines');
  const mine = new Set(restored.fake.clientLog().map((l) => shape(l.replace(/^\S+ \S+ nomad\[\d+\]: {5}/, ''))));
  for (const l of new Set(rec)) t.ok(mine.has(l), `stand-in journals: ${l.slice(0, 150)}`);
});

t.test('a delayed reschedule: the same evaluations, links and order as real 1.9.3 (real-1.9.3/settle)', async (t) => {
  const R = 'real-1.9.3/settle/';
  const recEvals = real<Obj[]>(`${R}failed-delayed/job-evaluations.json`);
  const recFollowUp = recEvals.find((e) => e.StatusDescription === 'created for delayed rescheduling')!;
  const recAlloc = real(`${R}failed-delayed/allocation-943fd97a.json`);
  const hcl = JOB_HCL.replace(
    /reschedule \{[^}]*\}/,
    'reschedule {\n      attempts       = 1\n      interval       = "1h"\n      delay          = "1s"\n      delay_function = "constant"\n      unlimited      = false\n    }',
  );
  const fake = await startFakeNomad({
    timeline: 'duplicate-ip',
    clientNodeName: 'vm',
    nomadVersion: '1.9.3',
    stepMs: STEP,
  });
  t.teardown(() => fake.close());
  const parse = await call(fake, '/v1/jobs/parse', {
    method: 'POST',
    body: JSON.stringify({ JobHCL: hcl, Canonicalize: true }),
  });
  await call(fake, '/v1/jobs', {
    method: 'POST',
    body: JSON.stringify({ Job: parse.body, Submission: { Source: hcl, Format: 'hcl2' } }),
  });
  const stubs = async () => (await call(fake, '/v1/job/bridge-exec-http/allocations')).body as Obj[];
  const evals = async () => (await call(fake, '/v1/job/bridge-exec-http/evaluations')).body as Obj[];
  const first = await until('alloc running', async () => (await stubs()).find((a) => a.ClientStatus === 'running'));
  fake.clientDown();
  fake.clientUp();
  const failedAt = await until('alloc failed', async () =>
    (await stubs()).find((a) => a.ID === first.ID && a.ClientStatus === 'failed') ? Date.now() : undefined,
  );
  const held = await until('FollowupEvalID set', async () =>
    (await stubs()).find((a) => a.ID === first.ID && a.FollowupEvalID),
  );
  const followUp = (await evals()).find((e) => e.ID === held.FollowupEvalID)!;
  const pick = (e: Obj) => Object.fromEntries(['Status', 'TriggeredBy', 'StatusDescription'].map((k) => [k, e[k]]));
  t.same(pick(followUp), pick(recFollowUp), 'pending, alloc-failure, "created for delayed rescheduling"');
  for (const k of [
    'ID',
    'JobID',
    'Status',
    'TriggeredBy',
    'StatusDescription',
    'WaitUntil',
    'PreviousEval',
    'CreateIndex',
    'ModifyIndex',
  ])
    t.equal(typeOf(followUp[k]), typeOf(recFollowUp[k]), `follow-up eval ${k}: type`);
  t.equal(
    typeOf(((await call(fake, `/v1/allocation/${first.ID}`)).body as Obj).FollowupEvalID),
    typeOf(recAlloc.FollowupEvalID),
    'the full alloc has FollowupEvalID',
  );
  const recPrev = recEvals.find((e) => e.ID === recFollowUp.PreviousEval)!;
  t.equal(
    (await evals()).find((e) => e.ID === followUp.PreviousEval)?.TriggeredBy,
    recPrev.TriggeredBy,
    'it follows the alloc-failure eval, as real',
  );
  t.ok(
    Math.abs(Date.parse(followUp.WaitUntil as string) - (failedAt + 1000)) < 500,
    'WaitUntil = the failure + the delay',
  );
  const repl = await until('replacement running', async () =>
    (await stubs()).find((a) => a.ID !== first.ID && a.ClientStatus === 'running'),
  );
  const old = (await stubs()).find((a) => a.ID === first.ID)!;
  const recSeq = realText(`${R}seq-allocs.ndjson`)
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { body: Obj[] });
  const recOld = recSeq.at(-1)!.body.find((a) => a.ID === recAlloc.ID)!;
  t.same(
    [old.DesiredStatus, old.DesiredDescription, old.NextAllocation === repl.ID, old.FollowupEvalID === followUp.ID],
    [recOld.DesiredStatus, recOld.DesiredDescription, true, true],
    'the failed alloc: stopped, linked, keeps its FollowupEvalID',
  );
  t.equal(((await call(fake, `/v1/allocation/${repl.ID}`)).body as Obj).PreviousAllocation, first.ID);
  const done = (await evals()).find((e) => e.ID === followUp.ID)!;
  t.same(
    [done.Status, done.StatusDescription],
    ['complete', undefined],
    'complete, its StatusDescription gone (as real)',
  );
});
