// `reboot-harness list-labs`: the labs left on this host (kept, warm, orphaned), removing nothing.
import type { CliCommand } from '../command.js';
import { commandConfig } from '../input.js';
import { listLabsCommand } from '../labs.js';
import { CONFIG } from './options.js';

export const listLabs: CliCommand = {
  name: 'list-labs',
  summary: 'list the labs left on this host: kept, warm and orphaned, with their age, machines and topology',
  usage: [
    'reboot-harness list-labs [--json] [--work-dir <dir>]',
    '',
    'Lists the labs under the work dir (kept by a run, or left by a killed one, and warm labs) with their age,',
    "machines and topology, and (libvirt) orphan domains: a lab's VMs whose directory is gone. Removes nothing.",
  ],
  exits: '0 listed; 2 usage error; 3 a lab or the orphan domains could not be looked at (the rest is listed)',
  options: [CONFIG],
  configFlags: ['netns', 'work-dir', 'provider', 'json'],
  // Note: the clean-up and lab commands read the lab's keys only: a stale HARNESS_TIMEOUT or HARNESS_REPEAT of run's
  // must not keep them from finding or destroying a lab
  reads: ['lab.', 'output.', 'nomad.token'],
  positionals: { what: 'argument', max: 0, complete: [] },
  async run(args, deps) {
    return listLabsCommand(args, await commandConfig(args, deps), deps);
  },
};
