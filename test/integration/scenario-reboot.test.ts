// bridge-exec-reboot through the real CLI code path against STAND-INS: a Nomad API stand-in serving
// real-shaped payloads on scripted timelines, and a stand-in lab (no VMs). Real Nomad runs are in test/e2e.
import t, { type Test } from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { validateJUnit } from '../helpers/junit-schema.js';
import { standIn } from '../helpers/stand-in-env.js';
import { runOnPair, runOnStandIn } from '../helpers/stand-in-run.js';
import type { Timeline } from '../helpers/fake-nomad/index.js';
import { CHECKS } from '../../scenarios/bridge-exec-reboot.js';

// Note: each test runs main() on stand-ins of its own; "never-ready" (first) waits out its 12 s run budget, and two
// at a time the others run beside that wait instead of after it
t.jobs = 2;

async function run(
  t: Test,
  timeline: Timeline,
  extra: string[] = [],
  o: { token?: string; sshNeverBack?: boolean; dockerVersion?: string } = {},
) {
  const r = await runOnPair(t, 'bridge-exec-reboot', timeline, extra, { ...o, artifacts: false });
  const junit = readFileSync(r.junitPath, 'utf8');
  const summary = JSON.parse(readFileSync(join(r.dir, 'summary.json'), 'utf8'));
  validateJUnit(t, r.junitPath);
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(junit);
  const suite = xml.testsuites.testsuite;
  const cases = [suite.testcase].flat() as Record<string, unknown>[];
  const check = (id: string) => cases.find((c) => String(c['name']).endsWith(`(${id})`));
  return { code: r.code, junit, summary, suite, cases, check, s: r.s, dir: r.dir };
}

t.test('stand-in timeline "never-ready": the node never returns, infrastructure error, exit 3', async (t) => {
  const r = await run(t, 'never-ready', ['--timeout', '12s']);
  t.equal(r.code, 3, 'exit 3');
  t.ok(Number(r.suite.errors) >= 1, 'an <error> case');
  t.match(r.junit, /waiting for node/);
  t.ok(r.s.lab.destroyed, 'torn down after the infrastructure error');
});

t.test('stand-in timeline "restored": every check passes, exit 0', async (t) => {
  const r = await run(t, 'restored');
  t.equal(r.code, 0, 'exit 0');
  t.equal(Number(r.suite.failures), 0);
  t.equal(Number(r.suite.errors), 0);
  for (const { id } of CHECKS) {
    t.ok(r.check(id), `case for ${id}`);
    t.notOk(r.check(id)?.['failure'], `${id} has no failure`);
  }
  t.ok(r.s.lab.destroyed, 'the lab was torn down');
  t.match(r.junit, /client\.boot_id\.before/, 'boot ids are properties');
  t.match(r.junit, /name="lab\.topology" value="1\+1"/, 'the topology is a property of a pair run too');
  t.match(r.junit, /name="fault\.1\.target" value="client \(the scenario.s client\)"/, 'and the target');
  t.equal(r.summary.runs?.[0]?.outcome ?? r.summary.outcome, 'passed');
});

t.test('stand-in timeline "duplicate-ip": the seed failure is caught, exit 1', async (t) => {
  const r = await run(t, 'duplicate-ip');
  t.equal(r.code, 1, 'exit 1');
  const dup = r.check('no-duplicate-ip');
  t.ok(dup?.['failure'], 'no-duplicate-ip failed');
  t.match(JSON.stringify(dup), /duplicate allocation is not allowed/);
  t.ok(r.check('alloc-restored')?.['failure'], 'alloc-restored failed');
  t.ok(r.s.lab.destroyed);
});

t.test('stand-in timeline "duplicate-ip" with --expect no-duplicate-ip=fail reproduces the bug, exit 0', async (t) => {
  const r = await run(t, 'duplicate-ip', ['--expect', 'no-duplicate-ip=fail']);
  t.equal(r.code, 0, 'exit 0');
  t.match(r.junit, /expected failure/);
});

t.test(
  'stand-in timeline "restored" with --expect no-duplicate-ip=fail: an unexpected pass fails the run',
  async (t) => {
    const r = await run(t, 'restored', ['--expect', 'no-duplicate-ip=fail']);
    t.equal(r.code, 1);
    t.match(JSON.stringify(r.check('no-duplicate-ip')), /unexpected pass/);
  },
);

t.test('stand-in timeline "replaced": node lost, alloc replaced, exit 1 with the outcome explained', async (t) => {
  const r = await run(t, 'replaced');
  t.equal(r.code, 1);
  t.match(JSON.stringify(r.check('alloc-restored')), /replaced/);
});

t.test('stand-in timeline "shared-ip": two live allocs share an address, exit 1', async (t) => {
  const r = await run(t, 'shared-ip');
  t.equal(r.code, 1);
  t.ok(r.check('unique-ips')?.['failure']);
});

t.test('a token reaches the stand-in but appears nowhere in the reports', async (t) => {
  const token = '5f1c7a2e-1111-4222-8333-944455556666';
  const r = await run(t, 'duplicate-ip', [], { token });
  t.equal(r.code, 1);
  t.ok(
    r.s.nomad.requests.some((q) => q.hasToken),
    'requests carried the token',
  );
  const files = [join(r.dir, 'junit.xml'), join(r.dir, 'summary.json')];
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)],
    );
  try {
    files.push(...walk(join(r.dir, 'reports')));
  } catch {
    /* no artifacts */
  }
  t.ok(files.length > 2, 'artifacts were written for the failed run');
  for (const f of files) t.notMatch(readFileSync(f, 'utf8'), token, `${f} has no token`);
  t.notMatch(r.s.out.join('') + r.s.err.join(''), token, 'console output has no token');
});

t.test(
  '--reboots 3 on the restored timeline: three real reboot cycles through main(), restored each time, no leaks, exit 0',
  async (t) => {
    const r = await run(t, 'restored', ['--reboots', '3']);
    t.equal(r.code, 0);
    const props = r.summary.runs[0].properties as Record<string, string>;
    t.equal(props['reboots'], '3 of 3');
    t.ok(
      ['1', '2', '3'].every((i) =>
        /^yes: all 1 allocs settled: .*running with tasks started after the disruption/.test(
          props[`job.settled.${i}`] ?? '',
        ),
      ),
      'settled and restored after every reboot',
    );
    t.equal(
      new Set(['1', '2', '3'].map((i) => props[`client.boot_id.after.${i}`])).size,
      3,
      'three different boot ids',
    );
    t.equal(props['client.boot_id.after'], props['client.boot_id.after.3']);
    const steps = r.summary.runs[0].steps.map((s: { name: string }) => s.name) as string[];
    t.same(
      steps.filter((n) => n.startsWith('reboot the client')),
      ['reboot the client (graceful) #1', 'reboot the client (graceful) #2', 'reboot the client (graceful) #3'],
    );
    t.notOk(r.check('no-leaks')?.['failure'] ?? r.check('no-leaks')?.['skipped'], 'no-leaks passed');
  },
);

t.test('--reboots 3 on the duplicate-ip timeline: stops after the first reboot that breaks the alloc', async (t) => {
  const r = await run(t, 'duplicate-ip', ['--reboots', '3', '--expect', 'no-duplicate-ip=fail']);
  t.equal(r.code, 0);
  const props = r.summary.runs[0].properties as Record<string, string>;
  t.equal(props['reboots'], '1 of 3', 'no second reboot once the alloc failed');
  t.match(props['job.settled.1'], /^yes: .*: failed/);
  t.notOk(props['restore.noticed_after.1'], 'no restore to notice: the alloc failed');
  t.equal(props['alloc.outcome'], 'failed');
});

t.test('a leaked namespace after the reboot fails no-leaks, naming it', async (t) => {
  const r = await runOnStandIn(
    t,
    async (cwd) => {
      const s = await standIn('restored', { cwd });
      s.lab.leftovers.netns.push('0b5e55ed-0000-4000-8000-000000000001');
      s.lab.leftovers.veths.push('vethdead0001');
      return s;
    },
    'bridge-exec-reboot',
    [],
    { artifacts: false },
  );
  t.equal(r.code, 1);
  const v = r.verdicts.get('no-leaks')!;
  t.equal(v.status, 'failed');
  t.match(
    v.message,
    /network namespace 0b5e55ed-0000-4000-8000-000000000001 has no live alloc; 2 veths on bridge nomad for 1 live alloc/,
  );
});

const DOCKER_BOX = ['--driver', 'docker', '--box', 'nomad-reboot-harness/bookworm-docker'];

t.test(
  '--driver docker on a Docker box (stand-ins): the image is built in the client VM before the docker job, the node is awaited with docker healthy, every check passes',
  async (t) => {
    const r = await run(t, 'restored', DOCKER_BOX, { dockerVersion: '20.10.24+dfsg1' });
    t.equal(r.code, 0, 'exit 0');
    const client = r.s.lab.commands['client']!;
    const built = client.findIndex((c) => c.includes('docker import'));
    t.ok(built >= 0, 'the image import ran on the client');
    t.match(client[built], /nomad-reboot-harness\/busybox:local/);
    const job = [...r.s.nomad.cluster.jobs.values()][0]!;
    t.equal(job.TaskGroups?.[0]?.Tasks?.[0]?.Driver, 'docker', 'the docker job was registered');
    t.match(
      JSON.stringify(job.TaskGroups?.[0]?.Tasks?.[0]?.Config),
      /nomad-reboot-harness\/busybox:local/,
      'with the local image',
    );
    const props = JSON.stringify(r.summary.runs[0].properties);
    t.match(props, /"task.driver":"docker"/);
    t.match(props, /"docker.version":"20.10.24\+dfsg1"/);
    t.match(props, /"docker.image":"nomad-reboot-harness\/busybox:local sha256:(5e){32}"/);
    const stepsOf = r.summary.runs[0].steps as { name: string; values: Record<string, string> }[];
    t.match(
      stepsOf.map((x) => x.name).join('\n'),
      /build the image nomad-reboot-harness\/busybox:local inside the client VM[^]*wait for a leader and the client node ready with the job's drivers healthy[^]*register the job/,
      'image, then node, then job',
    );
    t.same(
      stepsOf.filter((x) => /drivers healthy|register the job/.test(x.name)).map((x) => x.values),
      [{ 'job.drivers': 'docker' }, { 'job.id': 'bridge-docker-http' }],
      'the driver and the job are values of their steps',
    );
    // The stand-in recovers docker as real 1.9.3/1.9.7 do: the container the reboot killed reported (exit 137), then
    // restarted by the restart policy. That is the reboot's effect, not a failure after it.
    const restored = (r.summary.runs[0].verdicts as { id: string; status: string; evidence: string[] }[]).find(
      (v) => v.id === 'alloc-restored',
    )!;
    t.equal(restored.status, 'passed', 'alloc-restored passes');
    t.match(
      restored.evidence.join('\n'),
      /task web: the instance running before the reboot was ended by it \(exit 137, reported \S+Z\); restarted by the restart policy at \S+Z \(Restarting: Task restarting in 100ms\)/,
    );
    const alloc = [...r.s.nomad.cluster.allocs.values()][0]!;
    const types = (alloc.TaskStates?.['web']?.Events ?? []).map((e) => e.Type);
    // the harness's own restart of a task (task-env) comes last; the recovery before it
    const own = types.lastIndexOf('Restart Signaled');
    t.same(
      types.slice(own - 4, own),
      ['Started', 'Terminated', 'Restarting', 'Started'],
      'the stand-in sent the docker recovery shape',
    );
    t.same(
      types.slice(own),
      ['Restart Signaled', 'Terminated', 'Restarting', 'Started'],
      "then the harness's own restart (task-env)",
    );
  },
);

t.test(
  '--driver docker on a box without Docker: an infrastructure error naming the box and the fix, the lab torn down',
  async (t) => {
    const r = await run(t, 'restored', DOCKER_BOX);
    t.equal(r.code, 3, 'exit 3');
    t.match(
      r.summary.runs[0].error.message,
      /the box nomad-reboot-harness\/bookworm-docker has no Docker, which --driver docker needs/,
    );
    t.match(
      r.summary.runs[0].error.detail,
      /build the Docker box with `npm run harness -- setup --docker` and run with --box nomad-reboot-harness\/bookworm-docker/,
    );
    t.ok(r.s.lab.destroyed, 'the lab was torn down');
    t.same([...r.s.nomad.cluster.jobs.keys()], [], 'no job was registered');
  },
);

t.test('--driver docker with the default box (no Docker): refused before anything is created, exit 2', async (t) => {
  const { code, s } = await runOnPair(t, 'bridge-exec-reboot', 'restored', ['--driver', 'docker'], {
    artifacts: false,
  });
  t.equal(code, 2);
  t.match(
    s.err.join(''),
    /--driver: needs a box with Docker; nomad-reboot-harness\/bookworm has none \(got "docker"; fix: build the Docker box once with `npm run harness -- setup --docker` and add --box nomad-reboot-harness\/bookworm-docker\)/,
  );
  t.same(s.lab.commands['client'], [], 'nothing ran on a machine');
});
