// The Nomad API stand-in (test/helpers/fake-nomad/, NOT Nomad) against REAL captures of every Nomad line the harness
// supports (test/fixtures/nomad/real-<version>/, recorded from real agents as their READMEs say): for each line the
// stand-in, started as that line, must serve every payload kind with the key set of that line's capture (nodes, allocs,
// task states and events, evaluations, jobs, deployments, the event stream, drains, batch and system jobs), the same
// error replies, and the same restore after a reboot. A shape the stand-in does not serve yet, or a line without a
// capture of it, is a listed todo with the reason, never a pass. fake-nomad-vs-real.test.ts holds the 1.9 timelines.
import t, { type Test } from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { call, keys, sleep, typeOf, type Got, type Obj } from '../helpers/fake-nomad-call.js';
import { startFakeNomad, type FakeNomad } from '../helpers/fake-nomad/index.js';

const FIX = new URL('../fixtures/nomad/', import.meta.url);
const JOB_HCL = readFileSync(new URL('../../jobs/bridge-exec-http.nomad.hcl', import.meta.url), 'utf8');
const recordJob = (name: string) => readFileSync(new URL(`record/${name}.nomad.hcl`, FIX), 'utf8');
/** Every line the harness supports, with the folder of its reboot-sim capture. */
const LINES = ['1.9.7', '1.10.5', '1.11.3', '2.0.5'] as const;
const STEP = 25;
// keys real Nomad leaves out while they hold Go's zero value (seen present in one capture, absent in another)
const OPTIONAL_ALLOC = ['DeploymentStatus'];

const at = (o: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((x, k) => (x === null || x === undefined ? undefined : (x as Obj)[k as string]), o);
const get = async (f: FakeNomad, path: string) => (await call(f, path)).body;

/** Probe until it answers, or undefined after `ms` (the caller decides whether that is a failure or a todo). */
async function within<T>(probe: () => Promise<T | undefined>, ms = 3000): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined || Date.now() >= end) return v;
    await sleep(STEP);
  }
}

async function register(f: FakeNomad, hcl: string) {
  const parse = await call(f, '/v1/jobs/parse', {
    method: 'POST',
    body: JSON.stringify({ JobHCL: hcl, Canonicalize: true }),
  });
  const reg = await call(f, '/v1/jobs', {
    method: 'POST',
    body: JSON.stringify({ Job: parse.body, Submission: { Source: hcl, Format: 'hcl2' } }),
  });
  return { parse, reg };
}

/** Read the stand-in's event stream from index 1 for a moment: the frames (heartbeats `{}` included). */
async function streamFrames(f: FakeNomad, ms = 300): Promise<Obj[]> {
  const ac = new AbortController();
  const r = await fetch(`${f.addr}/v1/event/stream?index=1`, { signal: ac.signal });
  const dec = new TextDecoder();
  let text = '';
  const reader = r.body!.getReader();
  const stop = setTimeout(() => ac.abort(), ms);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += dec.decode(value);
    }
  } catch {
    /* aborted: the read is over */
  }
  clearTimeout(stop);
  return text
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Obj];
      } catch {
        return [];
      }
    });
}

/** Everything a line's capture has, as the stand-in started as that line serves it (undefined: not served). */
async function standIn(t: Test, version: string) {
  const f = await startFakeNomad({ timeline: 'restored', clientNodeName: 'vm', nomadVersion: version, stepMs: STEP });
  t.teardown(() => f.close());
  const s: Record<string, unknown> = {};
  const { parse, reg } = await register(f, JOB_HCL);
  s.parse = parse.body;
  s.register = reg.body;
  const stubs = async (job: string) => (await get(f, `/v1/job/${job}/allocations`)) as Obj[];
  const svc = await within(async () => (await stubs('bridge-exec-http')).find((a) => a.ClientStatus === 'running'));
  if (!svc) throw new Error(`stand-in ${version}: the service alloc never ran`);
  s.stub = svc;
  s.alloc = await get(f, `/v1/allocation/${svc.ID}`);
  s.nodes = await get(f, '/v1/nodes');
  const nodeId = at(s.nodes, 0, 'ID') as string;
  s.node = await get(f, `/v1/node/${nodeId}`);
  s.nodeAllocs = await get(f, `/v1/node/${nodeId}/allocations`);
  s.evals = await get(f, '/v1/evaluations');
  s.job = await get(f, '/v1/job/bridge-exec-http');
  s.self = await get(f, '/v1/agent/self');
  s.jobDeployment = await within(async () => {
    const d = (await get(f, '/v1/job/bridge-exec-http/deployment')) as Obj | null;
    return d?.Status === 'successful' ? d : undefined;
  });
  const depId = at(s.jobDeployment, 'ID') ?? at(await get(f, '/v1/job/bridge-exec-http/deployment'), 'ID');
  const dep = await call(f, `/v1/deployment/${depId}`);
  s.deployment = dep.status === 200 ? dep.body : undefined;
  s.errors = {
    'error-404-job-not-found': await call(f, '/v1/job/no-such-job'),
    'error-400-invalid-wait': await call(f, '/v1/job/bridge-exec-http/allocations?index=1&wait=5'),
    'error-400-invalid-index': await call(f, '/v1/job/bridge-exec-http/allocations?index=abc'),
    'error-500-alloc-short-id': await call(f, `/v1/allocation/${(svc.ID as string).slice(0, 8)}`),
  };
  // batch: running, then complete (the stand-in serves `complete` only if it ends batch tasks)
  await register(f, recordJob('batch-ok'));
  s.batchRunning = await within(async () => (await stubs('batch-ok')).find((a) => a.ClientStatus === 'running'));
  const done = await within(async () => (await stubs('batch-ok')).find((a) => a.ClientStatus === 'complete'), 1500);
  s.batchComplete = done && (await get(f, `/v1/allocation/${done.ID}`));
  // system: one alloc on the node, no deployment
  await register(f, recordJob('system-sleep'));
  s.systemStub = await within(async () => (await stubs('system-sleep')).find((a) => a.ClientStatus === 'running'));
  s.systemDeployment = await get(f, '/v1/job/system-sleep/deployment');
  // agent restart: tasks keep running, no new task event
  const eventsBefore = (at(await get(f, `/v1/allocation/${svc.ID}`), 'TaskStates', 'web', 'Events') as Obj[]).length;
  const nodeIndex = at(await get(f, `/v1/node/${nodeId}`), 'ModifyIndex') as number;
  f.clientRestart();
  // the agent is back once its node registered again (initializing, then ready)
  await within(async () => {
    const n = (await get(f, `/v1/node/${nodeId}`)) as Obj;
    return (n.ModifyIndex as number) > nodeIndex && n.Status === 'ready' ? n : undefined;
  });
  s.afterRestart = await get(f, `/v1/allocation/${svc.ID}`);
  s.eventsBeforeRestart = eventsBefore;
  // the reboot: the node's allocs restored per the timeline
  f.clientDown();
  await sleep(STEP);
  f.clientUp();
  s.afterReboot = await within(async () => {
    const a = (await get(f, `/v1/allocation/${svc.ID}`)) as Obj;
    const ev = at(a, 'TaskStates', 'web', 'Events') as Obj[];
    return a.ClientStatus === 'running' && ev.at(-1)?.Type === 'Started' && ev.length > eventsBefore ? a : undefined;
  });
  // drain: the response, the node while draining, after, and made eligible again
  const drain = await call(f, `/v1/node/${nodeId}/drain`, {
    method: 'POST',
    body: JSON.stringify({ DrainSpec: { Deadline: 20e9, IgnoreSystemJobs: false }, MarkEligible: false }),
  });
  s.drainReply = drain.body;
  s.draining = await get(f, `/v1/node/${nodeId}`);
  s.drained = await within(async () => {
    const n = (await get(f, `/v1/node/${nodeId}`)) as Obj;
    return n.DrainStrategy === null && at(n, 'LastDrain', 'Status') === 'complete' ? n : undefined;
  }, 4000);
  s.drainedStubs = await stubs('bridge-exec-http');
  s.drainedSystem = await stubs('system-sleep');
  const elig = await call(f, `/v1/node/${nodeId}/eligibility`, {
    method: 'POST',
    body: JSON.stringify({ Eligibility: 'eligible' }),
  });
  s.eligReply = elig.body;
  // the blocked replacement is placed once the node is eligible: wait for it (or give up and compare what is there)
  s.eligibleStubs =
    (await within(async () => {
      const x = await stubs('bridge-exec-http');
      return x.some((a) => a.DesiredStatus === 'run') ? x : undefined;
    })) ?? (await stubs('bridge-exec-http'));
  s.eligible = await get(f, `/v1/node/${nodeId}`);
  s.eligibleSystem = await stubs('system-sleep');
  s.events = await streamFrames(f);
  return s;
}

/**
 * The event Types real Nomad gives the topics the stand-in serves (nomad/state/events.go MsgTypeEvents of each tag):
 * an eligibility change is a NodeDrain event before 2.0 and a NodeEligibility event from 2.0 (v2.0.5 maps
 * NodeUpdateEligibilityRequestType to TypeNodeEligibilityUpdate); no line has an "AllocationUpdateDesiredTransition".
 */
const realTypes = (version: string): string[] => [
  'NodeRegistration',
  'NodeDeregistration',
  'NodeStreamEvent',
  'NodeDrain',
  ...(version.startsWith('1.') ? [] : ['NodeEligibility']),
  'EvaluationUpdated',
  'AllocationUpdated',
  'AllocationUpdateDesiredStatus',
  'JobRegistered',
  'JobDeregistered',
  'JobBatchDeregistered',
  'DeploymentStatusUpdate',
  'DeploymentPromotion',
  'DeploymentAllocHealth',
  'PlanResult',
];

/** The whole event stream of each agent process of a recording (record-line.sh start_stream), by file name. */
const WHOLE_STREAMS = ['stream-first-agent', 'stream-after-agent-restart', 'stream-after-reboot-sim-and-drain'];

/**
 * The folder of a line's capture by record-line.sh. 1.9.7's own `reboot-sim/` is an older recording of a plain
 * `go build` (no release tag, no generated codecs) that the 1.9 timeline tests read; its release-build recording, the
 * kind every other line has, is `release-build/` (real-1.9.7/README.md).
 */
const lineDir = (version: string) => (version === '1.9.7' ? 'real-1.9.7/release-build/' : `real-${version}/`);

/** Read a line's capture; undefined when the line has no such file. A whole stream is kept gzipped (`.ndjson.gz`). */
function capture(version: string, path: string): unknown {
  const url = new URL(`${lineDir(version)}${path}`, FIX);
  const gz = new URL(`${url.href}.gz`);
  if (!existsSync(url) && !(path.endsWith('.ndjson') && existsSync(gz))) return undefined;
  const text = existsSync(url) ? readFileSync(url, 'utf8') : gunzipSync(readFileSync(gz)).toString('utf8');
  if (path.endsWith('.ndjson'))
    return text
      .split('\n')
      .filter((l) => l.trim())
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as Obj];
        } catch {
          return []; // a stream cut by curl's timeout ends mid-line
        }
      });
  return path.endsWith('.json') ? JSON.parse(text) : text;
}
/** A real VM run's stream of the line (test/fixtures/nomad/event-stream/), if there is one. */
const vmStream = (version: string) =>
  capture(
    version,
    `${'../'.repeat(lineDir(version).split('/').length - 1)}event-stream/real-${version}-vm-docker-reboot.ndjson`,
  );
const captureText = (version: string, path: string) => capture(version, path) as string | undefined;

/**
 * Compare the key sets of one payload kind. No capture of it for this line, or no stand-in answer: a todo naming why,
 * so what is not compared shows in every run.
 */
function sameKeys(t: Test, what: string, stand: unknown, rec: unknown, drop: string[] = [], todo?: string) {
  if (rec === undefined || rec === null) return notCompared(t, what, 'no capture of it for this line');
  if (stand === undefined || stand === null) return notCompared(t, what, 'the stand-in does not serve it');
  t.same(keys(stand, drop), keys(rec, drop), `${what}: key set of the real line`, todo ? { todo } : {});
}

/** A comparison that cannot be made yet: reported as a todo with the reason (tap counts it, the run lists it). */
function notCompared(t: Test, what: string, why: string) {
  t.fail(`${what}: not compared`, { todo: why });
}

/**
 * The first event of each Type of a topic and each status of its object (an evaluation's payload grows once it is
 * processed), by "Type/status".
 */
const byType = (frames: Obj[], topic: string): Map<string, Obj> => {
  const out = new Map<string, Obj>();
  for (const e of frames.flatMap((f) => (f.Events as Obj[] | undefined) ?? [])) {
    if (e.Topic !== topic) continue;
    const p = at(e, 'Payload', topic) as Obj | undefined;
    const key = `${e.Type}/${p?.Status ?? p?.ClientStatus ?? ''}`;
    if (!out.has(key)) out.set(key, e);
  }
  return out;
};

/** What an event is about: its object's job (the job itself for Job events) and an eval's trigger. */
const about = (e: Obj, topic: string) => {
  const p = at(e, 'Payload', topic) as Obj | undefined;
  return [topic === 'Job' ? p?.ID : p?.JobID, p?.TriggeredBy].join('/');
};

/**
 * The stand-in's batch-ok never ends, so its drain meets it running (1.10.3+: killed, failed, rescheduled); the real
 * batch-ok had completed before the drain, so the recording has no such event to hold it against.
 */
const batchDrained = (e: Obj | undefined) =>
  at(e, 'Payload', 'Allocation', 'JobID') === 'batch-ok' && at(e, 'Payload', 'Allocation', 'ClientStatus') === 'failed';
const DRAINED_BATCH = 'the recording drained no running batch alloc (its batch-ok had completed)';

/** The first real event of `type` (as byType keys it) about the same job and trigger as `me`. */
function counterpart(frames: Obj[], topic: string, type: string, me: Obj): Obj | undefined {
  const want = about(me, topic);
  for (const e of frames.flatMap((f) => (f.Events as Obj[] | undefined) ?? [])) {
    if (e.Topic !== topic) continue;
    const p = at(e, 'Payload', topic) as Obj | undefined;
    if (`${e.Type}/${p?.Status ?? p?.ClientStatus ?? ''}` === type && about(e, topic) === want) return e;
  }
  return undefined;
}

// Note: each line has its own stand-in and mostly waits on its timeline (25 ms steps); two lines at a time halve the
// file's wait. Not four: the probes' windows (1.5-3 s) are wall-clock, and the file runs beside others on 2 cores.
t.jobs = 2;

for (const version of LINES) {
  t.test(`Nomad ${version}`, async (t) => {
    t.ok(existsSync(new URL(`${lineDir(version)}reboot-sim/initial/node.json`, FIX)), 'the line has its capture');
    const s = await standIn(t, version);
    const I = 'reboot-sim/initial/';
    const rec = (p: string) => capture(version, p);

    t.test('key sets: nodes, allocs, task states, evaluations, jobs, agent', async (t) => {
      sameKeys(t, 'NodeListStub', at(s.nodes, 0), at(rec(`${I}nodes.json`), 0));
      sameKeys(t, 'Node', s.node, rec(`${I}node.json`));
      sameKeys(t, 'Node.Events[0]', at(s.node, 'Events', 0), at(rec(`${I}node.json`), 'Events', 0));
      sameKeys(t, 'AllocListStub', s.stub, at(rec(`${I}job-allocations.json`), 0));
      sameKeys(t, 'Allocation', s.alloc, rec(`${I}allocation.json`), OPTIONAL_ALLOC);
      const recNodeAlloc = (rec(`${I}node-allocations.json`) as Obj[] | undefined)?.find(
        (a) => a.JobID === 'bridge-exec-http',
      );
      const nodeAlloc = (s.nodeAllocs as Obj[]).find((a) => a.JobID === 'bridge-exec-http');
      sameKeys(t, 'node allocations[]', nodeAlloc, recNodeAlloc, OPTIONAL_ALLOC);
      const ra = rec(`${I}allocation.json`);
      sameKeys(t, 'TaskState', at(s.alloc, 'TaskStates', 'web'), at(ra, 'TaskStates', 'web'));
      sameKeys(t, 'TaskEvent', at(s.alloc, 'TaskStates', 'web', 'Events', 0), at(ra, 'TaskStates', 'web', 'Events', 0));
      sameKeys(t, 'NetworkStatus', at(s.alloc, 'NetworkStatus'), at(ra, 'NetworkStatus'));
      sameKeys(t, 'AllocatedResources', at(s.alloc, 'AllocatedResources'), at(ra, 'AllocatedResources'));
      sameKeys(
        t,
        'AllocatedResources.Shared.Ports[0]',
        at(s.alloc, 'AllocatedResources', 'Shared', 'Ports', 0),
        at(ra, 'AllocatedResources', 'Shared', 'Ports', 0),
      );
      const regEval = (es: unknown) =>
        (es as Obj[]).find((e) => e.TriggeredBy === 'job-register' && e.JobID === 'bridge-exec-http');
      sameKeys(t, 'Evaluation (job-register)', regEval(s.evals), regEval(rec(`${I}evaluations.json`)));
      sameKeys(t, 'job register response', s.register, rec(`${I}jobs-register.json`));
      sameKeys(t, 'jobs/parse', s.parse, rec(`${I}jobs-parse.json`));
      sameKeys(t, 'jobs/parse group', at(s.parse, 'TaskGroups', 0), at(rec(`${I}jobs-parse.json`), 'TaskGroups', 0));
      sameKeys(
        t,
        'jobs/parse task',
        at(s.parse, 'TaskGroups', 0, 'Tasks', 0),
        at(rec(`${I}jobs-parse.json`), 'TaskGroups', 0, 'Tasks', 0),
      );
      sameKeys(t, 'Job', s.job, rec(`${I}job.json`));
      const self = rec(`${I}agent-self.json`);
      sameKeys(t, 'agent/self', s.self, self);
      sameKeys(t, 'agent/self config', at(s.self, 'config'), at(self, 'config'));
      sameKeys(t, 'agent/self config.Client', at(s.self, 'config', 'Client'), at(self, 'config', 'Client'));
      sameKeys(t, 'agent/self member.Tags', at(s.self, 'member', 'Tags'), at(self, 'member', 'Tags'));
      // the types of the keys the harness reads
      const types = (o: unknown, ks: string[]) => Object.fromEntries(ks.map((k) => [k, typeOf(at(o, k))]));
      const allocKeys = ['ID', 'NodeID', 'ClientStatus', 'DesiredStatus', 'TaskStates', 'NetworkStatus', 'CreateTime'];
      t.same(types(s.alloc, allocKeys), types(ra, allocKeys), 'Allocation: types');
      const stubKeys = ['ID', 'ClientStatus', 'DesiredStatus', 'DesiredDescription', 'NextAllocation', 'TaskStates'];
      t.same(types(s.stub, stubKeys), types(at(rec(`${I}job-allocations.json`), 0), stubKeys), 'AllocListStub: types');
      const nodeKeys = [
        'ID',
        'Status',
        'StatusUpdatedAt',
        'Drivers',
        'Events',
        'SchedulingEligibility',
        'DrainStrategy',
      ];
      t.same(types(s.node, nodeKeys), types(rec(`${I}node.json`), nodeKeys), 'Node: types');
    });

    t.test('deployments', async (t) => {
      // 1.9.7 was recorded before /v1/deployment/:id was; its deployments list holds the same Deployment objects
      const recDep = rec(`${I}deployment.json`) ?? at(rec(`${I}deployments.json`), 0);
      sameKeys(t, 'Deployment (/v1/deployment/:id)', s.deployment, recDep);
      sameKeys(t, 'Deployment (/v1/job/:id/deployment)', s.jobDeployment, rec(`${I}job-deployment.json`) ?? recDep);
      sameKeys(
        t,
        'Deployment.TaskGroups.web',
        at(s.jobDeployment, 'TaskGroups', 'web'),
        at(recDep, 'TaskGroups', 'web'),
      );
      const recOk = rec('reboot-sim/deployment-successful/deployment.json') as Obj | undefined;
      if (!recOk) notCompared(t, 'a successful deployment', 'no capture of it for this line');
      else
        t.same(
          [at(s.jobDeployment, 'Status'), at(s.jobDeployment, 'StatusDescription')],
          [recOk.Status, recOk.StatusDescription],
          'successful, "Deployment completed successfully"',
        );
    });

    t.test('errors: status and plain-text body', async (t) => {
      for (const [name, got] of Object.entries(s.errors as Record<string, Got>)) {
        const headers = captureText(version, `${I}${name}.headers.txt`)!;
        t.equal(got.status, Number(/^HTTP\/1\.1 (\d+)/.exec(headers)![1]), `${name}: status`);
        const body = captureText(version, `${I}${name}.body.txt`)!.trimEnd();
        t.equal(got.text, body, `${name}: body`);
        t.equal(got.headers.has('x-nomad-index'), /X-Nomad-Index/i.test(headers), `${name}: X-Nomad-Index as real`);
      }
    });

    t.test('event stream', async (t) => {
      const recAlloc = rec(`${I}event-stream-allocation.ndjson`) as Obj[];
      // each agent process's whole stream (record-line.sh start_stream): every event the real line sent over the
      // steps the stand-in takes here (and more: a failing batch job, the purge)
      const whole = WHOLE_STREAMS.flatMap((n) => (rec(`events/${n}.ndjson`) as Obj[] | undefined) ?? []);
      // the short event captures; 1.9.7 also has a real VM run's stream (docker job, every topic)
      const recAll = [
        ...whole,
        ...recAlloc,
        ...((rec('events/event-stream-evals-deployments-job.ndjson') as Obj[] | undefined) ?? []),
        ...((rec('events/event-stream-node.ndjson') as Obj[] | undefined) ?? []),
        ...((rec('events/event-stream-node-after-drain.ndjson') as Obj[] | undefined) ?? []),
        ...((vmStream(version) as Obj[] | undefined) ?? []),
      ];
      const mine = s.events as Obj[];
      t.same(mine[0], {}, 'the first line is the {} heartbeat, as real');
      const sent = mine.flatMap((f) => (f.Events as Obj[] | undefined) ?? []);
      const types = [...new Set(sent.map((e) => e.Type as string))].sort();
      t.same(
        types.filter((x) => !realTypes(version).includes(x)),
        [],
        `every event Type is one real ${version} has (${types.join(', ')})`,
      );
      // the eligibility change: the first Node event eligible again after the drain made the node ineligible
      const nodeEvents = sent.filter((e) => e.Topic === 'Node');
      const elig = (e: Obj) => at(e, 'Payload', 'Node', 'SchedulingEligibility');
      const drained = nodeEvents.findIndex((e) => elig(e) === 'ineligible');
      t.equal(
        nodeEvents.slice(drained).find((e) => elig(e) === 'eligible')?.Type,
        version.startsWith('1.') ? 'NodeDrain' : 'NodeEligibility',
        'the node made eligible: the Type real Nomad gives it on this line',
      );
      // a deployment is created and completed by the scheduler's plans: never a DeploymentStatusUpdate there
      t.same(
        sent
          .filter((e) => e.Topic === 'Deployment' && e.Type === 'DeploymentStatusUpdate')
          .map((e) => at(e, 'Payload', 'Deployment', 'Status')),
        [],
        'no DeploymentStatusUpdate for a running or successful deployment',
      );
      const frame = (fs: Obj[]) => fs.find((f) => Array.isArray(f.Events));
      sameKeys(t, 'frame', frame(mine), frame(recAlloc));
      // per topic and event Type: a PlanResult carries the alloc as planned, an AllocationUpdated the client's view
      for (const topic of ['Allocation', 'Node', 'Job', 'Evaluation', 'Deployment']) {
        const m = byType(mine, topic);
        const r = byType(recAll, topic);
        if (r.size === 0) notCompared(t, `${topic} events`, 'no capture of it for this line');
        for (const type of m.keys()) {
          if (!r.size || r.has(type)) continue;
          if (batchDrained(m.get(type))) {
            notCompared(t, `${topic} ${type} event`, DRAINED_BATCH);
            continue;
          }
          // over the whole stream of the same steps, an event real Nomad never sent is one the stand-in invents
          if (whole.length) t.fail(`${topic} ${type} event: the stand-in sends it, real ${version} never did`);
          else notCompared(t, `${topic} ${type} event`, 'the capture has no event of this kind');
        }
        for (const [type, first] of r) {
          const me = m.get(type);
          // the stream's JSON leaves out a payload's empty fields (a batch alloc has no DeploymentID, a node-update
          // eval no QueuedAllocations): compare with the real event of the same job and trigger when there is one
          const same = me && counterpart(recAll, topic, type, me);
          if (!same && batchDrained(me)) {
            notCompared(t, `${topic} ${type} event`, DRAINED_BATCH);
            continue;
          }
          const re = same ?? first;
          sameKeys(t, `${topic} ${type} event`, me, re);
          const payload = (e: unknown) => at(e, 'Payload', topic);
          sameKeys(
            t,
            `${topic} ${type} payload`,
            payload(me),
            payload(re),
            topic === 'Allocation' ? OPTIONAL_ALLOC : [],
          );
        }
      }
    });

    t.test('agent restart and reboot: the task events of the line', async (t) => {
      const evs = (a: unknown) => (at(a, 'TaskStates', 'web', 'Events') as Obj[]).map((e) => e.Type);
      const recRestart = rec('reboot-sim/after-agent-restart/allocation.json');
      const recInitial = rec(`${I}allocation.json`);
      t.equal(
        evs(s.afterRestart).length - (s.eventsBeforeRestart as number),
        evs(recRestart).length - evs(recInitial).length,
        'no new task event after an agent restart, as real',
      );
      const recReboot = rec('reboot-sim/after-reboot-sim/allocation.json');
      t.ok(s.afterReboot, 'the stand-in restored the alloc');
      t.same(evs(s.afterReboot), evs(recReboot), 'the restore: the real event types in order');
      t.equal(at(s.afterReboot, 'ClientStatus'), at(recReboot, 'ClientStatus'));
      t.equal(at(s.afterReboot, 'TaskStates', 'web', 'Restarts'), at(recReboot, 'TaskStates', 'web', 'Restarts'));
    });

    t.test('drain', async (t) => {
      sameKeys(t, 'drain reply', s.drainReply, rec('drain/node-drain.json'));
      sameKeys(t, 'eligibility reply', s.eligReply, rec('drain/node-eligibility.json'));
      const recDraining = rec('drain/draining-node.json');
      sameKeys(t, 'Node.DrainStrategy', at(s.draining, 'DrainStrategy'), at(recDraining, 'DrainStrategy'));
      const recDrained = rec('drain/drained-node.json') as Obj | undefined;
      sameKeys(t, 'Node.LastDrain', at(s.drained, 'LastDrain'), at(recDrained, 'LastDrain'));
      if (!recDrained) notCompared(t, 'the node after a drain', 'no capture of it for this line');
      else {
        const msgs = (n: unknown) => ((at(n, 'Events') as Obj[] | undefined) ?? []).map((e) => e.Message);
        t.same(msgs(s.drained).slice(-2), msgs(recDrained).slice(-2), 'node events: drain set, drain complete');
        t.equal(at(s.drained, 'SchedulingEligibility'), recDrained.SchedulingEligibility, 'still ineligible');
        const moved = (stubs: unknown) => (stubs as Obj[]).find((a) => a.DesiredStatus === 'stop');
        const recMoved = moved(rec('drain/drained-job-allocations.json'));
        t.same(
          [at(moved(s.drainedStubs), 'DesiredDescription'), at(moved(s.drainedStubs), 'DesiredTransition', 'Migrate')],
          [at(recMoved, 'DesiredDescription'), at(recMoved, 'DesiredTransition', 'Migrate')],
          'the service alloc: "alloc is being migrated", Migrate set',
        );
        sameKeys(
          t,
          'AllocListStub.DesiredTransition',
          at(moved(s.drainedStubs), 'DesiredTransition'),
          at(recMoved, 'DesiredTransition'),
        );
        const recSys = moved(rec('drain/drained-system-job-allocations.json'));
        t.equal(
          at(moved(s.drainedSystem), 'DesiredDescription'),
          at(recSys, 'DesiredDescription'),
          'the system alloc of a drained node',
        );
        const recElig = rec('drain/eligible-node.json') as Obj;
        t.same(msgs(s.eligible).at(-1), msgs(recElig).at(-1), 'node event when eligible again');
        const live = (stubs: unknown) => (stubs as Obj[]).filter((a) => a.DesiredStatus === 'run').length;
        t.equal(live(s.eligibleStubs), live(rec('drain/eligible-job-allocations.json')), 'the service placed again');
        t.equal(
          live(s.eligibleSystem),
          live(rec('drain/eligible-system-job-allocations.json')),
          'the system job placed again',
        );
      }
    });

    t.test('batch and system jobs', async (t) => {
      const recRun = at(rec('batch/running-job-allocations.json'), 0) as Obj | undefined;
      sameKeys(t, 'batch AllocListStub (running)', s.batchRunning, recRun);
      if (recRun) t.equal(at(s.batchRunning, 'JobType'), recRun.JobType, 'JobType batch');
      const recDone = rec('batch/complete-allocation.json') as Obj | undefined;
      if (!recDone) notCompared(t, 'a completed batch alloc', 'no capture of it for this line');
      else if (!s.batchComplete)
        notCompared(t, 'a completed batch alloc', 'the stand-in does not serve it (its batch tasks never end)');
      else {
        const tev = (a: unknown) =>
          (at(a, 'TaskStates', 'work', 'Events') as Obj[]).map((e) => [e.Type, e.DisplayMessage]);
        t.same(tev(s.batchComplete), tev(recDone), 'events up to Terminated "Exit Code: 0"');
        const term = (a: unknown) =>
          (at(a, 'TaskStates', 'work', 'Events') as Obj[]).find((e) => e.Type === 'Terminated');
        sameKeys(t, 'Terminated Details', at(term(s.batchComplete), 'Details'), at(term(recDone), 'Details'));
        t.same(
          [at(s.batchComplete, 'ClientStatus'), at(s.batchComplete, 'ClientDescription')],
          [recDone.ClientStatus, recDone.ClientDescription],
          'complete, "All tasks have completed"',
        );
      }
      const recSys = at(rec('system/job-allocations.json'), 0) as Obj | undefined;
      sameKeys(t, 'system AllocListStub', s.systemStub, recSys);
      if (recSys) {
        t.equal(at(s.systemStub, 'JobType'), recSys.JobType, 'JobType system');
        // null before 1.11; from 1.11 a system job has a deployment too
        const recSysDep = rec('system/job-deployment.json');
        if (recSysDep === null) t.equal(s.systemDeployment, null, 'a system job has no deployment (null), as real');
        else sameKeys(t, 'system job deployment', s.systemDeployment, recSysDep);
      }
    });
  });
}
