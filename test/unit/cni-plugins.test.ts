// The CNI plugins on an existing client (lib/cluster/cni-plugins.ts): the probe's output read back, and the install
// and uninstall scripts run for real by bash on a scratch tree (a plugin dir with a pre-existing plugin of another
// version, an unrelated plugin, and a missing level), so "teardown removes exactly what the harness put there" is
// proven on real files, not on the script's text.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CNI_PLUGINS_VERSION,
  cniInstallScript,
  cniProbeCommand,
  cniUninstallScript,
  describeCniProbe,
  manifestOf,
  parseCniProbe,
} from '../../lib/cluster/cni-plugins.js';
import { interfaceWithAddress } from '../../lib/parse/ip-addr.js';

const bash = (script: string) => execFileSync('bash', ['-c', script], { encoding: 'utf8' });
const plugin = (name: string, version: string) => `#!/bin/sh\necho "CNI ${name} plugin ${version}" >&2\n`;

t.test('the probe, run by bash on real files, tells absent, right and other versions apart', async (t) => {
  const dir = t.testdir({
    bridge: plugin('bridge', 'v1.6.2'),
    firewall: plugin('firewall', 'v1.1.1'),
    loopback: 'not executable',
  });
  bash(`chmod +x ${dir}/bridge ${dir}/firewall`);
  const states = parseCniProbe(bash(cniProbeCommand(dir)), CNI_PLUGINS_VERSION);
  t.same(states, [
    { plugin: 'bridge', state: 'ok', got: 'CNI bridge plugin v1.6.2' },
    { plugin: 'firewall', state: 'other', got: 'CNI firewall plugin v1.1.1' },
    { plugin: 'host-local', state: 'absent', got: '' },
    { plugin: 'loopback', state: 'absent', got: '' },
    { plugin: 'portmap', state: 'absent', got: '' },
  ]);
  t.equal(
    describeCniProbe(states, 'v1.6.2'),
    'missing host-local, loopback, portmap; not v1.6.2: firewall (CNI firewall plugin v1.1.1)',
  );
  t.equal(
    describeCniProbe(
      states.filter((s) => s.state === 'ok'),
      'v1.6.2',
    ),
    'all at v1.6.2',
  );
  // Debian's 1.1.1 package prints "version unknown": not the wanted version
  t.match(parseCniProbe('bridge present CNI bridge plugin version unknown', 'v1.6.2')[0], { state: 'other' });
});

t.test('install then uninstall: added plugins go, the replaced one comes back, the rest stays', async (t) => {
  const root = t.testdir({ upload: {}, opt: { cni: { bin: {} } } });
  const dir = join(root, 'opt/cni/bin');
  const state = join(root, 'state');
  writeFileSync(join(dir, 'firewall'), plugin('firewall', 'v1.1.1'));
  writeFileSync(join(dir, 'vlan'), "the user's own plugin");
  writeFileSync(join(dir, 'bridge'), plugin('bridge', 'v1.6.2'), { mode: 0o755 });
  for (const p of ['firewall', 'portmap']) writeFileSync(join(root, 'upload', p), plugin(p, 'v1.6.2'));
  bash(cniInstallScript(dir, join(root, 'upload'), ['firewall', 'portmap'], state));
  t.match(readFileSync(join(dir, 'firewall'), 'utf8'), /v1\.6\.2/, 'firewall replaced by the wanted version');
  t.match(readFileSync(join(dir, 'portmap'), 'utf8'), /v1\.6\.2/, 'portmap added');
  t.notOk(existsSync(join(root, 'upload')), 'the upload dir is gone');
  t.same(readFileSync(manifestOf(state), 'utf8').trim().split('\n'), [
    `replaced ${dir}/firewall ${state}/cni-replaced/firewall`,
    `added ${dir}/portmap`,
  ]);
  const after = parseCniProbe(bash(cniProbeCommand(dir)), 'v1.6.2').map((s) => s.state);
  t.same(after, ['ok', 'ok', 'absent', 'absent', 'ok'], 'installed with mode 0755');
  bash(cniUninstallScript(state));
  t.same(readdirSync(dir).sort(), ['bridge', 'firewall', 'vlan'], 'portmap removed, nothing else');
  t.match(readFileSync(join(dir, 'firewall'), 'utf8'), /v1\.1\.1/, 'the replaced firewall is back');
  t.notOk(existsSync(state), 'the harness state dir is gone');
  bash(cniUninstallScript(state));
  t.same(readdirSync(dir).sort(), ['bridge', 'firewall', 'vlan'], 'a second teardown changes nothing');
});

t.test('a plugin dir the harness made is removed level by level, never a level that was there', async (t) => {
  const root = t.testdir({ upload: { bridge: plugin('bridge', 'v1.6.2') }, opt: {} });
  const dir = join(root, 'opt/cni/bin');
  const state = join(root, 'state');
  bash(cniInstallScript(dir, join(root, 'upload'), ['bridge'], state));
  t.ok(existsSync(join(dir, 'bridge')));
  t.match(readFileSync(manifestOf(state), 'utf8'), `created ${root}/opt/cni\ncreated ${dir}\nadded ${dir}/bridge\n`);
  t.notMatch(readFileSync(manifestOf(state), 'utf8'), `created ${root}/opt\n`, 'opt existed');
  bash(cniUninstallScript(state));
  t.ok(existsSync(join(root, 'opt')), 'the pre-existing level stays');
  t.notOk(existsSync(join(root, 'opt/cni')), 'the levels the harness made are gone');
  mkdirSync(join(root, 'upload2'));
  writeFileSync(join(root, 'upload2', 'bridge'), plugin('bridge', 'v1.6.2'));
  bash(cniInstallScript(dir, join(root, 'upload2'), ['bridge'], state));
  writeFileSync(join(dir, 'theirs'), 'someone added a plugin meanwhile');
  bash(cniUninstallScript(state));
  t.same(readdirSync(dir), ['theirs'], 'a dir the harness made but someone else filled stays');
});

t.test('the interface holding an address, from `ip -o addr show` recorded here', async (t) => {
  const text = [
    '1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever',
    '1: lo    inet6 ::1/128 scope host \\       valid_lft forever preferred_lft forever',
    '4: eth0    inet 192.0.2.2/24 brd 192.0.2.255 scope global eth0\\       valid_lft forever preferred_lft forever',
    '4: eth0    inet6 fd00::2/64 scope global nodad \\       valid_lft forever preferred_lft forever',
    '5: br0.10@br0    inet 10.198.0.11/24 brd 10.198.0.255 scope global br0.10\\       valid_lft forever',
  ].join('\n');
  t.equal(interfaceWithAddress(text, '192.0.2.2'), 'eth0');
  t.equal(interfaceWithAddress(text, 'fd00::2'), 'eth0');
  t.equal(interfaceWithAddress(text, '10.198.0.11'), 'br0.10', 'a VLAN interface without its @parent');
  t.equal(interfaceWithAddress(text, '192.0.2.22'), undefined, 'no prefix match');
});
