// lab.provider: ssh: machines that already exist (real hardware, cloud instances, VMs of another tool), reached over
// SSH with the user's key. Reboots: graceful as on any lab; hard only through the user's lab.hard_reset_command.
// Teardown cleans what the harness installed (lib/lab/ssh/ssh-cleanup.ts) and leaves the machines running.
import { access } from 'node:fs/promises';
import { homedir } from 'node:os';
import { ConfigError, EXIT, HarnessError, type ConfigProblem } from '../../errors.js';
import type { HostSpec } from '../../config/schema.js';
import { hostField, hostsOf, type HostRole, type HostsConfig } from '../../config/hosts.js';
import { isPair, slotName, type Topology } from '../../model/topology.js';
import { runCommand, type RunCommand } from '../../exec/run.js';
import type { Logger } from '../../log/events.js';
import { deadlineIn, type Deadline } from '../../time/deadlines.js';
import { SshMachine, type SshMachineOptions } from '../../ssh/client.js';
import { quote } from '../../shell/quote.js';
import { notBackError } from '../not-back.js';
import type { SshTarget } from '../../shell/target.js';
import { splitJump } from '../../config/network-fields.js';
import { sshHostCleanupScript } from './ssh-cleanup.js';
import { interfaceWithAddress } from '../../parse/ip-addr.js';
import { ensureCniPlugins } from '../../cluster/cni-build.js';
import {
  CNI_DIR,
  CNI_PLUGINS_VERSION,
  cniInstallScript,
  cniProbeCommand,
  describeCniProbe,
  parseCniProbe,
  type PluginState,
} from '../../cluster/cni-plugins.js';
import type { FaultParams, Lab, RebootKind } from '../../model/lab.js';
import { perform, type FaultTarget } from '../perform.js';
import { SSH_PERFORMERS } from './ssh-faults.js';

/** How long a host may take to answer SSH at the start before it counts as unreachable (exit 3). */
const REACH_MS = 60_000;
/** Budget of one host's cleanup at teardown. */
const CLEANUP_MS = 3 * 60_000;
/** Budget of the user's power-reset command. */
const RESET_MS = 2 * 60_000;

export interface SshLabOptions {
  runId: string;
  /** the roles the scenario brings up; each role's hosts become its slots, in list order */
  roles: readonly HostRole[];
  /** lab.hosts: the lists, or the older one-host form */
  hosts: HostsConfig;
  /** argv with {role} and {address} placeholders */
  hardResetCommand: readonly string[] | undefined;
  logger?: Logger;
  /** register teardown (runs LIFO after the run; skipped with --keep) */
  cleanup: (what: string, fn: () => Promise<void>) => void;
  ssh?: Pick<SshMachineOptions, 'streamOutput' | 'connectTimeoutMs' | 'bootIdCommand'>;
  run?: RunCommand;
  /** what teardown runs on every host as root (default: sshHostCleanupScript) */
  cleanupScript?: string;
  reachMs?: number;
  /** where the client must have the CNI plugins (the agent's cni_path) */
  cniDir?: string;
  /** the plugin version the client must have (default CNI_PLUGINS_VERSION) */
  cniVersion?: string;
  /** a local directory with every plugin at cniVersion (default: built and cached, lib/cluster/cni-build.ts) */
  cniPlugins?: (version: string, deadline: Deadline) => Promise<string>;
  /** the harness's state dir on the hosts (the CNI manifest; default HOST_STATE_DIR; tests point it elsewhere) */
  hostStateDir?: string;
}

/** `~/x` -> the home directory; other paths as given. Pure apart from homedir(). */
export function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? homedir() + p.slice(1) : p;
}

/** One host of the lab: its slot name, role, spec and the config key problems about it name. */
interface SshHost {
  name: string;
  role: HostRole;
  spec: HostSpec;
  field: string;
}

/** The hosts of `roles`, each in its slot (a pair keeps the names server and client). Pure. */
export function sshHosts(hosts: HostsConfig, roles: readonly HostRole[]): SshHost[] {
  const count = (r: HostRole) => Math.max(1, hostsOf(hosts, r).length);
  const t = { servers: count('server'), clients: count('client') } as Topology;
  return (['server', 'client'] as const)
    .filter((r) => roles.includes(r))
    .flatMap((role) =>
      hostsOf(hosts, role).map((spec, i) => ({
        name: isPair(t) ? role : slotName(t, role, i + 1),
        role,
        spec,
        field: hostField(hosts, role, i),
      })),
    );
}

/** Run `fn`; when it fails, close every machine's SSH connection first (each waited for), then rethrow. */
async function closingOnFailure<T>(
  machines: readonly { disconnect(): Promise<void> }[],
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    await Promise.allSettled(machines.map((m) => m.disconnect()));
    throw err;
  }
}

/** The user's reset argv for one host: {role} and {address} replaced in every word. Pure. */
export function resetArgv(command: readonly string[], role: string, address: string): [string, string[]] {
  const words = command.map((w) => w.replaceAll('{role}', role).replaceAll('{address}', address));
  return [words[0]!, words.slice(1)];
}

/** The client's CNI plugins: read what is there (nothing is touched); what is not at `version` must be installed. */
async function probeCni(m: SshMachine, dir: string, version: string, d: Deadline): Promise<PluginState[]> {
  const r = await m.exec(cniProbeCommand(dir), { deadline: d });
  if (r.code !== 0) throw new HarnessError(`${m.name}: probing the CNI plugins in ${dir} failed (exit ${r.code})`);
  return parseCniProbe(r.stdout, version);
}

/** Upload `plugins` from the local dir `from` and put them into `dir` as root, recorded in the host's manifest. */
async function installCni(
  m: SshMachine,
  o: { from: string; dir: string; plugins: string[]; tag: string; stateDir?: string; d: Deadline },
) {
  const tmp = `/tmp/nomad-reboot-harness-cni.${o.tag}`;
  const made = await m.exec(`mkdir -p ${quote(tmp)}`, { deadline: o.d });
  const why = made.stderr.trim();
  if (made.code !== 0) throw new HarnessError(`${m.name}: mkdir ${tmp} failed (exit ${made.code}): ${why}`);
  for (const p of o.plugins) await m.upload(`${o.from}/${p}`, `${tmp}/${p}`, { deadline: o.d, mode: 0o755 });
  const r = await m.exec(cniInstallScript(o.dir, tmp, o.plugins, o.stateDir), { deadline: o.d, sudo: true });
  const tail = (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ');
  const what = `${m.name}: installing the CNI plugins into ${o.dir} failed`;
  if (r.code !== 0) throw new HarnessError(`${what} (exit ${r.code}): ${tail}`);
}

/** The address a host's agent binds and advertises: the host side of this SSH connection ($SSH_CONNECTION). */
export async function agentAddress(m: { exec: SshMachine['exec']; role: string }, d: Deadline): Promise<string> {
  const r = await m.exec('echo $SSH_CONNECTION', { deadline: d });
  const ip = r.stdout.trim().split(/\s+/)[2];
  const got = JSON.stringify(r.stdout.trim());
  if (!ip) throw new HarnessError(`${m.role}: cannot tell its address from $SSH_CONNECTION (got ${got})`);
  return ip;
}

/** The interface holding the agent's address (the client's network_interface: Nomad fingerprints its addresses). */
export async function agentInterface(m: { exec: SshMachine['exec']; role: string }, ip: string, d: Deadline) {
  const r = await m.exec('ip -o addr show', { deadline: d });
  const name = interfaceWithAddress(r.stdout, ip);
  if (!name) throw new HarnessError(`${m.role}: no interface holds ${ip} (\`ip -o addr show\` exit ${r.code})`);
  return name;
}

/** How to reach one host: its address, and the jump host in front of it (same key, its user unless given). */
export function targetOf(role: string, h: HostSpec): SshTarget {
  const base = { strictHostKeyChecking: false, options: {}, identityFiles: [expandHome(h.key!)] };
  const target: SshTarget = { ...base, host: role, hostName: h.address!, port: h.port, user: h.user! };
  const j = h.jump ? splitJump(h.jump) : undefined;
  if (j) target.jump = { ...base, host: `${role}-jump`, hostName: j.host, port: j.port ?? 22, user: j.user ?? h.user! };
  return target;
}

/** Build the lab; `up` checks the keys, reaches every host and registers the cleanup before anything is installed. */
export function createSshLab(o: SshLabOptions): { up(opts: { deadline: Deadline }): Promise<Lab> } {
  const { run = runCommand, cleanupScript = sshHostCleanupScript(), reachMs = REACH_MS } = o;
  const { cniDir = CNI_DIR, cniVersion = CNI_PLUGINS_VERSION } = o;
  const cniPlugins =
    o.cniPlugins ??
    ((version, deadline) =>
      ensureCniPlugins({
        version,
        deadline,
        run,
        ...(o.logger ? { logger: o.logger } : {}),
      }));
  const info = (message: string) => o.logger?.({ kind: 'info', t: 0, message });
  const hosts = sshHosts(o.hosts, o.roles);
  const hostOf = (name: string) => hosts.find((h) => h.name === name)!;
  const machines: Record<string, SshMachine> = {};

  async function reboot(
    name: string,
    kind: RebootKind,
    { deadline, fault = {} }: { deadline: Deadline; fault?: FaultParams },
  ) {
    const m = machines[name];
    const have = Object.keys(machines).join(', ');
    if (!m) throw new HarnessError(`reboot: no host named ${JSON.stringify(name)} (have ${have})`);
    const address = hostOf(name).spec.address!;
    const lg = o.logger ? { logger: o.logger } : {};
    const target: FaultTarget = {
      machine: m,
      ...lg,
      // Note: the addresses the servers' agents bind (what the client talks to), as Nomad was given them
      serverAddresses: (d) =>
        Promise.all(hosts.filter((h) => h.role === 'server').map((h) => agentAddress(machines[h.name]!, d))),
      peerAddresses: (d) =>
        Promise.all(hosts.filter((h) => h.name !== name).map((h) => agentAddress(machines[h.name]!, d))),
      rebootOptions: (k, ro) => ({
        deadline: ro.deadline,
        ...lg,
        hardReset: async () => {
          if (!o.hardResetCommand) {
            throw new HarnessError(`hard reset of ${name} (${address}): lab.hard_reset_command is not set`, {
              exitCode: EXIT.USAGE,
              hint: 'give the command that power-cycles a host, e.g. ["ipmitool", "-H", "{address}", "power", "reset"]',
            });
          }
          // Note: {role} is the slot name, which is the role in a pair ("client-2" says which client to reset)
          const [file, args] = resetArgv(o.hardResetCommand, name, address);
          await run(file, args, { deadline: deadlineIn(RESET_MS, ro.deadline), ...lg });
        },
        // an existing host that never comes back is named with the last SSH error (no console to read here)
        notBack: async (err) => {
          const none = 'an existing host (lab.provider ssh): its console is not reachable from the harness';
          return notBackError(err, { machine: m.name, kind: k, console: { none } });
        },
      }),
    };
    return perform(SSH_PERFORMERS, 'ssh', kind, target, { deadline, fault });
  }

  async function destroy(): Promise<void> {
    const failures: string[] = [];
    for (const m of Object.values(machines)) {
      const d = deadlineIn(CLEANUP_MS);
      try {
        const r = await m.exec(cleanupScript, { deadline: d, sudo: true });
        const tail = r.stderr.trim().split('\n').slice(-3).join(' | ');
        if (r.code !== 0) failures.push(`${m.target.host} (${m.target.hostName}): exit ${r.code}: ${tail}`);
      } catch (err) {
        const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
        failures.push(`${m.target.host} (${m.target.hostName}): ${why}`);
      } finally {
        await m.disconnect();
      }
    }
    if (failures.length) throw new HarnessError(`cleaning the existing hosts failed: ${failures.join('; ')}`);
  }

  /** Reach one host (its boot id over SSH) within reachMs; exit 3 naming its config key when it does not answer. */
  async function reach(h: SshHost, deadline: Deadline): Promise<void> {
    try {
      await machines[h.name]!.bootId({ deadline: deadlineIn(reachMs, deadline) });
    } catch (err) {
      const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
      const where = `${h.spec.user}@${h.spec.address}:${h.spec.port}`;
      throw new HarnessError(`${h.field}.address: ${where} is not reachable over SSH: ${why}`, {
        exitCode: EXIT.INFRA,
        cause: err,
        hint: 'check the address, port, user and key, and that this machine can reach the host',
      });
    }
  }

  function describe(): string {
    return [
      `lab ${o.runId} (existing hosts over SSH; they keep running)`,
      ...hosts.map(({ name, spec: h }) => {
        const jump = h.jump ? ` -J ${quote(h.jump)}` : '';
        const to = quote(`${h.user}@${h.address}`);
        return `  ssh ${name}:  ssh -i ${quote(expandHome(h.key!))} -p ${h.port}${jump} ${to}`;
      }),
      '  clean up: run again without --keep, or remove /var/lib/nomad, /etc/nomad.d/nomad.hcl, /usr/local/bin/nomad',
    ].join('\n');
  }

  return {
    async up({ deadline }) {
      const problems: ConfigProblem[] = [];
      for (const h of hosts) {
        const key = h.spec.key;
        if (
          key &&
          !(await access(expandHome(key)).then(
            () => true,
            () => false,
          ))
        ) {
          const fix = 'give the path of the private key for this host';
          problems.push({ field: `${h.field}.key`, value: key, message: 'cannot be read', fix });
        }
      }
      if (problems.length) throw new ConfigError(problems);
      for (const h of hosts) {
        machines[h.name] = new SshMachine({
          ...o.ssh,
          role: h.role,
          name: `${o.runId}-${h.name}`,
          ...(o.logger ? { logger: o.logger } : {}),
          target: targetOf(h.name, h.spec),
        });
      }
      // Note: until the cleanup is registered nothing else closes these connections: a failure here closes every one
      // (a host that answered keeps an SSH connection and its keepalive timer, which kept the CLI alive after exit 3).
      const clients = hosts.filter((h) => h.role === 'client').map((h) => machines[h.name]!);
      const { needs, from } = await closingOnFailure(Object.values(machines), async () => {
        const reached = await Promise.allSettled(hosts.map((h) => reach(h, deadline)));
        const failed = reached.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) throw failed.reason;
        // Note: read only until the cleanup is registered; a missing prerequisite (Go) ends the run here, exit 2
        const states = await Promise.all(clients.map((c) => probeCni(c, cniDir, cniVersion, deadline)));
        const needs = states.map((st) => st.filter((x) => x.state !== 'ok').map((x) => x.plugin));
        for (const [i, c] of clients.entries())
          info(`client ${c.target.hostName}: CNI plugins in ${cniDir}: ${describeCniProbe(states[i]!, cniVersion)}`);
        const from = needs.some((n) => n.length) ? await cniPlugins(cniVersion, deadline) : undefined;
        return { needs, from };
      });
      const names = hosts.map((h) => h.name);
      const on = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join('');
      o.cleanup(`clean what the harness installed on ${on} (the hosts keep running)`, destroy);
      for (const [i, client] of clients.entries()) {
        const need = needs[i]!;
        if (!from || !need.length) continue;
        const stateDir = o.hostStateDir ? { stateDir: o.hostStateDir } : {};
        const tag = `${o.runId}-${i + 1}`;
        await installCni(client, { from, dir: cniDir, plugins: need, tag, ...stateDir, d: deadline });
        info(
          `client ${client.target.hostName}: installed CNI plugins ${cniVersion} into ${cniDir}: ${need.join(', ')}` +
            ' (teardown removes them and puts back what they replaced)',
        );
      }
      const collectEvidence = async () => ({
        'hosts.txt': hosts.map(({ name, spec: h }) => `${name}: ${h.user}@${h.address}:${h.port}\n`).join(''),
      });
      return { id: o.runId, machines, reboot, collectEvidence, describe, destroy: async () => destroy() };
    },
  };
}
