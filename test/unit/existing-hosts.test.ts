// lab.provider ssh: one machine named by two host entries (lib/cli/existing-hosts.ts, Q334), the pure parts: the one
// form of an address, and which entries name one machine (address, port and jump host alike).
import t from 'tap';
import { configOf, yaml } from '../helpers/config-sources.js';
import { machineAddress, sameMachineTwiceProblems } from '../../lib/cli/existing-hosts.js';

t.test('an address in one form: case, brackets, a trailing dot, IPv6 and IPv4 spellings', async (t) => {
  const same: [string, string][] = [
    ['Box.Example.', 'box.example'],
    [' 203.0.113.10 ', '203.0.113.10'],
    ['203.0.113.10.', '203.0.113.10'],
    ['127.1', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['2001:DB8:0:0::0:1', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['::ffff:203.0.113.10', '203.0.113.10'],
    ['::FFFF:CB00:710A', '203.0.113.10'],
    ['FE80::1%eth0', 'fe80::1%eth0'],
  ];
  for (const [raw, form] of same) t.equal(machineAddress(raw), form, raw);
  // names stay names: never resolved, so a name and an IP address of one machine differ
  t.equal(machineAddress('localhost'), 'localhost');
  t.not(machineAddress('localhost'), machineAddress('127.0.0.1'));
  t.not(machineAddress('box'), machineAddress('box.example'));
  // what no parser should take apart is compared as written (lower case)
  t.equal(machineAddress('root:pw@127.0.0.1'), 'root:pw@127.0.0.1');
  t.equal(machineAddress('not an address'), 'not an address');
});

const HOST = 'user: admin, key: ./k';
const SERVER = `    servers: [{ address: 198.51.100.1, ${HOST} }]\n`;
const problems = (hosts: string) =>
  sameMachineTwiceProblems(configOf({ file: yaml(`lab:\n  provider: ssh\n  hosts:\n${hosts}`) }));

t.test('a server and a client, or two clients, on one machine: a problem for the later entry', async (t) => {
  const pasted = problems(
    `    servers: [{ address: 203.0.113.10, ${HOST} }]\n    clients: [{ address: 203.0.113.10, ${HOST} }]\n`,
  );
  t.same(
    pasted.map((p) => [p.field, p.value]),
    [['lab.hosts.clients[0].address', '203.0.113.10']],
  );
  t.match(pasted[0], {
    message: /^names the machine lab\.hosts\.servers\[0\] names \(203\.0\.113\.10, port 22\): each host is a machine/,
    fix: /give lab\.hosts\.clients\[0\] another machine \(address or port\), or remove it/,
  });
  const clients = problems(
    `${SERVER}    clients:\n      - { address: Box.Example, ${HOST} }\n      - { address: 203.0.113.11, ${HOST} }\n` +
      `      - { address: box.example., user: other, key: ./other, port: 22 }\n      - { address: '[::1]', ${HOST} }\n` +
      `      - { address: '0:0:0:0:0:0:0:1', ${HOST} }\n`,
  );
  t.same(
    clients.map((p) => p.field),
    ['lab.hosts.clients[2].address', 'lab.hosts.clients[4].address'],
    'another user or key is the same machine; each later entry once',
  );
  t.match(clients[0]?.message, /names the machine lab\.hosts\.clients\[0\] names \(box\.example\., port 22\)/);
  const legacy = problems(`    server: { address: 10.0.0.5, ${HOST} }\n    client: { address: 10.0.0.5, ${HOST} }\n`);
  t.same(
    legacy.map((p) => p.field),
    ['lab.hosts.client.address'],
    'the older one-host form is named as written',
  );
});

t.test('another port, another jump host, or a name and an IP address: taken', async (t) => {
  t.same(
    problems(
      `    servers: [{ address: 127.0.0.1, port: 2201, ${HOST} }]\n` +
        `    clients:\n      - { address: 127.0.0.1, port: 2202, ${HOST} }\n` +
        `      - { address: 10.0.0.5, ${HOST}, jump: bastion-a }\n      - { address: 10.0.0.5, ${HOST}, jump: bastion-b }\n` +
        `      - { address: 10.0.0.5, ${HOST} }\n      - { address: localhost, port: 2201, ${HOST} }\n`,
    ),
    [],
  );
});

t.test('one jump host however it is written (its user is not the machine behind it)', async (t) => {
  const jumped = problems(
    `${SERVER}    clients:\n      - { address: 10.0.0.5, ${HOST}, jump: admin@Bastion.example }\n` +
      `      - { address: 10.0.0.5, ${HOST}, jump: 'ops@bastion.example.:22' }\n` +
      `      - { address: 10.0.0.5, ${HOST}, jump: 'bastion.example:2222' }\n`,
  );
  t.same(
    jumped.map((p) => p.field),
    ['lab.hosts.clients[1].address'],
  );
  t.match(jumped[0]?.message, /\(10\.0\.0\.5, port 22, through ops@bastion\.example\.:22\)/);
});

t.test('another provider: no problem (its machines are its own)', async (t) => {
  const c = configOf({ file: yaml('lab:\n  provider: libvirt\n') });
  t.same(sameMachineTwiceProblems(c), []);
});
