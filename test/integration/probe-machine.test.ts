// Where a job's ports are probed from in a lab of several clients, through the real probe steps against the Nomad API
// STAND-IN and the stand-in cluster lab (not Nomad, no VMs): each client has its own bridge subnet, so an alloc's
// bridge address answers only from the client it runs on; its host port answers from the server.
import t from 'tap';
import { fileURLToPath } from 'node:url';
import { runOnStandIn } from '../helpers/stand-in-run.js';
import { standInCluster } from '../helpers/stand-in-env.js';
import { createNomad, type Nomad } from '../../lib/nomad/client.js';
import { createHttpTransport } from '../../lib/nomad/transport.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { waitFor } from '../../lib/time/wait-for.js';
import { readJobAllocs } from '../../lib/steps/reboot-steps.js';
import { allocNodes, machineOfAlloc, probeAllocs } from '../../lib/steps/alloc-probes.js';
import { startFakeNomad } from '../helpers/fake-nomad/index.js';
import { createFakeClusterLab } from '../helpers/fake-cluster-lab.js';
import { WEB_JOB_HCL } from '../helpers/fake-nomad/sample-job.js';

/** Register `hcl` with its allocs where `place` puts them (the stand-in places a job's allocs on one node); wait. */
async function deployOn(nomad: Nomad, place: (on: boolean) => void, hcl: string, n: number): Promise<string> {
  const job = await nomad.parseJob(hcl);
  // the stand-in places at its next step: the placement node stays set until the allocs run
  place(true);
  await nomad.registerJob(job, hcl);
  await waitFor(
    `${n} allocs of ${job.ID} running`,
    async () => {
      const k = (await nomad.jobAllocations(job.ID)).body.filter((a) => a.ClientStatus === 'running').length;
      return k === n ? { done: true, value: k } : { done: false, reason: `${k} running` };
    },
    { deadline: deadlineIn(5000) },
  ).finally(() => place(false));
  return job.ID;
}

t.test('1 server + 2 clients: each bridge address is probed from its own client and answers', async (t) => {
  const fake = await startFakeNomad({ timeline: 'restored', clientNodeName: 'client-1', stepMs: 20 });
  t.teardown(() => fake.close());
  const lab = createFakeClusterLab(fake, { servers: 1, clients: 2 });
  const nomad = createNomad({ transport: createHttpTransport({ addr: fake.addr }) });
  const node2 = fake.cluster.otherNodes.find((n) => n.Name === 'client-2')!;
  const one = await deployOn(nomad, () => undefined, WEB_JOB_HCL.replace('count = 1', 'count = 2'), 2);
  const two = await deployOn(
    nomad,
    (on) => {
      fake.cluster.placementNode = on ? node2 : undefined;
    },
    WEB_JOB_HCL.replace('job "web"', 'job "web-two"').replace('count = 1', 'count = 2'),
    2,
  );
  const d = deadlineIn(5000);
  const allocs = [...(await readJobAllocs(nomad, one, d)), ...(await readJobAllocs(nomad, two, d))];
  t.same(
    allocs.map((a) => a.nodeId).sort(),
    [fake.cluster.node.ID, fake.cluster.node.ID, node2.ID, node2.ID].sort(),
    'two allocs on each client',
  );
  const nodes = await allocNodes(nomad, allocs, [], d);
  t.same(nodes.map((n) => n.name).sort(), ['client-1', 'client-2'], 'both nodes read');
  t.same(
    allocs.map((a) => machineOfAlloc(lab, a, nodes)),
    allocs.map((a) => (a.nodeId === node2.ID ? 'client-2' : 'client-1')),
    "each alloc's machine is its node's",
  );
  const probes = await probeAllocs({ lab, allocs, nodes, kinds: undefined }, d);
  t.equal(probes.length, 8, 'a bridge and a host-port probe per alloc');
  for (const p of probes.filter((x) => x.target === 'bridge')) {
    const a = allocs.find((x) => x.id === p.allocId)!;
    t.equal(p.from, a.nodeId === node2.ID ? 'client-2' : 'client-1', `${a.name} on its own client`);
  }
  t.same(
    probes.filter((p) => !p.ok).map((p) => `${p.from} -> ${p.url}: ${p.error}`),
    [],
    'every probe answered (asked from client-1, the allocs on client-2 would not)',
  );
  t.ok(
    probes.filter((p) => p.target === 'host-port').every((p) => p.from === 'server-1'),
    'host ports asked from the server',
  );
});

t.test('an alloc on a node that is no machine of a lab of several clients is not probed from another', async (t) => {
  const lab = createFakeClusterLab(
    await startFakeNomad({ timeline: 'restored', clientNodeName: 'client-1', stepMs: 20 }).then((f) => {
      t.teardown(() => f.close());
      return f;
    }),
    { servers: 1, clients: 2 },
  );
  t.equal(machineOfAlloc(lab, { nodeId: 'elsewhere' }, []), undefined, 'no machine: none guessed');
});

t.test(
  'bridge-exec-reboot --job on 1+2 with allocs on both clients: each probed from its own client; those the fault leaves alone not judged',
  async (t) => {
    const job = fileURLToPath(new URL('../../examples/jobs/count-3.nomad.hcl', import.meta.url));
    const r = await runOnStandIn(
      t,
      (cwd) => standInCluster({ servers: 1, clients: 2 }, { cwd }),
      'bridge-exec-reboot',
      ['--servers', '1', '--clients', '2', '--job', job],
      {
        before: (s) => {
          const c = s.nomad.cluster;
          c.placementSpread = [c.node, c.otherNodes.find((n) => n.Name === 'client-2')!];
        },
      },
    );
    // Note: the stand-in cluster lab serves the probes, not the client's task reads (task-dirs and the like fail here)
    t.ok(r.code === 0 || r.code === 1, `judged, not an infrastructure error (exit ${r.code})`);
    t.same(r.s.lab.rebooted, ['client-1']);
    t.match(r.run?.properties['allocs.elsewhere'], /^bridge-count-3\.web\[1\] \S+: on clients the fault leaves alone/);
    const reach = r.verdicts.get('http-reachable')!;
    t.equal(reach.label, 'passed', reach.message);
    t.same(
      reach.perAlloc?.map((p) => p.name).sort(),
      ['bridge-count-3.web[0]', 'bridge-count-3.web[2]'],
      'the allocs on the rebooted client judged',
    );
    t.match(r.verdicts.get('alloc-restored')?.message, /all 2 allocs restored in place/);
  },
);

t.test('bridge-exec-reboot with its shipped job on 1+2: the job is pinned to the client the fault hits', async (t) => {
  const r = await runOnStandIn(t, (cwd) => standInCluster({ servers: 1, clients: 2 }, { cwd }), 'bridge-exec-reboot', [
    '--servers',
    '1',
    '--clients',
    '2',
  ]);
  t.ok(r.code === 0 || r.code === 1, `judged, not an infrastructure error (exit ${r.code})`);
  t.equal(r.run?.properties['job.pinned'], 'client-1 (the shipped job on a lab of 2 clients)');
  const registered = [...r.s.nomad.cluster.jobs.values()][0];
  t.same(registered?.['Constraints'], [{ LTarget: '${node.unique.name}', RTarget: 'client-1', Operand: '=' }]);
});
