// lab.provider: ssh, the pure parts: its config (every missing host field at once, a hard reboot needs a reset
// command, lab.hosts only with ssh; lib/lab/ssh/ssh-validate.ts and its capabilities), scenarios_dir, the reset argv, and the cleanup script run on each host.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { configOf, problemsOf, yaml } from '../helpers/config-sources.js';
import { scenariosDirOf } from '../../lib/config/scenarios-dir.js';
import { resetArgv, targetOf } from '../../lib/lab/ssh/ssh-lab.js';
import { splitJump } from '../../lib/config/network-fields.js';
import { sshHostCleanupScript } from '../../lib/lab/ssh/ssh-cleanup.js';

const [ok, bad] = [configOf, problemsOf];
/** A fresh ed25519 key pair (OpenSSH's own ssh-keygen, as a person makes one), with a passphrase when given. */
const keygen = (path: string, passphrase = '') =>
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'test', '-f', path], { stdio: 'ignore' });

const HOSTS = `lab:
  provider: ssh
  hosts:
    server: { address: 203.0.113.10, user: admin, key: ~/.ssh/id_ed25519 }
    client: { address: 203.0.113.11, user: admin, key: ~/.ssh/id_ed25519, port: 2222 }
`;

t.test('a complete ssh lab', async (t) => {
  const c = ok({ file: yaml(HOSTS) });
  t.equal(c.lab.provider, 'ssh');
  t.same(c.lab.hosts.client, {
    address: '203.0.113.11',
    user: 'admin',
    key: '~/.ssh/id_ed25519',
    port: 2222,
    jump: undefined,
  });
  t.equal(c.lab.hosts.server.port, 22, 'default port');
  const text = `${HOSTS}  hard_reset_command: ipmitool -H {address} power reset\nreboot: { kind: hard }\n`;
  const reset = ok({ file: yaml(text) });
  t.same(reset.lab.hardResetCommand, ['ipmitool', '-H', '{address}', 'power', 'reset'], 'a string is split into words');
  const list = ok({ file: yaml(`${HOSTS}  hard_reset_command: [virsh, reset, "lab {role}"]\n`) });
  t.same(list.lab.hardResetCommand, ['virsh', 'reset', 'lab {role}'], 'a list is kept as given');
});

t.test('every missing host field at once, each with its fix', async (t) => {
  const p = bad({
    file: yaml('lab:\n  provider: ssh\n  hosts:\n    client: { user: admin, port: 0 }\n'),
    flags: { reboot: 'hard' },
  });
  t.same(
    p.map((x) => x.field),
    [
      'harness.yaml: lab.hosts.client.port',
      'harness.yaml: lab.hosts.servers',
      'harness.yaml: lab.hosts.client.address',
      'harness.yaml: lab.hosts.client.key',
      '--reboot (reboot.kind)',
    ],
  );
  t.match(p.at(-1), { message: /lab.provider ssh cannot do hard: no lab\.hard_reset_command/, fix: /ipmitool/ });
  t.match(bad({ file: yaml(`${HOSTS}  hard_reset_command: []\n`) }), [
    { field: 'harness.yaml: lab.hard_reset_command', message: /a list of words/ },
  ]);
});

t.test(
  'a scenario that uses only the client needs no server host; a host given in part is still checked',
  async (t) => {
    const client = 'lab:\n  provider: ssh\n  hosts:\n    client: { address: 203.0.113.11, user: admin, key: /k }\n';
    t.equal(ok({ file: yaml(client), roles: ['client'] }).lab.hosts.client.address, '203.0.113.11');
    t.same(
      bad({ file: yaml(client) }).map((x) => x.field),
      ['harness.yaml: lab.hosts.servers'],
      'both roles by default',
    );
    const partServer = `${client}    server: { address: 203.0.113.10 }\n`;
    t.match(bad({ file: yaml(partServer), roles: ['client'] }), [
      {
        field: 'harness.yaml: lab.hosts.server.user',
        message: 'is required for a host given in part (lab.hosts.server)',
      },
      { field: 'harness.yaml: lab.hosts.server.key' },
    ]);
  },
);

t.test(
  'jump hosts: [user@]host[:port], reached with the same key; lab.hosts without provider ssh is an error',
  async (t) => {
    t.equal(
      ok({ file: yaml(HOSTS.replace('port: 2222', 'port: 2222, jump: ops@bastion:2200')) }).lab.hosts.client.jump,
      'ops@bastion:2200',
    );
    t.match(bad({ file: yaml(HOSTS.replace('port: 2222', 'port: 2222, jump: "a b"')) }), [
      { field: 'harness.yaml: lab.hosts.client.jump', message: 'must be [user@]host[:port]' },
    ]);
    t.same(splitJump('bastion'), { user: undefined, host: 'bastion', port: undefined });
    t.same(splitJump('ops@10.0.0.1:2200'), { user: 'ops', host: '10.0.0.1', port: 2200 });
    t.same(splitJump('[fe80::1]:22'), { user: undefined, host: 'fe80::1', port: 22 });
    for (const badJump of ['', 'a@', 'h:0', 'h:70000', 'fe80::1', 'a b'])
      t.equal(splitJump(badJump), undefined, badJump);
    const target = targetOf('client', {
      address: '10.0.0.11',
      user: 'admin',
      key: '/k',
      port: 22,
      jump: 'bastion:2200',
    });
    t.match(target, {
      hostName: '10.0.0.11',
      user: 'admin',
      jump: { hostName: 'bastion', port: 2200, user: 'admin', identityFiles: ['/k'] },
    });
    t.notOk(targetOf('server', { address: 'a', user: 'u', key: '/k', port: 22, jump: undefined }).jump);
    t.match(bad({ file: yaml(HOSTS.replace('provider: ssh', 'provider: libvirt')) }), [
      { field: 'harness.yaml: lab.hosts', message: /only used with lab\.provider: ssh/ },
    ]);
    t.match(bad({ file: yaml('lab:\n  hosts:\n    server: { adress: x }\n') }), [
      {
        field: 'harness.yaml: lab.hosts.server.adress',
        message: 'is not a known key',
        fix: /lab\.hosts\.server\.address/,
      },
    ]);
  },
);

t.test('scenarios_dir: flag > env > harness.yaml; a bad value is left to resolveConfig', async (t) => {
  t.same(
    scenariosDirOf({
      file: { scenarios_dir: './f' },
      env: { HARNESS_SCENARIOS_DIR: './e' },
      flags: { scenarios: './x' },
    }),
    { dir: './x', field: '--scenarios' },
  );
  t.same(scenariosDirOf({ file: { scenarios_dir: './f' }, env: { HARNESS_SCENARIOS_DIR: './e' }, flags: {} }), {
    dir: './e',
    field: 'env HARNESS_SCENARIOS_DIR',
  });
  t.same(scenariosDirOf({ file: { scenarios_dir: './f' }, fileName: 'h.yaml', env: {}, flags: {} }), {
    dir: './f',
    field: 'h.yaml: scenarios_dir',
  });
  t.equal(scenariosDirOf({ file: undefined, env: {}, flags: {} }), undefined);
  t.match(bad({ file: { scenarios_dir: 3 } }), [
    { field: 'harness.yaml: scenarios_dir', message: 'must be a non-empty string' },
  ]);
});

t.test('resetArgv replaces {role} and {address} in every word; no shell', async (t) => {
  t.same(resetArgv(['ipmitool', '-H', '{address}', 'power', 'reset'], 'client', '10.0.0.2'), [
    'ipmitool',
    ['-H', '10.0.0.2', 'power', 'reset'],
  ]);
  t.same(resetArgv(['virsh', 'reset', 'nrh-{role}', '{address};rm'], 'server', 'h'), [
    'virsh',
    ['reset', 'nrh-server', 'h;rm'],
  ]);
});

t.test(
  'the host cleanup stops Nomad, removes its data, namespaces, bridge, state and files, and keeps the host',
  async (t) => {
    const s = sshHostCleanupScript();
    t.match(s, /systemctl disable --now nomad\.service/);
    t.match(s, /pkill -TERM -f '\^\/usr\/local\/bin\/nomad\( \|\$\)'[\s\S]*pkill -KILL/);
    t.match(s, /umount -l/);
    t.match(s, /ip netns delete/);
    t.match(s, /ip link delete nomad/);
    for (const p of [
      '/var/lib/nomad',
      '/var/run/cni/nomad',
      '/var/lib/cni/networks/nomad',
      '/usr/local/bin/nomad',
      '/etc/nomad.d/nomad.hcl',
      '/etc/systemd/system/nomad.service',
    ]) {
      t.match(s, new RegExp(`rm -rf .*${p.replaceAll('/', '\\/').replaceAll('.', '\\.')}`), p);
    }
    t.match(s, /ip link delete nomadtmp/, "the cni-ipam-reboot probe's second bridge");
    const cgroup =
      /find \/sys\/fs\/cgroup\/nomad\.slice -name cgroup\.procs[\s\S]*kill -KILL[\s\S]*-depth -type d -exec rmdir/;
    t.match(s, cgroup, "the tasks in Nomad's cgroup are killed, then its cgroups removed");
    t.match(s, /ip netns delete cni-persistent[\s\S]*ip netns delete cni-tmpfs/, "the probe's namespaces");
    t.match(
      s,
      /tac '?\/var\/lib\/nomad-reboot-harness\/cni-manifest'?[\s\S]*rm -rf '?\/var\/lib\/nomad-reboot-harness'?/,
      'the CNI plugins it installed, by its manifest (run for real in test/unit/cni-plugins.test.ts)',
    );
    t.notMatch(
      s,
      /systemctl (reboot|poweroff|halt)|\bshutdown\b|rm -rf \/etc\/nomad\.d( |$)/m,
      'never stops the machine or removes a directory it did not make',
    );
  },
);

t.test('lab.hosts_netns: the namespace existing hosts are reached from, only with provider ssh', async (t) => {
  t.equal(ok({ file: yaml(HOSTS), flags: { 'hosts-netns': 'nrh-lab' } }).lab.hostsNetns, 'nrh-lab');
  t.equal(ok({ file: yaml(HOSTS) }).lab.hostsNetns, '', 'default: where the CLI runs');
  t.match(bad({ file: yaml(`${HOSTS}  hosts_netns: "a b"\n`) }), [{ field: 'harness.yaml: lab.hosts_netns' }]);
  t.match(bad({ flags: { 'hosts-netns': 'nrh-lab' } }), [
    { field: 'lab.hosts_netns', value: 'nrh-lab', message: /only used with lab\.provider: ssh/, fix: /lab\.netns/ },
  ]);
});

t.test(
  'preflight of existing hosts: unreadable keys and no way to get the CNI plugins, all at once (exit 2)',
  async (t) => {
    const { existingHostsPreflight } = await import('../../lib/lab/ssh/ssh-preflight.js');
    const dir = t.testdir({});
    keygen(join(dir, 'key'));
    const c = ok({
      file: yaml(
        HOSTS.replace('~/.ssh/id_ed25519 }', `${dir}/key }`).replace('~/.ssh/id_ed25519,', '/nonexistent/key,'),
      ),
    });
    const noGo = { env: { PATH: '/nonexistent', XDG_CACHE_HOME: dir }, fallbackGo: '/nonexistent/go' };
    const p = await existingHostsPreflight(c, { build: noGo });
    t.match(p, [
      { field: 'lab.hosts.client.key', value: '/nonexistent/key', message: 'cannot be read (ENOENT)' },
      {
        field: 'lab.provider',
        value: 'ssh',
        message: /needs the CNI reference plugins v1\.6\.2 .*Go is missing/,
        fix: /install Go >= 1\.21/,
      },
    ]);
    t.equal(p.length, 2, 'the readable server key is no problem');
    t.same(await existingHostsPreflight(ok({})), [], 'other providers: nothing to check');
  },
);

t.test(
  'host keys ssh could not use are named before anything runs: a directory, garbage, a .pub, encrypted',
  async (t) => {
    const { hostKeyProblems } = await import('../../lib/lab/ssh/ssh-preflight.js');
    const dir = t.testdir({ keys: {}, junk: 'not a key\n' });
    keygen(join(dir, 'id'));
    keygen(join(dir, 'good'));
    keygen(join(dir, 'enc'), 'a passphrase');
    const hosts = (server: string, client: string) =>
      ok({
        file: yaml(HOSTS.replace('~/.ssh/id_ed25519 }', `${server} }`).replace('~/.ssh/id_ed25519,', `${client},`)),
      });
    const fix = /give the path of the private key \(e\.g\. ~\/\.ssh\/id_ed25519, not the \.pub\) that logs in to the/;
    t.match(await hostKeyProblems(hosts('keys', 'junk'), dir), [
      { field: 'lab.hosts.server.key', value: 'keys', message: 'is a directory, not a key file', fix },
      { field: 'lab.hosts.client.key', value: 'junk', message: /^is not a private key ssh can use: /, fix },
    ]);
    t.match(await hostKeyProblems(hosts('id.pub', 'enc'), dir), [
      { field: 'lab.hosts.server.key', message: /a public key, not the private key/ },
      { field: 'lab.hosts.client.key', message: /Encrypted private OpenSSH key detected, but no passphrase given/ },
    ]);
    t.same(
      await hostKeyProblems(hosts('good', `${dir}/good`), dir),
      [],
      'relative to the working directory or absolute',
    );
    t.same(await hostKeyProblems(ok({}), dir), [], 'other providers: nothing to check');
    const h = (key: string, n: number) => `{ address: 203.0.113.${n}, user: admin, key: ${key} }`;
    const lists = ok({
      file: yaml(
        `lab:\n  provider: ssh\n  hosts:\n    servers: [${h('good', 10)}]\n` +
          `    clients: [${h('good', 11)}, ${h('id.pub', 12)}]\n`,
      ),
    });
    t.match(await hostKeyProblems(lists, dir), [
      {
        field: 'lab.hosts.clients[1].key',
        value: 'id.pub',
        message: /a public key, not the private key/,
        fix: /that logs in to the client-2$/,
      },
    ]);
    t.equal((await hostKeyProblems(lists, dir)).length, 1, 'the readable keys of the list are no problem');
  },
);

t.test('fault kinds on existing hosts: a hard reset only with lab.hard_reset_command, never a power off', async (t) => {
  // the provider's capabilities are asked while the config is resolved, for every scenario (lib/lab/providers.ts)
  const { faultProblems } = await import('../../lib/steps/fault-step.js');
  const text = `${HOSTS}  hard_reset_command: [virsh, reset, "lab-{role}"]\nreboot: { kind: hard }\n`;
  const withReset = ok({ file: yaml(text) });
  t.same(faultProblems('cni-ipam-reboot', withReset, { hasNomadAgent: false }), [], 'hard with a reset command');
  t.match(bad({ file: yaml(`${HOSTS}reboot: { kind: hard }\n`) }), [
    {
      field: '--reboot (reboot.kind)',
      message: 'cannot be done here: lab.provider ssh cannot do hard: no lab.hard_reset_command',
      fix: /^set lab.hard_reset_command, e.g. .*, or use one of: graceful, panic, agent-kill, executor-kill, partition, link-flap, link-loss$/,
    },
  ]);
  t.match(bad({ file: yaml(`${HOSTS}reboot: { kind: power-off }\n`) }), [
    {
      message:
        'cannot be done here: lab.provider ssh cannot do power-off: the harness has no power off/on for existing hosts',
      fix: 'use one of: graceful, panic, agent-kill, executor-kill, partition, link-flap, link-loss',
    },
  ]);
  const without = { ...withReset, lab: { ...withReset.lab, hardResetCommand: undefined } };
  t.same(faultProblems('cni-ipam-reboot', without, { hasNomadAgent: false }), [], "the lab's reasons are said once");
});

t.test('lab.hosts_netns that names no namespace is a problem of the input, once per name', async (t) => {
  const { hostsNetnsProblems } = await import('../../lib/cli/hosts-netns.js');
  const dir = t.testdir({ there: '' });
  const at = (ns: string) => ok({ file: yaml(HOSTS), flags: { 'hosts-netns': ns } });
  t.same(await hostsNetnsProblems([at('there')], { dir }), []);
  t.match(await hostsNetnsProblems([at('gone'), at('gone')], { dir }), [
    { field: 'lab.hosts_netns', value: 'gone', message: 'is not a network namespace here', fix: /ip netns list/ },
  ]);
  t.equal((await hostsNetnsProblems([at('gone'), at('gone')], { dir })).length, 1);
  t.same(await hostsNetnsProblems([at('gone')], { dir, insideNetns: true }), [], 'a re-run inside it found it');
  t.same(await hostsNetnsProblems([ok({ file: yaml(HOSTS) })], { dir }), [], 'none given: reached from here');
});

t.test(
  'preflight of existing hosts: a host whose SSH port does not answer is told in seconds, before the CNI build (N34)',
  async (t) => {
    const { existingHostsPreflight } = await import('../../lib/lab/ssh/ssh-preflight.js');
    const { EXIT, HarnessError } = await import('../../lib/errors.js');
    const dir = t.testdir({});
    keygen(join(dir, 'key'));
    const h = (port: number) => `{ address: 127.0.0.1, port: ${port}, user: admin, key: ${dir}/key }`;
    // port 1 on loopback refuses at once (nothing listens there)
    const c = ok({ file: yaml(`lab:\n  provider: ssh\n  hosts:\n    server: ${h(1)}\n    client: ${h(1)}\n`) });
    let built = 0;
    const build = {
      env: { PATH: '/nonexistent', XDG_CACHE_HOME: dir },
      fallbackGo: '/nonexistent/go',
      run: async () => {
        built++;
        throw new Error('no build may start');
      },
    };
    const asked: string[] = [];
    const err = await existingHostsPreflight(c, { build }).catch((e: unknown) => e);
    t.type(err, HarnessError);
    t.equal((err as InstanceType<typeof HarnessError>).exitCode, EXIT.INFRA);
    t.match(
      String(err),
      /^HarnessError: lab\.hosts\.server\.address: admin@127\.0\.0\.1:1 is not reachable over SSH: ECONNREFUSED; lab\.hosts\.client\.address: admin@127\.0\.0\.1:1 is not reachable over SSH: ECONNREFUSED \(nothing was built or changed\)$/,
    );
    t.equal(built, 0, 'nothing built');
    // every host asked, at once; hosts that answer go on to the build (Go missing here: a problem of the input)
    const p = await existingHostsPreflight(c, {
      build: { env: build.env, fallbackGo: build.fallbackGo },
      reach: async (host, port) => void asked.push(`${host}:${port}`),
    });
    t.same(asked, ['127.0.0.1:1', '127.0.0.1:1']);
    t.match(p, [{ field: 'lab.provider', message: /needs the CNI reference plugins/ }]);
  },
);

t.test(
  'with lab.hosts_netns the reach probe runs inside that namespace (before the re-run there), never from here',
  async (t) => {
    const { existingHostsPreflight } = await import('../../lib/lab/ssh/ssh-preflight.js');
    const { IN_NETNS_ENV } = await import('../../lib/lab/host/host.js');
    const dir = t.testdir({});
    keygen(join(dir, 'key'));
    const h = `{ address: 10.198.0.9, port: 2222, user: admin, key: ${dir}/key }`;
    const c = ok({
      file: yaml(`lab:\n  provider: ssh\n  hosts_netns: labns\n  hosts:\n    server: ${h}\n    client: ${h}\n`),
    });
    const calls: string[][] = [];
    const refused = async (file: string, args: readonly string[]) => {
      calls.push([file, ...args]);
      return { code: 1, stdout: '', stderr: '10.198.0.9: connect: Connection refused\nline 1: …', durationMs: 3 };
    };
    const saved = process.env[IN_NETNS_ENV];
    delete process.env[IN_NETNS_ENV];
    t.teardown(() => {
      if (saved !== undefined) process.env[IN_NETNS_ENV] = saved;
    });
    const err = await existingHostsPreflight(c, { run: refused }).catch((e: unknown) => String(e));
    const probe = ['ip', 'netns', 'exec', 'labns', 'timeout', '10', 'bash', '-c', 'exec 3<>"/dev/tcp/$0/$1"'];
    t.same(calls, [
      [...probe, '10.198.0.9', '2222'],
      [...probe, '10.198.0.9', '2222'],
    ]);
    t.match(
      err,
      'lab.hosts.client.address: admin@10.198.0.9:2222 is not reachable over SSH: Connection refused (from netns labns)',
    );
    const silent = async () => ({ code: 124, stdout: '', stderr: '', durationMs: 10_000 });
    t.match(
      await existingHostsPreflight(c, { run: silent }).catch((e: unknown) => String(e)),
      'is not reachable over SSH: no answer within 10 s (from netns labns)',
    );
  },
);
