// Isolated lab host: libvirtd + virtlogd inside a private network namespace (no systemd, no touching the host network).
import { readFile, readdir, stat, writeFile, mkdir, rm } from 'node:fs/promises';
import { statSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { runAttached } from '../../exec/attached.js';
import { HarnessError } from '../../errors.js';
import { runCommand, ANY_EXIT_CODE, type RunCommand } from '../../exec/run.js';
import { waitFor } from '../../time/wait-for.js';
import type { Deadline } from '../../time/deadlines.js';
import { silentLogger, type Logger } from '../../log/events.js';
import { describeMode, fixKvmDevice, KVM_DEVICE, restoreKvmDevice, type DeviceMode } from '../kvm/kvm-device.js';

/** Where the harness records what it started, so `stopLabHost` stops only that. */
const LAB_HOST_STATE = '/run/nomad-reboot-harness/lab-host.json';
/** Set in the environment of a process re-executed inside the lab netns (the CLI must not re-exec again). */
export const IN_NETNS_ENV = 'NRH_IN_NETNS';
const NETNS_DIR = '/var/run/netns';
const DAEMONS = [
  { name: 'virtlogd', pidFile: '/run/virtlogd.pid' },
  { name: 'libvirtd', pidFile: '/run/libvirtd.pid' },
] as const;

interface LabHostState {
  netns: string;
  createdNetns: boolean;
  /** daemon name -> pid, only those this harness started */
  daemons: Record<string, number>;
  /** blackhole routes this harness added on the host stack */
  blackholes: string[];
  /** /dev/kvm as found and as set (lib/lab/kvm/kvm-device.ts), when the harness gave it to the kvm group */
  kvmDevice?: { before: DeviceMode; after: DeviceMode };
}

export interface LabHost {
  /** the namespace libvirtd (and so every VM address) lives in */
  netns: string;
  libvirtdPid: number;
  /** what this call started (empty when everything was already up) */
  started: string[];
}

interface HostOpts {
  logger?: Logger;
  deadline: Deadline;
  run?: RunCommand;
  stateFile?: string;
}

/** Names in `ip netns list` output ("name (id: 3)" or "name"). Pure. */
export function parseNetnsList(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
}

/** The pid recorded in a pid file when that process is alive, else undefined. */
export async function alivePid(pidFile: string): Promise<number | undefined> {
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/** The named netns this process runs in (compares /proc/self/ns/net with /var/run/netns/*), or undefined for the host/unnamed one. */
export function currentNetns(): string | undefined {
  try {
    const self = statSync('/proc/self/ns/net');
    for (const name of readdirSync(NETNS_DIR)) {
      const st = statSync(`${NETNS_DIR}/${name}`);
      if (st.ino === self.ino && st.dev === self.dev) return name;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

async function readState(file: string): Promise<LabHostState | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as LabHostState;
  } catch {
    return undefined;
  }
}

async function saveState(file: string, s: LabHostState): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(s, null, 2) + '\n');
}

/**
 * Make sure libvirtd runs inside a netns: create `netns` (lo up) if missing, start virtlogd and libvirtd in it when not
 * running, wait for `virsh version`. When libvirtd already runs in another named netns, that one is used. Optionally add
 * host-stack blackhole routes for the lab subnets (a guard: nothing must leave the host for them).
 */
export async function ensureLabHost(
  opts: HostOpts & { netns: string; blackholes?: readonly string[] },
): Promise<LabHost> {
  const {
    netns,
    deadline,
    logger = silentLogger,
    run = runCommand,
    stateFile = LAB_HOST_STATE,
    blackholes = [],
  } = opts;
  const ip = (args: string[], allowed?: readonly number[]) =>
    run('ip', args, { deadline, logger, ...(allowed ? { allowedCodes: allowed } : {}) });
  const state: LabHostState = (await readState(stateFile)) ?? {
    netns,
    createdNetns: false,
    daemons: {},
    blackholes: [],
  };
  const started: string[] = [];
  let ns = netns;
  const running = await alivePid('/run/libvirtd.pid');
  if (running !== undefined) {
    const r = await ip(['netns', 'identify', String(running)], ANY_EXIT_CODE);
    const where = r.stdout.trim().split('\n')[0]?.trim();
    if (!where) {
      throw new HarnessError(
        `libvirtd (pid ${running}) runs in the host network namespace; the isolated lab needs it inside one`,
        {
          hint: `stop it (kill ${running}, or systemctl stop libvirtd) and run again: the harness starts it inside netns "${netns}"`,
        },
      );
    }
    if (where !== netns)
      logger({
        kind: 'warn',
        t: 0,
        message: `libvirtd (pid ${running}) already runs in netns "${where}"; using that one instead of "${netns}"`,
      });
    ns = where;
  }
  if (!parseNetnsList((await ip(['netns', 'list'])).stdout).includes(ns)) {
    await ip(['netns', 'add', ns]);
    if (ns === netns) state.createdNetns = true;
    started.push(`netns ${ns}`);
  }
  state.netns = ns;
  await ip(['-n', ns, 'link', 'set', 'lo', 'up']);
  // Note: before libvirtd starts, so its first probe of QEMU's capabilities already sees what every later start sees
  const kvm = await fixKvmDevice();
  if (kvm) {
    state.kvmDevice ??= kvm;
    const names = { 0: 'root', [kvm.after.gid]: 'kvm' };
    logger({
      kind: 'info',
      t: 0,
      message: `lab host: ${KVM_DEVICE} was ${describeMode(kvm.before, names)}, now ${describeMode(kvm.after, names)} (udev's default, which did not run here; without it libvirt probes QEMU again before every domain start); destroy --host puts it back`,
    });
  }
  for (const d of DAEMONS) {
    if ((await alivePid(d.pidFile)) !== undefined) continue;
    await run('ip', ['netns', 'exec', ns, d.name, '-d'], { deadline, logger });
    const pid = await waitFor(
      `${d.name} pid file ${d.pidFile}`,
      async () => {
        const p = await alivePid(d.pidFile);
        return p === undefined ? { done: false, reason: `${d.pidFile} missing or stale` } : { done: true, value: p };
      },
      { deadline },
    );
    state.daemons[d.name] = pid;
    started.push(`${d.name} (pid ${pid})`);
  }
  await saveState(stateFile, state);
  await waitFor(
    'libvirtd to answer `virsh -c qemu:///system version`',
    async () => {
      const r = await run('virsh', ['-c', 'qemu:///system', 'version'], { deadline, allowedCodes: ANY_EXIT_CODE });
      return r.code === 0
        ? { done: true, value: r.stdout }
        : { done: false, reason: r.stderr.trim().split('\n').pop() ?? `exit ${r.code}` };
    },
    { deadline },
  );
  if (blackholes.length > 0) await addBlackholes(ns, blackholes, state, { deadline, logger, run, stateFile });
  const libvirtdPid = (await alivePid('/run/libvirtd.pid')) ?? 0;
  if (started.length > 0)
    logger({ kind: 'info', t: 0, message: `lab host: started ${started.join(', ')} in netns ${ns}` });
  return { netns: ns, libvirtdPid, started };
}

/** Add `ip route add blackhole <cidr>` on the host stack for each lab subnet (idempotent; never over a real route). */
async function addBlackholes(
  ns: string,
  cidrs: readonly string[],
  state: LabHostState,
  o: Required<HostOpts>,
): Promise<void> {
  if (currentNetns() === ns) {
    o.logger({
      kind: 'warn',
      t: 0,
      message: `running inside netns ${ns}: host blackhole routes not added (run setup from the host namespace)`,
    });
    return;
  }
  for (const cidr of cidrs) {
    const shown = (
      await o.run('ip', ['route', 'show', 'exact', cidr], { deadline: o.deadline, logger: o.logger })
    ).stdout.trim();
    if (shown.startsWith('blackhole')) continue;
    if (shown) {
      o.logger({
        kind: 'warn',
        t: 0,
        message: `host has a route for ${cidr} (${shown}); not adding a blackhole over it`,
      });
      continue;
    }
    await o.run('ip', ['route', 'add', 'blackhole', cidr], { deadline: o.deadline, logger: o.logger });
    state.blackholes.push(cidr);
  }
  await saveState(o.stateFile, state);
}

/** Stop only what ensureLabHost recorded: its daemons (and the dnsmasq they left), blackhole routes, /dev/kvm's mode, and the netns it created. */
export async function stopLabHost(opts: HostOpts): Promise<string[]> {
  const { deadline, logger = silentLogger, run = runCommand, stateFile = LAB_HOST_STATE } = opts;
  const state = await readState(stateFile);
  if (!state) return [];
  const stopped: string[] = [];
  const ourLibvirtd = state.daemons.libvirtd !== undefined;
  for (const d of [...DAEMONS].reverse()) {
    const pid = state.daemons[d.name];
    if (pid === undefined || (await alivePid(d.pidFile)) !== pid) continue;
    process.kill(pid, 'SIGTERM');
    await waitFor(
      `${d.name} (pid ${pid}) to exit`,
      async () => {
        try {
          process.kill(pid, 0);
          return { done: false, reason: 'still running' };
        } catch {
          return { done: true, value: undefined };
        }
      },
      { deadline },
    );
    stopped.push(`${d.name} (pid ${pid})`);
  }
  if (ourLibvirtd) {
    // dnsmasq instances libvirtd started for its networks outlive it (pid files under /run/libvirt/network)
    for (const f of await readdir('/run/libvirt/network').catch(() => [] as string[])) {
      if (!f.endsWith('.pid')) continue;
      const pid = await alivePid(`/run/libvirt/network/${f}`);
      if (pid !== undefined) {
        process.kill(pid, 'SIGTERM');
        stopped.push(`dnsmasq (pid ${pid})`);
      }
    }
  }
  for (const cidr of state.blackholes) {
    await run('ip', ['route', 'del', 'blackhole', cidr], { deadline, logger, allowedCodes: ANY_EXIT_CODE });
    stopped.push(`blackhole ${cidr}`);
  }
  if (state.kvmDevice && (await restoreKvmDevice(state.kvmDevice))) {
    stopped.push(`${KVM_DEVICE} back to ${describeMode(state.kvmDevice.before, { 0: 'root' })}`);
  }
  if (state.createdNetns && (await stat(`${NETNS_DIR}/${state.netns}`).catch(() => undefined))) {
    await run('ip', ['netns', 'del', state.netns], { deadline, logger });
    stopped.push(`netns ${state.netns}`);
  }
  await rm(stateFile, { force: true });
  return stopped;
}

/**
 * Re-run this process inside `netns` (`ip netns exec <ns> node …`) so its own SSH sockets live there; resolves with the
 * child's exit code (128+signal when killed). SIGINT/SIGTERM/SIGHUP are forwarded once (the child has its own process group).
 */
export function reexecInNetns(
  netns: string,
  argv: readonly string[] = [process.execPath, ...process.execArgv, ...process.argv.slice(1)],
): Promise<number> {
  return runAttached('ip', ['netns', 'exec', netns, ...argv], {
    env: { [IN_NETNS_ENV]: netns },
    forwardSignals: ['SIGINT', 'SIGTERM', 'SIGHUP'],
    cannotStart: (err) =>
      new HarnessError(`cannot re-run inside netns ${netns}: ${err.message}`, {
        hint: 'needs root and iproute2 (`ip netns exec`)',
      }),
  });
}
