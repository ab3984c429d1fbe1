// Dynamic host volumes (Nomad 1.10+): which build's parse has them, which volumes the harness creates, the refusal on an
// older line, and a dynamic volume's state and claims as the real 1.10.5 and 2.0.5 captures show them.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  SERVICE_ONLY,
  dynamicVolumeNames,
  hostVolumeOfGroups,
  jobInfo,
  jobProblems,
} from '../../lib/parse/nomad-job.js';
import { dynamicVolumeState, nodeVolumeState, volumeDir } from '../../lib/steps/volume-steps.js';
import { LAB_HOST_VOLUME } from '../../lib/model/volumes.js';
import { CLUSTER_JOB_TYPES } from '../../lib/steps/job-input.js';
import type { ApiHostVolume, ApiJob, ApiNode } from '../../lib/nomad/api-types.js';

const real = (v: string, f: string): unknown =>
  JSON.parse(
    readFileSync(
      fileURLToPath(new URL(`../fixtures/nomad/real-${v}/dynamic-host-volume/${f}`, import.meta.url)),
      'utf8',
    ),
  );

for (const v of ['1.10.5', '2.0.5'])
  t.test(
    `the real ${v} parse of a job with a dynamic host volume: the line has them, the volume is created`,
    async (t) => {
      const { info } = jobInfo(real(v, 'jobs-parse.json'));
      t.equal(info?.dynamicHostVolumes, true, 'its volume request carries Sticky');
      t.same(dynamicVolumeNames(info!, [LAB_HOST_VOLUME.name]), ['harness-data']);
      t.same(hostVolumeOfGroups(info!, [LAB_HOST_VOLUME.name, 'harness-data']), { web: 'harness-data' });
      const lab = { clients: 2, hostVolumes: [LAB_HOST_VOLUME.name] };
      const volumeProblems = jobProblems(info!, lab, CLUSTER_JOB_TYPES('rolling-reboot')).filter((p) =>
        /volume/.test(p.message),
      );
      t.same(volumeProblems, [], 'accepted: the harness creates it');
      // bridge-exec-reboot creates none: the allocs could not be placed and the run would break after the bring-up
      const single = jobProblems(info!, lab, SERVICE_ONLY).filter((p) => /volume/.test(p.message));
      t.equal(single.length, 1, 'refused where no scenario step creates it');
      t.match(
        single[0]!.message,
        /volume "data" asks for the host volume "harness-data".*bridge-exec-reboot creates no dynamic host volume \(rolling-reboot and server-reboot do\)/,
      );
      t.match(single[0]!.fix, /run it on rolling-reboot or server-reboot, or use source = "reboot-harness"/);
    },
  );

t.test('a 1.9 parse (no Sticky in the volume request): a volume the lab does not declare is refused', async (t) => {
  const job = real('2.0.5', 'jobs-parse.json') as ApiJob & { TaskGroups: { Volumes: Record<string, object> }[] };
  const { Sticky: _s, ...old } = job.TaskGroups[0]!.Volumes['data'] as Record<string, unknown>;
  const older = { ...job, TaskGroups: [{ ...job.TaskGroups[0], Volumes: { data: old } }] };
  const { info } = jobInfo(older);
  t.equal(info?.dynamicHostVolumes, false);
  const p = jobProblems(info!, { clients: 2, hostVolumes: [LAB_HOST_VOLUME.name] }, CLUSTER_JOB_TYPES('x')).filter(
    (x) => /volume/.test(x.message),
  );
  t.equal(p.length, 1);
  t.match(
    p[0]!.message,
    /group "web" volume "data" asks for the host volume "harness-data".*needs Nomad 1\.10 or later/,
  );
  t.match(p[0]!.fix, /source = "reboot-harness".*1\.10 or later/);
  // the lab's static volume stays accepted on any line
  const stat = {
    ...older,
    TaskGroups: [{ ...older.TaskGroups[0], Volumes: { data: { ...old, Source: 'reboot-harness' } } }],
  };
  t.same(
    jobProblems(
      jobInfo(stat).info!,
      { clients: 2, hostVolumes: [LAB_HOST_VOLUME.name] },
      CLUSTER_JOB_TYPES('x'),
    ).filter((x) => /volume/.test(x.message)),
    [],
  );
  t.same(dynamicVolumeNames(jobInfo(stat).info!, [LAB_HOST_VOLUME.name]), []);
});

t.test('a job without volumes tells nothing of the line', async (t) => {
  const job = real('2.0.5', 'jobs-parse.json') as ApiJob;
  const { info } = jobInfo({ ...job, TaskGroups: job.TaskGroups!.map((g) => ({ ...g, Volumes: null })) });
  t.equal(info?.dynamicHostVolumes, undefined);
});

for (const v of ['1.10.5', '2.0.5'])
  t.test(`${v}: a dynamic volume's state from its node and its own read (captures)`, async (t) => {
    // right after the create the node does not list it yet (the client has not fingerprinted it)
    t.equal(nodeVolumeState(real(v, 'node.json') as ApiNode, 'harness-data').state, 'absent');
    const node = real(v, 'after-agent-restart/node.json') as ApiNode;
    const fromNode = nodeVolumeState(node, 'harness-data');
    t.equal(fromNode.kind, 'dynamic', 'the node names its ID');
    const running = real(v, 'running-volume-read.json') as ApiHostVolume;
    const alloc = real(v, 'allocation.json') as { ID: string };
    const s = dynamicVolumeState(fromNode, running);
    t.equal(s.state, 'ready');
    t.same(s.claims, [alloc.ID], 'the running alloc is its claim');
    t.equal(s.path, running.HostPath);
    // the create answer: pending, no allocs yet
    const created = (real(v, 'volume-create.json') as { Volume: ApiHostVolume }).Volume;
    t.same(dynamicVolumeState(fromNode, created), { ...s, state: 'pending', claims: [] });
    // after the agent restart: still ready, the same alloc
    const again = dynamicVolumeState(
      nodeVolumeState(real(v, 'after-agent-restart/node.json') as ApiNode, 'harness-data'),
      real(v, 'after-agent-restart/volume-read.json') as ApiHostVolume,
    );
    t.same([again.state, again.claims], ['ready', [alloc.ID]]);
    // a down node's volume is not ready whatever the server last heard
    t.equal(dynamicVolumeState({ ...fromNode, state: 'node down' }, running).state, 'node down');
    // a terminal alloc in the list holds no claim
    const stopped = { ...running, Allocations: running.Allocations!.map((a) => ({ ...a, ClientStatus: 'complete' })) };
    t.same(dynamicVolumeState(fromNode, stopped).claims, []);
  });

t.test('the directory of a host volume on a node: a dynamic one its own, else the lab static one', async (t) => {
  const vols = [{ name: 'd', nodeId: 'n1', id: 'i1', path: '/opt/nomad/data/host_volumes/i1' }];
  t.equal(volumeDir(vols, 'd', 'n1'), '/opt/nomad/data/host_volumes/i1');
  t.equal(volumeDir(vols, 'd', 'n2'), LAB_HOST_VOLUME.path);
  t.equal(volumeDir(vols, LAB_HOST_VOLUME.name, 'n1'), LAB_HOST_VOLUME.path);
});
