// server-reboot (the shipped scenario) through the real CLI code path against STAND-INS (the Nomad API stand-in and a
// stand-in lab, no VMs, not Nomad): the leader's host reboots; a live machine asks its own agent for the leader
// meanwhile; the old leader is back as a member and voter; no alloc moved or restarted; the service answered.
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { validateJUnit } from '../helpers/junit-schema.js';
import { clusterEvidenceOf, runOnCluster } from '../helpers/stand-in-run.js';
import { CHECKS } from '../../scenarios/server-reboot.js';
import type { Topology } from '../../lib/model/topology.js';

async function run(t: Test, topology: Topology, extra: string[] = [], o: Parameters<typeof runOnCluster>[4] = {}) {
  const r = await runOnCluster(t, 'server-reboot', topology, extra, o);
  if (r.run) validateJUnit(t, r.junitPath);
  return r;
}

t.test('server-reboot on 1+2: the leader (server-1) rebooted, back in time, nothing disturbed', async (t) => {
  const r = await run(t, { servers: 1, clients: 2 });
  t.equal(r.code, 0, 'exit 0');
  t.same(
    [...r.verdicts.keys()],
    CHECKS.map((c) => c.id),
    'the checks in their order',
  );
  t.same(r.s.lab.rebooted, ['server-1'], 'the leader, resolved when its turn came');
  t.match(r.verdicts.get('targets-hit')?.message, /every target hit: server-1$/);
  t.match(
    r.verdicts.get('new-leader')?.message,
    /^server-1 led \d+(ms|\.\ds) after its return \(bound 30\.0s; was server-1\)/,
  );
  t.match(
    r.verdicts.get('old-leader-rejoined')?.message,
    /server-1 is back in the cluster \(Serf alive, a Raft voter, \d+\.\ds after it was back\)/,
  );
  const promoted = Number(/a Raft voter, (\d+\.\d)s after/.exec(r.verdicts.get('old-leader-rejoined')!.message)?.[1]);
  t.ok(promoted >= 1.5, `read until the stand-in promoted it from non-voter (2 s after its return): ${promoted}s`);
  t.match(r.verdicts.get('untouched-allocs')?.message, /2 allocs of untouched clients ran throughout/);
  t.equal(r.verdicts.get('service-continuity')?.label, 'passed');
  const junit = readFileSync(r.junitPath, 'utf8');
  t.match(junit, /name="fault\.1\.target" value="server-1 \(leader: member server-1\.global at 127\.0\.0\.1:4647\)"/);
  t.match(junit, /name="lab\.topology" value="1\+2"/);
  const e = clusterEvidenceOf(r.run);
  t.ok(
    e.leader!.observed.some((o) => o.leader === '?' && o.from === 'client-1'),
    'while the server was down, client-1 was asked and had no answer',
  );
  t.ok(e.leader!.observed.some((o) => o.leader === 'server-1'));
  const rows = r.verdicts.get('untouched-allocs')!.perAlloc!;
  t.equal(rows.length, 2);
  t.ok(
    rows.every((p) => p.nodeBefore === p.nodeAfter && e.before.some((b) => e.nodeNames[b.nodeId] === p.nodeBefore)),
    `the JSON's per-alloc rows name each alloc's node before and after (${rows.map((p) => `${p.nodeBefore} -> ${p.nodeAfter}`).join(', ')})`,
  );
});

t.test('server-reboot in a pair still runs; a new leader bound too short fails new-leader', async (t) => {
  // a 1 s leaderless window (50 steps of 20 ms): with the default 40 ms the first answer after the return came after
  // the election at load 20 and measured it as 1 ms
  const r = await run(t, { servers: 1, clients: 1 }, ['--leader-within', '1ms'], { electionSteps: 50 });
  t.equal(r.code, 1, 'exit 1: a check failed');
  t.same(r.s.lab.rebooted, ['server']);
  t.match(
    r.verdicts.get('new-leader')?.message,
    /^server led only (\d+ms|\d+\.\ds) after its return, past the bound of 1ms/,
  );
  t.equal(r.verdicts.get('old-leader-rejoined')?.label, 'passed');
  t.equal(r.verdicts.get('untouched-allocs')?.label, 'passed');
});

t.test(
  'server-reboot refuses a client target, a drain and a fault that does not reboot, before anything exists',
  async (t) => {
    const r = await run(t, { servers: 1, clients: 2 }, ['--target', 'clients', '--drain', '--reboot', 'agent-kill']);
    t.equal(r.code, 2);
    t.same(r.s.lab.rebooted, []);
    const err = r.s.err.join('\n');
    t.match(err, /server-reboot reboots servers/);
    t.match(err, /servers run no allocs to drain/);
    t.match(err, /server-reboot reboots the server host/);
    t.match(err, /invalid configuration \(3 problems\)/);
  },
);

t.test('server-reboot --job on 1+2: the user job runs through the leader reboot, nothing disturbed', async (t) => {
  const job = fileURLToPath(new URL('../../examples/jobs/two-groups.nomad.hcl', import.meta.url));
  const r = await runOnCluster(t, 'server-reboot', { servers: 1, clients: 2 }, ['--job', job]);
  t.equal(r.code, 0, 'exit 0');
  t.same(r.s.lab.rebooted, ['server-1']);
  const e = clusterEvidenceOf(r.run);
  t.not(e.jobId, 'bridge-exec-http-spread', "the user's job, not the shipped one");
  t.equal(r.verdicts.get('untouched-allocs')?.label, 'passed');
  t.match(r.run?.properties['job.file'], /two-groups\.nomad\.hcl$/);
});

t.test('bridge-exec-reboot refuses a second --job, saying where several jobs run', async (t) => {
  const ex = (f: string) => fileURLToPath(new URL(`../../examples/jobs/${f}`, import.meta.url));
  const r = await runOnCluster(t, 'bridge-exec-reboot', { servers: 1, clients: 1 }, [
    '--job',
    ex('count-3.nomad.hcl'),
    '--job',
    ex('two-groups.nomad.hcl'),
  ]);
  t.equal(r.code, 2, 'refused before anything runs');
  t.match(r.s.err.join(''), /bridge-exec-reboot runs one job of yours .* several jobs run together on rolling-reboot/);
  t.same(r.s.lab.rebooted, []);
});
