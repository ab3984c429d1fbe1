// The real world the CLI runs in: VMs, the host, the build layer and process I/O (lib/cli/entry.ts hands it to main();
// a test driver that runs main() for several command lines in one process hands in the same).
import { ConfigError, EXIT, type ExitCode } from '../errors.js';
import { runCommand } from '../exec/run.js';
import { homedir } from 'node:os';
import { checkNomadBinary } from '../builds/binary.js';
import { cacheRoot } from '../builds/cache.js';
import { doctorDocument, doctorNomadSpec, runDoctor } from './doctor.js';
import { memAvailableBytes } from './doctor-host.js';
import { renderDoctor } from './doctor-render.js';
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
import { signalRelay } from './signal-relay.js';
import { childHandles } from './child-signals.js';

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
  subnets: readonly string[] | undefined,
  signals: NodeJS.EventEmitter,
): Promise<ExitCode | undefined> {
  const ns = config.lab.netns;
  // Note: existing hosts (lab.provider: ssh) need no libvirtd; the CLI reaches them from the namespace it runs in,
  // or from lab.hosts_netns (e.g. VMs of a libvirtd in a namespace, handed over as existing hosts)
  if (providerFor(config).host.netns === 'hosts') return enterHostsNetns(config.lab.hostsNetns, argv, logger, signals);
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
  return (await childHandles(signals, `the re-run inside netns ${host.netns}`, () =>
    reexecInNetns(host.netns, sameCli(argv)),
  )) as ExitCode;
}

/**
 * This CLI (node, its flags, the entry script) with the arguments of what is re-run: the command that asked, which is
 * not always the process's own (a bisect re-runs each try's `run` inside the namespace, and builds outside it).
 */
function sameCli(argv: readonly string[]): string[] {
  return [process.execPath, ...process.execArgv, process.argv[1]!, ...argv];
}

/** lab.provider ssh with lab.hosts_netns: re-run inside that namespace (exit 2 naming it when it is not there). */
async function enterHostsNetns(
  ns: string,
  argv: readonly string[],
  logger: Logger,
  signals: NodeJS.EventEmitter,
): Promise<ExitCode | undefined> {
  if (!ns || process.env[IN_NETNS_ENV]) return undefined;
  const list = await runCommand('ip', ['netns', 'list'], { deadline: deadlineIn(HOST_PREP_MS), logger });
  if (!parseNetnsList(list.stdout).includes(ns)) {
    const fix = 'give a namespace that exists (`ip netns list`), or "" to reach the hosts from here';
    throw new ConfigError([{ field: 'lab.hosts_netns', value: ns, message: 'is not a network namespace here', fix }]);
  }
  logger({ kind: 'info', t: 0, message: `existing hosts are reached from netns ${ns}; re-running inside it` });
  return (await childHandles(signals, `the re-run inside netns ${ns}`, () =>
    reexecInNetns(ns, sameCli(argv)),
  )) as ExitCode;
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
  out(`${nextCommands(labHost, config.lab.netns)}\n`);
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
        ...(config.builds.releasesKey ? { releasesKey: config.builds.releasesKey } : {}),
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

/**
 * The real effects, with process I/O. `lateStrayExit` (the CLI's process) sets the exit code of an error that comes
 * after the command; without it the stray-error guard goes with each command, as a driver of several commands needs.
 */
export function realDeps(lateStrayExit?: (code: number) => void): CliDeps {
  // Note: the streams' own writes, taken before any scenario file loads: a scenario that replaced
  // process.stdout.write (to quiet a library) silenced every verdict and report line after it, a matrix's too (Q507)
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  // one Ctrl-C delivered twice (a wrapper such as `timeout` passes it on) is one interrupt, not "exit at once" (Q602)
  const signalSource = signalRelay();
  return {
    env: process.env,
    cwd: process.cwd(),
    out: (s) => void writeOut(s),
    err: (s) => void writeErr(s),
    isTTY: Boolean(process.stderr.isTTY),
    makeEnv: (config, runId, logger, scenario) => createRealEnv(config, runId, logger, chooseDriver, scenario),
    prepareHost: (config, argv, logger, subnets) => prepareHost(config, argv, logger, subnets, signalSource),
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
    signalSource,
    ...(lateStrayExit ? { lateStrayExit } : {}),
  };
}
