// Named steps with elapsed times, commands echoed as they run, and failures that say what failed and the fix: the one
// helper of the zx scripts outside lib/ (vms/*.ts, .ci/run.ts). lib/ keeps its own step runner and its execa path.
import { $, ProcessOutput, type LogEntry } from 'zx';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { formatMs } from '../lib/errors.js';

/** Exit code of a bad argument or a missing prerequisite: reported before anything was changed. */
export const EXIT_USAGE = 2;
/** Exit code of a step that failed (a command exited non-zero, a check of the result did not hold). */
export const EXIT_FAILED = 1;
/** Exit code of a bug in the script itself (an unexpected exception): the stack is printed. */
export const EXIT_INTERNAL = 70;
/**
 * When the outermost script started (ms since the epoch): each script sets it for the scripts it starts, so their
 * step times continue its clock (.ci/run sets it before `npm ci`).
 */
export const STARTED_ENV = 'NRH_STEPS_STARTED_MS';
/** How many lines of a failed command's stderr the failure repeats (all of it was shown live). */
const STDERR_TAIL_LINES = 5;

/** A command whose answer the script reads: not echoed, its output not shown, never throwing (check `.ok`). */
export const probe = $({ quiet: true, nothrow: true });

/** One thing that is wrong, and how to fix it. */
export interface Problem {
  message: string;
  fix: string;
}

/** A failure the script explains: one or more problems, each with its fix, and the exit code. */
export class ScriptError extends Error {
  constructor(
    readonly problems: readonly Problem[],
    readonly exitCode: number = EXIT_FAILED,
  ) {
    super(problems.map((p) => p.message).join('; '));
  }
}

/** Throw one problem as a failed step (exit 1). */
export function fail(message: string, fix: string): never {
  throw new ScriptError([{ message, fix }], EXIT_FAILED);
}

/** Throw every problem at once as bad input (exit 2) when there is any; nothing has been changed yet. */
export function refuse(problems: readonly Problem[]): void {
  if (problems.length) throw new ScriptError(problems, EXIT_USAGE);
}

/** The flags of `args` that `allowed` knows, and a problem naming every other one (all at once). Pure. */
export function parseFlags(
  name: string,
  args: readonly string[],
  allowed: readonly string[],
): { flags: Set<string>; problems: Problem[] } {
  const unknown = args.filter((a) => !allowed.includes(a));
  const fix = `use only ${allowed.join(', ')} (see ${name} --help)`;
  const problems = unknown.map((a) => ({ message: `unknown argument: ${a}`, fix }));
  return { flags: new Set(args.filter((a) => allowed.includes(a))), problems };
}

/** A command that ended with a non-zero exit code, as the log saw it. */
interface Ended {
  cmd: string;
  exitCode: number | null;
  signal: string | null;
}

/** The running script: its name, its clock, and its steps. */
export interface Script {
  readonly name: string;
  /**
   * Run one named step: `== [elapsed] title`, then `== [elapsed] ok title (duration)`, or FAIL and the error.
   * `fix` is what a failed command inside it tells the reader to do.
   */
  step<T>(title: string, fn: () => Promise<T> | T, opts?: { fix?: string }): Promise<T>;
  /** A line of the script's own, prefixed with its name. */
  say(message: string): void;
  /** Milliseconds since the script started. */
  elapsedMs(): number;
}

export interface ScriptOptions {
  /** the clock (ms); tests pass a fake one */
  now?: () => number;
  /** where the script's lines go; tests collect them */
  write?: (text: string) => void;
  /** when the script started on `now`'s clock; default: now, or STARTED_ENV's moment when a parent script set it */
  startedAt?: number;
}

/** The step prefix: `== [12.0s]`. Pure. */
export function stamp(elapsedMs: number): string {
  return `== [${formatMs(elapsedMs)}]`;
}

/** Make a script's step runner; failures inside a step are rethrown as a StepFailure that names the step. */
export function createScript(name: string, o: ScriptOptions = {}): Script & { lastFailed: { value?: Ended } } {
  const now = o.now ?? (() => performance.now());
  const write = o.write ?? ((text: string) => void process.stdout.write(text));
  const t0 = o.startedAt ?? now();
  const lastFailed: { value?: Ended } = {};
  const elapsedMs = () => now() - t0;
  return {
    name,
    lastFailed,
    elapsedMs,
    say: (message) => write(`${name}: ${message}\n`),
    async step(title, fn, opts = {}) {
      const started = now();
      write(`${stamp(elapsedMs())} ${title}\n`);
      try {
        const value = await fn();
        write(`${stamp(elapsedMs())} ok ${title} (${formatMs(now() - started)})\n`);
        return value;
      } catch (err) {
        write(`${stamp(elapsedMs())} FAIL ${title} (${formatMs(now() - started)})\n`);
        if (err instanceof StepFailure) throw err;
        throw new StepFailure(title, err, opts.fix, lastFailed.value);
      }
    },
  };
}

/** An error inside a named step, with the command that failed (when one did) and the step's fix. */
export class StepFailure extends Error {
  constructor(
    readonly step: string,
    override readonly cause: unknown,
    readonly fix: string | undefined,
    readonly command: Ended | undefined,
  ) {
    super(`${step}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** The lines that explain a failure, and its exit code. Pure. */
export function explain(name: string, err: unknown): { text: string; exitCode: number } {
  const step = err instanceof StepFailure ? err : undefined;
  const cause = step ? step.cause : err;
  const where = step ? `${step.step} failed: ` : '';
  if (cause instanceof ScriptError) {
    const many = cause.problems.length > 1;
    const head = many ? [`${name}: ${where}${cause.problems.length} problems${problemsNote(cause)}`] : [];
    const lines = cause.problems.flatMap((p) => [
      many ? `  - ${p.message}` : `${name}: ${where}${p.message}${problemsNote(cause)}`,
      `${many ? '    ' : '  '}fix: ${p.fix}`,
    ]);
    return { text: [...head, ...lines].join('\n'), exitCode: cause.exitCode };
  }
  if (cause instanceof ProcessOutput) {
    const how = cause.signal ? `was killed by ${cause.signal}` : `exited ${cause.exitCode}`;
    const cmd = step?.command ? `\`${oneLine(step.command.cmd)}\` ` : 'a command ';
    const tail = cause.stderr.trim().split('\n').slice(-STDERR_TAIL_LINES).filter(Boolean);
    const lines = [`${name}: ${where}${cmd}${how}`, ...tail.map((l) => `  | ${l}`)];
    lines.push(`  fix: ${step?.fix ?? 'see the command and its output above'}`);
    return { text: lines.join('\n'), exitCode: EXIT_FAILED };
  }
  const e = cause instanceof Error ? cause : new Error(String(cause));
  if ('code' in e && typeof e.code === 'string') {
    const fix = step?.fix ?? 'see the message: a file or directory the step needs is missing or not writable';
    return { text: `${name}: ${where}${e.message}\n  fix: ${fix}`, exitCode: EXIT_FAILED };
  }
  const inStep = step ? ` in step "${step.step}"` : '';
  const text = `${name}: internal error${inStep} (please report): ${e.stack ?? e.message}`;
  return { text, exitCode: EXIT_INTERNAL };
}

const problemsNote = (e: ScriptError) => (e.exitCode === EXIT_USAGE ? ' (nothing was changed)' : '');
const oneLine = (cmd: string) => cmd.replace(/\s*\n\s*/g, ' ');

/**
 * zx's log in the scripts' shape: each command as `  $ cmd` before it runs, its output passed through to the same
 * stream, and every command that ended non-zero remembered (a failure names it).
 */
export function scriptLog(
  lastFailed: { value?: Ended },
  out: { stdout: (b: Buffer | string) => void; stderr: (b: Buffer | string) => void },
): (entry: LogEntry) => void {
  const cmds = new Map<string, string>();
  return (entry) => {
    switch (entry.kind) {
      case 'cmd':
        cmds.set(entry.id, entry.cmd);
        if (entry.verbose) out.stderr(`  $ ${oneLine(entry.cmd)}\n`);
        return;
      case 'stdout':
        if (entry.verbose) out.stdout(entry.data);
        return;
      case 'stderr':
        if (entry.verbose) out.stderr(entry.data);
        return;
      case 'end':
        if (entry.exitCode !== 0) {
          const cmd = cmds.get(entry.id) ?? '';
          lastFailed.value = { cmd, exitCode: entry.exitCode, signal: entry.signal };
        }
        cmds.delete(entry.id);
        return;
      default:
        return;
    }
  };
}

/**
 * Run a script's body: zx commands echo and stream (`probe` does not), failures are explained with
 * their fix and mapped to the exit code (2 bad input, 1 a failed step, 70 a bug); the body's number is the exit code.
 */
export async function runScript(
  name: string,
  body: (s: Script) => Promise<number | void>,
  o: ScriptOptions = {},
): Promise<never> {
  const parent = Number(process.env[STARTED_ENV]);
  const startedAt = o.startedAt ?? (parent > 0 ? performance.now() - (Date.now() - parent) : undefined);
  if (!(parent > 0)) process.env[STARTED_ENV] = String(Date.now());
  const s = createScript(name, { ...o, ...(startedAt === undefined ? {} : { startedAt }) });
  $.verbose = true;
  $.log = scriptLog(s.lastFailed, {
    stdout: (b) => void process.stdout.write(b),
    stderr: (b) => void process.stderr.write(b),
  });
  let code: number;
  try {
    code = (await body(s)) ?? 0;
  } catch (err) {
    const { text, exitCode } = explain(name, err);
    process.stderr.write(`${text}\n`);
    code = exitCode;
  }
  process.exit(code);
}

/** True when the module at `url` is the script node was started with (not imported by another script). */
export function isMain(url: string): boolean {
  const arg = process.argv[1];
  if (!arg) return false;
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  return real(fileURLToPath(url)) === real(resolve(arg));
}

/** How to run a TypeScript script with this Node: `node --import <tsx's loader> <script>` (tsx from node_modules). */
export function tsxCommand(script: string): string[] {
  return [process.execPath, '--import', import.meta.resolve('tsx'), script];
}
