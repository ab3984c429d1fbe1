// Install and start a Nomad agent on one machine over SSH: binary, config, kernel prerequisites, systemd unit.
import type { Machine } from '../model/lab.js';
import type { Deadline } from '../time/deadlines.js';
import { HarnessError } from '../errors.js';
import { quote } from '../shell/quote.js';
import { checkNomadBinary } from '../builds/binary.js';
import { readTemplate } from './templates.js';
import { renderTemplate } from './render.js';
import { LAB_HOST_VOLUME } from '../model/volumes.js';

type AgentRole = 'server' | 'client';

/**
 * Template values: private_ip always; server_ips (every server's address: a client lists them all, a server of
 * several joins them all), or server_ip when there is one server; heartbeat_grace (server); log_level optional;
 * network_interface (client) the interface holding private_ip, eth1 on the lab's VMs; node_name the slot name (the
 * role in a pair); bootstrap_expect (server) how many servers form the Raft cluster.
 */
interface AgentVars {
  private_ip: string;
  network_interface?: string;
  server_ip?: string;
  server_ips?: readonly string[];
  heartbeat_grace?: string;
  log_level?: string;
  node_name?: string;
  bootstrap_expect?: number;
  /** enable the raw_exec driver on a client (off, Nomad's default, unless a job of the run uses it) */
  raw_exec?: boolean;
}

/** Nomad's server RPC port, which clients list their servers on. */
const RPC_PORT = 4647;

/** Default server heartbeat_grace: longer than a client reboot under emulation, so allocs are restored (seed procedure). */
export const DEFAULT_HEARTBEAT_GRACE = '5m';
/** The lab VMs' private network (eth0 is Vagrant's management network). */
const DEFAULT_NETWORK_INTERFACE = 'eth1';
/** DEBUG shows the CNI and restore decisions in the client journal (evidence). */
const DEFAULT_LOG_LEVEL = 'DEBUG';

export const REMOTE = {
  binary: '/usr/local/bin/nomad',
  upload: '/tmp/nomad.upload',
  config: '/etc/nomad.d/nomad.hcl',
  unit: '/etc/systemd/system/nomad.service',
  modules: '/etc/modules-load.d/nomad-bridge.conf',
  sysctl: '/etc/sysctl.d/90-nomad-bridge.conf',
} as const;

/** Kernel modules bridge networking needs, loaded now and at every boot. */
const BRIDGE_MODULES = ['bridge', 'br_netfilter'] as const;
/** Sysctls from Nomad's install docs (bridge traffic through iptables), persisted for the reboot. */
const BRIDGE_SYSCTLS = [
  'net.bridge.bridge-nf-call-arptables',
  'net.bridge.bridge-nf-call-ip6tables',
  'net.bridge.bridge-nf-call-iptables',
] as const;

/** The shell script (run as root) that makes bridge networking survive a reboot; pure, for tests. */
export function bridgePrereqScript(): string {
  const modules = BRIDGE_MODULES.join('\n') + '\n';
  const sysctls = BRIDGE_SYSCTLS.map((s) => `${s} = 1`).join('\n') + '\n';
  return [
    'set -e',
    `modprobe -a ${BRIDGE_MODULES.join(' ')}`,
    `printf %s ${quote(modules)} > ${REMOTE.modules}`,
    `printf %s ${quote(sysctls)} > ${REMOTE.sysctl}`,
    `sysctl -q -p ${REMOTE.sysctl}`,
  ].join('\n');
}

/** Render the agent config and unit for a role; throws naming the missing value. Pure. */
export function renderAgentFiles(
  role: AgentRole,
  vars: AgentVars,
  templates: { hcl: string; unit: string },
): { hcl: string; unit: string } {
  const v: Record<string, string | readonly string[]> = {
    private_ip: vars.private_ip,
    log_level: vars.log_level ?? DEFAULT_LOG_LEVEL,
    node_name: vars.node_name ?? role,
  };
  const servers = vars.server_ips ?? (vars.server_ip ? [vars.server_ip] : []);
  if (role === 'server') {
    const expect = vars.bootstrap_expect ?? 1;
    if (expect > 1 && servers.length !== expect)
      throw new HarnessError(
        `server agent config: bootstrap_expect ${expect} needs the ${expect} servers' addresses (got ${servers.length})`,
      );
    v.heartbeat_grace = vars.heartbeat_grace ?? DEFAULT_HEARTBEAT_GRACE;
    v.bootstrap_expect = String(expect);
    // Note: a lone server joins nobody; each server of several joins all of them (its own address is harmless), on the
    // Serf port servers join on by default
    v.server_join = expect > 1 ? [...servers] : [];
  }
  if (role === 'client') {
    if (!servers.length)
      throw new HarnessError("client agent config: server_ip is required (the server's private address)");
    v.servers = servers.map((ip) => `${ip}:${RPC_PORT}`);
    v.network_interface = vars.network_interface ?? DEFAULT_NETWORK_INTERFACE;
    v.raw_exec = vars.raw_exec ? 'true' : 'false';
  }
  return {
    hcl: renderTemplate(templates.hcl, v, { name: `${role}.hcl`, strict: true }),
    unit: renderTemplate(templates.unit, { private_ip: vars.private_ip }, { name: 'nomad.service', strict: true }),
  };
}

interface InstallResult {
  /** `nomad version` output, trimmed (e.g. "Nomad v1.9.3\nBuildDate …\nRevision …") */
  version: string;
  /** the rendered agent config (evidence) */
  config: string;
}

/** Upload the binary, write config + unit, load bridge modules persistently, `systemctl enable --now nomad`; returns `nomad version`. */
export async function installNomad(
  machine: Machine,
  opts: { binaryPath: string; role: AgentRole; vars: AgentVars; deadline: Deadline },
): Promise<InstallResult> {
  const { binaryPath, role, vars, deadline } = opts;
  await checkNomadBinary(binaryPath, 'nomadBinary', { probe: false });
  const files = renderAgentFiles(role, vars, {
    hcl: await readTemplate(`${role}.hcl`),
    unit: await readTemplate('nomad.service'),
  });
  const run = async (what: string, cmd: string, stdin?: string): Promise<string> => {
    const r = await machine.exec(cmd, { deadline, sudo: true, ...(stdin === undefined ? {} : { stdin }) });
    if (r.code !== 0)
      throw new HarnessError(
        `${machine.name}: ${what} failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().split('\n').slice(-5).join(' | ')}`,
      );
    return r.stdout;
  };
  await machine.upload(binaryPath, REMOTE.upload, { deadline, mode: 0o755 });
  await run('installing the nomad binary', `install -m 0755 ${REMOTE.upload} ${REMOTE.binary}`);
  await run('removing the uploaded binary', `rm -f ${REMOTE.upload}`);
  const version = (await run('nomad version', `${REMOTE.binary} version`)).trim();
  await run('writing the agent config', `install -D -m 0644 /dev/stdin ${REMOTE.config}`, files.hcl);
  await run('writing the systemd unit', `install -D -m 0644 /dev/stdin ${REMOTE.unit}`, files.unit);
  await run('mkdir data_dir', 'install -d -m 0700 /var/lib/nomad');
  // a client's static host volume must exist before its agent starts (Nomad refuses a missing path)
  if (role === 'client') await run('mkdir the host volume', `install -d -m 0777 ${quote(LAB_HOST_VOLUME.path)}`);
  await run('loading bridge modules and sysctls', `sh -c ${quote(bridgePrereqScript())}`);
  await run('starting nomad', `sh -c ${quote('systemctl daemon-reload && systemctl enable --now nomad.service')}`);
  return { version, config: files.hcl };
}
