// Targets: the words --target takes, their check against a topology before anything exists, the turns they make,
// and the leader's address read back to a server machine.
import t from 'tap';
import { parseTarget, resolveLeader, targetProblem, targetTurns } from '../../lib/model/target.js';
import type { Topology } from '../../lib/model/topology.js';

/** One server and one client, the default lab. */
const PAIR: Topology = { servers: 1, clients: 1 };
import { resolveConfig, type ConfigSources } from '../../lib/config/validate.js';
import { CHECKS as REBOOT } from '../../scenarios/bridge-exec-reboot.js';

const LAB: Topology = { servers: 3, clients: 2 };

t.test('parseTarget: machine names and the three words; anything else says what it takes', async (t) => {
  t.same(parseTarget('client-2'), { kind: 'machine', name: 'client-2' });
  t.same(parseTarget(' server '), { kind: 'machine', name: 'server' });
  t.same(parseTarget('leader'), { kind: 'leader' });
  t.same(parseTarget('clients'), { kind: 'clients' });
  t.same(parseTarget('servers'), { kind: 'servers' });
  for (const bad of ['client-0', 'client2', 'nodes', 'Client-1', '', 'client-01'])
    t.match(parseTarget(bad), { error: /machine name .*leader, clients, servers/ }, bad);
});

t.test('targetProblem: a machine the topology lacks, naming the machines there are and the fix', async (t) => {
  t.equal(targetProblem({ kind: 'machine', name: 'client-2' }, LAB), undefined);
  t.equal(targetProblem({ kind: 'leader' }, PAIR), undefined);
  const p = targetProblem({ kind: 'machine', name: 'client-3' }, LAB)!;
  t.match(p.message, /server-1, server-2, server-3, client-1, client-2/);
  t.match(p.fix, /client-1, client-2, clients, or raise lab\.clients/);
  const pair = targetProblem({ kind: 'machine', name: 'client-1' }, PAIR)!;
  t.match(pair.message, /1\+1 lab the machines are named server and client/);
  t.match(pair.fix, /give one of client,/);
  t.match(targetProblem({ kind: 'machine', name: 'client' }, LAB)!.message, /numbered in a 3\+2 lab/);
});

t.test('targetTurns: one machine, the leader, every client or server in index order', async (t) => {
  t.same(targetTurns({ kind: 'machine', name: 'client' }, PAIR), [{ kind: 'machine', name: 'client', role: 'client' }]);
  t.same(
    targetTurns({ kind: 'clients' }, LAB).map((x) => (x.kind === 'machine' ? x.name : x.kind)),
    ['client-1', 'client-2'],
  );
  t.same(
    targetTurns({ kind: 'servers' }, LAB).map((x) => (x.kind === 'machine' ? x.name : x.kind)),
    ['server-1', 'server-2', 'server-3'],
  );
  t.same(targetTurns({ kind: 'leader' }, LAB), [{ kind: 'leader' }]);
  t.same(targetTurns({ kind: 'clients' }, PAIR), [{ kind: 'machine', name: 'client', role: 'client' }]);
  t.same(targetTurns({ kind: 'machine', name: 'client-9' }, LAB), [], 'a machine the lab lacks makes no turn');
});

t.test('resolveLeader: the RPC address to the server machine, by member name or by address', async (t) => {
  const members = [
    { Name: 'server-1.global', Addr: '10.199.0.11', Tags: { port: '4647', role: 'nomad' } },
    { Name: 'server-2.global', Addr: '10.199.0.12', Tags: { port: '4647', role: 'nomad' } },
    { Name: 'server-3.global', Addr: '10.199.0.13', Tags: { port: '4647', role: 'nomad' } },
  ];
  const servers = ['server-1', 'server-2', 'server-3'];
  t.same(resolveLeader('10.199.0.12:4647', members, servers), {
    name: 'server-2',
    how: 'member server-2.global at 10.199.0.12:4647',
  });
  // a host whose node name is not the slot name: its address tells
  const odd = [{ Name: 'ip-10-0-0-5.global', Addr: '10.0.0.5', Tags: { port: '4647' } }];
  t.same(resolveLeader('10.0.0.5:4647', odd, ['server'], { server: ['10.0.0.5', '192.168.121.9'] }), {
    name: 'server',
    how: 'address 10.0.0.5 of server',
  });
  t.match(resolveLeader('', members, servers), { error: /no leader/ });
  t.match(resolveLeader('10.9.9.9:4647', members, servers), { error: /none of the lab's servers.*server-1.global=10/ });
});

t.test(
  'resolveConfig: --target parsed, and a machine the topology lacks refused with every other problem',
  async (t) => {
    const src = (flags: Record<string, unknown>, file?: unknown): ConfigSources => ({
      file,
      env: {},
      flags,
      knownChecks: REBOOT.map((c) => c.id),
    });
    const good = resolveConfig(src({ target: 'client', rolling: true, drain: 'true', 'max-gap': '5s' }));
    t.ok(good.ok);
    t.same(good.config.reboot.target, { kind: 'machine', name: 'client' });
    t.same([good.config.reboot.rolling, good.config.reboot.drain, good.config.reboot.maxGapS], [true, true, 5]);
    t.equal(good.config.reboot.target && 'name' in good.config.reboot.target, true);

    const r = resolveConfig(src({ target: 'client-2', timeout: 'soon' }));
    t.notOk(r.ok);
    const problems = r.ok ? [] : r.problems;
    t.equal(problems.length, 2, 'the target and the timeout at once');
    const p = problems.find((x) => x.field === '--target')!;
    t.equal(p.value, 'client-2');
    t.match(p.message, /lacks \(its machines: server, client;/);

    const f = resolveConfig(src({}, { reboot: { target: 'nodes' } }));
    t.match(f.ok ? [] : f.problems, [
      { field: 'harness.yaml: reboot.target', value: 'nodes', message: /machine name/ },
    ]);
  },
);
