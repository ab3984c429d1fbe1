// Dynamic host volumes on the cluster scenarios through the real CLI code path against STAND-INS (the Nomad API
// stand-in playing 2.0.5 or 1.9.7 and the stand-in cluster lab, no VMs, not Nomad): the volume made on every client with
// the mkdir plugin, its markers and state judged per alloc, deleted at teardown; refused on a line without it; a volume
// its client never makes stops the run at its step, naming what it waited for.
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { clusterEvidenceOf, runOnCluster } from '../helpers/stand-in-run.js';
import { HOST_VOLUMES_DIR } from '../helpers/fake-nomad/host-volumes.js';

// Note: each run rolls two clients on the stand-in, tens of seconds on a loaded machine
t.setTimeout(6 * 60_000);

const job = fileURLToPath(new URL('../../examples/jobs/dynamic-host-volume.nomad.hcl', import.meta.url));

t.test('rolling-reboot 1+2 on 2.0.5 with a dynamic host volume: made on each client, judged, deleted', async (t) => {
  const created: { id: string; node: string; path: string }[] = [];
  const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, ['--job', job], {
    nomadVersion: '2.0.5',
    before: (s) => {
      // every volume the stand-in made, whenever it was deleted
      const c = s.nomad.cluster;
      const orig = c.commit.bind(c);
      c.commit = (tables, mutate, type) => {
        const idx = orig(tables, mutate, type);
        for (const v of c.hostVolumes.values())
          if (!created.some((x) => x.id === v.ID)) created.push({ id: v.ID, node: v.NodeID, path: v.HostPath });
        return idx;
      };
    },
  });
  t.equal(r.code, 0, 'exit 0');
  // one volume per client, named in the facts with its ID and machine
  const nodes = new Set(created.map((v) => v.node));
  t.equal(created.length, 2, 'one volume per client');
  t.equal(nodes.size, 2);
  t.ok(
    created.every((v) => v.path === `${HOST_VOLUMES_DIR}/${v.id}`),
    'HostPath <data_dir>/host_volumes/<ID>',
  );
  const fact = String(r.run?.properties['volumes.dynamic']);
  t.match(fact, /^harness-data [0-9a-f]{8}@client-\d harness-data [0-9a-f]{8}@client-\d$/);
  for (const v of created) t.match(fact, v.id.slice(0, 8));
  // volume-data: each place finds its marker in its node's volume (or nothing is promised on another node)
  t.equal(r.verdicts.get('volume-data')?.label, 'passed');
  const e = clusterEvidenceOf(r.run);
  t.same(e.jobs?.[0]?.hostVolumes, ['web']);
  t.same(e.jobs?.[0]?.volumeNames, { web: 'harness-data' });
  const rows = r.run!.verdicts.find((v) => v.id === 'volume-data')!.perAlloc!;
  t.equal(rows.length, 2, 'one row per alloc');
  for (const p of rows)
    t.match(
      p.detail,
      p.nodeAfter === p.nodeBefore
        ? /^host volume: replaced by \w+ on the same node: marker "[0-9a-f-]+" kept/
        : /nothing is promised/,
      `${p.name}: ${p.nodeBefore} -> ${p.nodeAfter}`,
    );
  // volume-state: each node's own volume ready, the allocs using it the live ones
  t.equal(r.verdicts.get('volume-state')?.label, 'passed');
  t.ok(
    e.volumeStates?.every(
      (s) =>
        s.kind === 'dynamic' &&
        s.state === 'ready' &&
        created.some((v) => v.id === s.id && v.node === s.nodeId && v.path === s.path),
    ),
    'every state read is the dynamic volume of its node, ready, at its HostPath',
  );
  const live = e.after.filter((a) => a.desiredStatus === 'run' && a.clientStatus === 'running').map((a) => a.id);
  t.same(
    e.volumeStates
      ?.flatMap((s) => s.claims ?? [])
      .slice()
      .sort(),
    live.slice().sort(),
    'the allocs Nomad lists on the volumes are the live allocs',
  );
  const state = r.run!.verdicts.find((v) => v.id === 'volume-state')!.perAlloc!;
  t.equal(state.filter((p) => p.allocId).length, 2, 'one row per live alloc');
  t.ok(
    state.every(
      (p) => p.status === 'passed' && /dynamic volume "harness-data" [0-9a-f]{8} ready .*claimed by it/.test(p.detail),
    ),
  );
  // teardown: the jobs using it purged, then each volume deleted
  // (the stand-in is closed at the test's teardown, after this)
  const after = await (await fetch(`${r.s.nomad.addr}/v1/volumes?type=host`)).json();
  t.same(after, [], "the stand-in's volume list is empty after the run");
  t.ok(
    r.s.nomad.requests.some(
      (q) => q.method === 'DELETE' && q.path === '/v1/job/dynamic-host-volume' && q.query['purge'] === 'true',
    ),
    'the job using the volumes was purged first (Nomad refuses to delete a volume in use)',
  );
});

t.test('rolling-reboot on 1.9.7 with a dynamic host volume: refused at the job parse, naming the line', async (t) => {
  const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, ['--job', job]);
  t.equal(r.code, 2, 'exit 2: bad input, before any lab');
  const err = r.s.err.join('\n');
  t.match(err, /asks for the host volume "harness-data", which the lab's clients do not declare/);
  t.match(err, /needs Nomad 1\.10 or later/);
  t.equal(r.s.nomad.cluster.hostVolumes.size, 0, 'no volume was asked for');
  t.notOk(
    r.s.nomad.requests.some((q) => q.path.startsWith('/v1/volume/host/')),
    'no host volume request reached the 1.9.7 stand-in',
  );
});

t.test(
  'a dynamic host volume its client never makes: the step fails within its deadline, naming the last state',
  async (t) => {
    const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, ['--job', job, '--timeout', '20s'], {
      nomadVersion: '1.10.5',
      before: (s) => {
        s.nomad.cluster.hostVolumesHeld = true;
      },
    });
    t.equal(r.code, 3, 'exit 3: the run could not be carried out');
    const err = r.s.err.join('\n');
    t.match(err, /create the dynamic host volume "harness-data" on every client/);
    t.match(err, /the dynamic host volume "harness-data" [0-9a-f]{8} ready/);
    t.match(err, /its State is "pending"/);
    t.notOk(
      r.s.nomad.requests.some((q) => q.method === 'POST' && q.path === '/v1/jobs'),
      'the job was never registered',
    );
    t.equal(r.s.nomad.cluster.hostVolumes.size, 0, 'the pending volume was deleted at teardown');
  },
);
