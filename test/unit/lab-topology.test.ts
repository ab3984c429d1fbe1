// Clusters, the pure parts: lab.servers/lab.clients and their flags, host lists for lab.provider ssh (each bad field
// named with its index), the memory budget of a VM topology, the agent configs of a Raft cluster, matrix axes.
import t from 'tap';
import { DEFAULTS } from '../../lib/config/schema.js';
import { configOf, problemsOf, yaml } from '../helpers/config-sources.js';
import { memoryBudgetProblems } from '../../lib/lab/vagrant/memory-budget.js';
import { hostsOf } from '../../lib/config/hosts.js';
import { sshHosts } from '../../lib/lab/ssh/ssh-lab.js';
import { LAB_PROVIDERS, providerFor } from '../../lib/lab/providers.js';
import { renderAgentFiles } from '../../lib/cluster/provision.js';
import { readTemplate } from '../../lib/cluster/templates.js';
import { parseMatrix } from '../../lib/matrix/spec.js';
import { cellConfig, expandCells } from '../../lib/matrix/expand.js';
import { firstOf, machinesOf, namedMachinesOf, type Lab, type Machine } from '../../lib/model/lab.js';

const [ok, bad] = [configOf, problemsOf];

t.test('lab.servers and lab.clients: flags, env and harness.yaml; a pair by default', async (t) => {
  t.match(ok({}).lab, { servers: 1, clients: 1 });
  t.match(ok({ flags: { servers: '3', clients: '2' } }).lab, { servers: 3, clients: 2 });
  t.match(ok({ env: { HARNESS_CLIENTS: '8' } }).lab, { clients: 8 });
  t.match(ok({ file: yaml('lab:\n  servers: 5\n  clients: 4\n') }).lab, { servers: 5, clients: 4 });
});

t.test('every topology problem at once, each with field, value and fix', async (t) => {
  const p = bad({ flags: { servers: '2', clients: '0' }, file: yaml('lab:\n  clients: 9\n') });
  t.match(p, [
    { field: '--servers', value: '2', message: 'must be one of 1, 3, 5', fix: /odd number of servers/ },
    {
      field: 'harness.yaml: lab.clients',
      value: 9,
      message: 'must be a whole number from 1 to 8',
      fix: /between 1 and 8/,
    },
    { field: '--clients', value: '0', message: 'must be a whole number from 1 to 8', fix: /between 1 and 8/ },
  ]);
  t.equal(p.length, 3);
});

t.test('the memory budget: the whole topology must fit in MemAvailable, else the sizes and the fix', async (t) => {
  const lab = { ...DEFAULTS.lab };
  const pair = { servers: 1, clients: 1 } as const;
  const big = { servers: 3, clients: 2 } as const;
  // under emulation each VM costs 768 + 160 (QEMU) + 256 (its translation cache) = 1184 MiB
  t.same(memoryBudgetProblems(pair, lab, 2368), [], 'a pair fits in exactly its size');
  t.same(memoryBudgetProblems(big, lab, undefined), [], 'nothing is checked when MemAvailable is unknown');
  const [p, ...more] = memoryBudgetProblems(big, lab, 5000);
  t.same(more, []);
  t.match(p, {
    field: 'lab.servers + lab.clients, lab.memory_mb',
    value: '3+2, 768 MiB',
    message:
      'the lab needs 5920 MiB (5 VMs x (768 MiB lab.memory_mb + 416 MiB QEMU under emulation, its translation cache ' +
      'lab.tb_cache_mb included)) but this host has 5000 MiB available (MemAvailable)',
    fix: /fewer machines \(--servers\/--clients: 4 VM\(s\) of this size fit\), or a smaller lab\.memory_mb \(--memory 584 or less\)/,
  });
  t.same(memoryBudgetProblems(big, lab, 4000, ['client']), [], 'a clients-only scenario brings up two VMs of five');
  t.match(memoryBudgetProblems(big, { ...lab, libvirtDriver: 'kvm' }, 4000), [
    { message: /5 VMs x \(768 MiB lab\.memory_mb \+ 160 MiB QEMU\)/ },
  ]);
  t.match(
    providerFor({ lab: { provider: 'libvirt' } }).validate(big, { ...DEFAULTS, lab }, { memAvailableMb: 4000 }),
    [{ message: /needs 5920 MiB/ }],
    'the libvirt provider refuses it before anything exists',
  );
  t.same(LAB_PROVIDERS.ssh.validate(big, DEFAULTS, { memAvailableMb: 1 }), [], 'existing hosts cost this host nothing');
});

t.test('the registry: one provider per lab.provider, with what each can do', async (t) => {
  t.same(Object.keys(LAB_PROVIDERS), ['libvirt', 'virtualbox', 'ssh']);
  t.match(LAB_PROVIDERS.libvirt.capabilities, { concurrentUp: true });
  t.ok(LAB_PROVIDERS.libvirt.snapshots, 'libvirt has snapshot/restore (warm labs)');
  t.notOk(LAB_PROVIDERS.virtualbox.snapshots, 'virtualbox has none here');
  t.notOk(LAB_PROVIDERS.ssh.snapshots, 'nor have existing hosts');
  t.notOk(
    LAB_PROVIDERS.ssh.capabilities.faults.includes('power-off'),
    'no power off for a host the harness did not make',
  );
  t.ok(LAB_PROVIDERS.libvirt.capabilities.faults.includes('power-off'));
});

const H = (n: number) => `{ address: 203.0.113.${n}, user: admin, key: /k }`;

t.test('lab.hosts lists: the topology of lab.provider ssh; each bad entry named with its index', async (t) => {
  const c = ok({
    file: yaml(`lab:\n  provider: ssh\n  hosts:\n    servers: [${H(10)}]\n    clients: [${H(11)}, ${H(12)}]\n`),
  });
  t.match(c.lab, { servers: 1, clients: 2 }, 'the lists set the topology');
  t.same(
    sshHosts(c.lab.hosts, ['server', 'client']).map((h) => `${h.name}=${h.spec.address} (${h.field})`),
    [
      'server-1=203.0.113.10 (lab.hosts.servers[0])',
      'client-1=203.0.113.11 (lab.hosts.clients[0])',
      'client-2=203.0.113.12 (lab.hosts.clients[1])',
    ],
  );
  const old = ok({ file: yaml(`lab:\n  provider: ssh\n  hosts:\n    server: ${H(10)}\n    client: ${H(11)}\n`) });
  t.same(
    sshHosts(old.lab.hosts, ['server', 'client']).map((h) => `${h.name} (${h.field})`),
    ['server (lab.hosts.server)', 'client (lab.hosts.client)'],
    'the older one-host keys are a list of one each, named as they were',
  );
  t.equal(hostsOf(old.lab.hosts, 'client')[0]!.address, '203.0.113.11');
  const p = bad({
    file: yaml(
      'lab:\n  provider: ssh\n  hosts:\n' +
        `    servers: [${H(10)}, { address: 203.0.113.13, user: admin, key: /k, port: 0 }]\n` +
        `    clients: [${H(11)}, { address: 203.0.113.12, colour: red }]\n`,
    ),
  });
  t.match(p, [
    { field: 'harness.yaml: lab.hosts.servers[1].port', value: 0, fix: /between 1 and 65535/ },
    { field: 'harness.yaml: lab.hosts.clients[1].colour', value: 'colour', fix: /address, user, key, port, jump/ },
  ]);
  const missing = bad({
    file: yaml(
      `lab:\n  provider: ssh\n  hosts:\n    servers: [${H(10)}, ${H(13)}]\n    clients: [${H(11)}, { address: 203.0.113.12 }]\n`,
    ),
    flags: { clients: '3' },
  });
  t.match(missing, [
    {
      field: 'harness.yaml: lab.hosts.servers',
      message: /has 2 hosts; one Raft cluster takes 1, 3, 5 servers/,
      fix: /list 1, or 3, or 5/,
    },
    { field: 'harness.yaml: lab.hosts.clients[1].user', message: 'is required with lab.provider: ssh' },
    { field: 'harness.yaml: lab.hosts.clients[1].key' },
    { field: '--clients', value: 3, message: 'differs from the 2 host(s) of lab.hosts.clients (lab.provider ssh)' },
  ]);
  t.match(
    bad({
      file: yaml(
        `lab:\n  provider: ssh\n  hosts:\n    servers: [${H(10)}]\n    server: ${H(9)}\n    clients: [${H(11)}]\n`,
      ),
    }),
    [{ field: 'harness.yaml: lab.hosts.servers / lab.hosts.server', message: /the same hosts twice/ }],
  );
  t.match(bad({ file: yaml(`lab:\n  hosts:\n    clients: [${H(11)}]\n`) }), [
    { field: 'harness.yaml: lab.hosts', value: ['clients'], message: /only used with lab.provider: ssh/ },
  ]);
});

t.test('agent configs of a cluster: one Raft cluster of every server, clients listing every server', async (t) => {
  const tpl = async (role: 'server' | 'client') => ({
    hcl: await readTemplate(`${role}.hcl`),
    unit: await readTemplate('nomad.service'),
  });
  const servers = ['10.199.0.10', '10.199.0.11', '10.199.0.12'];
  const s2 = renderAgentFiles(
    'server',
    { private_ip: servers[1]!, node_name: 'server-2', server_ips: servers, bootstrap_expect: 3 },
    await tpl('server'),
  ).hcl;
  t.match(s2, /bootstrap_expect = 3\n/);
  t.match(
    s2,
    /retry_join = \["10\.199\.0\.10", "10\.199\.0\.11", "10\.199\.0\.12"\]/,
    'every server joined (Serf port)',
  );
  t.match(s2, /name\s+= "server-2"/);
  t.match(s2, /bind_addr = "10\.199\.0\.11"/);
  const c2 = renderAgentFiles(
    'client',
    { private_ip: '10.199.0.14', node_name: 'client-2', server_ips: servers },
    await tpl('client'),
  ).hcl;
  t.match(c2, /servers\s+= \["10\.199\.0\.10:4647", "10\.199\.0\.11:4647", "10\.199\.0\.12:4647"\]/);
  t.match(c2, /name\s+= "client-2"/);
  t.match(c2, /plugin "raw_exec" \{\n  config \{\n    enabled = false\n/, "raw_exec off, Nomad's default");
  const raw = renderAgentFiles(
    'client',
    { private_ip: '10.199.0.14', node_name: 'client-2', server_ips: servers, raw_exec: true },
    await tpl('client'),
  ).hcl;
  t.match(raw, /plugin "raw_exec" \{\n  config \{\n    enabled = true\n/, 'raw_exec on when a job uses it');
  const lone = renderAgentFiles('server', { private_ip: '10.199.0.10' }, await tpl('server')).hcl;
  t.match(lone, /bootstrap_expect = 1\n/);
  t.match(lone, /retry_join = \[\]/, 'a lone server joins nobody');
  t.match(lone, /name\s+= "server"/, 'a pair keeps its node names');
  t.throws(
    () =>
      renderAgentFiles(
        'server',
        { private_ip: '10.199.0.10', bootstrap_expect: 3, server_ips: ['10.199.0.10'] },
        { hcl: 'x', unit: 'y' },
      ),
    /bootstrap_expect 3 needs the 3 servers' addresses \(got 1\)/,
  );
});

t.test('matrix axes servers and clients: counts in cell names, set in each cell, bad counts refused', async (t) => {
  const r = parseMatrix({ scenario: 'cni-ipam-reboot', axes: { clients: [1, 2], servers: ['3'] } }, 'm.yaml', {
    'cni-ipam-reboot': [],
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  const cells = expandCells(r.spec);
  t.same(
    cells.map((c) => c.name),
    ['cni-ipam-reboot/clients=1/servers=3', 'cni-ipam-reboot/clients=2/servers=3'],
  );
  t.match(cellConfig(DEFAULTS, cells[1]!, 0).lab, { servers: 3, clients: 2 });
  const b = parseMatrix({ scenario: 'cni-ipam-reboot', axes: { servers: [2], clients: [0, 9, 'x'] } }, 'm.yaml', {
    'cni-ipam-reboot': [],
  });
  t.match(b.ok ? [] : b.problems, [
    { field: 'm.yaml: axes.servers[0]', value: 2, fix: /1, 3, 5/ },
    { field: 'm.yaml: axes.clients[0]', value: 0, fix: /1 to 8/ },
    { field: 'm.yaml: axes.clients[1]', value: 9 },
    { field: 'm.yaml: axes.clients[2]', value: 'x' },
  ]);
});

t.test("machinesOf: a role's machines in index order; firstOf: the one a pair-era scenario means", async (t) => {
  const m = (role: string): Machine => ({ role }) as unknown as Machine;
  const lab = {
    machines: { 'client-10': m('client'), 'server-1': m('server'), 'client-2': m('client'), 'client-1': m('client') },
  } as unknown as Lab;
  t.same(
    namedMachinesOf(lab, 'client').map(([n]) => n),
    ['client-1', 'client-2', 'client-10'],
  );
  t.equal(machinesOf(lab, 'client')[0], lab.machines['client-1']);
  t.equal(firstOf(lab, 'server').name, 'server-1');
  const pair = { machines: { server: m('server'), client: m('client') } } as unknown as Lab;
  t.equal(firstOf(pair, 'client').name, 'client');
  t.throws(
    () => firstOf({ machines: { client: m('client') } } as unknown as Lab, 'server'),
    /no server machine \(it has client\)/,
  );
});
