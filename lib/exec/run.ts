// Run one local command from an argv array (no shell), bounded by a deadline, as a typed result or a CommandError.
import { performance } from 'node:perf_hooks';
import { CommandError, TimeoutError } from '../errors.js';
import type { Deadline } from '../time/deadlines.js';
import type { Logger } from '../log/events.js';
import { tailLines } from './escape.js';
import { watchGroup } from './group.js';
import type { ExecResult } from '../model/lab.js';

interface RunOptions {
  deadline: Deadline;
  cwd?: string;
  /** added to the inherited environment */
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  logger?: Logger;
  /** exit codes that count as success; default [0] */
  allowedCodes?: readonly number[];
  /** called for each complete output line while the command runs (live progress) */
  onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
  /**
   * the command gets a process group of its own, stopped whole on the deadline's abort (SIGTERM, then SIGKILL) and
   * killed when the CLI exits: for commands whose own children hold the output pipes (go, git). A terminal's Ctrl-C
   * then reaches the harness only, which aborts the deadline.
   */
  killGroup?: boolean;
}

/** Every exit code: pass as `allowedCodes` when the caller interprets failures itself (the Vagrant adapter). */
export const ANY_EXIT_CODE: readonly number[] = Array.from({ length: 256 }, (_, i) => i);

/** After SIGTERM on the deadline, SIGKILL this much later: vagrant needs a moment to release its locks. */
const FORCE_KILL_AFTER_MS = 3000;

export type RunCommand = (file: string, args: readonly string[], opts: RunOptions) => Promise<ExecResult>;

/** Run `file args` with execa (no shell); throw CommandError (escaped command, stderr tail, timedOut) unless the exit code is allowed. */
export const runCommand: RunCommand = async (file, args, opts) => {
  const { deadline, cwd, env, input, logger, allowedCodes = [0], onLine, killGroup = false } = opts;
  // Note: loaded on first use: a CLI that ends at input validation starts ~130 ms sooner (test speed)
  const { execa } = await import('execa');
  const started = performance.now();
  const sub = execa(file, [...args], {
    cwd,
    env,
    extendEnv: true,
    input,
    stdin: input === undefined ? 'ignore' : 'pipe',
    cancelSignal: deadline.signal,
    forceKillAfterDelay: FORCE_KILL_AFTER_MS,
    reject: false,
    stripFinalNewline: false,
    maxBuffer: 64 * 1024 * 1024,
    detached: killGroup,
  });
  const ended = killGroup ? watchGroup(sub.pid, deadline.signal, FORCE_KILL_AFTER_MS) : undefined;
  if (onLine) {
    for (const name of ['stdout', 'stderr'] as const) {
      let partial = '';
      sub[name]?.on('data', (chunk: Buffer) => {
        const parts = (partial + chunk.toString('utf8')).split('\n');
        partial = parts.pop() ?? '';
        for (const l of parts) onLine(name, l);
      });
    }
  }
  const r = await sub.finally(ended);
  const durationMs = performance.now() - started;
  // Note: secrets in the command or its stderr are redacted where text leaves the process (lib/log/redact.ts).
  const command = r.escapedCommand;
  const stdout = String(r.stdout ?? '');
  const stderr = String(r.stderr ?? '');
  logger?.({ kind: 'cmd', t: Math.round(performance.now()), command, exitCode: r.exitCode, durationMs });
  if (r.isCanceled) {
    const reason: unknown = deadline.signal.reason;
    // Note: an interrupt (Ctrl-C) is not a timeout; let the runner map it to its own exit code.
    if (reason !== undefined && !(reason instanceof TimeoutError)) throw reason;
    throw new CommandError(command, r.exitCode, tailLines(stderr), {
      timedOut: true,
      cause: reason,
    });
  }
  if (r.exitCode === undefined || !allowedCodes.includes(r.exitCode)) {
    const tail =
      tailLines(stderr) || (r.exitCode === undefined ? String(r.originalMessage ?? r.shortMessage ?? '') : '');
    throw new CommandError(command, r.exitCode, tail, { cause: r.cause });
  }
  return { code: r.exitCode, stdout, stderr, durationMs };
};
