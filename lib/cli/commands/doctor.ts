// `reboot-harness doctor`: every prerequisite of a run on a libvirt host, each missing piece with its fix.
import { providerFor } from '../../lab/providers.js';
import type { ConfigProblem } from '../../errors.js';
import type { HarnessConfig } from '../../config/schema.js';
import { unavailable, type CliCommand } from '../command.js';
import { commandConfig } from '../input.js';
import { CONFIG } from './options.js';

export const doctor: CliCommand = {
  name: 'doctor',
  summary: 'check the host: vagrant, provider, libvirtd, virtualization, box, disk, memory',
  usage: [
    'reboot-harness doctor [--nomad <build>] [--memory <MiB>] [--netns <name>] [--json]',
    '',
    'Every prerequisite of a run on a libvirt host, each missing piece with the command that fixes it. --nomad',
    'takes what run takes: a path is inspected, a release in the cache too (otherwise named as what the first run',
    'downloads), a source tree must exist; nothing is downloaded or built. --memory sets the free memory needed',
    '(two VMs), --netns the namespace libvirtd must run in. --provider virtualbox or ssh is refused: doctor has no',
    'checks for them.',
  ],
  exits: '0 every prerequisite is met; 2 usage error; 3 something is missing (the fix is printed); 70 harness bug',
  options: [CONFIG],
  configFlags: [
    'nomad',
    'nomad-binary',
    'provider',
    'box',
    'libvirt-driver',
    'netns',
    'work-dir',
    'memory',
    'servers',
    'clients',
    'json',
    { flag: 'quiet', doc: 'print only the names of the checks that failed, and the verdict' },
  ],
  positionals: { what: 'argument', max: 0, complete: [] },
  async run(args, deps) {
    const config = await commandConfig(args, deps, providerProblems);
    return deps.doctor ? await deps.doctor(config, config.output.json, deps.out) : unavailable('doctor');
  },
};

/**
 * doctor checks a host that runs the lab's VMs with libvirt; for another provider it would answer about a host that
 * is not the one the run uses, so it refuses the flag instead of ignoring it.
 */
function providerProblems(config: HarnessConfig): ConfigProblem[] {
  const { provider } = config.lab;
  const { doctor } = providerFor(config).host;
  if (doctor.checks) return [];
  const { fix } = doctor;
  return [
    {
      field: 'lab.provider (--provider)',
      value: provider,
      message: `doctor checks a libvirt host (vagrant-libvirt, libvirtd, QEMU, the box); it has no checks for ${provider}`,
      fix,
    },
  ];
}
