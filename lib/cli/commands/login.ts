// `reboot-harness login <run-id> [machine]`: a shell (or one command) on a machine of a kept lab.
import type { CliCommand } from '../command.js';
import { commandConfig } from '../input.js';
import { loginCommand, loginLineProblems } from '../login.js';
import { CONFIG } from './options.js';

export const login: CliCommand = {
  name: 'login',
  summary: 'open a shell (or run --command) on a machine of a kept lab, inside the lab network namespace',
  usage: [
    'reboot-harness login <run-id> [machine] [--command <cmd>]',
    '',
    'SSH into a machine of a lab a run kept (keep: true or on-failure), like `vagrant ssh`: inside the lab network',
    "namespace (--netns), with the ssh-config the run wrote. machine: a slot (server, client, client-2) or the VM's",
    "name; default the first client. With lab.provider ssh: the config's hosts, with their user, port and key.",
    'list-labs shows the kept labs; destroy <run-id> removes one.',
  ],
  exits:
    "the command's or the shell's exit code (ssh's 255 when the machine is not reachable); 2 usage error, or no kept lab of that id",
  options: [
    CONFIG,
    {
      name: 'command',
      type: 'string',
      arg: '<cmd>',
      doc: "run this one command on the machine instead of a shell (its output and exit code are the command's)",
    },
  ],
  configFlags: [
    'netns',
    'work-dir',
    'provider',
    { flag: 'quiet', doc: 'do not print the ssh command line before running it' },
  ],
  // Note: the clean-up and lab commands read the lab's keys only: a stale HARNESS_TIMEOUT or HARNESS_REPEAT of run's
  // must not keep them from finding or destroying a lab
  reads: ['lab.', 'output.', 'nomad.token'],
  positionals: { what: 'run id and machine', complete: 'labs' },
  async run(args, deps) {
    return loginCommand(args, await commandConfig(args, deps, (config) => loginLineProblems(args, config.lab)), deps);
  },
};
