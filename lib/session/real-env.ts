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
import { agentAddress, createSshLab } from '../lab/ssh-lab.js';
import type { ChooseDriver } from '../lab/accel.js';
import { deadlineIn, type Deadline } from '../run/deadline.js';
import type { Lab } from '../model/lab.js';
import type { RunContext } from '../run/context.js';

/** vms/Vagrantfile of this checkout. */
export const VAGRANTFILE = fileURLToPath(new URL('../../vms/Vagrantfile', import.meta.url));
/** The Nomad HTTP API inside the server VM (the agent also listens there; nothing is exposed outside the VM). */
const NOMAD_HTTP = { host: '127.0.0.1', port: 4646 };

/** How long a machine may take to answer before its host evidence is given up (a client that never came back). */
const REACH_FOR_EVIDENCE_MS = 20_000;

/**
 * Collect each host's journals, addresses, iptables and CNI state before the teardown. A machine that does not answer
 * SSH within REACH_FOR_EVIDENCE_MS (issue 15: a client that never came back) is skipped with the reason, so it does
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
 * (shared by every run of one process: one KVM probe at most). */
export function createRealEnv(
  config: HarnessConfig,
  runId: string,
  logger: Logger,
  chooseDriver?: ChooseDriver,
): ScenarioEnv {
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
  return {
    config,
    async upLab(ctx, d, opts = {}) {
      if (config.lab.provider === 'ssh') return upExistingHosts(ctx, d, opts.roles ?? ['server', 'client']);
      const driver = config.lab.provider === 'libvirt' ? await pickDriver(ctx, d) : undefined;
      const spec = labSpecFor(config, runId, opts.roles ?? ['server', 'client'], driver);
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
      // issue 15: registered before `vagrant up`, so a bring-up that fails or is interrupted keeps what Vagrant printed
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
      // Note: existing hosts have no lab subnet; each agent binds the address the harness reached it on
      const ssh = config.lab.provider === 'ssh';
      const ips: Record<string, string> = {};
      for (const m of Object.values(lab.machines)) ips[m.role] = ssh ? await agentAddress(m, d) : ipOf(m.role);
      if (ssh) for (const [role, ip] of Object.entries(ips)) ctx.fact(`${role}.agent_address`, ip);
      const results = await Promise.all(
        Object.values(lab.machines).map(async (m) => {
          const r = await installNomad(m, {
            binaryPath: config.nomadBinary!,
            role: m.role as 'server' | 'client',
            deadline: d,
            vars: { private_ip: ips[m.role]!, server_ip: ips['server']!, heartbeat_grace: config.nomad.heartbeatGrace },
          });
          ctx.artifact(`${m.role}-nomad.hcl`, r.config);
          return r;
        }),
      );
      return { nomadVersion: results[0]!.version.split('\n')[0] ?? '' };
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
