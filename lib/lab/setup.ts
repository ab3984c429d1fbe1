// `reboot-harness setup`: install the host packages and build the box (vms/setup-host.sh), then start the isolated lab host.
import { fileURLToPath } from 'node:url';
import { runCommand, type RunCommand } from '../exec/run.js';
import type { Deadline } from '../run/deadline.js';
import { silentLogger, type Logger } from '../log/events.js';
import { ensureLabHost, type LabHost } from './host.js';

/** vms/setup-host.sh in this checkout. */
export const SETUP_SCRIPT = fileURLToPath(new URL('../../vms/setup-host.sh', import.meta.url));

export interface SetupOptions {
  deadline: Deadline;
  logger?: Logger;
  /** network namespace for libvirtd; undefined = do not start the lab host */
  netns?: string;
  /** host-stack blackhole routes for the lab subnets (guard) */
  blackholes?: readonly string[];
  forceBox?: boolean;
  skipBox?: boolean;
  /** also build the Docker box (vms/build-box.sh --docker) */
  dockerBox?: boolean;
  run?: RunCommand;
  /** starts libvirtd in the netns; tests inject */
  ensureHost?: typeof ensureLabHost;
}

/** The argv of the setup script for the given options. Pure. */
export function setupArgs(o: Pick<SetupOptions, 'forceBox' | 'skipBox' | 'dockerBox'>): string[] {
  const flags = [o.skipBox && '--no-box', o.forceBox && '--force-box', o.dockerBox && '--docker-box'];
  return [SETUP_SCRIPT, ...flags.filter((f): f is string => typeof f === 'string')];
}

/**
 * Run vms/setup-host.sh (streaming its lines as info events), then start virtlogd + libvirtd inside `netns` as `run`
 * would, so `doctor` passes straight after setup.
 */
export async function runSetup(opts: SetupOptions): Promise<{ labHost: LabHost | undefined }> {
  const { deadline, logger = silentLogger, netns, blackholes = [], run = runCommand } = opts;
  const ensureHost = opts.ensureHost ?? ensureLabHost;
  await run('bash', setupArgs(opts), {
    deadline,
    logger,
    env: { VAGRANT_CHECKPOINT_DISABLE: '1' },
    onLine: (_s, line) => {
      if (line.trim() && !line.includes('Progress:')) logger({ kind: 'info', t: 0, message: line });
    },
  });
  const labHost = netns ? await ensureHost({ netns, deadline, logger, run, blackholes }) : undefined;
  return { labHost };
}

/** What to type after a successful setup (the last lines `setup` prints). Pure. */
export function nextCommands(labHost: LabHost | undefined): string {
  const host = labHost ? `libvirtd (pid ${labHost.libvirtdPid}) runs in netns ${labHost.netns}. ` : '';
  return [
    `setup done. ${host}Next:`,
    '  reboot-harness doctor                        # every check should say ok',
    '  reboot-harness run cni-ipam-reboot           # a real reboot without Nomad (about 5 min under emulation)',
    '  reboot-harness run --nomad-binary <path>     # the default scenario on your Nomad build',
  ].join('\n');
}
