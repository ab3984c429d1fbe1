// lab.provider ssh: machines that already exist, one per entry of lab.hosts.servers / lab.hosts.clients.
import { performedKinds } from '../perform.js';
import type { LabProvider, ProvidedLab } from '../provider.js';
import { SSH_PERFORMERS, sshLacks } from './ssh-faults.js';
import { agentAddress, agentInterface, createSshLab } from './ssh-lab.js';
import { sshConfigProblems } from './ssh-validate.js';

export const SSH: LabProvider<'ssh'> = {
  name: 'ssh',
  capabilities: { faults: performedKinds(SSH_PERFORMERS), lacks: sshLacks, concurrentUp: true },
  host: {
    workDir: false,
    netns: 'hosts',
    orphanDomains: false,
    libvirtDriver: false,
    doctor: {
      checks: false,
      fix: 'run the scenario: with lab.provider ssh its preflight checks the host keys and reaches every host before anything is installed (exit 2 or 3 naming the host)',
    },
    machinesFromConfig: true,
  },
  // Note: keys and CNI plugins are checked by the preflight (ssh-preflight.ts), which reads the disk
  validateConfig: sshConfigProblems,
  // Note: its rules of the config are validateConfig's (the host lists); its machines exist, so nothing of this host's
  // memory is asked (the Vagrant providers' validate is their memory budget)
  validate: () => [],
  async up(_t, ctx, d): Promise<ProvidedLab> {
    const { config } = ctx;
    const lab = await createSshLab({
      runId: ctx.runId,
      roles: ctx.roles,
      hosts: config.lab.hosts,
      hardResetCommand: config.lab.hardResetCommand,
      logger: ctx.logger,
      cleanup: (what, fn) => ctx.cleanup(what, fn),
      ssh: { streamOutput: config.output.verbose },
    }).up({ deadline: d });
    if (config.keep) ctx.info(`hosts kept as they are after the run:\n${lab.describe()}`);
    const machine = (name: string) => {
      const m = lab.machines[name];
      if (!m) throw new Error(`the lab has no host ${name} (it has ${Object.keys(lab.machines).join(', ')})`);
      return m;
    };
    return {
      lab,
      // Note: existing hosts have no lab subnet; each agent binds the address the harness reached it on
      agentAddress: (name, dd) => agentAddress(machine(name), dd),
      agentInterface: (name, ip, dd) => agentInterface(machine(name), ip, dd),
    };
  },
};
