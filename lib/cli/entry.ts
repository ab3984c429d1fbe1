// The real process: wires the CLI to real VMs, the real host and process I/O, then exits with main()'s code.
import { ConfigError, EXIT, type ExitCode } from '../errors.js';
import { runCommand } from '../exec/run.js';
import { homedir } from 'node:os';
import { checkNomadBinary } from '../builds/binary.js';
import { cacheRoot } from '../builds/cache.js';
import { doctorDocument, doctorNomadSpec, memAvailableBytes, runDoctor, renderDoctor } from './doctor.js';
import { readFile } from 'node:fs/promises';
import { ensureLabHost, parseNetnsList, reexecInNetns, IN_NETNS_ENV } from '../lab/host/host.js';
import { destroyLabs } from './destroy.js';
import { existingHostsPreflight } from '../lab/ssh/ssh-preflight.js';
import { providerFor, vmOverheadMb } from '../lab/providers.js';
import { VAGRANTFILE } from '../lab/vagrant/vagrant-provider.js';
import { createRealEnv } from '../session/real-env.js';
import { createBuildLayer } from '../session/builds.js';
import { runSetup, nextCommands } from './setup.js';
import { DEFAULTS } from '../config/schema.js';
import { configTopology, labMemoryMb } from '../config/topology.js';
import { topologyLabel } from '../model/topology.js';
import { driverChooser, realAccelDeps } from '../lab/kvm/accel.js';
import { KVM_PROBE_BUDGET_MS } from '../lab/kvm/kvm-probe.js';
import { deadlineIn } from '../time/deadlines.js';
import type { HarnessConfig } from '../config/schema.js';
import type { Logger } from '../log/events.js';
import type { CliDeps } from './deps.js';
import { main } from './main.js';

/**
 * How long the process may stay alive after main() returned before it exits anyway (see the end of this file): 10 s,
 * or HARNESS_EXIT_GRACE_MS (whole milliseconds; the tests of this very rule set it short rather than wait 10 s each).
 */
const EXIT_GRACE_MS = /^\d+$/.test(process.env['HARNESS_EXIT_GRACE_MS'] ?? '')
  ? Number(process.env['HARNESS_EXIT_GRACE_MS'])
  : 10_000;

/**
 * Time allowed to get libvirtd up in its namespace. Its first answer can take minutes: libvirtd probes QEMU's
 * capabilities again whenever its cache is stale (/var/cache/libvirt/qemu/capabilities, rewritten on every start here),
 * and the probe took over 60 s on this 2-core host with tests running (twice; it answered 4 s later each time).
 */
const HOST_PREP_MS = 4 * 60_000;

/** Make sure libvirtd runs in the lab's netns, then re-run this command inside it (unless we are there already). */
async function prepareHost(
  config: HarnessConfig,
  argv: string[],
  logger: Logger,
  subnets?: readonly string[],
): Promise<ExitCode | undefined> {
  const ns = config.lab.netns;
  // Note: existing hosts (lab.provider: ssh) need no libvirtd; the CLI reaches them from the namespace it runs in,
  // or from lab.hosts_netns (e.g. VMs of a libvirtd in a namespace, handed over as existing hosts)
  if (providerFor(config).host.netns === 'hosts') return enterHostsNetns(config.lab.hostsNetns, argv, logger);
  if (!ns || process.env[IN_NETNS_ENV]) return undefined;
  const host = await ensureLabHost({
    netns: ns,
    deadline: deadlineIn(HOST_PREP_MS),
    logger,
    blackholes: subnets ?? [config.lab.managementSubnet, config.lab.privateSubnet],
  });
  logger({
    kind: 'info',
    t: 0,
    message: `lab host: libvirtd pid ${host.libvirtdPid} in netns ${host.netns}${host.started.length ? ` (started ${host.started.join(', ')})` : ''}; re-running inside it`,
  });
  return (await reexecInNetns(host.netns, sameCli(argv))) as ExitCode;
}

/**
 * This CLI (node, its flags, the entry script) with the arguments of what is re-run: the command that asked, which is
 * not always the process's own (a bisect re-runs each try's `run` inside the namespace, and builds outside it).
 */
function sameCli(argv: readonly string[]): string[] {
  return [process.execPath, ...process.execArgv, process.argv[1]!, ...argv];
}

/** lab.provider ssh with lab.hosts_netns: re-run inside that namespace (exit 2 naming it when it is not there). */
async function enterHostsNetns(ns: string, argv: readonly string[], logger: Logger): Promise<ExitCode | undefined> {
  if (!ns || process.env[IN_NETNS_ENV]) return undefined;
  const list = await runCommand('ip', ['netns', 'list'], { deadline: deadlineIn(HOST_PREP_MS), logger });
  if (!parseNetnsList(list.stdout).includes(ns)) {
    const fix = 'give a namespace that exists (`ip netns list`), or "" to reach the hosts from here';
    throw new ConfigError([{ field: 'lab.hosts_netns', value: ns, message: 'is not a network namespace here', fix }]);
  }
  logger({ kind: 'info', t: 0, message: `existing hosts are reached from netns ${ns}; re-running inside it` });
  return (await reexecInNetns(ns, sameCli(argv))) as ExitCode;
}

/** How long `setup` may take: apt on a fresh machine plus both box builds, with room to spare. */
const SETUP_MS = 60 * 60_000;

/**
 * `reboot-harness setup [--force] [--docker]`: vms/setup-host.ts, then libvirtd inside the lab netns (as `run` starts
 * it), so `doctor` passes straight after; ends by naming the next commands.
 * `config` defaults to harness.yaml's defaults.
 */
async function setup({
  force,
  docker,
  config = DEFAULTS,
  out,
}: {
  force: boolean;
  docker: boolean;
  config?: HarnessConfig;
  out: (text: string) => void;
}): Promise<ExitCode> {
  const logger: Logger = (e) => {
    if (e.kind !== 'info' && e.kind !== 'warn') return;
    out(`${e.kind === 'warn' ? 'warning: ' : ''}${e.message}\n`);
  };
  const { labHost } = await runSetup({
    deadline: deadlineIn(SETUP_MS),
    logger,
    forceBox: force,
    dockerBox: docker,
    ...(config.lab.netns ? { netns: config.lab.netns } : {}),
    blackholes: [config.lab.managementSubnet, config.lab.privateSubnet],
  });
  out(`${nextCommands(labHost)}\n`);
  return EXIT.OK;
}

/** One driver choice per process: every run (and doctor) asks it; the KVM probe runs at most once per box. */
const chooseDriver = driverChooser(realAccelDeps());

async function doctor(config: HarnessConfig, json: boolean, out: (text: string) => void): Promise<ExitCode> {
  const nomad = config.nomadBinary
    ? await doctorNomadSpec(config.nomadBinary, {
        field: '--nomad',
        cwd: process.cwd(),
        home: process.env['HOME'] || homedir(),
        cacheRoot: cacheRoot(process.env, process.env['HOME'] || homedir()),
        releasesUrl: config.builds.releasesUrl,
      })
    : undefined;
  // Note: the KVM probe may take its whole minute on a host where KVM hangs; the rest of doctor takes seconds
  const items = await runDoctor({
    deadline: deadlineIn(60_000 + KVM_PROBE_BUDGET_MS),
    workDir: config.lab.workDir,
    box: config.lab.box,
    netns: config.lab.netns,
    memoryMb: config.lab.memoryMb,
    ...(nomad && 'path' in nomad ? { nomadBinary: nomad.path } : {}),
    ...(nomad && 'item' in nomad ? { nomadPending: nomad.item } : {}),
    ...(providerFor(config).host.libvirtDriver
      ? { libvirtDriver: { setting: config.lab.libvirtDriver, choose: chooseDriver } }
      : {}),
    labMemory: {
      bytes: labMemoryMb(configTopology(config), config.lab, vmOverheadMb(config)) * 1024 ** 2,
      topology: topologyLabel(configTopology(config)),
    },
  });
  // Note: through main's console stream, as every command's output: a --nomad URL's credentials are redacted there
  out(
    json
      ? `${JSON.stringify(doctorDocument(items), null, 2)}\n`
      : `${renderDoctor(items, { quiet: config.output.quiet })}\n`,
  );
  return items.every((i) => i.ok) ? EXIT.OK : EXIT.INFRA;
}

/** The code the process exits with: the command's, or the late error's (lateStrayExit) that came after it. */
let finalCode: number | undefined;

const deps: CliDeps = {
  env: process.env,
  cwd: process.cwd(),
  out: (s) => void process.stdout.write(s),
  err: (s) => void process.stderr.write(s),
  isTTY: Boolean(process.stderr.isTTY),
  makeEnv: (config, runId, logger, scenario) => createRealEnv(config, runId, logger, chooseDriver, scenario),
  prepareHost,
  hostsPreflight: (config, logger) => existingHostsPreflight(config, { logger }),
  hostFacts: async () => {
    const bytes = memAvailableBytes(await readFile('/proc/meminfo', 'utf8').catch(() => ''));
    return bytes === undefined ? {} : { memAvailableMb: Math.floor(bytes / (1024 * 1024)) };
  },
  checkBinary: async (p, field = '--nomad-binary') => void (await checkNomadBinary(p, field)),
  builds: createBuildLayer({ env: process.env }),
  doctor,
  destroy: (config, ids, all, logger, stopHost, sweep) =>
    destroyLabs(config, ids, all, logger, { stopHost, vagrantfile: VAGRANTFILE, ...(sweep ? { sweep } : {}) }),
  setup,
  rejectionSource: process,
  lateStrayExit: (c) => {
    finalCode = c;
    process.exitCode = c;
  },
};

// Note: if whoever reads our output goes away (a closed pipe), keep going: teardown must still destroy the VMs.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
const code = await main(process.argv.slice(2), deps);
finalCode ??= code;
process.exitCode = code;
// Note: the exit code is the verdict: a user scenario's timer that sets process.exitCode or calls process.exit(0) after
// the command ended must not turn a FAIL into a pass. An 'exit' listener may change the code; this one, added after
// the scenarios' own, runs after them.
process.on('exit', () => {
  process.exitCode = finalCode;
});
// Note: interrupted while a child ran for the inputs (`nomad version`, git, go), the child would keep the process
// alive until its own deadline (15 s and more): exit once the output is written; execa ends its children on exit.
if (code === EXIT.INTERRUPTED) process.stdout.write('', () => process.stderr.write('', () => process.exit(finalCode)));
// Note: main() returns after teardown, so nothing the run needs is still open. Anything that still keeps the event
// loop alive (a socket to a VM that is gone retransmits for up to 15 minutes) would hang a CI job: say what it is and
// exit anyway. The timer is unref'd, so a clean run exits at once without waiting for it.
setTimeout(() => {
  let what: string;
  try {
    what = openHandles();
  } catch {
    what = process.getActiveResourcesInfo().join(', ');
  }
  process.stderr.write(
    `warning: still open ${EXIT_GRACE_MS / 1000} s after the command ended: ${what}; exiting with ${finalCode}\n`,
  );
  process.exit(finalCode);
}, EXIT_GRACE_MS).unref();

/**
 * What keeps the event loop alive, for the warning above: TCP peers, pipes other than our own stdio, child PIDs, and
 * timers (a scenario file of yours that starts one and never clears it keeps the CLI alive too).
 */
function openHandles(): string {
  // Note: called from the grace timer's callback, which no longer counts as active.
  const timers = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const timerText =
    timers > 0 ? [`${timers} timer${timers === 1 ? '' : 's'} (a setTimeout/setInterval never cleared)`] : [];
  // Note: _getActiveHandles is undocumented (stable since Node 0.x); the resource-type list is the fallback.
  const handles = (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.();
  const named = handles
    ? handles.flatMap((h) => {
        const proc = h as { pid?: number; spawnargs?: string[] };
        if (typeof proc.pid === 'number' && Array.isArray(proc.spawnargs))
          return [`child pid ${proc.pid} (${proc.spawnargs.join(' ').slice(0, 80)})`];
        // a net.Socket, told by its shape (node:net stays in lib/ssh and lib/nomad, test/unit/layering.test.ts)
        const sock = h as {
          remoteAddress?: string;
          remotePort?: number;
          localAddress?: string;
          localPort?: number;
          _handle?: { fd?: number };
          constructor?: { name?: string };
        };
        if (sock.constructor?.name === 'Socket') {
          if (sock.remoteAddress)
            return [`TCP ${sock.localAddress}:${sock.localPort} -> ${sock.remoteAddress}:${sock.remotePort}`];
          const fd = sock._handle?.fd;
          // Note: stdin, stdout and stderr are the CLI's own; they hold nothing open that needs naming.
          return typeof fd === 'number' && fd >= 0 && fd <= 2 ? [] : [`pipe fd ${fd ?? '?'}`];
        }
        return [(h as { constructor?: { name?: string } }).constructor?.name ?? 'handle'];
      })
    : process.getActiveResourcesInfo().filter((r) => r !== 'Timeout');
  return [...named, ...timerText].join(', ') || 'something Node does not name';
}
