// Thin adapter over the Vagrant CLI: argv arrays, machine-readable output, errors that carry Vagrant's error class.
import { CommandError } from '../errors.js';
import { ANY_EXIT_CODE, runCommand, type RunCommand } from '../exec/run.js';
import { tailLines } from '../exec/escape.js';
import type { Deadline } from '../time/deadlines.js';
import type { Logger } from '../log/events.js';
import type { SshTarget } from '../shell/target.js';
import { quote } from '../shell/quote.js';
import { DEFAULT_LOCK_DIR, lockPath, withLock } from './lock.js';
import {
  dropProgressNoise,
  errorExit,
  isProgressNoise,
  machineStates,
  parseMachineReadable,
  rubyException,
  sshConfigText,
  transcriptLine,
} from '../parse/vagrant-machine-readable.js';

import { sshTargetFor } from '../parse/ssh-config.js';
import { upProgressTracker, type UpProgress } from '../parse/vagrant-progress.js';

/** Vagrant exited non-zero; `errorClass`/`vagrantMessage` come from its `error-exit` line when it printed one. */
export class VagrantError extends CommandError {
  readonly errorClass: string | undefined;
  readonly vagrantMessage: string | undefined;
  constructor(command: string, code: number, details: { errorClass?: string; message?: string; stderrTail: string }) {
    const head = details.errorClass ? `${details.errorClass}: ${details.message ?? ''}` : '';
    super(command, code, [head, details.stderrTail].filter(Boolean).join('\n'), {
      hint: 'see `vagrant status` in the run directory',
    });
    this.errorClass = details.errorClass;
    this.vagrantMessage = details.message;
  }
}

export interface VagrantOptions {
  /** the run's Vagrant directory (VAGRANT_CWD) */
  cwd: string;
  env?: Record<string, string | undefined>;
  run?: RunCommand;
  logger?: Logger;
  /** the vagrant executable; tests put a fake one first on PATH instead */
  bin?: string;
  /** where the per-provider up/destroy lock lives (tests use a temp dir) */
  lockDir?: string;
}

type Opts = { deadline: Deadline };

/** Run the Vagrant CLI for one run directory; `up`/`destroy` are serialized per provider across processes. */
export function createVagrant({
  cwd,
  env = {},
  run = runCommand,
  logger,
  bin = 'vagrant',
  lockDir = DEFAULT_LOCK_DIR,
}: VagrantOptions) {
  const fullEnv = { ...env, VAGRANT_CWD: cwd, VAGRANT_CHECKPOINT_DISABLE: '1', VAGRANT_NO_COLOR: '1' };
  const now = () => Math.round(performance.now());
  const shown = (args: readonly string[]) => `VAGRANT_CWD=${quote(cwd)} ${[bin, ...args].map(quote).join(' ')}`;

  /** Pass Vagrant's UI messages on live (long commands), without progress noise; shown with --verbose. */
  const progress = (stream: 'stdout' | 'stderr', line: string) => {
    const rec = parseMachineReadable(line)[0];
    const msg = rec
      ? rec.type === 'ui'
        ? rec.data.slice(1).join(',')
        : undefined
      : stream === 'stderr'
        ? line
        : undefined;
    if (!msg || isProgressNoise(msg) || !msg.trim()) return;
    logger?.({ kind: 'output', t: now(), source: 'vagrant', line: msg.trim() });
  };

  type InvokeOpts = Opts & {
    live?: boolean;
    onOutput?: (line: string) => void;
    onProgress?: (p: UpProgress) => void;
  };
  async function invoke(args: string[], { deadline, live = false, onOutput, onProgress }: InvokeOpts) {
    const milestone = onProgress ? upProgressTracker() : undefined;
    const onLine =
      live || onOutput || onProgress
        ? (stream: 'stdout' | 'stderr', line: string) => {
            if (live) progress(stream, line);
            const kept = onOutput && transcriptLine(line);
            if (kept) onOutput!(kept);
            const reached = stream === 'stdout' ? milestone?.(line) : undefined;
            if (reached) onProgress!(reached);
          }
        : undefined;
    const r = await run(bin, args, { deadline, cwd, env: fullEnv, logger, allowedCodes: ANY_EXIT_CODE, onLine });
    const records = parseMachineReadable(r.stdout);
    if (r.code !== 0) {
      // Note: without an error-exit record (a plugin let a Ruby exception escape), the exception's own line is the news;
      // the stderr tail is only the bottom of its stack trace
      const ee = errorExit(records) ?? rubyException(r.stderr);
      const stderrTail = tailLines(dropProgressNoise(r.stderr));
      throw new VagrantError(shown(args), r.code, { errorClass: ee?.errorClass, message: ee?.message, stderrTail });
    }
    return { ...r, records };
  }

  const locked = <T>(provider: string, deadline: Deadline, fn: () => Promise<T>) =>
    withLock(lockPath(provider, lockDir), fn, { deadline, logger });

  return {
    /**
     * `vagrant up <names> --provider p`, holding the provider lock (vagrant-libvirt is not safe against concurrent
     * ups); `onOutput` gets every readable output line as it comes (the transcript kept as evidence, even on failure),
     * `onProgress` each machine's milestones (domain created, booting, SSH ready, up) once each, as they happen.
     */
    async up(
      names: readonly string[],
      {
        provider,
        deadline,
        onOutput,
        onProgress,
      }: Opts & { provider: string; onOutput?: (line: string) => void; onProgress?: (p: UpProgress) => void },
    ): Promise<void> {
      const args = ['up', ...names, '--provider', provider, '--machine-readable'];
      const hooks = { ...(onOutput ? { onOutput } : {}), ...(onProgress ? { onProgress } : {}) };
      await locked(provider, deadline, () => invoke(args, { deadline, live: true, ...hooks }));
    },
    /** Machine name -> Vagrant state id (`running`, `not_created`, `shutoff`, ...). */
    async status({ deadline }: Opts): Promise<Record<string, string>> {
      return machineStates((await invoke(['status', '--machine-readable'], { deadline })).records);
    },
    /** Human-readable `vagrant status` (evidence). */
    async statusText({ deadline }: Opts): Promise<string> {
      return (await invoke(['status'], { deadline })).stdout;
    },
    /** The OpenSSH config block Vagrant prints for `name`. */
    async sshConfigText(name: string, { deadline }: Opts): Promise<string> {
      const r = await invoke(['ssh-config', name, '--machine-readable'], { deadline });
      return sshConfigText(r.records, name) ?? r.stdout; // plain block as fallback (non machine-readable builds)
    },
    /** The ssh-config text of each machine in one `vagrant ssh-config` (one Vagrant start instead of one per machine). */
    async sshConfigTexts(names: readonly string[], { deadline }: Opts): Promise<Record<string, string>> {
      const r = await invoke(['ssh-config', '--machine-readable'], { deadline });
      // Note: the plain output as the fallback, as sshConfigText does: it holds every machine's Host block
      return Object.fromEntries(names.map((name) => [name, sshConfigText(r.records, name) ?? r.stdout]));
    },
    /** Connection details for `name` from `vagrant ssh-config`. */
    async sshConfig(name: string, opts: Opts): Promise<SshTarget> {
      return sshTargetFor(await this.sshConfigText(name, opts), name);
    },
    /** `vagrant reload <name>` (graceful halt + up; provisioners not re-run). */
    async reload(name: string, { deadline }: Opts): Promise<void> {
      await invoke(['reload', name, '--machine-readable'], { deadline, live: true });
    },
    /** `vagrant halt <name> [--force]`. */
    async halt(name: string, { force = false, deadline }: Opts & { force?: boolean }): Promise<void> {
      await invoke(['halt', name, ...(force ? ['--force'] : []), '--machine-readable'], { deadline, live: true });
    },
    /** `vagrant destroy -f <names>` holding the provider lock; succeeds for machines never created. */
    async destroy(names: readonly string[], { provider, deadline }: Opts & { provider: string }): Promise<void> {
      await locked(provider, deadline, () =>
        invoke(['destroy', '-f', ...names, '--machine-readable'], { deadline, live: true }),
      );
    },
    /** `vagrant snapshot save <name> <snap>`. */
    async snapshotSave(name: string, snap: string, { deadline }: Opts): Promise<void> {
      await invoke(['snapshot', 'save', name, snap, '--machine-readable'], { deadline });
    },
    /** `vagrant snapshot restore <name> <snap>` (resumes the saved memory state; boot_id does not change). */
    async snapshotRestore(name: string, snap: string, { deadline }: Opts): Promise<void> {
      await invoke(['snapshot', 'restore', name, snap, '--machine-readable'], { deadline });
    },
    /** `vagrant --version`, e.g. "Vagrant 2.3.4". */
    async version({ deadline }: Opts): Promise<string> {
      return (await invoke(['--version'], { deadline })).stdout.trim();
    },
  };
}
