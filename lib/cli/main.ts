// The CLI: parse argv through the commands' registry (lib/cli/commands), answer --help / --version / help <topic>,
// dispatch to the command, and map errors to exit codes (the only place that does). What a command does is its own
// module; the session machinery run, compare and matrix share is lib/cli/session-command.ts (docs/architecture.md).
import { readFile } from 'node:fs/promises';
import { valueShape } from '../log/shape.js';
import { EXIT, ConfigError, HarnessError, InterruptedError } from '../errors.js';
import { redactingWriter } from '../log/redact.js';
import { commandNamed, helpText, parseCliCollecting, switchWord } from './args.js';
import { HELP, type CliCommand } from './command.js';
import { COMMANDS } from './commands/index.js';
import type { CliDeps } from './deps.js';

/** Schema id of the document `--json` prints on stdout when a command ends in an error. */
export const ERROR_JSON_SCHEMA = 'nomad-reboot-harness/error@1';

/** Run the CLI; returns the exit code (never throws). `commands`: the registry (a test may add its own). */
export async function main(
  argv: string[],
  given: CliDeps,
  commands: readonly CliCommand[] = COMMANDS,
): Promise<number> {
  // Note: the token from the environment is a secret even before the config is valid.
  let secrets: string[] = given.env['NOMAD_TOKEN'] ? [given.env['NOMAD_TOKEN']] : [];
  // Note: a command that already printed its JSON document (build --json with a failed spec) gets no second one.
  let printed = false;
  // Every console line of every command goes through one redacting stream; no output site redacts on its own.
  const deps: CliDeps = {
    ...given,
    out: redactingWriter(
      (s) => {
        printed = true;
        given.out(s);
      },
      () => secrets,
    ),
    err: redactingWriter(given.err, () => secrets),
  };
  const interrupt = interruptGuard(deps.signalSource ?? process);
  const stray = strayRejectionGuard(given.rejectionSource, deps.err, given.lateStrayExit);
  try {
    const { args, problems } = parseCliCollecting(argv, commands);
    const cmd = commandNamed(args.command, commands);
    if (!cmd || args.values['help']) {
      if (problems.length) throw new ConfigError(problems);
      const topic = cmd ? cmd.name : args.positionals[0];
      deps.out(
        (topic === '--version' ? await version() : helpText(topic === HELP.name ? undefined : topic, commands)) + '\n',
      );
      return EXIT.OK;
    }
    const addSecrets = (s: readonly string[]) => (secrets = [...new Set([...secrets, ...s])]);
    const running = cmd.run(args, {
      ...deps,
      argv,
      argvProblems: problems,
      addSecrets,
      commands,
      strayCode: stray.peek,
    });
    return stray.exitCode(await Promise.race([running, interrupt.interrupted]));
  } catch (err) {
    return stray.exitCode(reportError(err, deps, wantsJson(argv) && !printed));
  } finally {
    interrupt.dispose();
    stray.dispose();
  }
}

/**
 * SIGINT or SIGTERM while a command has no handler of its own (reading inputs, --plan, merge): exit 130 with one line
 * "interrupted", as during a run, instead of Node's silent 143. A command that watches signals itself (a run tearing
 * down its lab, a build) handles them; this guard then stays out of the way.
 *
 * SIGHUP (the terminal closed, an SSH session dropped; the netns parent forwards it, docs/lab.md) is a SIGTERM of that
 * name: Node's default for it ended the process at once, so a run's teardown never ran and its VMs stayed up, with no
 * report (Q501). It reaches the command's own SIGTERM handlers (a run's, a build's, a bisect's watcher), or this guard.
 */
function interruptGuard(source: NodeJS.EventEmitter): { interrupted: Promise<never>; dispose(): void } {
  let fire: (err: InterruptedError) => void = () => {};
  const interrupted = new Promise<never>((_, reject) => (fire = reject));
  // Note: nothing may be left rejected and unobserved when no signal comes (the race already settled).
  interrupted.catch(() => {});
  const handler = (sig: NodeJS.Signals) => {
    const event = sig === 'SIGINT' ? 'SIGINT' : 'SIGTERM';
    if (source.listenerCount(event) - 1 - passiveListeners(source) > 0) return;
    fire(new InterruptedError(sig));
  };
  const hangUp = () => void source.emit('SIGTERM', 'SIGHUP');
  source.on('SIGINT', handler);
  source.on('SIGTERM', handler);
  source.on('SIGHUP', hangUp);
  return {
    interrupted,
    dispose: () => {
      source.off('SIGINT', handler);
      source.off('SIGTERM', handler);
      source.off('SIGHUP', hangUp);
    },
  };
}

/**
 * Listeners on `source` that handle no signal: signal-exit's, which execa adds while a child runs (to kill it when the
 * process ends) and which re-raises a signal only when it is the only listener. Counted as a command's own handler,
 * it made the guard step aside while `nomad version`, git or go ran for the inputs, so a Ctrl-C there was dropped and
 * the run went on to bring its lab up. signal-exit publishes how many of its copies listen on a global symbol.
 */
function passiveListeners(source: NodeJS.EventEmitter): number {
  if (source !== process) return 0;
  const emitter = (globalThis as Record<symbol, { count?: unknown } | undefined>)[Symbol.for('signal-exit emitter')];
  return typeof emitter?.count === 'number' ? emitter.count : 0;
}

/**
 * A promise rejected with nothing awaiting it, or an exception thrown in a callback, while a command runs (a user
 * scenario's `Promise.reject` in the background, a throw in its timer): Node would end the process at once with exit 1 (which reads as "a check
 * failed"), its stack printed unredacted (the message may hold the token) and the run's teardown never run, so its
 * VMs stayed up. Told through the redacting console instead; the command goes on to its teardown and reports, and a
 * verdict of 0 or 1 becomes 3: something failed that no check judged.
 */
function strayRejectionGuard(
  source: NodeJS.EventEmitter | undefined,
  err: (s: string) => void,
  lateExit?: (code: number) => void,
): { exitCode(code: number): number; peek(code: number): number; dispose(): void } {
  let seen = 0;
  // the command's exit code once it ended; a later error is told as such and changes the process's exit code
  let ended: number | undefined;
  const strayCode = (code: number) => (code === EXIT.OK || code === EXIT.CHECK_FAILED ? EXIT.INFRA : code);
  const told = (what: string) => (reason: unknown) => {
    seen++;
    const at = reason instanceof Error ? /\n\s+at (.*)/.exec(reason.stack ?? '')?.[1] : undefined;
    // a rejection with an object (not an Error) is named by its shape, not "[object Object]" nor its contents
    const text = reason instanceof Error ? reason.message : valueShape(reason);
    const then =
      ended === undefined
        ? `the command goes on to its teardown and reports, then exits ${EXIT.INFRA}`
        : `after the command ended (its teardown ran and its reports are written); exiting with ${strayCode(ended)}`;
    err(`error: ${what}${at ? ` (at ${at})` : ''}; ${then}: ${text}\n`);
    if (ended !== undefined) lateExit?.(strayCode(ended));
  };
  const rejection = told('a promise was rejected and nothing awaited it');
  const exception = told('an exception was thrown where nothing catches it (a timer or event callback)');
  source?.on('unhandledRejection', rejection);
  source?.on('uncaughtException', exception);
  return {
    exitCode: (code) => (ended = seen ? strayCode(code) : code),
    peek: (code) => (seen ? strayCode(code) : code),
    dispose: () => {
      // Note: the real CLI keeps them: the process lives on while a scenario's timer is pending, and Node's own
      // handler would print that timer's error unredacted and exit 1 over the verdict
      if (lateExit) return;
      source?.off('unhandledRejection', rejection);
      source?.off('uncaughtException', exception);
    },
  };
}

/**
 * --json on the command line, read from the tokens themselves: an error may come before (or from) parsing them. Every
 * spelling the parser takes counts (`--json=yes`, `--json=1`), the last one given deciding, as it does for the parser.
 */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  const said = (end === -1 ? argv : argv.slice(0, end)).flatMap((a) =>
    a === '--json' ? [true] : a.startsWith('--json=') ? [switchWord(a.slice('--json='.length)) === true] : [],
  );
  return said.at(-1) ?? false;
}

function reportError(err: unknown, deps: CliDeps, json = false): number {
  if (json) {
    const doc = {
      schema: ERROR_JSON_SCHEMA,
      ok: false,
      exitCode: err instanceof HarnessError ? err.exitCode : EXIT.INTERNAL,
      error: err instanceof HarnessError ? err.message : `internal error (please report): ${String(err)}`,
      ...(err instanceof HarnessError && err.hint ? { hint: err.hint } : {}),
      ...(err instanceof ConfigError ? { problems: err.problems } : {}),
    };
    deps.out(`${JSON.stringify(doc, null, 2)}\n`);
  }
  if (err instanceof HarnessError) {
    deps.err(`error: ${err.message}${err.hint ? `\nhint: ${err.hint}` : ''}\n`);
    return err.exitCode;
  }
  deps.err(`internal error (please report): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return EXIT.INTERNAL;
}

async function version(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return `reboot-harness ${pkg.version}`;
}
