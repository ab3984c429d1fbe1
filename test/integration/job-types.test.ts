// System, sysbatch and batch jobs on the cluster scenarios through the real CLI code path against STAND-INS (the Nomad
// API stand-in and the stand-in cluster lab, no VMs, not Nomad): a rolling drain-reboot of 1+2 with a service, a system
// job and a batch job together; the batch drain behaviour of each Nomad line the stand-in plays; the job types
// bridge-exec-reboot refuses before anything exists.
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { clusterEvidenceOf, runOnCluster, runOnPair } from '../helpers/stand-in-run.js';
import { CHECKS } from '../../scenarios/rolling-reboot.js';

// Note: each run rolls two clients on the stand-in, tens of seconds on a loaded machine
t.setTimeout(8 * 60_000);

const ex = (f: string) => fileURLToPath(new URL(`../../examples/jobs/${f}`, import.meta.url));

// Note: each test runs its own stand-in cluster and mostly waits on its timelines; two at a time overlap those waits
t.jobs = 2;

t.test(
  'rolling-reboot on 1+2 with a service, a system, a batch and a sysbatch job: each judged by what its type promises',
  async (t) => {
    const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, [
      '--job',
      ex('count-3.nomad.hcl'),
      '--job',
      ex('system.nomad.hcl'),
      '--job',
      ex('batch.nomad.hcl'),
      '--job',
      ex('sysbatch.nomad.hcl'),
    ]);
    t.equal(r.code, 0, 'exit 0');
    t.same(
      [...r.verdicts.keys()],
      CHECKS.map((c) => c.id),
    );
    t.match(r.verdicts.get('allocs-followed')?.message, /every alloc holds a running place \(3 migrated\); 3 of 3 run/);
    t.equal(r.verdicts.get('system-allocs')?.label, 'passed');
    t.match(r.verdicts.get('system-allocs')?.message, /every node holds its place of 2 system jobs \(4 node places\)/);
    t.equal(r.verdicts.get('batch-outcome')?.label, 'passed');
    t.match(
      r.verdicts.get('batch-outcome')?.message,
      /under the drain: migrated/,
      'the stand-in plays 1.9.7: migrated',
    );
    t.equal(r.verdicts.get('no-extra-alloc')?.label, 'passed');
    const e = clusterEvidenceOf(r.run);
    t.same(
      e.jobs?.map((j) => [j.id, j.type, j.expectedAllocs]),
      [
        ['bridge-count-3', 'service', 3],
        ['node-agent', 'system', 2],
        ['batch-sleep', 'batch', 2],
        ['node-sweep', 'sysbatch', 2],
      ],
      'a system job expects one alloc per client',
    );
    const agent = r.run!.verdicts.find((v) => v.id === 'system-allocs')!;
    t.same(
      agent.perAlloc?.map((p) => p.name),
      ['node-agent on client-1', 'node-agent on client-2', 'node-sweep on client-1', 'node-sweep on client-2'],
    );
    t.ok(
      agent.perAlloc
        ?.slice(0, 2)
        .every((p) =>
          /drained, graceful, eligible again: \w+ started \d+\.\ds after the node was eligible again/.test(p.detail),
        ),
      'each drained client ran its system alloc again after it was eligible',
    );
    t.match(r.run?.properties['job.types'], 'bridge-count-3=service node-agent=system batch-sleep=batch');
    t.same(e.series?.services, ['web/http', 'agent/http'], 'the batch job maps no port; the system job is probed');
  },
);

// The batch job's two allocs spread over both clients (as real Nomad placed them: docs/findings.md, job-types), so
// the second drain stops one too: the eval where a line with GH-28018 places the first one again.
const spread: NonNullable<Parameters<typeof runOnCluster>[4]>['before'] = (s) => {
  const c = s.nomad.cluster;
  c.placementSpread = [c.node, c.otherNodes.find((n) => n.Name === 'client-2')!];
};
for (const [version, behaviour, extra] of [
  ['1.10.5', 'fail-and-reschedule', false],
  ['1.11.3', 'stopped-at-deadline', true],
  ['2.0.5', 'stopped-at-deadline', false],
] as const)
  t.test(
    `rolling-reboot with a batch job on the stand-in's ${version}: under the drain, ${behaviour}, ${extra ? 'an extra alloc (GH-28018), known' : 'no extra alloc'}`,
    async (t) => {
      const r = await runOnCluster(
        t,
        'rolling-reboot',
        { servers: 1, clients: 2 },
        ['--job', ex('batch.nomad.hcl'), '--job', ex('count-3.nomad.hcl'), '--known-issues', 'expect'],
        { nomadVersion: version, before: spread },
      );
      t.equal(
        r.code,
        0,
        'exit 0: every check met its expectation (a known issue expected under --known-issues expect)',
      );
      t.equal(r.verdicts.get('batch-outcome')?.label, 'passed');
      t.match(r.verdicts.get('batch-outcome')?.message, new RegExp(`under the drain: ${behaviour}`));
      t.equal(r.verdicts.get('system-allocs')?.label, 'skipped');
      const x = r.verdicts.get('no-extra-alloc') as
        | { status?: string; label?: string; message?: string; knownIssue?: { issue?: string } | null }
        | undefined;
      t.comment(`no-extra-alloc: ${JSON.stringify(x)}`);
      if (!extra) {
        t.equal(x?.label, 'passed', 'no extra alloc');
        return;
      }
      t.equal(x?.status, 'failed', 'the extra batch alloc fails no-extra-alloc');
      t.equal(x?.label, 'expected failure');
      t.match(x?.message, /batch-sleep\.work\[0\]/, 'naming the place that got a second alloc');
      t.match(x?.knownIssue, { issue: 'GH-28018' }, 'labelled with the issue it reproduces');
    },
  );

t.test('bridge-exec-reboot refuses a system job before anything exists, naming where it is judged', async (t) => {
  const r = await runOnPair(t, 'bridge-exec-reboot', 'restored', ['--job', ex('system.nomad.hcl')]);
  t.equal(r.code, 2, 'exit 2: bad input');
  t.match(r.s.err.join('\n'), /job "node-agent" is a system job: bridge-exec-reboot judges service jobs only/);
  t.match(r.s.err.join('\n'), /rolling-reboot or server-reboot/);
});

t.test('rolling-reboot with a kept ephemeral disk: each migrated alloc found the marker its place wrote', async (t) => {
  const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, ['--job', ex('sticky-disk.nomad.hcl')]);
  t.equal(r.code, 0, 'exit 0');
  t.equal(r.verdicts.get('volume-data')?.label, 'passed');
  t.match(r.verdicts.get('volume-data')?.message, /2 of 2 allocs found their data where Nomad promises it/);
  const e = clusterEvidenceOf(r.run);
  t.same(e.jobs?.[0]?.keptDisks, [{ group: 'web', sticky: true, migrate: true }]);
  const before = Object.values(e.markers?.before ?? {}).map((m) => m.content?.trim());
  t.same(before.sort(), e.before.map((a) => a.id).sort(), 'each task wrote its own alloc ID first');
  const rows = r.run!.verdicts.find((v) => v.id === 'volume-data')!.perAlloc!;
  t.ok(
    rows.every((p) => /replaced by \w+ on .*: marker "[0-9a-f-]+" kept/.test(p.detail)),
    'moved by the drains, kept',
  );
});

t.test('rolling-reboot with the lab host volume: a place back on its first node finds its marker there', async (t) => {
  const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, ['--job', ex('host-volume.nomad.hcl')]);
  t.equal(r.code, 0, 'exit 0');
  t.equal(r.verdicts.get('volume-data')?.label, 'passed');
  const e = clusterEvidenceOf(r.run);
  t.same(e.jobs?.[0]?.hostVolumes, ['web']);
  const rows = r.run!.verdicts.find((v) => v.id === 'volume-data')!.perAlloc!;
  t.equal(rows.length, 2);
  for (const p of rows)
    t.match(
      p.detail,
      p.nodeAfter === p.nodeBefore
        ? /^host volume: replaced by \w+ on the same node: marker "[0-9a-f-]+" kept/
        : /nothing is promised/,
      `${p.name}: ${p.nodeBefore} -> ${p.nodeAfter}`,
    );
  t.ok(
    rows.some((p) => p.nodeAfter === p.nodeBefore),
    'two drains brought at least one place back to its first node',
  );
  // the volume itself after the fault: each node's HostVolumes declares it and the node is ready
  t.equal(r.verdicts.get('volume-state')?.label, 'passed');
  const nodes = [
    ...new Set([...e.before, ...e.after.filter((a) => a.clientStatus === 'running')].map((a) => a.nodeId)),
  ];
  t.match(
    r.verdicts.get('volume-state')?.message,
    new RegExp(`the host volume is ready on ${nodes.length} nodes?; 2 live allocs mount it`),
  );
  t.same(
    e.volumeStates?.map((s) => [s.nodeId, s.kind, s.state, s.path]).sort(),
    nodes.map((n) => [n, 'static', 'ready', '/srv/reboot-harness']).sort(),
    'read on each node that ran or runs an alloc mounting it',
  );
  const state = r.run!.verdicts.find((v) => v.id === 'volume-state')!.perAlloc!;
  t.ok(
    state.filter((p) => p.allocId).length === 2 && state.every((p) => p.status === 'passed'),
    'one passed row per live alloc',
  );
});

t.test(
  'rolling-reboot with a system job constrained to client-1: one alloc expected, judged on client-1 only',
  async (t) => {
    const constrained = fileURLToPath(new URL('../fixtures/jobs/system-constrained.nomad.hcl', import.meta.url));
    const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, [
      '--job',
      ex('count-3.nomad.hcl'),
      '--job',
      constrained,
    ]);
    t.equal(r.code, 0, 'exit 0');
    const e = clusterEvidenceOf(r.run);
    t.same(
      e.jobs?.map((j) => [j.id, j.expectedAllocs]),
      [
        ['bridge-count-3', 3],
        ['agent-one', 1],
      ],
      'the system job is expected where Nomad placed it, not on both clients',
    );
    t.equal(r.run?.properties['job.placed.agent-one'], 'client-1');
    t.equal(r.verdicts.get('system-allocs')?.label, 'passed');
    t.match(
      r.verdicts.get('system-allocs')?.message,
      /\(1 node place\); 1 node without a place before the fault not judged/,
    );
    const rows = r.run!.verdicts.find((v) => v.id === 'system-allocs')!.perAlloc!;
    t.same(
      rows.map((p) => p.name),
      ['agent-one on client-1'],
    );
    t.match(rows[0]!.detail, /drained, graceful, eligible again: \w+ started/);
    t.ok(
      e.after.every((a) => a.jobId !== 'agent-one' || e.nodeNames[a.nodeId] === 'client-1'),
      'the stand-in kept the job off client-2 throughout',
    );
  },
);

t.test('rolling-reboot with a system job whose constraint matches no client: stopped before any fault', async (t) => {
  const nowhere = fileURLToPath(new URL('../fixtures/jobs/system-nowhere.nomad.hcl', import.meta.url));
  const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, ['--job', nowhere]);
  // found only once the servers placed the job, so inside the run: its step fails naming the job and the fix
  t.equal(r.code, 3, 'the run ends in error before any fault');
  t.equal(r.run?.outcome, 'error');
  t.match(
    r.s.err.join('\n'),
    /FAIL wait for Nomad to place the system job: .*the system job "agent-none" was placed on no client of the lab \(client-1, client-2\): its constraints or node pool match none .*fix: loosen its constraint blocks/,
  );
  t.equal(r.run?.properties['job.placed.agent-none'], 'none');
});
