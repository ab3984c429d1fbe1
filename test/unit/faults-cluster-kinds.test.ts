// The fault kinds that hit more than one clean cut (power-loss-all, executor-kill, docker-restart, leader-partition,
// link-flap, link-loss): each definition's options, hold, outcome rule and proofs; what each refuses under a config
// (with the fix) and where the provider or the scenario cannot run it; and the pure command builders and parsers
// their performers use (lib/ssh/disrupt-link.ts, disrupt-process.ts, power-all.ts).
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { resolveConfig } from '../../lib/config/validate.js';
import { DEFAULTS, type HarnessConfig } from '../../lib/config/schema.js';
import { nodeReregisters } from '../../lib/faults/define.js';
import { FAULTS, faultKind, faultKindProblems, faultOutcome } from '../../lib/faults/registry.js';
import { faultOfferOf, labConfigRules, PROVIDERS } from '../../lib/lab/providers.js';
import { faultProblems } from '../../lib/steps/fault-step.js';
import { faultSeen } from '../../lib/checks/fault-expectations.js';
import { TASK_RESTARTED } from '../../lib/checks/task-restarted.js';
import { dropCommands } from '../../lib/ssh/disrupt.js';
import { netemCommands, parseRouteDev } from '../../lib/ssh/disrupt-link.js';
import { parseExecutors } from '../../lib/ssh/disrupt-process.js';
import { powerOnGroups } from '../../lib/ssh/power-all.js';
import { rebootMachine } from '../../lib/ssh/reboot.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import type { RebootKind } from '../../lib/model/kinds.js';
import type { RebootEvidence } from '../../lib/model/evidence.js';
import type { CheckResult } from '../../lib/model/check.js';

const NEW: RebootKind[] = [
  'power-loss-all',
  'executor-kill',
  'docker-restart',
  'leader-partition',
  'link-flap',
  'link-loss',
];

const cfg = (flags: Record<string, unknown>) =>
  resolveConfig({ file: undefined, env: {}, flags, knownChecks: [], labRules: labConfigRules });
const okCfg = (flags: Record<string, unknown>): HarnessConfig => {
  const r = cfg(flags);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
};
const problemsOf = (flags: Record<string, unknown>) => {
  const r = cfg(flags);
  return r.ok ? [] : r.problems;
};

t.test('each is registered once, in the docs order, with the capabilities and roles it needs', async (t) => {
  t.same(
    FAULTS.names.filter((k) => NEW.includes(k)),
    ['power-loss-all', 'executor-kill', 'docker-restart', 'leader-partition', 'link-flap', 'link-loss'],
  );
  t.same(faultKind('power-loss-all').needs, ['power-off-all']);
  t.equal(faultKind('power-loss-all').wholeLab, true);
  t.equal(faultKind('power-loss-all').rebootsHost, true);
  t.same(faultKind('leader-partition').roles, ['server']);
  for (const k of ['executor-kill', 'docker-restart', 'link-flap', 'link-loss'] as const) {
    t.same(faultKind(k).needs, ['guest-shell'], k);
    t.same(faultKind(k).roles, ['client'], k);
    t.equal(faultKind(k).rebootsHost, false, k);
    t.equal(faultKind(k).needsNomadAgent, true, k);
  }
});

t.test('their options: parsed, bounded, defaulted in one place; the hold each adds to the step', async (t) => {
  const d = okCfg({ reboot: 'link-flap' });
  t.same(
    [d.reboot.flapCount, d.reboot.flapDownForS, d.reboot.flapUpForS],
    [DEFAULTS.reboot.flapCount, DEFAULTS.reboot.flapDownForS, DEFAULTS.reboot.flapUpForS],
  );
  const flap = okCfg({ reboot: 'link-flap', 'flap-count': '4', 'flap-down-for': '10s', 'flap-up-for': '1m' });
  t.same([flap.reboot.flapCount, flap.reboot.flapDownForS, flap.reboot.flapUpForS], [4, 10, 60]);
  t.equal(faultKind('link-flap').holdS(flap.reboot), 4 * (10 + 60));
  t.match(problemsOf({ 'flap-count': '0' }), [{ field: '--flap-count', message: /from 1 to 100/ }]);
  const loss = okCfg({ reboot: 'link-loss', 'loss-percent': '40', 'loss-delay-ms': '150', 'loss-for': '2m' });
  t.same([loss.reboot.lossPercent, loss.reboot.lossDelayMs, loss.reboot.lossForS], [40, 150, 120]);
  t.equal(faultKind('link-loss').holdS(loss.reboot), 120);
  t.match(problemsOf({ 'loss-percent': '100' }), [{ field: '--loss-percent', message: /from 1 to 99 %/ }]);
  const power = okCfg({ reboot: 'power-loss-all', 'power-order': 'clients-first', 'off-for': '30s' });
  t.equal(power.reboot.powerOrder, 'clients-first');
  t.equal(faultKind('power-loss-all').holdS(power.reboot), 30 + power.reboot.deadlineS, 'the first group back first');
  const together = okCfg({ reboot: 'power-loss-all', 'power-order': 'together', 'off-for': '30s' });
  t.equal(faultKind('power-loss-all').holdS(together.reboot), 30);
  t.match(problemsOf({ 'power-order': 'random' }), [
    { field: '--power-order', message: 'must be one of servers-first, clients-first, together' },
  ]);
  t.equal(DEFAULTS.reboot.powerOrder, 'servers-first');
  const lp = okCfg({ reboot: 'leader-partition', servers: '3', 'partition-for': '45s' });
  t.equal(faultKind('leader-partition').holdS(lp.reboot), 45);
});

t.test('the outcome rule each gives the checks', async (t) => {
  t.same(faultOutcome('docker-restart'), {
    replaced: false,
    restartsTasks: true,
    restoresInPlace: true,
    why: 'docker-restart: the containers stop with the daemon, the client restarts its tasks in the same allocs',
  });
  t.match(faultOutcome('executor-kill'), { replaced: false, restartsTasks: true, restoresInPlace: false });
  for (const k of ['link-flap', 'link-loss', 'leader-partition'] as const)
    t.match(faultOutcome(k), { replaced: false, restartsTasks: false, restoresInPlace: false }, k);
  t.same(faultOutcome('power-loss-all'), { replaced: false, restartsTasks: true, restoresInPlace: true });
});

t.test('what each must have caused (data for the vacuity rule), and whether the node registers again', async (t) => {
  for (const k of NEW) {
    const bootProof = faultKind(k).proves.find((p) => p.what === 'boot-id');
    t.same(bootProof, { what: 'boot-id', changes: k === 'power-loss-all' }, `${k}: boot id`);
    t.ok(
      faultKind(k).proves.some((p) => p.what === 'mark'),
      `${k}: a mark of its own`,
    );
  }
  t.same(
    FAULTS.names.filter((k) => nodeReregisters(faultKind(k))),
    ['graceful', 'hard', 'panic', 'power-off', 'power-loss-all', 'agent-kill'],
    'a new boot or a restarted agent registers the node again; the rest leave the agent running',
  );
});

t.test('what each refuses under a config, with the fix', async (t) => {
  t.match(problemsOf({ reboot: 'docker-restart' }), [
    {
      field: '--reboot (reboot.kind)',
      value: 'docker-restart',
      message: 'cannot be done here: docker-restart needs docker tasks under the daemon, and task.driver is exec',
      fix: /^give --driver docker \(a box with Docker\), or use one of: .*executor-kill/,
    },
  ]);
  const docker = cfg({ reboot: 'docker-restart', driver: 'docker', box: 'nrh/debian12-docker' });
  t.match(docker, { ok: true });
  t.match(problemsOf({ reboot: 'executor-kill', driver: 'docker', box: 'nrh/debian12-docker' }), [
    { message: /executor-kill kills the `nomad executor` of an exec task/, fix: /^give --driver exec, or use one of/ },
  ]);
  t.match(problemsOf({ reboot: 'leader-partition' }), [
    {
      message:
        'cannot be done here: leader-partition needs the other servers to keep a quorum without the leader; lab.servers is 1',
      fix: /^give --servers 3 \(or 5\), or use one of:/,
    },
  ]);
  t.match(cfg({ reboot: 'leader-partition', servers: '3' }), { ok: true });
  t.match(cfg({ reboot: 'leader-partition', servers: '5' }), { ok: true });
  t.match(problemsOf({ reboot: 'link-flap', 'flap-down-for': '5m', 'heartbeat-grace': '5m' }), [
    {
      message: /a cut of reboot.flap_down_for 300s is not shorter than heartbeat_grace 5m/,
      fix: /--flap-down-for under 300s/,
    },
  ]);
  t.match(cfg({ reboot: 'link-flap', 'flap-down-for': '4m', 'heartbeat-grace': '5m' }), { ok: true });
});

t.test('power-loss-all: libvirt only, refused by the other providers before anything exists', async (t) => {
  const c = okCfg({});
  const offer = (name: string) => faultOfferOf(PROVIDERS.get(name as never), c);
  const scenario = { name: 'rolling-reboot', hasNomadAgent: true };
  t.same(faultKindProblems('power-loss-all', scenario, offer('libvirt'), FAULTS), []);
  t.match(faultKindProblems('power-loss-all', scenario, offer('virtualbox'), FAULTS), [
    {
      message:
        'cannot be done here: lab.provider virtualbox cannot do power-loss-all: every machine powered off at once is done on libvirt only',
      fix: /^set lab.provider libvirt, or use one of/,
    },
  ]);
  t.match(faultKindProblems('power-loss-all', scenario, offer('ssh'), FAULTS), [
    { message: /lab.provider ssh cannot do power-loss-all: the harness has no power off\/on for existing hosts/ },
  ]);
  t.same(offer('virtualbox').performs.includes('power-loss-all'), true, 'the map has it; the lack says why not');
});

t.test('leader-partition is aimed at a server: a scenario that aims at a client refuses it', async (t) => {
  const c = okCfg({ reboot: 'leader-partition', servers: '3' });
  t.same(faultProblems('bridge-exec-reboot', c, { hasNomadAgent: true }), [
    {
      field: '--reboot (reboot.kind)',
      value: 'leader-partition',
      message: 'leader-partition is aimed at server machines; bridge-exec-reboot aims its fault at a client',
      fix: 'run server-reboot --reboot leader-partition --servers 3',
    },
  ]);
  t.same(faultProblems('server-reboot', c, { hasNomadAgent: true, defaultRole: 'server' }), []);
  const atLeader = { ...c, reboot: { ...c.reboot, target: { kind: 'leader' as const } } };
  t.same(faultProblems('rolling-reboot', atLeader, { hasNomadAgent: true }), [], '--target leader');
  const atClient = { ...c, reboot: { ...c.reboot, target: { kind: 'machine' as const, name: 'client-2' } } };
  t.equal(faultProblems('server-reboot', atClient, { hasNomadAgent: true, defaultRole: 'server' }).length, 1);
});

t.test('task-restarted under a fault that restarts tasks in place judges a restart, not a kept task', async (t) => {
  const e = { reboot: { kind: 'executor-kill' } } as RebootEvidence;
  const seen = faultSeen(e, { heartbeatGraceS: 300, partitionForS: 30 });
  t.match(seen, { kind: 'executor-kill', replaced: false, restartsTasks: true });
  const restarted: CheckResult = {
    id: 'task-restarted',
    status: 'passed',
    message: 'every task started again',
  } as never;
  t.equal(TASK_RESTARTED.underFault!(restarted, e, seen!), restarted, 'the reboot judgement stands');
  const agent = faultSeen({ reboot: { kind: 'agent-kill' } } as RebootEvidence, {
    heartbeatGraceS: 300,
    partitionForS: 30,
  });
  t.notOk(agent?.restartsTasks, 'agent-kill keeps them running');
});

t.test('iptables drop rules of every packet to and from one address (the leader partition)', async (t) => {
  t.same(dropCommands('10.199.0.12', '-I', 'nrh-leader-partition'), [
    'iptables -w -I OUTPUT -d 10.199.0.12 -m comment --comment nrh-leader-partition -j DROP',
    'iptables -w -I INPUT -s 10.199.0.12 -m comment --comment nrh-leader-partition -j DROP',
  ]);
  t.throws(() => dropCommands('10.0.0.1; reboot', '-D', 'x'), /not an IPv4 address/);
});

t.test('link-loss: the interface of the route to a server, and the netem band only its traffic enters', async (t) => {
  t.equal(parseRouteDev('10.199.0.10 dev eth1 src 10.199.0.11 uid 0 \\    cache '), 'eth1');
  t.equal(parseRouteDev('local 127.0.0.1 dev lo table local src 127.0.0.1'), 'lo');
  t.equal(parseRouteDev('RTNETLINK answers: Network is unreachable'), undefined);
  t.same(netemCommands('eth1', ['10.199.0.10', '10.199.0.12'], 'add', { lossPercent: 30, delayMs: 200 }), [
    'tc qdisc replace dev eth1 root handle 1: prio bands 4',
    'tc qdisc add dev eth1 parent 1:4 handle 40: netem loss 30% delay 200ms',
    'tc filter add dev eth1 parent 1:0 protocol ip prio 4 u32 match ip dst 10.199.0.10/32 flowid 1:4',
    'tc filter add dev eth1 parent 1:0 protocol ip prio 4 u32 match ip dst 10.199.0.12/32 flowid 1:4',
  ]);
  t.match(netemCommands('eth1', ['10.199.0.10'], 'add', { lossPercent: 5, delayMs: 0 })[1], /netem loss 5%$/);
  t.same(netemCommands('eth1', [], 'del', { lossPercent: 5, delayMs: 0 }), ['tc qdisc del dev eth1 root']);
  t.throws(() => netemCommands('eth1;reboot', [], 'del', { lossPercent: 5, delayMs: 0 }), /not an interface name/);
  t.throws(() => netemCommands('eth1', ['x'], 'add', { lossPercent: 5, delayMs: 0 }), /not an IPv4 address/);
});

t.test('executor-kill: the executors whose arguments name an alloc directory, in alloc-ID order', async (t) => {
  // what `pgrep -a -f` prints on a client running two exec allocs (arguments as Nomad 1.9 passes them)
  const a1 = '5b1d8c4e-0f7a-4d2e-9c3b-1a2b3c4d5e6f';
  const a2 = '0a9e7f31-2c4b-4b8e-8f1d-6e5d4c3b2a19';
  const text = [
    `2211 /usr/local/bin/nomad executor {"LogFile":"/opt/nomad/data/alloc/${a1}/web/executor.out","LogLevel":"debug","FSIsolation":true}`,
    `2302 /usr/local/bin/nomad executor {"LogFile":"/opt/nomad/data/alloc/${a2}/api/executor.out","LogLevel":"debug","FSIsolation":true}`,
    '2400 /usr/local/bin/nomad agent -config /etc/nomad.d',
    "2501 sudo -n sh -c pgrep -a -f '[n]omad executor'",
    '',
  ].join('\n');
  t.same(parseExecutors(text), [
    { pid: 2302, allocId: a2, task: 'api' },
    { pid: 2211, allocId: a1, task: 'web' },
  ]);
  t.same(parseExecutors(''), []);
});

t.test('power-loss-all: the groups powered on one after the other', async (t) => {
  const ms = [
    { name: 's1', role: 'server' as const },
    { name: 'c1', role: 'client' as const },
    { name: 's2', role: 'server' as const },
  ];
  const names = (g: (typeof ms)[number][][]) => g.map((x) => x.map((m) => m.name));
  t.same(names(powerOnGroups(ms, 'servers-first')), [['s1', 's2'], ['c1']]);
  t.same(names(powerOnGroups(ms, 'clients-first')), [['c1'], ['s1', 's2']]);
  t.same(names(powerOnGroups(ms, 'together')), [['s1', 'c1', 's2']]);
  t.same(names(powerOnGroups(ms.slice(0, 1), 'clients-first')), [['s1']], 'no empty group');
});

t.test('a kind that is no reboot of one machine never falls through to a reboot command', async (t) => {
  const ran: string[] = [];
  const m = {
    name: 'client',
    exec: async (cmd: string) => {
      ran.push(cmd);
      return { code: 0, stdout: '', stderr: '', durationMs: 0 };
    },
    bootId: async () => 'b',
    disconnect: async () => {},
  };
  for (const k of ['power-loss-all', 'link-flap', 'executor-kill'] as const)
    await t.rejects(rebootMachine(m, k, { deadline: deadlineIn(1000) }), {
      message: `${k} is not a reboot of one machine: see lib/lab/perform.ts`,
    });
  t.same(ran, [], 'nothing ran');
});

t.test('server-reboot refuses a fault of the whole lab (its checks judge the clients untouched)', async (t) => {
  const { default: scenario } = await import('../../scenarios/server-reboot.js');
  const c = okCfg({ reboot: 'power-loss-all', servers: '3' });
  t.match(scenario.validate!(c), [
    {
      field: '--reboot (reboot.kind)',
      value: 'power-loss-all',
      message: 'server-reboot judges the clients untouched; this fault powers off every machine',
      fix: 'run rolling-reboot --reboot power-loss-all (every alloc followed)',
    },
  ]);
  t.same(scenario.validate!(okCfg({ reboot: 'leader-partition', servers: '3' })), [], 'leader-partition is its own');
});

t.test('server-reboot judges each step of a fault schedule as it judges --reboot and --target', async (t) => {
  const { default: scenario } = await import('../../scenarios/server-reboot.js');
  const file = `${t.testdir({})}/f.yaml`;
  writeFileSync(
    file,
    'faults:\n  - { fault: graceful }\n  - { fault: power-loss-all }\n  - { fault: hard, target: client-1 }\n  - { fault: leader-partition, target: leader, wait: 5x }\n',
  );
  const problems = scenario.validate!(okCfg({ faults: file, servers: '3' }));
  t.same(
    problems.map((p) => `${p.field}: ${p.message}`),
    [
      `${file}: faults[1] --reboot (reboot.kind): server-reboot judges the clients untouched; this fault powers off every machine`,
      `${file}: faults[2] --target (reboot.target): server-reboot reboots servers`,
      `${file}: faults[3].wait: must be a duration from 0s to 3600s`,
    ],
    'power-loss-all and a client target refused in their steps, with the file’s own problem, in the file’s order',
  );
  writeFileSync(file, 'faults:\n  - { fault: graceful }\n  - { fault: leader-partition, target: leader }\n');
  t.same(scenario.validate!(okCfg({ faults: file, servers: '3' })), [], 'a schedule of server faults is taken');
});
