// The Nomad API stand-in (test/helpers/fake-nomad/, NOT Nomad) against REAL captures of a dynamic host volume
// (test/fixtures/nomad/real-{1.10.5,2.0.5}/dynamic-host-volume/, recorded by record/record-dhv.sh from real agents):
// started as that line, the stand-in runs what the recording did (create with the mkdir plugin, read, list, the node,
// a job mounting it, an agent restart, the job purged, delete) and must answer each payload with the capture's key set
// and value types, in the same states over time. What it does not serve is a listed todo with the reason. On 1.9.7,
// which has no dynamic host volumes, the routes are Go's 404 and the parse has no Sticky (nomad@v1.9.7 api/tasks.go).
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { call, keys, sleep, typeOf, type Obj } from '../helpers/fake-nomad-call.js';
import { startFakeNomad, type FakeNomad } from '../helpers/fake-nomad/index.js';

const FIX = new URL('../fixtures/nomad/', import.meta.url);
const JOB_HCL = readFileSync(new URL('record/dhv-job.nomad.hcl', FIX), 'utf8');
const STEP = 25;

const capture = (version: string, path: string): Obj =>
  JSON.parse(readFileSync(new URL(`real-${version}/dynamic-host-volume/${path}`, FIX), 'utf8')) as Obj;

/** The key set and, key by key, the value type of the capture. */
function sameShape(t: Test, what: string, stand: unknown, rec: unknown) {
  t.same(keys(stand), keys(rec), `${what}: key set of the real line`);
  const s = (stand ?? {}) as Obj;
  const r = (rec ?? {}) as Obj;
  t.same(
    Object.fromEntries(Object.keys(r).map((k) => [k, typeOf(s[k])])),
    Object.fromEntries(Object.keys(r).map((k) => [k, typeOf(r[k])])),
    `${what}: value types of the real line`,
  );
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() >= end) throw new Error(`the stand-in never got to: ${what}`);
    await sleep(STEP);
  }
}

const put = (f: FakeNomad, path: string, body: unknown) => call(f, path, { method: 'PUT', body: JSON.stringify(body) });

async function start(t: Test, version: string): Promise<FakeNomad> {
  const f = await startFakeNomad({ timeline: 'restored', clientNodeName: 'vm', nomadVersion: version, stepMs: STEP });
  t.teardown(() => f.close());
  return f;
}

for (const version of ['1.10.5', '2.0.5'] as const)
  t.test(`a dynamic host volume on the stand-in's ${version}, held to the real capture`, async (t) => {
    const f = await start(t, version);
    const node = f.cluster.node.ID;
    const rec = (p: string) => capture(version, p);
    const req = rec('volume-create-request.json') as { Volume: Obj };

    // create: the answer is the volume the request built, pending, not yet in the state store (its client held back
    // until the pending reads are done: real read it pending "a moment later", the stand-in's moment is steps)
    f.cluster.hostVolumesHeld = true;
    const created = await put(f, '/v1/volume/host/create', { Volume: { ...req.Volume, NodeID: node } });
    t.equal(created.status, 200);
    const cBody = created.body as Obj;
    sameShape(t, 'create answer', cBody, rec('volume-create.json'));
    const vol = cBody.Volume as Obj;
    sameShape(t, 'create answer Volume', vol, rec('volume-create.json').Volume);
    t.same(
      [vol.State, vol.CreateIndex, vol.ModifyIndex, vol.Allocations],
      ['pending', 0, 0, null],
      'pending, CreateIndex 0, Allocations null (as real)',
    );
    t.equal(vol.HostPath, `/var/lib/nomad/host_volumes/${vol.ID}`, "HostPath <the lab's data_dir>/host_volumes/<ID>");
    t.same([vol.Name, vol.PluginID, vol.NodeID, vol.Parameters], ['harness-data', 'mkdir', node, { mode: '0777' }]);

    // read at once: stored, still pending, no alloc; the node does not hold it yet
    const id = String(vol.ID);
    const read = (await call(f, `/v1/volume/host/${id}`)).body as Obj;
    sameShape(t, 'volume read (pending)', read, rec('volume-read.json'));
    t.equal(read.State, 'pending');
    t.same(read.Allocations, [], 'Allocations [] before any job (as real)');
    t.ok(Number(read.CreateIndex) > 0 && read.CreateIndex === read.ModifyIndex, 'CreateIndex = ModifyIndex, set');
    const list = (await call(f, '/v1/volumes?type=host')).body as Obj[];
    sameShape(t, 'volumes list stub', list[0], (rec('volumes-list.json') as unknown as Obj[])[0]);
    t.same(((await call(f, `/v1/node/${node}`)).body as Obj).HostVolumes, rec('node.json').HostVolumes, 'node: {}');

    f.cluster.hostVolumesHeld = false;
    // made by its client: ready, and the node's HostVolumes holds it as the real node does after
    const ready = await until(async () => {
      const r = (await call(f, `/v1/volume/host/${id}`)).body as Obj;
      return r.State === 'ready' ? r : undefined;
    }, 'the volume ready');
    t.ok(Number(ready.ModifyIndex) > Number(ready.CreateIndex), 'ready at a later index');
    const hv = (((await call(f, `/v1/node/${node}`)).body as Obj).HostVolumes as Obj)['harness-data'] as Obj;
    const realHv = (rec('after-agent-restart/node.json').HostVolumes as Obj)['harness-data'];
    sameShape(t, 'node HostVolumes entry', hv, realHv);
    t.same(hv, { Name: 'harness-data', Path: vol.HostPath, ReadOnly: false, ID: id });

    // the job mounting it: its volume request as real parses it, its running alloc listed on the volume
    const parse = await call(f, '/v1/jobs/parse', {
      method: 'POST',
      body: JSON.stringify({ JobHCL: JOB_HCL, Canonicalize: true }),
    });
    const vreq = (parse.body as { TaskGroups: { Volumes: Obj }[] }).TaskGroups[0]!.Volumes.data;
    const realReq = (rec('jobs-parse.json') as unknown as { TaskGroups: { Volumes: Obj }[] }).TaskGroups[0]!.Volumes
      .data;
    sameShape(t, 'jobs/parse volume request', vreq, realReq);
    await call(f, '/v1/jobs', { method: 'POST', body: JSON.stringify({ Job: parse.body }) });
    const alloc = await until(async () => {
      const as = (await call(f, '/v1/job/dhv-marker/allocations')).body as Obj[];
      return as.find((a) => a.ClientStatus === 'running');
    }, 'the alloc running');
    const running = (await call(f, `/v1/volume/host/${id}`)).body as Obj;
    sameShape(t, 'volume read (running)', running, rec('running-volume-read.json'));
    const allocs = running.Allocations as Obj[];
    t.same(
      allocs.map((a) => a.ID),
      [alloc.ID],
      'Allocations: the running alloc',
    );
    sameShape(
      t,
      'volume read Allocations[] stub',
      allocs[0],
      (rec('running-volume-read.json').Allocations as Obj[])[0],
    );
    const runningList = (await call(f, '/v1/volumes?type=host')).body as Obj[];
    t.equal(runningList[0]?.State, 'ready');
    sameShape(
      t,
      'volumes list stub (running)',
      runningList[0],
      (rec('running-volumes-list.json') as unknown as Obj[])[0],
    );
    t.fail('/v1/volumes/claims: not compared', {
      todo: 'the stand-in does not serve it (real: [] for a request without sticky = true; the harness reads none)',
    });

    // an agent restart: still ready, the same alloc listed (real after-agent-restart/)
    f.clientRestart();
    await sleep(10 * STEP);
    const after = (await call(f, `/v1/volume/host/${id}`)).body as Obj;
    sameShape(t, 'volume read after an agent restart', after, rec('after-agent-restart/volume-read.json'));
    t.equal(after.State, 'ready');
    t.same(
      (after.Allocations as Obj[]).map((a) => a.ID),
      [alloc.ID],
    );

    // delete: refused while the alloc runs (DERIVED from nomad host_volume_endpoint.go: not captured), then done
    const refused = await call(f, `/v1/volume/host/${id}`, { method: 'DELETE' });
    t.same([refused.status, refused.text], [500, `volume ${id} in use by allocations: [${alloc.ID}]`]);
    await call(f, '/v1/job/dhv-marker?purge=true', { method: 'DELETE' });
    await until(async () => {
      const r = (await call(f, `/v1/volume/host/${id}`)).body as Obj;
      return (r.Allocations as Obj[]).length === 0 ? true : undefined;
    }, 'the purged job its allocs stopped');
    const del = await call(f, `/v1/volume/host/${id}`, { method: 'DELETE' });
    t.equal(del.status, 200);
    sameShape(t, 'delete answer', del.body, rec('volume-delete.json'));
    t.same((await call(f, '/v1/volumes?type=host')).body, rec('deleted-volumes-list.json'), 'list [] after the delete');
    t.equal((await call(f, `/v1/volume/host/${id}`)).status, 404, 'gone');
    t.same(((await call(f, `/v1/node/${node}`)).body as Obj).HostVolumes, {}, 'and from the node');
  });

t.test("the stand-in's 1.9.7 has no dynamic host volumes", async (t) => {
  const f = await start(t, '1.9.7');
  const r = await put(f, '/v1/volume/host/create', capture('2.0.5', 'volume-create-request.json'));
  t.same([r.status, r.text], [404, '404 page not found'], "Go's mux: no such route");
  t.equal((await call(f, '/v1/volumes?type=host')).text, 'null', 'the CSI list handler: null for a type not csi');
  const parse = await call(f, '/v1/jobs/parse', {
    method: 'POST',
    body: JSON.stringify({ JobHCL: JOB_HCL, Canonicalize: true }),
  });
  const vreq = (parse.body as { TaskGroups: { Volumes: Obj }[] }).TaskGroups[0]!.Volumes.data as Obj;
  t.notOk('Sticky' in vreq, 'a volume request without Sticky (added in 1.10)');
  t.same(
    keys(vreq),
    keys(
      (capture('2.0.5', 'jobs-parse.json') as unknown as { TaskGroups: { Volumes: Obj }[] }).TaskGroups[0]!.Volumes
        .data,
      ['Sticky'],
    ),
    'otherwise the later lines keys',
  );
});
