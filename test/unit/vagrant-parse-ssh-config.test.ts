// parseSshConfig over recorded and constructed `vagrant ssh-config` text.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { parseSshConfig, sshTargetFor } from '../../lib/parse/ssh-config.js';
import { parseMachineReadable, sshConfigText } from '../../lib/parse/vagrant-machine-readable.js';

const fx = (f: string) => readFileSync(new URL(`../fixtures/vagrant/${f}`, import.meta.url), 'utf8');

t.test('two Host blocks (vm-lab.md sample)', async (t) => {
  const all = parseSshConfig(fx('ssh-config-two-hosts.txt'));
  t.same(
    all.map((x) => [x.host, x.hostName, x.port, x.user]),
    [
      ['server', '10.198.0.116', 22, 'vagrant'],
      ['client', '10.198.0.117', 22, 'vagrant'],
    ],
  );
  t.same(all[1]?.identityFiles, ['/tmp/vmlab/.vagrant/machines/client/libvirt/private_key']);
  t.equal(all[1]?.strictHostKeyChecking, false);
  t.equal(all[1]?.options['identitiesonly'], 'yes');
});

t.test('quoted IdentityFile with spaces, several keys, extra options', async (t) => {
  const x = sshTargetFor(fx('ssh-config-quoted-keys.txt'), 'nrh-abc123-client');
  t.same(x.identityFiles, [
    '/home/jo smith/runs/nrh abc/.vagrant/machines/nrh-abc123-client/virtualbox/private_key',
    '/home/jo/.vagrant.d/insecure_private_key',
  ]);
  t.equal(x.port, 2222);
  t.equal(x.options['hostkeyalgorithms'], '+ssh-rsa');
});

t.test('the text inside a machine-readable ssh-config record parses the same', async (t) => {
  const text = sshConfigText(parseMachineReadable(fx('ssh-config-client.mr.txt')), 'client')!;
  const x = sshTargetFor(text, 'client');
  t.equal(x.hostName, '10.198.0.232');
});

t.test('Key=value form and default port', async (t) => {
  const [x] = parseSshConfig('Host a\n  HostName=127.0.0.1\n  User=me\n');
  t.equal(x?.port, 22);
  t.equal(x?.user, 'me');
  t.equal(x?.strictHostKeyChecking, true, 'strict unless the config says no');
});

t.test('rejects text with no Host block, a block with no HostName, a bad port, a missing host', async (t) => {
  t.throws(
    () => parseSshConfig('A Vagrant environment or target machine is required'),
    /expected at least one "Host <name>" block; got "A Vagrant environment/,
  );
  t.throws(() => parseSshConfig('Host a\n  User vagrant\n'), /Host a has no HostName/);
  t.throws(() => parseSshConfig('Host a\n  HostName x\n  Port 99999\n'), /invalid Port "99999"/);
  t.throws(
    () => sshTargetFor(fx('ssh-config-two-hosts.txt'), 'nrh-zzz-client'),
    /expected a "Host nrh-zzz-client" block; got hosts server, client/,
  );
});
