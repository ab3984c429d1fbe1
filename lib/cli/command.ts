// What a command is: one object holding its summary, usage, exit codes, options, the config flags it takes, what its
// words after the name are, and its handler. The tokenizer, --help, completion and docs/cli.md all read these objects
// (lib/cli/commands/index.ts lists them), so a command is written in one place. Pure apart from the handler type.
import { FIELDS } from '../config/table.js';
import { DEFAULTS } from '../config/schema.js';
import type { Field } from '../config/fields.js';
import { defaultText } from '../config/doc-table.js';
import { EXIT, HarnessError, type ConfigProblem } from '../errors.js';
import { commandLine } from '../shell/command-line.js';
import type { CliDeps } from './deps.js';

/** An option of one command that is not a config key. */
export interface CommandOption {
  name: string;
  type: 'boolean' | 'string';
  multiple?: boolean;
  short?: string;
  /** how the value is written in help, e.g. "<i/n>" */
  arg?: string;
  /** the value names a file or folder the command reads (an input slot) or writes (completed as files either way) */
  file?: 'read' | 'write';
  doc: string;
}

/** A config flag a command takes, by name, or with a line of its own where the table's line says something else. */
export type ConfigFlag = string | { flag: string; doc: string };

/** The words after the command's name and its options. */
export interface Positionals {
  /** how they are written in messages, e.g. "run id" */
  what: string;
  /** at most this many; absent: the handler judges them (it has a better word than "unexpected argument") */
  max?: number;
  /** what completion offers there (labs: the ids of the labs under the work dir, as list-labs finds them) */
  complete: 'scenario' | 'command' | 'files' | 'labs' | readonly string[];
}

/** What a handler gets besides the parsed line: the world (CliDeps), the line itself and the problems parsing found. */
export interface CommandDeps extends CliDeps {
  /** the whole argv (a run may re-run the CLI inside the lab's network namespace) */
  argv: readonly string[];
  /** the command line's own problems (unknown, misplaced or repeated options, words too many): told with the rest */
  argvProblems: readonly ConfigProblem[];
  /** values the console and reports redact from now on (a token read from harness.yaml) */
  addSecrets(secrets: readonly string[]): void;
  /** the commands this CLI dispatches (the registry), for what lists them all: completion */
  commands: readonly CliCommand[];
  /**
   * The exit code `code` becomes when a promise rejected unobserved or an exception went uncaught so far (a user
   * scenario's background work: lib/cli/main.ts strayRejectionGuard), for the reports written before the command ends.
   */
  strayCode?: (code: number) => number;
}

/**
 * The session as its reports tell it: with the exit code the process ends with. A rejection nothing awaited in a
 * cell made the process exit 3 while summary.json said 0 or 1 (Q402).
 */
export const strayAware = <T extends { exitCode: number }>(s: T, deps: Pick<CommandDeps, 'strayCode'>): T =>
  deps.strayCode ? { ...s, exitCode: deps.strayCode(s.exitCode) } : s;

export interface CliCommand {
  name: string;
  /** one line, for the command list */
  summary: string;
  /** the usage lines, then a paragraph (first line: "reboot-harness <name> …") */
  usage: readonly string[];
  /** the exit codes it can end with, one sentence */
  exits: string;
  options: readonly CommandOption[];
  /** the config-table flags it takes: every one (a run of a scenario reads them all), or these */
  configFlags: 'all run flags' | readonly ConfigFlag[];
  /** of 'all run flags', those it does not take (compare and matrix have retries and cells, not --repeat) */
  notFlags?: readonly string[];
  positionals: Positionals;
  /**
   * The harness.yaml keys (or sections, ending in ".") it reads: a bad value of another key is left to the commands
   * that read it (build does not fail on lab.cpus). Absent: every key.
   */
  reads?: readonly string[];
  run(args: ParsedArgs, deps: CommandDeps): Promise<number>;
}

export interface ParsedArgs {
  command: string;
  /** the arguments after the command, as given (for repro commands) */
  rawArgs: string[];
  positionals: string[];
  values: Record<string, unknown>;
}

/** `help [command]`: built into the CLI (it reads the list of commands itself); listed and completed like one. */
export const HELP = { name: 'help', summary: 'show help (also: <command> --help)' } as const;

/** The option every command takes. */
const HELP_OPTION: CommandOption = { name: 'help', type: 'boolean', short: 'h', doc: 'show this help' };

/** Config flags that are switches: written alone (`--keep`), never with a value after them. */
const CONFIG_SWITCHES = new Set(['keep', 'json', 'verbose', 'quiet', 'rolling', 'drain']);
/** Switches that also take one of a few words as their value, written after them or with `=`: `--keep on-failure`. */
export const SWITCH_WORDS: Record<string, readonly string[]> = { keep: ['on-failure'] };
export interface OptionSpec {
  name: string;
  type: 'boolean' | 'string';
  multiple: boolean;
  short?: string;
  arg?: string;
  /** the value names a file or folder (completed as files) */
  path: boolean;
  /** what the command does with it: reads it (an input slot) or writes it; see CommandOption.file, Field.file */
  file?: 'read' | 'write';
  doc: string;
  /** the config field behind a config flag */
  field?: Field;
}

/** The config fields whose flags `cmd` takes, each with the line its help shows. */
function configFields(cmd: CliCommand): { field: Field; doc?: string }[] {
  const withFlag = FIELDS.filter((f) => f.flag);
  if (cmd.configFlags === 'all run flags')
    return withFlag.filter((f) => !cmd.notFlags?.includes(f.flag!)).map((field) => ({ field }));
  const wanted = new Map(cmd.configFlags.map((c) => (typeof c === 'string' ? [c, undefined] : [c.flag, c.doc])));
  return withFlag.filter((f) => wanted.has(f.flag!)).map((field) => ({ field, doc: wanted.get(field.flag!) }));
}

/** Every option `cmd` takes, by long name: --help, its own, then its config flags. */
export function optionsOf(cmd: CliCommand): Map<string, OptionSpec> {
  const out = new Map<string, OptionSpec>();
  for (const o of [HELP_OPTION, ...cmd.options])
    out.set(o.name, {
      name: o.name,
      type: o.type,
      multiple: !!o.multiple,
      ...(o.short ? { short: o.short } : {}),
      ...(o.arg ? { arg: o.arg } : {}),
      path: !!o.file,
      ...(o.file ? { file: o.file } : {}),
      doc: o.doc,
    });
  for (const { field, doc } of configFields(cmd)) {
    const name = field.flag!;
    const type = CONFIG_SWITCHES.has(name) ? 'boolean' : 'string';
    out.set(name, {
      name,
      type,
      multiple: !!field.multiple,
      path: !!field.file,
      ...(field.file ? { file: field.file } : {}),
      doc: doc ?? fieldHelp(field),
      field,
    });
  }
  return out;
}

/** Whether an option of this name takes a value in some command (a config flag that is no switch, or an option). */
export function takesValue(name: string, commands: readonly CliCommand[]): boolean {
  return (
    commands.some((c) => c.options.some((o) => o.name === name && o.type === 'string')) ||
    FIELDS.some((f) => f.flag === name && !CONFIG_SWITCHES.has(name))
  );
}

/** "<value>" with the allowed values and the default of a config field, for help. */
function fieldHelp(f: Field): string {
  const values = (f.parse as { values?: readonly string[] }).values;
  const def = defaultText(f, DEFAULTS);
  const extra = [
    values ? `one of ${values.join('|')}` : '',
    def !== undefined ? `default ${def}` : '',
    f.env ? `env ${f.env}` : '',
  ].filter(Boolean);
  return `${f.doc}${extra.length ? ` [${extra.join('; ')}]` : ''}`;
}

/**
 * The options of `cmd` as `--help` and docs/cli.md both show them: how each is written, and what it does (a config
 * key's line with its values, default and variable).
 */
export function optionRows(cmd: CliCommand): [usage: string, doc: string][] {
  return [...optionsOf(cmd).values()].map((o) => {
    const arg = o.field ? (o.type === 'string' ? ' <value>' : '') : o.arg ? ` ${o.arg}` : '';
    return [`--${o.name}${o.short ? `, -${o.short}` : ''}${arg}`, o.doc];
  });
}

/** The help text of one command. */
export function commandHelp(cmd: CliCommand): string {
  const lines = [
    `${commandLine(['reboot-harness', cmd.name])}: ${cmd.summary}`,
    '',
    ...cmd.usage.map((u, i) => (i === 0 ? `Usage: ${u}` : u)),
    '',
    'Options:',
  ];
  for (const [left, right] of optionRows(cmd))
    lines.push(left.length > 32 ? `  ${left}\n  ${' '.repeat(32)} ${right}` : `  ${left.padEnd(32)} ${right}`);
  lines.push('', `Exit codes: ${exitCodes(cmd)}.`);
  return lines.join('\n');
}

/**
 * The codes main() gives every command (lib/cli/main.ts): a harness bug, and a Ctrl-C or SIGTERM that no handler of
 * the command's own took (its interrupt guard). A command's sentence that left them out was wrong about destroy,
 * list-labs, doctor and the rest, which do exit 130 when interrupted (Q527).
 */
const EVERY_COMMAND: readonly (readonly [number, string])[] = [
  [EXIT.INTERNAL, 'harness bug'],
  // Note: SIGHUP too, which main() takes as a SIGTERM (Q501); the list named two of the three (Q566)
  [EXIT.INTERRUPTED, 'interrupted (Ctrl-C, SIGTERM or SIGHUP)'],
];

/** A command's exit codes: its own sentence, and those every command has that it does not name. */
export function exitCodes(cmd: Pick<CliCommand, 'exits'>): string {
  const named = new Set([...cmd.exits.matchAll(/(?:^|; )(\d+)\b/g)].map((m) => Number(m[1])));
  return [cmd.exits, ...EVERY_COMMAND.filter(([code]) => !named.has(code)).map(([c, what]) => `${c} ${what}`)].join(
    '; ',
  );
}

/** A command whose effect this build was not given (a CliDeps member left out): a usage error saying so. */
export function unavailable(what: string): never {
  throw new HarnessError(`${what} is not available in this build`, { exitCode: EXIT.USAGE });
}
