// VM and e2e tiers of lab.provider ssh: VMs (server and client, or the client alone) the test itself brings up with the vagrant-libvirt lab (lib/lab) in
// the lab's network namespace, handed over to the CLI as existing hosts (harness.yaml lab.hosts, lab.hosts_netns), and
// destroyed at the end. Everything that talks to the VMs runs inside the namespace: Vagrant, the CLI, and this
// helper's own `ssh` (through `ip netns exec`). Run under `flock /work/vm.lock` like every VM-using command.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { DEFAULTS } from '../../lib/config/schema.js';
import { runCommand, type RunCommand } from '../../lib/exec/run.js';
import { ensureLabHost } from '../../lib/lab/host/host.js';
import { labSpecFor } from '../../lib/lab/vagrant/spec-for.js';
import { createVagrantLab } from '../../lib/lab/vagrant/vagrant-lab.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { VAGRANTFILE } from '../../lib/lab/vagrant/vagrant-provider.js';
import { quote } from '../../lib/shell/quote.js';
import { readMachineId } from '../../lib/vagrant/hypervisor.js';

/** How long two VMs may take to come up under emulation. */
const UP_MS = 20 * 60_000;

export interface HandedOverHost {
  role: string;
  address: string;
  port: number;
  user: string;
  key: string;
  /** the libvirt domain id (for `virsh reset`) */
  domain: string;
}

export interface HostsLab {
  runId: string;
  netns: string;
  /** the roles brought up (both, or the client alone for a client-only scenario) */
  roles: readonly Role[];
  hosts: { client: HandedOverHost; server?: HandedOverHost };
  /** run a root shell script on a host over SSH from inside the netns; stdout */
  sh(role: 'server' | 'client', script: string): string;
  /** harness.yaml for lab.provider ssh with these hosts; `edit` changes a host's fields or adds top-level lines */
  config(dir: string, o?: { client?: Partial<HandedOverHost>; resetCommand?: boolean }): string;
  /** destroy the VMs now (also registered as the test's teardown; idempotent) */
  destroy(): Promise<void>;
}

type Role = 'server' | 'client';

/**
 * Bring up a VM per role in `netns` (default a server and a client); their destroy is registered on `t` before
 * `vagrant up` starts. With `['client']`, `hosts.server` is absent and the config has no server host.
 */
export async function bringUpHosts(
  t: Test,
  netns: string,
  roles: readonly Role[] = ['server', 'client'],
): Promise<HostsLab> {
  const runId = `rhosts${Date.now().toString(36).slice(-7)}`;
  const config = { ...DEFAULTS, lab: { ...DEFAULTS.lab, libvirtDriver: 'qemu' as const } };
  await ensureLabHost({
    netns,
    deadline: deadlineIn(4 * 60_000),
    blackholes: [config.lab.managementSubnet, config.lab.privateSubnet],
  });
  const inNs: RunCommand = (file, args, opts) => runCommand('ip', ['netns', 'exec', netns, file, ...args], opts);
  const vagrantDir = join(config.lab.workDir, runId);
  const destroys: (() => Promise<void>)[] = [];
  let destroyed: Promise<void> | undefined;
  const destroy = () =>
    (destroyed ??= (async () => {
      for (const d of destroys.reverse()) await d();
    })());
  t.teardown(destroy);
  const lab = await createVagrantLab({
    spec: labSpecFor(config, runId, roles, 'qemu'),
    vagrantDir,
    vagrantfile: VAGRANTFILE,
    run: inNs,
    cleanup: (_what, fn) => void destroys.push(fn),
  }).up({ deadline: deadlineIn(UP_MS) });
  const hosts = {} as HostsLab['hosts'] & Partial<Record<Role, HandedOverHost>>;
  for (const role of roles) {
    const m = lab.machines[role]!;
    const { hostName, port, user, identityFiles } = (
      m as unknown as { target: import('../../lib/shell/target.js').SshTarget }
    ).target;
    const domain = await readMachineId(vagrantDir, m.name, 'libvirt');
    if (!domain) throw new Error(`no libvirt id for ${m.name} in ${vagrantDir}`);
    hosts[role] = { role, address: hostName, port, user, key: identityFiles[0]!, domain };
    await m.disconnect();
  }
  const sh = (role: 'server' | 'client', script: string): string => {
    const h = hosts[role];
    if (!h) throw new Error(`no ${role} host was brought up (roles: ${roles.join(', ')})`);
    return execFileSync(
      'ip',
      [
        'netns',
        'exec',
        netns,
        'ssh',
        '-i',
        h.key,
        '-p',
        String(h.port),
        '-o',
        'StrictHostKeyChecking=no',
        '-o',
        'UserKnownHostsFile=/dev/null',
        '-o',
        'LogLevel=ERROR',
        '-o',
        'BatchMode=yes',
        '-o',
        'ConnectTimeout=30',
        `${h.user}@${h.address}`,
        `sudo sh -c ${quote(script)}`,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
  };
  const config2 = (dir: string, o: Parameters<HostsLab['config']>[1] = {}): string => {
    const entry = (h: HandedOverHost) =>
      `{ address: ${h.address}, user: ${h.user}, key: ${JSON.stringify(h.key)}, port: ${h.port} }`;
    // the user's reset command: `virsh reset` of the client's domain, noting each call ({role} {address}) first
    const virsh = `virsh -c qemu:///system reset ${hosts.client.domain}`;
    const reset = ['sh', '-c', `echo "$0 $1" >> ${join(dir, 'resets.log')} && exec ${virsh}`, '{role}', '{address}'];
    const file = join(dir, `harness-${Math.random().toString(36).slice(2, 8)}.yaml`);
    writeFileSync(
      file,
      [
        'lab:',
        '  provider: ssh',
        `  hosts_netns: ${netns}`,
        '  hosts:',
        ...(hosts.server ? [`    server: ${entry(hosts.server)}`] : []),
        `    client: ${entry({ ...hosts.client, ...o.client })}`,
        ...(o.resetCommand ? [`  hard_reset_command: ${JSON.stringify(reset)}`] : []),
        '',
      ].join('\n'),
    );
    return file;
  };
  return { runId, netns, roles, hosts, sh, config: config2, destroy };
}

/** What the harness may leave on a host; teardown must leave none of it. */
export const HARNESS_PATHS = [
  '/var/lib/nomad',
  '/usr/local/bin/nomad',
  '/etc/nomad.d/nomad.hcl',
  '/etc/systemd/system/nomad.service',
  '/etc/modules-load.d/nomad-bridge.conf',
  '/etc/sysctl.d/90-nomad-bridge.conf',
  '/usr/local/lib/nomad-reboot-harness',
  '/var/lib/nomad-reboot-harness',
  '/var/lib/cni/networks/nomad',
  '/var/run/cni/nomad',
  '/sys/fs/cgroup/nomad.slice',
];

/** One host's state as the teardown assertions see it. */
export interface HostState {
  bootId: string;
  /** `sha256sum` of every file in /opt/cni/bin, sorted */
  plugins: string;
  /** HARNESS_PATHS that exist */
  paths: string[];
  /** processes of the harness's Nomad build, processes in Nomad's cgroup (tasks), links `nomad`/`nomadtmp`, netns */
  agents: number;
  tasks: number;
  /** iptables rules of network "nomad" */
  rules: number;
  links: string[];
  netns: string[];
}

/** Read a host's state (root, over SSH). */
export function hostState(lab: HostsLab, role: 'server' | 'client'): HostState {
  const out = lab.sh(
    role,
    [
      'echo "boot $(cat /proc/sys/kernel/random/boot_id)"',
      'for f in /opt/cni/bin/*; do echo "plugin $(sha256sum "$f")"; done',
      `for f in ${HARNESS_PATHS.join(' ')}; do [ -e "$f" ] && echo "path $f"; done`,
      'echo "agents $(pgrep -c -f "^/usr/local/bin/nomad( |$)")"',
      // per-alloc iptables rules of network "nomad" (nat, commented) and of its addresses (filter CNI-FORWARD)
      'echo "rules $(( $(iptables -t nat -S | grep -cF \'name: \\"nomad\\"\') + ' +
        "$(iptables -S CNI-FORWARD 2>/dev/null | grep -cE '172\\.26\\.(6[4-9]|7[0-9])\\.') ))\"",
      'echo "tasks $(find /sys/fs/cgroup/nomad.slice -name cgroup.procs 2>/dev/null | xargs -r cat | wc -l)"',
      'for l in nomad nomadtmp; do ip link show "$l" >/dev/null 2>&1 && echo "link $l"; done',
      'for n in $(ls /var/run/netns 2>/dev/null); do echo "netns $n"; done',
      'true',
    ].join('\n'),
  );
  const lines = (kind: string) =>
    out
      .split('\n')
      .filter((l) => l.startsWith(`${kind} `))
      .map((l) => l.slice(kind.length + 1));
  return {
    bootId: lines('boot')[0] ?? '',
    plugins: lines('plugin').sort().join('\n'),
    paths: lines('path'),
    agents: Number(lines('agents')[0] ?? 'NaN'),
    tasks: Number(lines('tasks')[0] ?? 'NaN'),
    rules: Number(lines('rules')[0] ?? 'NaN'),
    links: lines('link'),
    netns: lines('netns'),
  };
}

/**
 * Make the client's plugin dir one the harness must work around: portmap missing, firewall of another version (a
 * stand-in script printing what Debian's 1.1.1 would), and a plugin of the user's own that must survive.
 */
export function preconditionClientCni(lab: HostsLab): void {
  lab.sh(
    'client',
    [
      'set -e',
      'rm -f /opt/cni/bin/portmap',
      'printf \'#!/bin/sh\\necho "CNI firewall plugin v1.1.1" >&2\\n\' > /opt/cni/bin/firewall',
      "printf '#!/bin/sh\\nexit 0\\n' > /opt/cni/bin/users-own",
      'chmod 0755 /opt/cni/bin/firewall /opt/cni/bin/users-own',
    ].join('\n'),
  );
}

/** Assert a host after a teardown: up (same boot), no agent, no harness path, no CNI state, plugins as before. */
export function assertCleaned(t: Test, lab: HostsLab, role: 'server' | 'client', before: HostState, bootId?: string) {
  const now = hostState(lab, role);
  if (bootId) t.equal(now.bootId, bootId, `${role}: still up, not rebooted by the teardown`);
  t.equal(now.agents, 0, `${role}: no Nomad agent or executor process of the build`);
  t.equal(now.tasks, 0, `${role}: no task left in Nomad's cgroup`);
  t.equal(now.rules, 0, `${role}: no iptables rule of an alloc left`);
  t.same(now.paths, [], `${role}: none of the harness's files, no Nomad data dir, no host-local state`);
  t.same(now.links, [], `${role}: no nomad/nomadtmp bridge`);
  t.same(now.netns, [], `${role}: no network namespace left (allocs', the CNI probe's)`);
  t.equal(now.plugins, before.plugins, `${role}: /opt/cni/bin exactly as handed over`);
}

/**
 * The VM tier's assertions on handed-over hosts, through the real CLI: a hard reboot without lab.hard_reset_command
 * is refused (exit 2), a missing key is exit 2 and an unreachable host exit 3, each naming host and field with the
 * host untouched; then cni-ipam-reboot with `virsh reset` as the reset command passes, installs the CNI plugins the
 * client lacks, and its teardown leaves the client up and exactly as handed over.
 */
export async function assertVmTier(t: Test, lab: HostsLab, dir: string): Promise<void> {
  const { runCli } = await import('./cli-child.js');
  preconditionClientCni(lab);
  const before = hostState(lab, 'client');
  t.comment(`client handed over: ${lab.hosts.client.user}@${lab.hosts.client.address}, plugins:\n${before.plugins}`);
  const cli = async (config: string, ...more: string[]) => {
    const reports = join(dir, 'reports-refused');
    const r = await runCli(t, ['run', 'cni-ipam-reboot', '--config', config, '--reports-dir', reports, ...more]);
    return { code: r.code, out: `${r.stdout}\n${r.stderr}` };
  };
  const noReset = await cli(lab.config(dir), '--reboot', 'hard');
  t.equal(noReset.code, 2, 'hard reboot without lab.hard_reset_command: exit 2');
  t.match(
    noReset.out,
    /reboot\.kind[^\n]*cannot do hard: no lab\.hard_reset_command[^\n]*fix: set lab\.hard_reset_command/,
    'names the field and the fix',
  );
  const keyless = await cli(lab.config(dir, { client: { key: '/nonexistent/key' } }));
  t.equal(keyless.code, 2, 'a missing key: exit 2');
  t.match(keyless.out, /lab\.hosts\.client\.key[^\n]*cannot be read (\([A-Z]+\) )?\(got "\/nonexistent\/key"/);
  const refused = await cli(lab.config(dir, { client: { port: 1 } }));
  t.equal(refused.code, 3, 'an unreachable host: exit 3');
  const where = `${lab.hosts.client.user}@${lab.hosts.client.address}:1`;
  t.match(refused.out, `lab.hosts.client.address: ${where} is not reachable over SSH`, 'names field and host');
  t.equal(hostState(lab, 'client').plugins, before.plugins, 'nothing was touched by the refused runs');

  const json = join(dir, 'cni-ipam-summary.json');
  const r = await runCli(t, [
    'run',
    'cni-ipam-reboot',
    '--config',
    lab.config(dir, { resetCommand: true }),
    '--reboot',
    'hard',
    '--report-json',
    json,
    '--reports-dir',
    join(dir, 'reports-cni'),
    '--artifacts',
    'always',
  ]);
  t.equal(r.code, 0, 'cni-ipam-reboot on the handed-over client with a hard reset by `virsh reset`: exit 0');
  const found = 'CNI plugins in /opt/cni/bin: missing portmap; not v1.6.2: firewall (CNI firewall plugin v1.1.1)';
  t.match(r.stderr + r.stdout, found, 'what the client had, read before anything was installed');
  t.match(r.stderr + r.stdout, /installed CNI plugins v1\.6\.2 into \/opt\/cni\/bin: firewall, portmap/);
  const { readFileSync } = await import('node:fs');
  const run = JSON.parse(readFileSync(json, 'utf8')).runs?.[0];
  const props = run?.properties ?? {};
  t.match(JSON.stringify(run?.steps ?? []), /reboot the client \(hard\)/, 'the hard reboot step ran');
  t.equal(
    readFileSync(join(dir, 'resets.log'), 'utf8'),
    `client ${lab.hosts.client.address}\n`,
    'lab.hard_reset_command ran once, for the client, with {role} and {address} replaced',
  );
  t.ok(props['client.boot_id.after'], 'boot id after the reset recorded');
  t.not(props['client.boot_id.before'], props['client.boot_id.after'], 'the reset really rebooted the client');
  assertCleaned(t, lab, 'client', before, props['client.boot_id.after']);
}
