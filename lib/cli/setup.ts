// `reboot-harness setup`: the host packages and the box (vms/setup-host.ts), then the isolated lab host.
import { fileURLToPath } from 'node:url';
import { runCommand, type RunCommand } from '../exec/run.js';
import { CommandError, EXIT, HarnessError } from '../errors.js';
import type { Deadline } from '../time/deadlines.js';
import { silentLogger, type Logger } from '../log/events.js';
import { ensureLabHost, type LabHost } from '../lab/host/host.js';
import { tsxArgv } from '../exec/tsx.js';
import { DEFAULTS } from '../config/schema.js';
import { commandLine, type CommandWord } from '../shell/command-line.js';
import { raw } from '../shell/quote.js';

/** vms/setup-host.ts in this checkout (a zx script). */
export const SETUP_SCRIPT = fileURLToPath(new URL('../../vms/setup-host.ts', import.meta.url));
/** tsx's loader (lib/exec/tsx.ts), re-exported for the tests that run the scripts the same way. */

/** vms/setup-host.ts's exit code for a missing prerequisite or a bad argument (tools/steps.ts EXIT_USAGE). */
const SCRIPT_EXIT_PREREQUISITE = 2;

interface SetupOptions {
  deadline: Deadline;
  logger?: Logger;
  /** network namespace for libvirtd; undefined = do not start the lab host */
  netns?: string;
  /** host-stack blackhole routes for the lab subnets (guard) */
  blackholes?: readonly string[];
  forceBox?: boolean;
  skipBox?: boolean;
  /** also build the Docker box (vms/build-box.ts --docker) */
  dockerBox?: boolean;
  run?: RunCommand;
  /** starts libvirtd in the netns; tests inject */
  ensureHost?: typeof ensureLabHost;
}

/** The argv of the setup script for the given options, after `node` (this Node: process.execPath). Pure. */
export function setupArgs(o: Pick<SetupOptions, 'forceBox' | 'skipBox' | 'dockerBox'>): string[] {
  const flags = [o.skipBox && '--no-box', o.forceBox && '--force-box', o.dockerBox && '--docker-box'];
  return tsxArgv(
    SETUP_SCRIPT,
    flags.filter((f): f is string => typeof f === 'string'),
  );
}

/**
 * Run vms/setup-host.ts (streaming its lines as info events), then start virtlogd + libvirtd inside `netns` as `run`
 * would, so `doctor` passes straight after setup.
 */
export async function runSetup(opts: SetupOptions): Promise<{ labHost: LabHost | undefined }> {
  const { deadline, logger = silentLogger, netns, blackholes = [], run = runCommand } = opts;
  const ensureHost = opts.ensureHost ?? ensureLabHost;
  await run(process.execPath, setupArgs(opts), {
    deadline,
    logger,
    env: { VAGRANT_CHECKPOINT_DISABLE: '1' },
    onLine: (_s, line) => {
      if (line.trim() && !line.includes('Progress:')) logger({ kind: 'info', t: 0, message: line });
    },
  }).catch((err: unknown) => {
    // The script's exit 2: a missing prerequisite or a bad argument, reported before it changed anything.
    if (!(err instanceof CommandError) || err.code !== SCRIPT_EXIT_PREREQUISITE) throw err;
    const message = `setup: the host is not ready (nothing was changed):\n${err.stderrTail}`;
    throw new HarnessError(message, { exitCode: EXIT.USAGE, cause: err });
  });
  const labHost = netns ? await ensureHost({ netns, deadline, logger, run, blackholes }) : undefined;
  return { labHost };
}

/**
 * What to type after a successful setup (the last lines `setup` prints), with the namespace libvirtd runs in when it
 * is not the default: after `setup --netns mylab` (or `--netns ""`), the lines as printed ran doctor and the run
 * against nrh-lab, and doctor's "every check should say ok" failed (Q567). Pure.
 */
export function nextCommands(labHost: LabHost | undefined, netns: string = DEFAULTS.lab.netns): string {
  const host = labHost ? `libvirtd (pid ${labHost.libvirtdPid}) runs in netns ${labHost.netns}. ` : '';
  const where = labHost?.netns ?? netns;
  const ns = where === DEFAULTS.lab.netns ? [] : ['--netns', where];
  const lines: [CommandWord[], string][] = [
    [['reboot-harness', 'doctor', ...ns], 'every check should say ok'],
    [['reboot-harness', 'run', 'cni-ipam-reboot', ...ns], 'a real reboot without Nomad (about 5 min under emulation)'],
    [['reboot-harness', 'run', '--nomad', raw('<build>'), ...ns], 'the default scenario on your Nomad build'],
  ];
  const shown = lines.map(([words, why]) => [commandLine(words), why] as const);
  const width = Math.max(44, ...shown.map(([c]) => c.length + 1));
  return [`setup done. ${host}Next:`, ...shown.map(([c, why]) => `  ${c.padEnd(width)} # ${why}`)].join('\n');
}
