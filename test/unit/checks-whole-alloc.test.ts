// The whole-alloc checks over evidence assembled from a real Nomad 1.9.7 client's reads (test/fixtures/whole-alloc):
// a simulated host reboot (secrets/ on disk: task-dirs fails) and an agent restart (a restarted task without its
// network variables, exec into a reattached task refused, the fd leak), each passing where Nomad did well.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parseTaskDirs } from '../../lib/parse/task-dir-mounts.js';
import { parseTaskProcs } from '../../lib/parse/task-procs.js';
import { parseAgentSamples } from '../../lib/parse/agent-samples.js';
import { parseNatTable } from '../../lib/parse/iptables-nat.js';
import { parseAllocExec } from '../../lib/parse/alloc-exec-output.js';
import { nomadServicesOf, toAllocChecks, toServiceRegs } from '../../lib/parse/service-registrations.js';
import { restartProgress } from '../../lib/parse/task-restart.js';
import { toAllocSnap } from '../../lib/nomad/parse.js';
import { checkTaskDirs } from '../../lib/checks/task-dirs.js';
import { checkTaskNetns } from '../../lib/checks/task-netns.js';
import { checkTaskEnv, expectedAllocNetEnv } from '../../lib/checks/task-env.js';
import { checkAllocExec } from '../../lib/checks/alloc-exec.js';
import { checkServices } from '../../lib/checks/services.js';
import { checkAgentResources, riseOf } from '../../lib/checks/agent-resources.js';
import { NO_LEAKS } from '../../lib/checks/no-leaks.js';
import { judgeCheck } from '../../lib/checks/define.js';

const checkNoLeaks = (e: RebootEvidence) => judgeCheck(NO_LEAKS, e);
import { logFacts, sinceLastAgentStart } from '../../lib/checks/log-facts.js';
import type { ApiAllocation } from '../../lib/nomad/api-types.js';
import type {
  AllocSnap,
  Observation,
  RebootEvidence,
  TaskHostState,
  WholeAllocEvidence,
} from '../../lib/model/evidence.js';
import type { RebootKind } from '../../lib/model/kinds.js';

const real = (p: string) => readFileSync(new URL(`../fixtures/whole-alloc/real-1.9.7/${p}`, import.meta.url), 'utf8');
const ALLOC_DIR = '/tmp/whl-rec/data/alloc';
const alloc = (p: string): AllocSnap => toAllocSnap(JSON.parse(real(p)) as ApiAllocation);
const host = (dir: string, procs = 'task-procs.txt'): TaskHostState => ({
  atMs: 0,
  allocDir: ALLOC_DIR,
  taskDirs: parseTaskDirs(real(`${dir}/task-dirs.txt`), ALLOC_DIR),
  ...parseTaskProcs(real(`${dir}/${procs}`)),
});
const exec = (dir: string, a: AllocSnap) =>
  ['admin', 'web'].map((task) => ({
    allocId: a.id,
    task,
    command: '/bin/true',
    durationMs: 150,
    ...parseAllocExec(real(`${dir}/alloc-exec-${task}.err`) + real(`${dir}/alloc-exec-${task}.out`), 30),
  }));
const services = (dir: string, a: AllocSnap) => ({
  declared: nomadServicesOf(JSON.parse(real('job-parsed.json'))),
  registrations: ['whole-alloc-http', 'whole-alloc-admin'].flatMap((n) =>
    toServiceRegs(JSON.parse(real(`${dir}/service-${n}.json`))),
  ),
  checks: toAllocChecks(a.id, JSON.parse(real(`${dir}/alloc-checks.json`))),
  errors: {},
  waitedMs: 0,
  complete: true,
});

function observation(label: string, a: AllocSnap, firewall?: string): Observation {
  return {
    label,
    atMs: 0,
    bootId: label,
    uptimeS: 1,
    node: undefined,
    alloc: a,
    jobAllocs: [a],
    nodeAllocs: [a],
    http: [],
    cniState: [{ dir: '/var/run/cni/nomad', exists: true, files: a.address ? { [a.address]: `${a.id}\r\neth0` } : {} }],
    netState: { netns: [a.id], veths: [{ name: 'veth0', master: 'nomad' }] },
    ...(firewall ? { firewall: parseNatTable(real(firewall)) } : {}),
  };
}

function evidence(
  kind: RebootKind,
  before: AllocSnap,
  after: AllocSnap,
  requestedAt: number,
  whole: WholeAllocEvidence,
  firewall?: string,
): RebootEvidence {
  return {
    jobId: 'bridge-whole-alloc',
    taskName: 'web',
    allocId: after.id,
    allocIds: [after.id],
    settle: { settled: true, reason: 'settled', quietMs: 0 },
    tasksRestart: kind !== 'agent-kill',
    before: observation('before', before),
    after: observation('after', after, firewall),
    reboot: {
      machine: 'client',
      kind,
      bootIdBefore: 'before',
      bootIdAfter: 'after',
      requestedAt,
      backAt: requestedAt + 1000,
    },
    taskEvents: {},
    clientLog: [],
    whole,
  };
}

/** Real 1.9.7, a host reboot simulated (README "after-reboot-sim"): restored, secrets/ and private/ on the root ext4. */
function rebootSim(): RebootEvidence {
  const before = alloc('before-reboot-sim/allocation.json');
  const after = alloc('after-reboot-sim/allocation.json');
  const restarted = restartProgress(
    after.tasks['web'],
    alloc('after-reboot-sim/allocation-after-restart.json').tasks['web'],
  );
  return evidence(
    'graceful',
    before,
    after,
    Date.parse('2026-12-04T15:08:40Z'),
    {
      notRead: {},
      before: host('before-reboot-sim'),
      after: host('after-reboot-sim'),
      restarts: [
        {
          allocId: after.id,
          task: 'web',
          requestedAtMs: Date.parse('2026-12-04T15:09:30Z'),
          ...(restarted.started ? { startedAtMs: restarted.startedAtMs } : {}),
        },
      ],
      afterRestart: host('after-reboot-sim', 'task-procs-after-restart.txt'),
      exec: exec('after-reboot-sim', after),
      services: services('after-reboot-sim', after),
      agent: { samples: parseAgentSamples(real('after-reboot-sim/agent-samples.txt')), intervalS: 5 },
    },
    'after-reboot-sim/iptables-save-nat.txt',
  );
}

/** Real 1.9.7, the agent SIGKILLed and started again (README "after-agent-kill"). */
function agentKill(): RebootEvidence {
  const a = alloc('after-agent-kill/allocation-after-restart.json');
  // Note: no snapshot of the alloc between the agent's restart and the harness's task restart was recorded; the events
  // of the restart are the newest ones either way
  const restarted = restartProgress(undefined, a.tasks['web']);
  return evidence('agent-kill', a, a, Date.parse(real('after-agent-kill/agent-restarted-at.txt').trim()), {
    notRead: {},
    before: host('before-agent-kill'),
    after: host('after-agent-kill'),
    restarts: [
      {
        allocId: a.id,
        task: 'web',
        requestedAtMs: Number(real('after-agent-kill/restart-requested-at-ms.txt')),
        ...(restarted.started ? { startedAtMs: restarted.startedAtMs } : {}),
      },
    ],
    afterRestart: host('after-agent-kill', 'task-procs-after-restart.txt'),
    exec: exec('after-agent-kill', a),
    services: services('after-agent-kill', a),
    agent: { samples: parseAgentSamples(real('after-agent-kill/agent-samples.txt')), intervalS: 5 },
  });
}

t.test(
  'task-dirs: real 1.9.7 after a reboot has secrets/ and private/ on disk; after an agent restart they stay tmpfs',
  async (t) => {
    const r = checkTaskDirs(rebootSim());
    t.equal(r.status, 'failed');
    t.match(
      r.message,
      /1 of 1 restored alloc failed \(2 of 2 tasks\); first: bridge-whole-alloc\.web\[0\] 73c563bc: task admin: secrets\/ ext4 of \/ \(\/dev\/vda\) \(before: its own tmpfs \(size=1024k\)\); private\/ ext4 of \/ \(\/dev\/vda\)/,
    );
    t.match((r.evidence ?? []).join('\n'), /FAIL task web: secrets\/ ext4 of \//);
    t.same(
      r.perAlloc?.map((p) => p.status),
      ['failed'],
    );
    const k = checkTaskDirs(agentKill());
    t.equal(k.status, 'passed', k.message);
    t.match(k.message, /all 2 tasks of 1 restored alloc have secrets\/ and private\/ on a tmpfs of their own/);
  },
);

t.test(
  'task-netns: every task process in the alloc namespace holding its address; a task left elsewhere fails',
  async (t) => {
    const r = checkTaskNetns(rebootSim());
    t.equal(r.status, 'passed', r.message);
    t.match(
      (r.evidence ?? []).join('\n'),
      /ok {3}task web: processes \d+ python3 in alloc namespace 4026532242 \(\/var\/run\/netns\/73c563bc-1f3a-e380-4574-4b006d1e7bdb\) has eth0 172\.26\.64\.2\/20/,
    );
    // written by hand: the web task's process moved to the namespace of the alloc's previous life (#25250's shape)
    const e = rebootSim();
    const after = e.whole!.after!;
    after.netns.push({ inode: '4026530001', names: [], addrs: [{ ifname: 'eth0', cidr: '172.26.64.4/20' }] });
    after.processes = after.processes.map((p) => (p.task === 'web' ? { ...p, netns: '4026530001' } : p));
    const bad = checkTaskNetns(e);
    t.equal(bad.status, 'failed');
    t.match(
      bad.message,
      /task web: 1 of 1 processes outside the alloc's namespace: \d+ python3 in 4026530001 \(eth0 172\.26\.64\.4\/20\)/,
    );
    // and one whose namespace lost the API's address
    const e2 = rebootSim();
    e2.after.jobAllocs[0]!.address = '172.26.64.9';
    t.match(checkTaskNetns(e2).message, /the API's address 172\.26\.64\.9 is not configured there/);
  },
);

t.test('task-netns: an alloc of a host-mode group is skipped with the reason, not failed', async (t) => {
  const e = rebootSim();
  const a = e.after.jobAllocs[0]!;
  // host mode: no namespace named by the alloc, no bridge address; its processes in the host's namespace
  e.whole!.after!.netns = e.whole!.after!.netns.filter((n) => !n.names.includes(a.id));
  e.after.jobAllocs[0] = { ...a, address: undefined };
  t.equal(checkTaskNetns(e).status, 'failed', 'judged as a bridge alloc, it would fail');
  const r = checkTaskNetns({ ...e, hostGroups: [a.taskGroup] });
  t.equal(r.status, 'skipped', r.message);
  t.match(r.perAlloc, [
    {
      status: 'skipped',
      detail: `group "${a.taskGroup}" runs in host network mode: no network namespace of its own to judge`,
    },
  ]);
});

t.test(
  "task-env: a task restarted after an agent restart lacks the alloc's IP and ADDR variables (real 1.9.7)",
  async (t) => {
    const k = checkTaskEnv(agentKill());
    t.equal(k.status, 'failed');
    t.match(
      k.message,
      /task web: restarted at 2026-12-04T15:07:01\.623Z, started 2026-12-04T15:07:\d\d\.\d+Z; pid 15478: missing NOMAD_ALLOC_IP_http, NOMAD_ALLOC_ADDR_http, NOMAD_ALLOC_IP_admin, NOMAD_ALLOC_ADDR_admin; address 172\.26\.64\.3/,
    );
    const r = checkTaskEnv(rebootSim());
    t.equal(r.status, 'passed', r.message);
    t.match(
      (r.evidence ?? []).join('\n'),
      /NOMAD_ALLOC_ADDR_admin=172\.26\.64\.2:9000 NOMAD_ALLOC_ADDR_http=172\.26\.64\.2:80 NOMAD_ALLOC_IP_admin=172\.26\.64\.2 .*\/etc\/hosts present, \/etc\/resolv\.conf present/,
    );
    t.same(
      expectedAllocNetEnv({
        ...rebootSim().after.jobAllocs[0]!,
        ports: [{ label: 'x', value: 25000, to: 0, hostIp: '10.0.0.1' }],
      }),
      { NOMAD_ALLOC_PORT_x: '25000', NOMAD_ALLOC_IP_x: '172.26.64.2', NOMAD_ALLOC_ADDR_x: '172.26.64.2:25000' },
      'no `to`: the host port (env.go)',
    );
    // real 1.10.5 after agent-kill (run r0bepv916473a7): the API lost the alloc's address too, the restarted task had
    // only NOMAD_ALLOC_PORT_admin=9000 NOMAD_ALLOC_PORT_http=80; the address to expect is the one from before the fault
    const lost = agentKill();
    const noAddress = { ...lost.after.jobAllocs[0]! };
    delete noAddress.address;
    lost.after = { ...lost.after, alloc: noAddress, jobAllocs: [noAddress] };
    const l = checkTaskEnv(lost);
    t.equal(l.status, 'failed', l.message);
    t.match(
      l.message,
      /missing NOMAD_ALLOC_IP_http, NOMAD_ALLOC_ADDR_http, NOMAD_ALLOC_IP_admin, NOMAD_ALLOC_ADDR_admin; address \(none\) in the API now, 172\.26\.64\.3 before the fault/,
    );
    const neither = agentKill();
    for (const o of [neither.before, neither.after]) {
      delete o.alloc!.address;
      for (const a of o.jobAllocs) delete a.address;
    }
    t.match(
      checkTaskEnv(neither).message,
      /missing NOMAD_ALLOC_IP_http, .*; address \(none\) in the API, before the fault too/,
      'IP and ADDR are required even with no address to compare them with',
    );
    const noAddr = { ...rebootSim().after.jobAllocs[0]!, ports: [{ label: 'x', value: 1, to: 80, hostIp: '' }] };
    delete noAddr.address;
    t.same(
      expectedAllocNetEnv(noAddr),
      { NOMAD_ALLOC_PORT_x: '80', NOMAD_ALLOC_IP_x: '', NOMAD_ALLOC_ADDR_x: '' },
      'no address known: present, any value',
    );
    const failedRestart = rebootSim();
    failedRestart.whole!.restarts = [
      {
        allocId: failedRestart.allocId,
        task: 'web',
        requestedAtMs: 0,
        error: 'timed out after 2m waiting for task web to run again (last: started again but dead now)',
      },
    ];
    t.match(checkTaskEnv(failedRestart).message, /task web: restart requested at .*: timed out after 2m/);
    const off = rebootSim();
    delete off.whole!.restarts;
    off.whole!.notRead.restart = 'turned off (reboot.restart_task: false)';
    t.match(checkTaskEnv(off), {
      status: 'skipped',
      message: 'no task was restarted: turned off (reboot.restart_task: false)',
    });
  },
);

t.test(
  'alloc-exec: refused by the reattached executor after an agent restart (real 1.9.7), answered after a reboot',
  async (t) => {
    const k = checkAllocExec(agentKill());
    t.equal(k.status, 'failed');
    t.match(
      k.message,
      /\(1 of 2 tasks\); first: .*task admin: \/bin\/true exited 1 after 0\.1s: failed to exec into task: plugin is shut down/,
    );
    t.match((k.evidence ?? []).join('\n'), /ok {3}task web: \/bin\/true exited 0/);
    t.equal(checkAllocExec(rebootSim()).status, 'passed');
  },
);

t.test(
  'services: registered with passing checks; a missing registration or a failing check fails; none declared skips',
  async (t) => {
    const r = checkServices(rebootSim());
    t.equal(r.status, 'passed', r.message);
    t.match(
      r.evidence.join('\n'),
      /service whole-alloc-http: registered at 127\.0\.0\.1:31673; checks: http-root success/,
    );
    const gone = rebootSim();
    gone.whole!.services!.registrations = gone.whole!.services!.registrations.filter(
      (x) => x.service !== 'whole-alloc-admin',
    );
    gone.whole!.services!.checks = gone.whole!.services!.checks.map((c) =>
      c.check === 'http-root'
        ? { ...c, status: 'failure', output: 'dial tcp 127.0.0.1:31673: connect: connection refused' }
        : c,
    );
    const bad = checkServices(gone);
    t.equal(bad.status, 'failed');
    t.match(
      bad.message,
      /service whole-alloc-http: .*check http-root is failure.*service whole-alloc-admin: NOT registered for this alloc/,
    );
    const none = rebootSim();
    none.whole!.services!.declared = [];
    t.match(checkServices(none), {
      status: 'skipped',
      message: 'the job has no Nomad-native service (provider = "nomad"), so nothing must be registered again',
    });
    const partition = rebootSim();
    partition.reboot.kind = 'partition';
    t.equal(checkServices(partition).status, 'passed', 'judged after a partition too');
  },
);

t.test(
  'agent-resources: the fd leak after an agent restart (real 1.9.7), steady agents pass, a sawtooth still counts',
  async (t) => {
    const k = checkAgentResources(agentKill());
    t.equal(k.status, 'failed');
    t.match(k.message, /agent pid 14307: its open fds keep growing: \+128 in 30s \(4\.2\d\/s/);
    t.equal(
      checkAgentResources(rebootSim()).status,
      'passed',
      "after a reboot the plugins are the agent's children: no leak",
    );
    const steady = rebootSim();
    steady.whole!.agent!.samples = parseAgentSamples(real('before-agent-kill/agent-samples.txt'));
    t.equal(checkAgentResources(steady).status, 'passed', 'a healthy agent: 47, 49, 50, 49, 45, 49, 39');
    const saw = parseAgentSamples(real('after-agent-kill-exec-first/agent-samples.txt'));
    t.equal(
      riseOf(saw, (s) => s.fds),
      44,
      "every increase counted across the GC's cuts",
    );
    const sawE = rebootSim();
    sawE.whole!.agent!.samples = saw;
    t.equal(checkAgentResources(sawE).status, 'failed', 'the sawtooth (48, 59, 70, 33, 44, 55, 29) is a leak');
    const restarted = rebootSim();
    restarted.whole!.agent!.samples = restarted.whole!.agent!.samples.map((s, i) => ({
      ...s,
      pid: i < 3 ? s.pid : s.pid + 1,
    }));
    t.match(checkAgentResources(restarted).message, /the agent restarted during the window \(pid 17622 -> 17623\)/);
    const plugins = rebootSim();
    plugins.whole!.agent!.samples = plugins.whole!.agent!.samples.map((s, i) => ({ ...s, executors: s.executors + i }));
    t.match(checkAgentResources(plugins).message, /6 more plugin processes at the end of the window than at its start/);
  },
);

t.test(
  'kinds that restore nothing on the client, and records from before these checks, are skipped saying why',
  async (t) => {
    const p = rebootSim();
    p.reboot.kind = 'partition';
    for (const c of [checkTaskDirs, checkTaskNetns, checkTaskEnv, checkAllocExec, checkAgentResources]) {
      t.match(c(p), { status: 'skipped', message: /^partition restores nothing on the client/ });
    }
    const old = rebootSim();
    delete old.whole;
    t.match(checkTaskDirs(old), {
      status: 'skipped',
      message: /not read in this run \(a record from before these checks\)/,
    });
    const replaced = rebootSim();
    replaced.after.jobAllocs[0]!.clientStatus = 'lost';
    replaced.after.jobAllocs[0]!.desiredStatus = 'stop';
    const sk = checkTaskDirs(replaced);
    t.equal(sk.status, 'skipped');
    t.match(sk.perAlloc?.[0]?.detail, /not restored in place \(failed; judged by alloc-restored\)/);
  },
);

t.test(
  'no-leaks: a CNI nat rule of a container that is no live alloc is a leak (real plugins, hand-made leak)',
  async (t) => {
    const r = checkNoLeaks(rebootSim());
    t.equal(r.status, 'passed', r.message);
    t.match(
      r.evidence.join('\n'),
      /CNI nat chains: CNI-0c6944eba9cd95a6723b7b8a=73c563bc CNI-DN-0c6944eba9cd95a6723b7=73c563bc/,
    );
    const e = rebootSim();
    e.after.firewall = parseNatTable(real('firewall-leak/iptables-save-nat.txt'));
    const bad = checkNoLeaks(e);
    t.equal(bad.status, 'failed');
    t.match(
      bad.message,
      /4 nat rules name 0b5e55ed, which is not a live alloc \(chains CNI-6af4035de479a4bba51f4855, CNI-DN-6af4035de479a4bba51f4\)/,
    );
    e.after.firewall.chains.push('CNI-deadbeefdeadbeefdeadbeef');
    t.match(checkNoLeaks(e).message, /nat chain CNI-deadbeefdeadbeefdeadbeef belongs to no container/);
  },
);

t.test('log facts: quoted with their time, since the agent last started', async (t) => {
  const journal = JSON.parse(
    readFileSync(new URL('../fixtures/nomad/real-journal-1.9.3-vm-reboot.json', import.meta.url), 'utf8'),
  ) as { lines: string[] };
  const f = logFacts(journal.lines);
  t.match(
    f['client.log.failed_to_restore_task'],
    /^1 line: 2026-12-02T12:23:32\.533Z client\.alloc_runner\.task_runner: Task event: alloc_id=9464db6d-9700-f88b-d4a6-1244d14f6c28 task=web type="Failed Restoring Task"/,
  );
  t.notOk('client.log.network_check_failed' in f);
  // written by hand from nomad@v1.10.5:client/allocrunner/network_hook.go (no 1.10+ run recorded it yet)
  const check =
    '2026-12-04T15:08:47+0000 client nomad[611]:     2026-12-04T15:08:46.101Z [WARN]  client.alloc_runner.runner_hook: network configuration check failed: alloc_id=73c563bc-1f3a-e380-4574-4b006d1e7bdb error="plugin type=\\"bridge\\" failed (check): could not find interface"';
  t.equal(
    logFacts([check])['client.log.network_check_failed'],
    '1 line: 2026-12-04T15:08:46.101Z client.alloc_runner.runner_hook: network configuration check failed: alloc_id=73c563bc-1f3a-e380-4574-4b006d1e7bdb error="plugin type=\\"bridge\\" failed (check): could not find interface"',
  );
  const kill = [
    'a failed to restore task before',
    'x ==> Nomad agent started! Log data will stream in below:',
    'b failed to restore task after',
  ];
  t.same(
    sinceLastAgentStart(kill),
    kill.slice(1),
    "an agent restart keeps the boot's journal: only what the last start logged",
  );
});
