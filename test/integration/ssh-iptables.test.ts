// The iptables part of an existing host's teardown (lib/lab/ssh/ssh-iptables.ts) against the rules the REAL CNI plugins
// v1.6.2 make: bridge (ipMasq), firewall and portmap ADD two allocs the way Nomad's bridge conflist chains them, in a
// scratch network namespace (its own iptables; the host's stack is never touched), next to rules of the host's own
// (a user masquerade rule, another CNI network's chain). After the cleanup script ran there, every per-alloc rule and
// chain of network "nomad" is gone and every other rule is as it was.
import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { homedir } from 'node:os';
import { bridgeNetConfig } from '../../lib/cni/config.js';
import { CNI_PLUGINS_VERSION } from '../../lib/cluster/cni-plugins.js';
import { cniIptablesCleanupScript } from '../../lib/lab/ssh/ssh-iptables.js';

const PLUGINS = join(
  process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'),
  'nomad-reboot-harness',
  `cni-plugins-${CNI_PLUGINS_VERSION}`,
);
const skip =
  process.getuid?.() !== 0
    ? 'needs root for network namespaces'
    : !existsSync(join(PLUGINS, 'portmap'))
      ? `no CNI plugins in ${PLUGINS} (run: npx tsx vms/build-cni-plugins.ts)`
      : spawnSync('iptables', ['--version']).status !== 0
        ? 'iptables is not installed'
        : false;

t.test('the teardown removes the per-alloc rules of network "nomad" and nothing else', { skip }, async (t) => {
  const host = `nrh-ipt-${process.pid}`;
  const allocs = ['aaaaaaaa-1111', 'bbbbbbbb-2222'];
  const ctrs = allocs.map((a) => `${host}-${a.slice(0, 4)}`);
  for (const ns of [host, ...ctrs]) execFileSync('ip', ['netns', 'add', ns]);
  t.teardown(() => {
    for (const ns of [...ctrs, host]) spawnSync('ip', ['netns', 'del', ns]);
  });
  execFileSync('ip', ['-n', host, 'link', 'set', 'lo', 'up']);
  const dataDir = t.testdir({});
  const inHost = (file: string, args: string[], o: { input?: string; env?: Record<string, string> } = {}) =>
    execFileSync(
      'ip',
      ['netns', 'exec', host, 'env', ...Object.entries(o.env ?? {}).map(([k, v]) => `${k}=${v}`), file, ...args],
      { encoding: 'utf8', ...(o.input ? { input: o.input } : {}) },
    );
  const iptables = (table: string) => inHost('iptables', ['-t', table, '-S']);
  // the host's own rules, which must survive
  inHost('iptables', [
    '-t',
    'nat',
    '-A',
    'POSTROUTING',
    '-s',
    '10.9.9.0/24',
    '-m',
    'comment',
    '--comment',
    'user rule',
    '-j',
    'MASQUERADE',
  ]);
  inHost('iptables', ['-t', 'nat', '-N', 'CNI-0123456789abcdef01234567']);
  inHost('iptables', [
    '-t',
    'nat',
    '-A',
    'POSTROUTING',
    '-s',
    '10.88.0.5/32',
    '-m',
    'comment',
    '--comment',
    'name: "podman" id: "x"',
    '-j',
    'CNI-0123456789abcdef01234567',
  ]);
  const before = { nat: iptables('nat'), filter: iptables('filter') };
  allocs.forEach((id, i) => {
    const env = {
      CNI_COMMAND: 'ADD',
      CNI_CONTAINERID: id,
      CNI_NETNS: `/var/run/netns/${ctrs[i]}`,
      CNI_IFNAME: 'eth0',
      CNI_PATH: PLUGINS,
    };
    const prev = JSON.parse(
      inHost(join(PLUGINS, 'bridge'), [], { env, input: JSON.stringify(bridgeNetConfig({ dataDir })) }),
    );
    const base = { cniVersion: '0.4.0', name: 'nomad', prevResult: prev };
    inHost(join(PLUGINS, 'firewall'), [], {
      env,
      input: JSON.stringify({ ...base, type: 'firewall', backend: 'iptables', iptablesAdminChainName: 'NOMAD-ADMIN' }),
    });
    inHost(join(PLUGINS, 'portmap'), [], {
      env,
      input: JSON.stringify({
        ...base,
        type: 'portmap',
        capabilities: { portMappings: true },
        snat: true,
        runtimeConfig: { portMappings: [{ hostPort: 25000 + i, containerPort: 8080, protocol: 'tcp' }] },
      }),
    });
  });
  const during = { nat: iptables('nat'), filter: iptables('filter') };
  t.equal(during.nat.match(/^-A POSTROUTING .*name: \\"nomad\\"/gm)?.length, 2, 'the real plugins made the masquerade');
  t.equal(during.nat.match(/^-N CNI-DN-/gm)?.length, 2, 'and the port maps');
  t.equal(during.filter.match(/^-A CNI-FORWARD -[sd] 172\.26\.64\.\d+\/32/gm)?.length, 4, 'and the forward rules');
  inHost('sh', ['-c', cniIptablesCleanupScript()]);
  const after = { nat: iptables('nat'), filter: iptables('filter') };
  t.notMatch(after.nat, /name: \\"nomad\\"/, 'no rule of network nomad left');
  t.notMatch(after.nat, /^-N CNI-(DN-)?[0-9a-f]{16,}$(?<!CNI-0123456789abcdef01234567)/m, 'no per-alloc chain left');
  t.notMatch(after.filter, /172\.26\.6[4-9]|172\.26\.7\d/, 'no forward rule of an alloc address left');
  // the plugins' shared chains (and the jumps into them) stay: empty once the allocs' rules are gone
  const SHARED = '(CNI-HOSTPORT-\\w+|CNI-FORWARD|NOMAD-ADMIN)';
  const shared = new RegExp(`^-N ${SHARED}$|^-A ${SHARED} |-j ${SHARED}$`);
  const withoutShared = (s: string) =>
    s
      .split('\n')
      .filter((l) => !shared.test(l))
      .join('\n');
  t.equal(withoutShared(after.nat), withoutShared(before.nat), "nat: every other rule as before (podman's too)");
  t.equal(withoutShared(after.filter), withoutShared(before.filter), 'filter: as before, but the shared empty chains');
  inHost('sh', ['-c', cniIptablesCleanupScript()]);
  t.equal(iptables('nat'), after.nat, 'a second run changes nothing');
});
