// The real scenario environment: Vagrant VMs (lib/lab/vagrant-lab.ts), Nomad installed over SSH (lib/cluster),
// and the Nomad API reached through an SSH tunnel to the server VM's 127.0.0.1:4646.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { HarnessConfig } from '../config/schema.js';
import type { Logger } from '../log/events.js';
import { installNomad } from '../cluster/provision.js';
import { upgradeNomad } from '../cluster/upgrade.js';
import { HarnessError } from '../errors.js';
import { collectHostEvidence } from '../cluster/evidence.js';
import { createNomad } from '../nomad/client.js';
import { createHttpTransport } from '../nomad/transport.js';
import type { ScenarioEnv } from '../run/scenario.js';
import { createVagrantLab } from '../lab/vagrant-lab.js';
import { labSpecFor } from '../lab/spec-for.js';
import { agentAddress, agentInterface, createSshLab } from '../lab/ssh-lab.js';
import type { ChooseDriver } from '../lab/accel.js';
import { deadlineIn, type Deadline } from '../time/deadlines.js';
import type { RunContext } from '../run/context.js';
import { openWarmLab, warmInputsFor, type WarmLab } from '../lab/warm-lab.js';
import type { Lab, Machine } from '../model/lab.js';
import type { LabSpec } from '../model/lab-spec.js';
import { BRIDGE_CNI_ATTRIBUTES, waitForLeader, waitForNodeReady } from '../nomad/wait.js';
import { waitFor } from '../time/wait-for.js';

/** vms/Vagrantfile of this checkout. */
export const VAGRANTFILE = fileURLToPath(new URL('../../vms/Vagrantfile', import.meta.url));
/** The Nomad HTTP API inside the server VM (the agent also listens there; nothing is exposed outside the VM). */
const NOMAD_HTTP = { host: '127.0.0.1', port: 4646 };

/** The client agent's own view of its node (`nomad node status -self`, answered through its RPC to the server). */
const NODE_SELF = 'NOMAD_ADDR=http://127.0.0.1:4646 /usr/local/bin/nomad node status -self -short';

/** After a revert: the client agent answers and says its node is ready (its RPC to the server works again). */
async function waitClientAgentReady(client: Machine, d: Deadline): Promise<void> {
  await waitFor(
    'the client agent to report its node ready after the revert (nomad node status -self)',
    async (dd) => {
      const r = await client.exec(NODE_SELF, { deadline: deadlineIn(20_000, dd) }).catch((e: Error) => ({
        code: -1,
        stdout: '',
        stderr: e.message,
      }));
      const status = /^Status\s*=\s*(\S+)/m.exec(r.stdout)?.[1];
      if (r.code === 0 && status === 'ready') return { done: true, value: undefined };
      const said = r.code === 0 ? `status ${status ?? '?'}` : `exit ${r.code}: ${r.stderr.trim().split('\n').at(-1)}`;
      return { done: false, reason: said };
    },
    { deadline: d },
  );
}

/** How long a machine may take to answer before its host evidence is given up (a client that never came back). */
const REACH_FOR_EVIDENCE_MS = 20_000;

/**
 * Collect each host's journals, addresses, iptables and CNI state before the teardown. A machine that does not answer
 * SSH within REACH_FOR_EVIDENCE_MS (a client that never came back) is skipped with the reason, so it does
 * not use up the evidence budget of the others.
 */
function onHostEvidence(ctx: RunContext, lab: Lab): void {
  ctx.onEvidence('hosts: journals, addresses, iptables, CNI state', async (dd) => {
    for (const m of Object.values(lab.machines)) {
      const reach = await m.bootId({ deadline: deadlineIn(REACH_FOR_EVIDENCE_MS, dd) }).then(
        () => undefined,
        (err: Error) => err.message.split('\n')[0],
      );
      const files = reach
        ? { 'error.txt': `not collected: ${m.name} did not answer over SSH: ${reach}\n` }
        : await collectHostEvidence(m, { deadline: dd }).catch((err: Error) => ({ 'error.txt': err.message }));
      for (const [name, text] of Object.entries(files)) ctx.artifact(`${m.role}-${name}`, text);
    }
  });
}

/** Build the environment a scenario runs in for one run of the CLI; `chooseDriver` resolves lab.libvirt_driver
 * (shared by every run of one process: one KVM probe at most); `scenario.needsNomad` says when a warm lab's snapshot
 * is taken (after the agents are ready, or right after bring-up). */
export function createRealEnv(
  config: HarnessConfig,
  runId: string,
  logger: Logger,
  chooseDriver?: ChooseDriver,
  scenario: { needsNomad: boolean; roles?: readonly string[] } = { needsNomad: true },
): ScenarioEnv {
  let warm: WarmLab | undefined;
  const full = labSpecFor(config, runId, ['server', 'client']);
  const ipOf = (role: string) => full.machines.find((m) => m.role === role)!.privateIp;
  // Note: before `vagrant up`, so the probe's VM never runs next to this run's lab
  const pickDriver = async (ctx: RunContext, d: Deadline): Promise<'kvm' | 'qemu'> => {
    const setting = config.lab.libvirtDriver;
    const choice = chooseDriver
      ? await chooseDriver(setting, config.lab.box, d)
      : { driver: setting === 'kvm' ? ('kvm' as const) : ('qemu' as const), reason: `${setting}, no probe here` };
    ctx.fact('lab.libvirt_driver', choice.driver);
    ctx.fact('lab.libvirt_driver.setting', setting);
    ctx.fact('lab.libvirt_driver.reason', choice.reason);
    ctx.info(`libvirt driver ${choice.driver}: ${choice.reason}`);
    return choice.driver;
  };
  const upExistingHosts = async (ctx: RunContext, d: Deadline, roles: string[]) => {
    const lab = await createSshLab({
      runId,
      roles,
      hosts: config.lab.hosts,
      hardResetCommand: config.lab.hardResetCommand,
      logger,
      cleanup: (what, fn) => void ctx.cleanup.defer(what, fn),
      ssh: { redact: ctx.secrets, streamOutput: config.output.verbose },
    }).up({ deadline: d });
    ctx.cleanup.defer(
      'close the SSH connections',
      async () => {
        await Promise.all(Object.values(lab.machines).map((m) => m.disconnect()));
      },
      { alsoWhenKept: true },
    );
    onHostEvidence(ctx, lab);
    if (config.keep) ctx.info(`hosts kept as they are after the run:\n${lab.describe()}`);
    return lab;
  };
  const labEvidence = (ctx: RunContext, lab: Lab) => {
    ctx.onEvidence('lab: vagrant status, serial consoles', async (dd) => {
      for (const [name, text] of Object.entries(await lab.collectEvidence({ deadline: dd }))) ctx.artifact(name, text);
    });
    onHostEvidence(ctx, lab);
  };
  const takeSnapshot = async (ctx: RunContext, d: Deadline, extra?: Parameters<WarmLab['snapshot']>[1]) => {
    const tookMs = await warm!.snapshot(d, extra);
    ctx.fact('lab.snapshot.created', `yes, in ${(tookMs / 1000).toFixed(1)} s`);
    ctx.info(`warm lab snapshot ${warm!.key} taken in ${(tookMs / 1000).toFixed(1)} s (${warm!.dir})`);
  };
  // A leader and the client node ready with its CNI plugins fingerprinted, through a tunnel of its own.
  const agentsReady = async (ctx: RunContext, lab: Lab, d: Deadline, when: string) => {
    const tunnel = await lab.machines['server']!.forward(NOMAD_HTTP.host, NOMAD_HTTP.port, { deadline: d });
    try {
      const nomad = createNomad({
        transport: createHttpTransport({ addr: `http://127.0.0.1:${tunnel.localPort}` }),
        logger,
        ...(config.nomad.token ? { token: config.nomad.token } : {}),
      });
      await waitForLeader(nomad, { deadline: d });
      const driver = config.task.driver;
      await waitForNodeReady(nomad, { nodeName: 'client', driver, attributes: BRIDGE_CNI_ATTRIBUTES }, { deadline: d });
      ctx.info(`warm lab: a leader and the client node ready ${when}`);
    } finally {
      await tunnel.close();
    }
  };
  // The key's warm lab (lib/lab/warm-lab.ts), or undefined when this run goes cold (the reason is a fact).
  const upWarm = async (ctx: RunContext, d: Deadline, spec: LabSpec, roles: string[]): Promise<Lab | undefined> => {
    if (config.lab.provider !== 'libvirt' || !config.lab.warm || config.keep) {
      const why = !config.lab.warm
        ? 'lab.warm is off (--fresh)'
        : config.keep
          ? '--keep'
          : `lab.provider ${config.lab.provider}`;
      ctx.fact('lab.warm', `no (${why})`);
      if (config.lab.warm && config.lab.provider === 'virtualbox') ctx.info('warm reruns need libvirt; a cold lab');
      return undefined;
    }
    const inputs = await warmInputsFor(config, {
      roles,
      driver: spec.libvirt.driver,
      vagrantfile: VAGRANTFILE,
      nomad: scenario.needsNomad,
    });
    const opened = await openWarmLab(
      {
        config,
        spec,
        inputs,
        vagrantfile: VAGRANTFILE,
        logger,
        cleanup: (what, fn, o) => void ctx.cleanup.defer(what, fn, o),
        ssh: { redact: ctx.secrets, streamOutput: config.output.verbose },
      },
      d,
    );
    if ('cold' in opened) {
      ctx.fact('lab.warm', `no (${opened.cold})`);
      ctx.info(`cold lab: ${opened.cold}`);
      return undefined;
    }
    warm = opened;
    const lab = opened.lab;
    ctx.fact('lab.dir', opened.dir);
    ctx.fact('lab.snapshot.key', opened.key);
    if (opened.decision.mode === 'reuse') {
      ctx.fact('lab.warm', 'yes');
      ctx.fact('lab.snapshot.age_s', String(opened.decision.ageS));
      ctx.fact('lab.snapshot.revert_s', ((opened.revertMs ?? 0) / 1000).toFixed(1));
      ctx.fact(
        'lab.snapshot.clock_skew_s',
        Object.entries(opened.clockSkewS)
          .map(([r, s]) => `${r}=${s}`)
          .join(' '),
      );
      const took = ((opened.revertMs ?? 0) / 1000).toFixed(1);
      ctx.info(
        `warm lab ${opened.key}: reverted to its snapshot (${opened.decision.ageS} s old) in ${took} s; guest clocks set`,
      );
    } else {
      const why = opened.decision.rebuild ? `rebuilt: ${opened.decision.rebuild}` : 'first run of this key';
      ctx.fact('lab.warm', `no (${why}; snapshot taken once prepared)`);
    }
    const disconnect = async () => void (await Promise.all(Object.values(lab.machines).map((m) => m.disconnect())));
    ctx.cleanup.defer('close the SSH connections', disconnect, { alsoWhenKept: true });
    labEvidence(ctx, lab);
    // Note: a scenario without Nomad is prepared once its VMs are up
    if (opened.decision.mode === 'create' && !scenario.needsNomad) await takeSnapshot(ctx, d);
    return lab;
  };
  return {
    config,
    async upLab(ctx, d, opts = {}) {
      // Note: the scenario's declared roles are the default (lab.provider ssh validated hosts for exactly these)
      const roles = opts.roles ?? [...(scenario.roles ?? ['server', 'client'])];
      if (config.lab.provider === 'ssh') return upExistingHosts(ctx, d, roles);
      const driver = config.lab.provider === 'libvirt' ? await pickDriver(ctx, d) : undefined;
      const spec = labSpecFor(config, runId, roles, driver);
      const w = await upWarm(ctx, d, spec, roles);
      if (w) return w;
      const vagrantDir = join(config.lab.workDir, runId);
      ctx.fact('lab.dir', vagrantDir);
      const prepared = createVagrantLab({
        spec,
        vagrantDir,
        vagrantfile: VAGRANTFILE,
        logger,
        cleanup: (what, fn, opts) => void ctx.cleanup.defer(what, fn, opts),
        ssh: { redact: ctx.secrets, streamOutput: config.output.verbose },
      });
      // registered before `vagrant up`, so a bring-up that fails or is interrupted keeps what Vagrant printed
      // and the serial consoles (collected before the teardown destroys the VMs)
      ctx.onEvidence('lab: vagrant up output, vagrant status, serial consoles', async (dd) => {
        for (const [name, text] of Object.entries(await prepared.collectEvidence({ deadline: dd })))
          ctx.artifact(name, text);
      });
      const lab = await prepared.up({ deadline: d });
      // Note: runs before the lab's destroy (LIFO) and with --keep too, so a kept lab holds no connection of this process.
      ctx.cleanup.defer(
        'close the SSH connections',
        async () => void (await Promise.all(Object.values(lab.machines).map((m) => m.disconnect()))),
        { alsoWhenKept: true },
      );
      onHostEvidence(ctx, lab);
      // Note: what --keep leaves is said once, at the end of the run (the cleanup entry's keptAs), not after bring-up.
      return lab;
    },
    async provisionNomad(ctx, lab, d) {
      // A reverted warm lab has Nomad installed and its agents running: wait for them as the server sees them now.
      const snap = warm?.decision.mode === 'reuse' ? warm.record.snapshot : undefined;
      if (warm && snap?.nomadVersion !== undefined) {
        await agentsReady(ctx, lab, d, 'after the revert');
        await waitClientAgentReady(lab.machines['client']!, d);
        for (const [role, text] of Object.entries(snap.agentConfigs ?? {})) ctx.artifact(`${role}-nomad.hcl`, text);
        return { nomadVersion: snap.nomadVersion };
      }
      // Note: existing hosts have no lab subnet; each agent binds the address the harness reached it on
      const ssh = config.lab.provider === 'ssh';
      const ips: Record<string, string> = {};
      for (const m of Object.values(lab.machines)) ips[m.role] = ssh ? await agentAddress(m, d) : ipOf(m.role);
      if (ssh) for (const [role, ip] of Object.entries(ips)) ctx.fact(`${role}.agent_address`, ip);
      const client = lab.machines['client'];
      const iface = ssh && client ? { network_interface: await agentInterface(client, ips['client']!, d) } : {};
      if (iface.network_interface) ctx.fact('client.network_interface', iface.network_interface);
      const results = await Promise.all(
        Object.values(lab.machines).map(async (m) => {
          const r = await installNomad(m, {
            binaryPath: config.nomadBinary!,
            role: m.role as 'server' | 'client',
            deadline: d,
            vars: {
              private_ip: ips[m.role]!,
              server_ip: ips['server']!,
              heartbeat_grace: config.nomad.heartbeatGrace,
              ...(m.role === 'client' ? iface : {}),
            },
          });
          ctx.artifact(`${m.role}-nomad.hcl`, r.config);
          return r;
        }),
      );
      const nomadVersion = results[0]!.version.split('\n')[0] ?? '';
      if (warm?.decision.mode === 'create' && scenario.needsNomad) {
        // The snapshot holds agents that are ready: a leader, the client node ready with its CNI plugins fingerprinted.
        const ready = await agentsReady(ctx, lab, d, 'before the snapshot').then(
          () => true,
          (err: Error) => {
            const message = `no warm lab snapshot taken: ${err.message.split('\n')[0]}`;
            ctx.logger({ kind: 'warn', t: ctx.elapsed(), message });
            return false;
          },
        );
        if (ready) {
          const roles = Object.values(lab.machines).map((m) => m.role);
          const agentConfigs = Object.fromEntries(results.map((r, i) => [roles[i]!, r.config]));
          await takeSnapshot(ctx, d, { nomadVersion, agentConfigs });
        }
      }
      return { nomadVersion };
    },
    async upgradeNomad(ctx, lab, role, binary, d) {
      const machine = lab.machines[role];
      if (!machine) throw new HarnessError(`upgrade: the lab has no ${role} machine`);
      const { version } = await upgradeNomad(machine, binary, d);
      ctx.fact(`${role}.nomad.version.upgraded`, version.split('\n')[0] ?? '');
      return { nomadVersion: version.split('\n')[0] ?? '' };
    },
    async connectNomad(ctx, lab, d) {
      const tunnel = await lab.machines['server']!.forward(NOMAD_HTTP.host, NOMAD_HTTP.port, { deadline: d });
      ctx.cleanup.defer('close the Nomad API tunnel', () => tunnel.close(), { alsoWhenKept: true });
      ctx.fact('nomad.api', `ssh tunnel 127.0.0.1:${tunnel.localPort} -> server 127.0.0.1:${NOMAD_HTTP.port}`);
      return createNomad({
        transport: createHttpTransport({ addr: `http://127.0.0.1:${tunnel.localPort}` }),
        logger,
        retry5xxMs: config.nomad.retryForS * 1000,
        ...(config.nomad.token ? { token: config.nomad.token } : {}),
      });
    },
  };
}
