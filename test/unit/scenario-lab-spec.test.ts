// labSpecFor: the lab spec of one run from the config (names carry the run id; networks named by subnet).
import t from 'tap';
import { DEFAULTS } from '../../lib/config/schema.js';
import { labSpecFor } from '../../lib/lab/vagrant/spec-for.js';

t.test('the default two-machine lab', async (t) => {
  const s = labSpecFor(DEFAULTS, 'r1abcd', ['server', 'client']);
  t.same(s, {
    runId: 'r1abcd',
    box: DEFAULTS.lab.box,
    provider: 'libvirt',
    cpus: 1,
    memoryMb: 768,
    machines: [
      { name: 'r1abcd-server', role: 'server', privateIp: '10.199.0.10' },
      { name: 'r1abcd-client', role: 'client', privateIp: '10.199.0.11' },
    ],
    privateNetwork: { name: 'nrh-priv-10-199-0', subnet: '10.199.0.0/24' },
    libvirt: {
      driver: 'qemu',
      tbCacheMb: 256,
      cpuModel: 'Nehalem',
      managementNetwork: { name: 'nrh-mgmt-10-198-0', address: '10.198.0.0/24' },
      serialLogDir: '/var/lib/libvirt/qemu',
    },
    bootTimeoutS: 600,
  });
});

t.test('config values flow through; roles choose the machines', async (t) => {
  const c = structuredClone(DEFAULTS);
  c.lab = {
    ...c.lab,
    provider: 'virtualbox',
    cpus: 2,
    memoryMb: 2048,
    libvirtDriver: 'kvm',
    tbCacheMb: 0,
    cpuModel: 'host',
    privateSubnet: '192.168.56.0/24',
    managementSubnet: '10.77.1.0/24',
    bootTimeoutS: 900,
  };
  const s = labSpecFor(c, 'rx', ['client']);
  t.same(s.machines, [{ name: 'rx-client', role: 'client', privateIp: '192.168.56.11' }], 'a one-machine lab');
  t.match(s, {
    provider: 'virtualbox',
    cpus: 2,
    memoryMb: 2048,
    bootTimeoutS: 900,
    privateNetwork: { name: 'nrh-priv-192-168-56', subnet: '192.168.56.0/24' },
  });
  t.match(s.libvirt, {
    driver: 'kvm',
    tbCacheMb: 0,
    cpuModel: 'host',
    managementNetwork: { name: 'nrh-mgmt-10-77-1', address: '10.77.1.0/24' },
  });
});

t.test('runs differ only in machine names; two subnets never share a network name', async (t) => {
  const a = labSpecFor(DEFAULTS, 'ra', ['server', 'client']);
  const b = labSpecFor(DEFAULTS, 'rb', ['server', 'client']);
  t.not(a.machines[0]!.name, b.machines[0]!.name);
  t.equal(a.privateNetwork.name, b.privateNetwork.name, 'libvirt refuses two networks on one subnet, so runs share it');
  const other = structuredClone(DEFAULTS);
  other.lab.privateSubnet = '10.199.1.0/24';
  t.not(labSpecFor(other, 'ra', ['server']).privateNetwork.name, a.privateNetwork.name);
  t.not(a.privateNetwork.name, a.libvirt.managementNetwork.name);
});

t.test("a pair's spec is byte for byte what it was: no slot field, .10 and .11", async (t) => {
  const s = labSpecFor(DEFAULTS, 'r1', ['server', 'client']);
  t.equal(
    JSON.stringify(s.machines),
    '[{"name":"r1-server","role":"server","privateIp":"10.199.0.10"},' +
      '{"name":"r1-client","role":"client","privateIp":"10.199.0.11"}]',
  );
});

t.test('1+2 and 3+2: numbered slots, addresses in slot order, the slot carried for the hostname', async (t) => {
  const c = structuredClone(DEFAULTS);
  c.lab.clients = 2;
  t.same(labSpecFor(c, 'r2', ['server', 'client']).machines, [
    { name: 'r2-server-1', role: 'server', slot: 'server-1', privateIp: '10.199.0.10' },
    { name: 'r2-client-1', role: 'client', slot: 'client-1', privateIp: '10.199.0.11' },
    { name: 'r2-client-2', role: 'client', slot: 'client-2', privateIp: '10.199.0.12' },
  ]);
  t.same(
    labSpecFor(c, 'r2', ['client']).machines.map((m) => `${m.slot}@${m.privateIp}`),
    ['client-1@10.199.0.11', 'client-2@10.199.0.12'],
    'a clients-only scenario keeps the addresses of the full topology',
  );
  c.lab.servers = 3;
  const s = labSpecFor(c, 'r3', ['server', 'client']);
  t.same(
    s.machines.map((m) => `${m.name}:${m.role}:${m.slot}:${m.privateIp}`),
    [
      'r3-server-1:server:server-1:10.199.0.10',
      'r3-server-2:server:server-2:10.199.0.11',
      'r3-server-3:server:server-3:10.199.0.12',
      'r3-client-1:client:client-1:10.199.0.13',
      'r3-client-2:client:client-2:10.199.0.14',
    ],
  );
});
