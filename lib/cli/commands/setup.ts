// `reboot-harness setup`: install the host packages the lab needs and build the offline box.
import { unavailable, type CliCommand } from '../command.js';
import { commandConfig } from '../input.js';

export const setup: CliCommand = {
  name: 'setup',
  summary: 'install the host packages the lab needs and build the offline box (Debian/Ubuntu, root)',
  usage: [
    'reboot-harness setup [--force] [--docker] [--netns <name>]',
    '',
    'Runs vms/setup-host.ts: Debian packages, then the offline box. Then prepares the host as a run does, so doctor',
    'passes straight after: starts virtlogd and libvirtd inside the network namespace lab.netns (--netns,',
    'HARNESS_NETNS, harness.yaml; "" = the host network), adds blackhole routes on the host for lab.private_subnet',
    'and lab.management_subnet (nothing for the lab leaves the host), and gives /dev/kvm to the kvm group (0660,',
    "udev's default) when it lacks that; the destroy command's host option stops the daemons and puts these back.",
  ],
  exits: '0 set up; 2 usage error or a missing prerequisite; 3 an install or the box build failed; 70 harness bug',
  options: [
    { name: 'force', type: 'boolean', doc: 'rebuild the box even when it is current' },
    {
      name: 'docker',
      type: 'boolean',
      doc: 'also build the Docker box nomad-reboot-harness/bookworm-docker (for --driver docker)',
    },
  ],
  configFlags: ['netns'],
  positionals: { what: 'argument', max: 0, complete: [] },
  async run(args, deps) {
    const config = await commandConfig(args, deps);
    const o = {
      force: Boolean(args.values['force']),
      docker: Boolean(args.values['docker']),
      config,
      out: deps.out,
    };
    return deps.setup ? await deps.setup(o) : unavailable('setup');
  },
};
