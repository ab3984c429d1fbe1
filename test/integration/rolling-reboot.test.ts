// rolling-reboot through the real CLI code path against STAND-INS (the Nomad API stand-in and the stand-in lab, no VMs,
// not Nomad): in a 1+1 lab it is today's reboot with a drain first. The client is drained (its allocs stop with
// nowhere to go), rebooted, marked eligible, the job placed again; judged across nodes, the gap measured.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import { validateJUnit } from '../helpers/junit-schema.js';
import { standIn, standInCluster } from '../helpers/stand-in-env.js';
import { CHECKS } from '../../scenarios/rolling-reboot.js';
import type { ClusterEvidence } from '../../lib/model/cluster-evidence.js';

t.test(
  'rolling-reboot in a pair: drain, reboot, eligible; every alloc carried through, the gap measured',
  async (t) => {
    const dir = t.testdir({});
    const s = await standIn('restored', { cwd: dir });
    t.teardown(() => s.nomad.close());
    const code = await main(
      [
        'run',
        'rolling-reboot',
        '--nomad-binary',
        '/stand-in/nomad',
        '--reports-dir',
        join(dir, 'reports'),
        '--junit',
        join(dir, 'junit.xml'),
        '--report-json',
        join(dir, 'summary.json'),
        '--artifacts',
        'always',
        '--netns',
        '',
      ],
      s.deps,
    );
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    const run = summary.runs?.[0];
    const verdicts = new Map<string, { label: string; message: string }>(
      (run?.verdicts ?? []).map((v: { id: string; label: string; message: string }) => [v.id, v]),
    );
    t.comment([...verdicts].map(([id, v]) => `${id}=${v.label}: ${v.message}`).join('\n'));
    t.comment(s.err.join('\n').slice(-3000));
    t.equal(code, 0, 'exit 0');
    validateJUnit(t, join(dir, 'junit.xml'));
    t.same(
      [...verdicts.keys()],
      CHECKS.map((c) => c.id),
      'the checks in their order',
    );
    t.equal(verdicts.get('targets-hit')?.label, 'passed');
    t.match(verdicts.get('allocs-followed')?.message, /every alloc holds a running place \(2 migrated\); 2 of 2 run/);
    t.equal(verdicts.get('untouched-allocs')?.label, 'skipped', 'the only client was hit');
    t.match(
      verdicts.get('service-continuity')?.message,
      /one client cannot serve through that client's fault \(the longest gap \d+\.\ds/,
    );
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    t.match(junit, /name="lab\.topology" value="1\+1"/);
    t.match(junit, /name="fault\.1\.target" value="client \(clients\)"/);
    // the hit machine's agent lines since its fault were read (a count, even of none), and each machine's kernel
    t.match(run.properties['client.agent.warnings'], /^(none|\d+) since the fault/);
    t.equal(run.properties['server.kernel'], '6.1.0-37-amd64');
    const evidenceFile = (run?.artifacts ?? []).find((a: { name: string }) => a.name === 'cluster-evidence.json');
    t.ok(evidenceFile, 'the cluster evidence is an artifact');
    const e = JSON.parse(readFileSync(evidenceFile.path, 'utf8')) as ClusterEvidence;
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
    const dir = t.testdir({});
    const s = await standInCluster({ servers: 1, clients: 2 }, { cwd: dir });
    t.teardown(() => s.nomad.close());
    const code = await main(
      [
        'run',
        'rolling-reboot',
        '--nomad-binary',
        '/stand-in/nomad',
        '--reports-dir',
        join(dir, 'reports'),
        '--junit',
        join(dir, 'junit.xml'),
        '--report-json',
        join(dir, 'summary.json'),
        '--artifacts',
        'always',
        '--netns',
        '',
      ],
      s.deps,
    );
    const run = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).runs?.[0];
    const verdicts = new Map<string, { label: string; message: string }>(
      (run?.verdicts ?? []).map((v: { id: string; label: string; message: string }) => [v.id, v]),
    );
    t.comment([...verdicts].map(([id, v]) => `${id}=${v.label}: ${v.message}`).join('\n'));
    if (code !== 0) t.comment(s.err.join('\n').slice(-4000));
    t.equal(code, 0, 'exit 0');
    t.same(s.lab.rebooted, ['client-1', 'client-2'], 'one client after the other');
    t.match(verdicts.get('targets-hit')?.message, /every target hit: client-1, client-2$/);
    t.match(verdicts.get('allocs-followed')?.message, /every alloc holds a running place \(2 migrated\); 2 of 2 run/);
    t.equal(verdicts.get('service-continuity')?.label, 'passed', 'one client always served while the other was away');
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    t.match(junit, /name="lab\.topology" value="1\+2"/);
    t.match(junit, /name="fault\.2\.target" value="client-2 \(clients\)"/);
    const file = (run?.artifacts ?? []).find((a: { name: string }) => a.name === 'cluster-evidence.json');
    const e = JSON.parse(readFileSync(file.path, 'utf8')) as ClusterEvidence;
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
  },
);

t.test(
  'rolling-reboot --rolling=false on 1+2: both clients drained, rebooted at once; the gap fails continuity',
  async (t) => {
    const dir = t.testdir({});
    const s = await standInCluster({ servers: 1, clients: 2 }, { cwd: dir });
    t.teardown(() => s.nomad.close());
    const code = await main(
      [
        'run',
        'rolling-reboot',
        '--rolling=false',
        '--nomad-binary',
        '/stand-in/nomad',
        '--reports-dir',
        join(dir, 'reports'),
        '--report-json',
        join(dir, 'summary.json'),
        '--netns',
        '',
      ],
      s.deps,
    );
    const run = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).runs?.[0];
    const verdicts = new Map<string, { label: string; message: string }>(
      (run?.verdicts ?? []).map((v: { id: string; label: string; message: string }) => [v.id, v]),
    );
    t.comment([...verdicts].map(([id, v]) => `${id}=${v.label}: ${v.message}`).join('\n'));
    t.equal(code, 1, 'exit 1: a check failed');
    t.same(s.lab.rebooted.sort(), ['client-1', 'client-2'], 'both, in one wave');
    t.match(verdicts.get('targets-hit')?.message, /every target hit: client-1, client-2$/);
    t.equal(verdicts.get('allocs-followed')?.label, 'passed', 'every alloc came back after both were eligible');
    t.equal(verdicts.get('service-continuity')?.label, 'failed');
    t.match(verdicts.get('service-continuity')?.message, /^web\/http stopped answering for \d+(\.\d)?s/);
  },
);
