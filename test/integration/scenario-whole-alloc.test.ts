// bridge-exec-reboot's whole-alloc checks through the real CLI code path against STAND-INS: the Nomad API stand-in
// (services, checks, a task restart) and the stand-in lab answering the host reads in the shapes a real 1.9.7 client
// printed (test/fixtures/whole-alloc). Real runs are in test/e2e.
import t, { type Test } from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { runOnStandIns, type StandInRunOptions } from '../helpers/stand-in-run.js';
import { startFakeNomad } from '../helpers/fake-nomad/index.js';
import { createNomad } from '../../lib/nomad/client.js';
import { createHttpTransport } from '../../lib/nomad/transport.js';
import { toAllocSnap } from '../../lib/nomad/parse.js';
import { SENTINEL_CHECKS } from '../../lib/steps/sentinel-steps.js';
import { idsOf } from '../helpers/check-ids.js';

const WHOLE = ['task-dirs', 'task-netns', 'task-env', 'alloc-exec', 'services', 'agent-resources'];
const EXAMPLE = fileURLToPath(new URL('../../examples/jobs/whole-alloc.nomad.hcl', import.meta.url));

interface Verdict {
  id: string;
  status: string;
  label: string;
  message: string;
  evidence: string[];
  perAlloc?: { status: string; detail: string }[];
}

async function run(t: Test, extra: string[] = [], o: StandInRunOptions = {}) {
  const r = await runOnStandIns(t, extra, o);
  const run0 = r.run0();
  const v = (id: string): Verdict => run0.verdicts.find((x: Verdict) => x.id === id);
  return { ...r, run: run0, v, steps: run0.steps.map((x: { name: string }) => x.name) as string[] };
}

t.test('restored, the shipped job: the host-side checks pass; services skipped, saying the job has none', async (t) => {
  const r = await run(t);
  t.equal(r.code, 0, 'exit 0');
  const sentinels = new Set(idsOf(SENTINEL_CHECKS));
  t.same(
    r.run.verdicts
      .map((x: Verdict) => x.id)
      .filter((id: string) => !sentinels.has(id))
      .slice(-6),
    WHOLE,
    'reported after the network checks (and before the sentinels), in order',
  );
  for (const id of ['task-dirs', 'task-netns', 'task-env', 'alloc-exec', 'agent-resources'])
    t.equal(r.v(id).status, 'passed', `${id}: ${r.v(id).message}`);
  t.match(r.v('services'), {
    status: 'skipped',
    message: 'the job has no Nomad-native service (provider = "nomad"), so nothing must be registered again',
  });
  t.match(
    r.v('task-dirs').evidence.join('\n'),
    /ok {3}task web: secrets\/ its own tmpfs \(size=1024k\) \(before: its own tmpfs \(size=1024k\)\); private\/ its own tmpfs/,
  );
  t.match(
    r.v('task-env').evidence.join('\n'),
    /NOMAD_ALLOC_ADDR_http=172\.26\.64\.\d+:80 NOMAD_ALLOC_IP_http=172\.26\.64\.\d+ NOMAD_ALLOC_PORT_http=80/,
  );
  // the steps of one phase run side by side (each only reads); a phase ends before the next begins
  const phases = [
    ['observe before the reboot', 'read the tasks on the client before the fault'],
    ['reboot the client'],
    ['observe after the reboot'],
    [
      "wait for the job's Nomad services",
      'read the restored tasks on the client',
      "sample the client agent's open fds",
    ],
    ['restart one task per restored alloc'],
    ["read the restarted tasks' environment"],
    ['exec a no-op command into every restored task'],
  ];
  type Step = { name: string; startedAtMs: number; durationMs: number };
  const steps: Step[] = r.run.steps.map((x: { name: string; startedAt: string; durationMs: number }) => ({
    name: x.name,
    startedAtMs: Date.parse(x.startedAt),
    durationMs: x.durationMs,
  }));
  const of = (n: string) => steps.find((x) => x.name.startsWith(n));
  const span = (p: string[]) => {
    const ss = p.map(of);
    t.ok(
      ss.every((x) => x),
      `every step of [${p.join(', ')}] ran`,
    );
    const ok = ss.filter((x): x is Step => x !== undefined);
    return {
      from: Math.min(...ok.map((x) => x.startedAtMs)),
      to: Math.max(...ok.map((x) => x.startedAtMs + x.durationMs)),
    };
  };
  const spans = phases.map(span);
  t.ok(
    spans.every((x, k) => k === 0 || x.from >= spans[k - 1]!.to - 1),
    `each phase after the one before: ${spans.map((x) => `${x.from}-${Math.round(x.to)}`).join(' ')}`,
  );
  // Note: side by side is read from the console's order, not from the steps' times: in the stand-in they take 0-7 ms,
  // so their millisecond times can be equal, or the services wait (started first) can be over before the others begin
  const lines = r.err().split('\n');
  const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
  const started = [at(/… read the restored tasks on the client/), at(/… sample the client agent's open fds/)];
  const ended = [at(/ok read the restored tasks on the client/), at(/ok sample the client agent's open fds/)];
  t.ok(
    started.every((i) => i >= 0) && Math.max(...started) < Math.min(...ended),
    `the task read and the agent sample both start before either ends (console lines ${started} then ${ended})`,
  );
  const svc = at(/… wait for the job's Nomad services/);
  t.ok(svc >= 0 && svc < started[0]!, 'the services wait is started before the reads');
  const restart = r.s.nomad.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/restart'));
  t.equal(restart.length, 1, 'one task restarted through the API');
  t.match(
    r.s.lab.commands['server']!.join('\n'),
    /nomad alloc exec '-i=false' '-t=false' -task web [0-9a-f-]{36} \/bin\/sh -c 'exit 0'/,
    'exec from the server VM',
  );
  t.match(
    r.v('no-leaks').evidence.join('\n'),
    /CNI nat chains: CNI-\w+=\w{8} CNI-DN-\w+=\w{8}/,
    'no-leaks read the nat table',
  );
  t.match(
    r.run.properties['client.log.failed_to_restore_task'],
    /^1 line: \S+Z client\.alloc_runner\.task_runner: Task event: alloc_id=\S+ task=web type="Failed Restoring Task"/,
    'the client log line quoted as a fact, with its time',
  );
});

t.test(
  'secrets/ back on the root filesystem after the reboot (as real 1.9.7-2.0.4): task-dirs fails with the evidence',
  async (t) => {
    const r = await run(t, [], {
      before: (s) => {
        s.lab.tasks.faults.secretsOnDiskAfterReboot = true;
      },
    });
    t.equal(r.code, 1, 'exit 1');
    const d = r.v('task-dirs');
    t.equal(d.status, 'failed');
    t.match(
      d.message,
      /1 of 1 restored alloc failed \(1 of 1 tasks\); first: bridge-exec-http\.web\[0\] \w{8}: task web: secrets\/ ext4 of \/ \(\/dev\/vda1\) \(before: its own tmpfs \(size=1024k\)\); private\/ ext4 of \/ \(\/dev\/vda1\)/,
    );
    t.match(
      d.evidence.join('\n'),
      /alloc dir on the client: \/var\/lib\/nomad\/alloc/,
      'the alloc dir from the rendered agent config',
    );
    t.match(d.perAlloc, [{ status: 'failed' }]);
    t.equal(r.v('alloc-restored').status, 'passed', 'the alloc itself was restored: only its secrets landed on disk');
    const x = await run(t, ['--expect', 'task-dirs=fail'], {
      before: (s) => {
        s.lab.tasks.faults.secretsOnDiskAfterReboot = true;
      },
    });
    t.equal(x.code, 0, 'reproduced: --expect task-dirs=fail, exit 0');
    t.equal(x.v('task-dirs').label, 'expected failure');
  },
);

t.test(
  'the whole-alloc example job: two tasks, two ports, its Nomad services registered again with passing checks',
  async (t) => {
    const r = await run(t, ['--job', EXAMPLE]);
    t.equal(r.code, 0, 'exit 0');
    t.match(r.v('services'), {
      status: 'passed',
      message: 'every Nomad service of 1 alloc is registered again with its checks passing',
    });
    t.match(
      r.v('services').evidence.join('\n'),
      /service whole-alloc-http: registered at \S+:\d+; checks: http-root success[^]*service whole-alloc-admin: registered at \S+:\d+; checks: admin-tcp success/,
    );
    t.match(r.v('task-dirs').message, /all 2 tasks of 1 restored alloc/);
    t.match(r.v('alloc-exec').message, /all 2 tasks of 1 restored alloc answered an exec/);
    t.match(
      r.v('task-env').evidence.join('\n'),
      /task admin: .*NOMAD_ALLOC_ADDR_admin=\S+:9000 NOMAD_ALLOC_ADDR_http=\S+:80/,
      'the first task by name restarted, every port of the group in its environment',
    );
  },
);

t.test(
  'a partition restores nothing on the client: the host-side checks skip saying so, services are still judged',
  async (t) => {
    const r = await run(t, ['--job', EXAMPLE, '--reboot', 'partition', '--partition-for', '1s']);
    t.equal(r.code, 0, 'exit 0');
    for (const id of ['task-dirs', 'task-netns', 'task-env', 'alloc-exec', 'agent-resources']) {
      t.match(
        r.v(id),
        {
          status: 'skipped',
          message: /^partition restores nothing on the client \(the agent and its tasks keep running/,
        },
        id,
      );
    }
    t.equal(r.v('services').status, 'passed');
    t.notOk(
      r.s.nomad.requests.some((q) => q.path.endsWith('/restart')),
      'no task restarted',
    );
    t.notOk(
      r.s.lab.commands['client']!.some((c) => c.includes('findmnt')),
      'no host read',
    );
  },
);

t.test(
  '--restart-task false and --resources-window 0: those reads are not made, their checks skip saying why',
  async (t) => {
    const r = await run(t, ['--restart-task', 'false', '--resources-window', '0']);
    t.equal(r.code, 0);
    t.match(r.v('task-env'), {
      status: 'skipped',
      message: 'no task was restarted: turned off (reboot.restart_task: false)',
    });
    t.match(r.v('agent-resources'), {
      status: 'skipped',
      message: 'the agent was not sampled: turned off (reboot.resources_window: 0)',
    });
    t.notOk(
      r.s.nomad.requests.some((q) => q.path.endsWith('/restart')),
      'no task restarted',
    );
    t.equal(r.v('alloc-exec').status, 'passed');
  },
);

t.test('a CNI nat rule left for an alloc that is gone fails no-leaks, naming it', async (t) => {
  const gone = '0b5e55ed-6a05-4c1e-9d11-7e2f3a4b5c6d';
  const r = await run(t, [], { before: (s) => void s.lab.tasks.natLeftovers.push(gone) });
  t.equal(r.code, 1);
  t.match(r.v('no-leaks'), {
    status: 'failed',
    message:
      /4 nat rules name 0b5e55ed, which is not a live alloc \(chains CNI-0b5e55ed6a054c1e9d117e2f, CNI-DN-0b5e55ed6a054c1e9d117\)/,
  });
});

t.test('with an ACL token: the exec reads it from stdin; it is in no command and no report', async (t) => {
  const token = '5f1c7a2e-2222-4333-8444-955566667777';
  const r = await run(t, ['--artifacts', 'always'], { token });
  t.equal(r.code, 0);
  const server = r.s.lab.commands['server']!.filter((c) => c.includes('alloc exec'));
  t.ok(
    server.length > 0 && server.every((c) => c.includes('IFS= read -r NOMAD_TOKEN')),
    'the token goes through stdin',
  );
  t.notMatch(Object.values(r.s.lab.commands).flat().join('\n'), token, 'no command carries the token');
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)],
    );
  const files = [join(r.dir, 'summary.json'), join(r.dir, 'junit.xml'), ...walk(join(r.dir, 'reports'))];
  t.ok(
    files.some((f) => f.endsWith('whole-alloc.json')),
    'the whole-alloc evidence is an artifact',
  );
  for (const f of files) t.notMatch(readFileSync(f, 'utf8'), token, `${f} has no token`);
});

t.test(
  "the stand-in's service, check and restart answers have real 1.9.7's shapes (test/fixtures/whole-alloc/real-1.9.7/initial)",
  async (t) => {
    const real = (p: string) =>
      JSON.parse(readFileSync(new URL(`../fixtures/whole-alloc/real-1.9.7/initial/${p}`, import.meta.url), 'utf8'));
    const fake = await startFakeNomad({ timeline: 'restored', clientNodeName: 'vm', stepMs: 20 });
    t.teardown(() => fake.close());
    const nomad = createNomad({ transport: createHttpTransport({ addr: fake.addr }) });
    const job = await nomad.parseJob(readFileSync(EXAMPLE, 'utf8'));
    await nomad.registerJob(job, '');
    let id = '';
    for (let i = 0; i < 100 && !id; i++) {
      const stubs = (await nomad.jobAllocations(job.ID)).body;
      id = stubs.find((a) => a.ClientStatus === 'running')?.ID ?? '';
      if (!id) await new Promise((r) => setTimeout(r, 20));
    }
    t.ok(id, 'the example job runs on the stand-in');
    const keys = (o: object) => Object.keys(o).sort();
    const regs = (await nomad.serviceRegistrations('whole-alloc-http')).body;
    t.same(keys(regs[0]!), keys(real('service-whole-alloc-http.json')[0]), 'a registration has the real key set');
    t.same((await nomad.serviceRegistrations('no-such')).body, [], 'an unknown service: [] as real 1.9.7 answers');
    const checks = Object.values((await nomad.allocChecks(id)).body);
    t.same(
      keys(checks[0]!),
      keys(Object.values(real('alloc-checks.json') as Record<string, object>)[0]!),
      'a check result has the real key set',
    );
    t.same(checks.map((c) => `${c.Service} ${c.Check} ${c.Status}`).sort(), [
      'whole-alloc-admin admin-tcp success',
      'whole-alloc-http http-root success',
    ]);
    await nomad.restartTask(id, 'web');
    for (let i = 0; i < 100; i++) {
      const st = toAllocSnap((await nomad.allocation(id)).body).tasks['web']!;
      if (st.events.at(-1)?.type === 'Started' && st.restarts === 1) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const after = toAllocSnap((await nomad.allocation(id)).body).tasks['web']!;
    const realAfter = toAllocSnap(real('allocation-after-restart.json')).tasks['web']!;
    t.same(
      after.events.slice(-4).map((e) => `${e.type}: ${e.message}`),
      realAfter.events.slice(-4).map((e) => `${e.type}: ${e.message}`),
      "the restart's events as real 1.9.7 gives them",
    );
    t.equal(after.restarts, realAfter.restarts);
  },
);
