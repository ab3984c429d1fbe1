// rolling-reboot through the real CLI code path against STAND-INS (the Nomad API stand-in and the stand-in lab, no VMs,
// not Nomad): in a 1+1 lab it is today's reboot with a drain first. The client is drained (its allocs stop with
// nowhere to go), rebooted, marked eligible, the job placed again; judged across nodes, the gap measured.
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateJUnit } from '../helpers/junit-schema.js';
import { clusterEvidenceOf, runOnCluster, runOnPair } from '../helpers/stand-in-run.js';
import { CHECKS } from '../../scenarios/rolling-reboot.js';

// Note: each test runs its own stand-in cluster and mostly waits on its timelines; two at a time overlap those waits
t.jobs = 2;

t.test(
  'rolling-reboot in a pair: drain, reboot, eligible; every alloc carried through, the gap measured',
  async (t) => {
    const r = await runOnPair(t, 'rolling-reboot', 'restored');
    t.equal(r.code, 0, 'exit 0');
    validateJUnit(t, r.junitPath);
    t.same(
      [...r.verdicts.keys()],
      CHECKS.map((c) => c.id),
      'the checks in their order',
    );
    t.equal(r.verdicts.get('targets-hit')?.label, 'passed');
    t.match(r.verdicts.get('allocs-followed')?.message, /every alloc holds a running place \(2 migrated\); 2 of 2 run/);
    t.equal(r.verdicts.get('untouched-allocs')?.label, 'skipped', 'the only client was hit');
    t.match(
      r.verdicts.get('service-continuity')?.message,
      /one client cannot serve through that client's fault \(the longest gap \d+\.\ds/,
    );
    const junit = readFileSync(r.junitPath, 'utf8');
    t.match(junit, /name="lab\.topology" value="1\+1"/);
    t.match(junit, /name="fault\.1\.target" value="client \(clients\)"/);
    // the hit machine's agent lines since its fault were read (a count, even of none), and each machine's kernel
    t.match(r.run?.properties['client.agent.warnings'], /^(none|\d+) since the fault/);
    t.equal(r.run?.properties['server.kernel'], '6.1.0-37-amd64');
    const e = clusterEvidenceOf(r.run);
    t.equal(e.turns.length, 1);
    t.equal(e.turns[0]!.drain?.status, 'complete');
    t.ok(e.series && e.series.samples.length > 0, 'the probe series has samples');
    t.ok(
      e.series!.samples.some((x) => !x.ok),
      'the drained and rebooted client left a gap',
    );
  },
);

t.test(
  'rolling-reboot on 1 server + 2 clients: each client drained, rebooted and eligible in turn; no gap',
  async (t) => {
    const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 });
    t.equal(r.code, 0, 'exit 0');
    t.same(r.s.lab.rebooted, ['client-1', 'client-2'], 'one client after the other');
    t.match(r.verdicts.get('targets-hit')?.message, /every target hit: client-1, client-2$/);
    t.match(r.verdicts.get('allocs-followed')?.message, /every alloc holds a running place \(2 migrated\); 2 of 2 run/);
    t.equal(r.verdicts.get('service-continuity')?.label, 'passed', 'one client always served while the other was away');
    const junit = readFileSync(r.junitPath, 'utf8');
    t.match(junit, /name="lab\.topology" value="1\+2"/);
    t.match(junit, /name="fault\.2\.target" value="client-2 \(clients\)"/);
    const e = clusterEvidenceOf(r.run);
    t.same(
      e.turns.map((x) => [x.machine, x.drain?.status, typeof x.eligibleAt]),
      [
        ['client-1', 'complete', 'number'],
        ['client-2', 'complete', 'number'],
      ],
    );
    t.ok(e.turns[0]!.reboot.requestedAt > e.turns[0]!.drain!.doneAt, 'client-1 was rebooted after its drain finished');
    t.ok(
      e.turns[1]!.drain!.requestedAt >= e.turns[0]!.eligibleAt!,
      'client-2 drained only after client-1 was eligible',
    );
    t.ok(e.series!.samples.length > 10, 'a series of probes');
    t.ok(
      e.series!.samples.every((x) => x.outcome !== undefined),
      'every probe says what it tells of the service (answered, down, silent)',
    );
    const followed = r.run!.verdicts.find((v) => v.id === 'allocs-followed')!;
    t.ok(
      followed.perAlloc!.every((p) => p.nodeBefore?.startsWith('client-') && p.nodeAfter?.startsWith('client-')),
      "each alloc's row names its node before and after (one came back to where it was, after two drains)",
    );
  },
);

t.test(
  'rolling-reboot --rolling=false on 1+2: both clients drained, rebooted at once; the gap fails continuity',
  async (t) => {
    const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, ['--rolling=false']);
    t.equal(r.code, 1, 'exit 1: a check failed');
    t.same(r.s.lab.rebooted.sort(), ['client-1', 'client-2'], 'both, in one wave');
    t.match(r.verdicts.get('targets-hit')?.message, /every target hit: client-1, client-2$/);
    t.equal(r.verdicts.get('allocs-followed')?.label, 'passed', 'every alloc came back after both were eligible');
    t.equal(r.verdicts.get('service-continuity')?.label, 'failed');
    t.match(r.verdicts.get('service-continuity')?.message, /^web\/http stopped answering for \d+(\.\d)?s/);
  },
);

t.test(
  'rolling-reboot --job on 1+2: the user job (count 3) rolled like the shipped one, every alloc followed',
  async (t) => {
    const job = fileURLToPath(new URL('../../examples/jobs/count-3.nomad.hcl', import.meta.url));
    const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, ['--job', job]);
    t.equal(r.code, 0, 'exit 0');
    t.same(r.s.lab.rebooted, ['client-1', 'client-2']);
    t.match(r.verdicts.get('allocs-followed')?.message, /every alloc holds a running place \(3 migrated\); 3 of 3 run/);
    const e = clusterEvidenceOf(r.run);
    t.equal(e.jobId, 'bridge-count-3', "the user's job, not the shipped one");
    t.equal(e.expectedAllocs, 3);
    t.match(r.run?.properties['job.file'], /count-3\.nomad\.hcl$/);
    t.same(e.series?.services, ['web/http']);
  },
);

t.test(
  'rolling-reboot with two jobs of yours on 1+2: both registered, waited for, every alloc of both followed',
  async (t) => {
    const ex = (f: string) => fileURLToPath(new URL(`../../examples/jobs/${f}`, import.meta.url));
    const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, [
      '--job',
      ex('count-3.nomad.hcl'),
      '--job',
      ex('two-groups.nomad.hcl'),
      // two-groups runs one alloc per group: its service cannot serve through that alloc's drain
      '--max-gap',
      '60',
    ]);
    t.equal(r.code, 0, 'exit 0');
    const e = clusterEvidenceOf(r.run);
    // each job with its type and the groups whose reschedule policy allows none (both examples set attempts = 0)
    t.same(e.jobs, [
      { id: 'bridge-count-3', expectedAllocs: 3, type: 'service', noReschedule: ['web'] },
      { id: 'bridge-two-groups', expectedAllocs: 2, type: 'service', noReschedule: ['web', 'echo'] },
    ]);
    t.equal(e.expectedAllocs, 5);
    t.same([...new Set(e.before.map((a) => a.jobId))].sort(), ['bridge-count-3', 'bridge-two-groups'], 'both ran');
    t.match(r.verdicts.get('allocs-followed')?.message, /every alloc holds a running place \(5 migrated\); 5 of 5 run/);
    t.same(
      [...new Set(r.verdicts.get('allocs-followed')?.perAlloc?.map((p) => p.name.split('.')[0]))].sort(),
      ['bridge-count-3', 'bridge-two-groups'],
      "each alloc's row names its job",
    );
    t.same(e.series?.services.sort(), ['echo/echo', 'web/http'], "both jobs' ports probed");
  },
);

t.test(
  'power-loss-all aimed at client-1 on 1+2: every machine off, a leader awaited, then every client node ready',
  async (t) => {
    const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, [
      '--reboot',
      'power-loss-all',
      '--target',
      'client-1',
      '--drain=false',
      '--clients',
      '2',
    ]);
    t.equal(r.code, 0, 'exit 0: a whole-lab outage is measured, not judged as a failure of continuity');
    t.match(r.verdicts.get('service-continuity'), {
      label: 'skipped',
      message: /^a fault on every machine at once leaves no instance to serve/,
    });
    t.match(r.verdicts.get('allocs-followed')?.message, /every alloc holds a running place \(2 restored\); 2 of 2 run/);
    t.same(r.s.lab.rebooted, ['client-1'], 'one fault, on the whole lab');
    const steps = ((r.run as unknown as { steps?: { name: string }[] })?.steps ?? []).map((s) => s.name);
    const quorum = steps.findIndex((s) => s.startsWith('wait for a leader again after every machine was off'));
    t.ok(quorum > 0, 'a leader awaited after the whole lab was off');
    const c1 = steps.findIndex((s) => s.startsWith("wait for client-1's node to register again"));
    const c2 = steps.findIndex((s) => s.startsWith("wait for client-2's node to register again"));
    t.ok(c1 > quorum && c2 > quorum, 'both clients, the untargeted one too, after the leader');
    t.equal(r.verdicts.get('targets-hit')?.label, 'passed');
  },
);

t.test(
  "rolling-reboot --job with a host-network job on 1+2: each alloc probed on its own node's host port",
  async (t) => {
    const job = fileURLToPath(new URL('../../examples/jobs/host-network.nomad.hcl', import.meta.url));
    const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, ['--job', job]);
    t.equal(r.code, 0, 'exit 0');
    t.match(r.verdicts.get('allocs-followed')?.message, /every alloc holds a running place \(2 migrated\); 2 of 2 run/);
    t.equal(r.verdicts.get('service-continuity')?.label, 'passed');
    const e = clusterEvidenceOf(r.run);
    t.same(e.series?.services, ['web/http']);
    t.ok(
      e.before.every((a) => a.address === undefined),
      'no bridge address: host mode',
    );
  },
);

t.test(
  'a fault schedule on 1+2: a seeded pick, then a named client after a wait; the seed and schedule recorded',
  async (t) => {
    // the schedule lives outside the test's directory, which each run of the stand-ins makes anew
    const dir = mkdtempSync(join(tmpdir(), 'nrh-faults-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      join(dir, 'faults.yaml'),
      [
        'faults:',
        '  - { fault: graceful, target: any-client, wait: 1s }',
        '  - { fault: panic, target: client-2 }',
        '',
      ].join('\n'),
    );
    const file = join(dir, 'faults.yaml');
    const r = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, [
      '--faults',
      file,
      '--seed',
      '7',
      '--clients',
      '2',
    ]);
    t.equal(r.code, 0, 'exit 0');
    const picked = r.s.lab.rebooted[0]!;
    t.match(picked, /^client-[12]$/);
    t.same(r.s.lab.rebooted, [picked, 'client-2'], 'the steps in order, each on its target');
    t.equal(r.run?.properties['faults.seed'], '7');
    t.equal(
      r.run?.properties['faults.schedule'],
      `1. graceful on ${picked} (any-client, seed 7); then wait 1s\n2. panic on client-2 (as written)`,
    );
    const steps = ((r.run as unknown as { steps?: { name: string }[] })?.steps ?? []).map((s) => s.name);
    t.ok(steps.includes("wait 1s before fault 2 (the schedule's)"), 'the wait between the two');
    const e = clusterEvidenceOf(r.run);
    t.same(
      e.turns.map((x) => [x.machine, x.reboot.kind]),
      [
        [picked, 'graceful'],
        ['client-2', 'panic'],
      ],
    );
    const again = await runOnCluster(t, 'rolling-reboot', { servers: 1, clients: 2 }, [
      '--faults',
      file,
      '--seed',
      '7',
      '--clients',
      '2',
    ]);
    t.same(again.s.lab.rebooted, r.s.lab.rebooted, '--seed 7 replays the same picks');
  },
);
