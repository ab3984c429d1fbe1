// Command-line parsing and the texts made from the commands' own tables (lib/cli/commands): which command, every
// problem of the whole command line at once, the general help, and what completion offers. Pure.
import { closest } from '../config/near.js';
import { ConfigError, type ConfigProblem } from '../errors.js';
import { commandLine } from '../shell/command-line.js';
import { COMMANDS } from './commands/index.js';
import {
  HELP,
  commandHelp,
  optionsOf,
  SWITCH_WORDS,
  takesValue,
  type CliCommand,
  type ParsedArgs,
  type Positionals,
} from './command.js';

/** The command of that name in `commands`, or undefined. */
export function commandNamed(name: string, commands: readonly CliCommand[] = COMMANDS): CliCommand | undefined {
  return commands.find((c) => c.name === name);
}

/**
 * Parse argv, keeping the command line's problems instead of throwing them, so a command can report them together with
 * every other problem of its input; an unknown command still throws (nothing else can be judged without it).
 */
export function parseCliCollecting(
  argv: string[],
  commands: readonly CliCommand[] = COMMANDS,
): { args: ParsedArgs; problems: ConfigProblem[] } {
  const [first, ...rest] = argv;
  const names = [...commands.map((c) => c.name), HELP.name];
  // Note: `--help run` is `help run`; `--version` stands alone.
  if (first === undefined || first === '--help' || first === '-h' || first === HELP.name) return helpArgs(rest, names);
  if (first === '--version')
    return {
      args: { command: HELP.name, rawArgs: [], positionals: ['--version'], values: {} },
      problems: rest.length
        ? [
            {
              ...unexpected(rest, { what: 'argument', max: 0 }, '--version'),
              fix: `give --version alone (reboot-harness --version), or ask for help without it (reboot-harness --help)`,
            },
          ]
        : [],
    };
  const cmd = commandNamed(first, commands);
  // an option before the command (reboot-harness --json list): the command comes first, its options after it
  const after = first.startsWith('-') ? rest.find((w) => commandNamed(w, commands)) : undefined;
  if (!cmd && after) {
    const at = argv.indexOf(after);
    // a `--` before the command ends nothing there; after it, it would make the command's options scenario names
    const reordered = [after, ...argv.slice(0, at).filter((w) => w !== '--'), ...argv.slice(at + 1)];
    // Note: the line it offers is judged too, so its own problems (an unknown option) come in this answer, not the next;
    // it is never run from here
    let more: ConfigProblem[];
    try {
      more = parseCliCollecting(reordered, commands).problems;
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      more = err.problems;
    }
    throw new ConfigError([
      {
        field: 'command',
        value: first,
        message: 'is an option given before the command: options come after it',
        fix: `put the command first: ${commandLine(['reboot-harness', ...reordered])}`,
      },
      ...more,
    ]);
  }
  if (!cmd) {
    const near = closest(first, names);
    throw new ConfigError([
      {
        field: 'command',
        value: first,
        message: first.startsWith('-')
          ? 'is an option: the first word is the command, its options after it'
          : 'is not a command',
        fix: `${near ? `did you mean "${near}"? ` : ''}use one of: ${names.join(', ')} (reboot-harness --help)`,
      },
    ]);
  }
  const { values, positionals, problems } = tokenize(cmd, rest, commands);
  const { max } = cmd.positionals;
  if (max !== undefined && positionals.length > max)
    problems.push(unexpected(positionals.slice(max), cmd.positionals, cmd.name));
  return { args: { command: cmd.name, rawArgs: switchWordsJoined(rest), positionals, values }, problems };
}

/** `help [topic]`: one topic at most, and it is a command. */
function helpArgs(rest: string[], names: readonly string[]): { args: ParsedArgs; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const [topic, ...extra] = rest;
  if (topic !== undefined && !names.includes(topic)) {
    const near = closest(topic, names);
    const fix = `${near ? `did you mean "${near}"? ` : ''}use one of: ${names.join(', ')}`;
    problems.push({ field: 'help topic', value: topic, message: 'is not a command', fix });
  }
  if (extra.length) problems.push(unexpected(extra, { what: 'help topic', max: 1 }, HELP.name));
  return {
    args: { command: HELP.name, rawArgs: rest, positionals: topic === undefined ? [] : [topic], values: {} },
    problems,
  };
}

/** Words after a command that takes no more of them. */
function unexpected(words: readonly string[], p: Pick<Positionals, 'what' | 'max'>, command: string): ConfigProblem {
  return {
    field: words.length > 1 ? 'unexpected arguments' : 'unexpected argument',
    value: words.length > 1 ? [...words] : words[0],
    message: p.max ? `${command} takes at most ${p.max} ${p.what}` : `${command} takes no ${p.what}`,
    fix: `drop ${words.map((w) => JSON.stringify(w)).join(' ')} (${commandLine(['reboot-harness', command, '--help'])})`,
  };
}

/** `--keep on-failure` as `--keep=on-failure`, so whatever re-reads the tokens (repro commands) sees one flag. Pure. */
function switchWordsJoined(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return [...out, ...args.slice(i)];
    const words = a.startsWith('--') ? SWITCH_WORDS[a.slice(2)] : undefined;
    if (words && words.includes(args[i + 1] ?? '')) out.push(`${a}=${args[++i]}`);
    else out.push(a);
  }
  return out;
}

/** What `--switch=<word>` may say: the words a boolean key of harness.yaml takes too (YAML's yes/no, 1/0). */
const SWITCH_VALUES: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  yes: true,
  no: false,
  '1': true,
  '0': false,
};

/** The truth a `--switch=<word>` spells (`yes`, `1`, `TRUE`), or undefined for a word no switch takes. */
export function switchWord(text: string): boolean | undefined {
  return SWITCH_VALUES[text.toLowerCase()];
}

/**
 * Walk the tokens once, collecting values and every problem. Hand-written rather than util.parseArgs: parseArgs takes
 * `--nomad --json` as --nomad's value and stops at the first unknown or ambiguous option (`--reboots -1`) with its own
 * wording, where every problem of the line is wanted at once, each naming its flag and fix.
 */
function tokenize(
  cmd: CliCommand,
  args: string[],
  commands: readonly CliCommand[],
): { values: Record<string, unknown>; positionals: string[]; problems: ConfigProblem[] } {
  const opts = optionsOf(cmd);
  const short = new Map([...opts.values()].flatMap((o) => (o.short ? [[o.short, o.name] as const] : [])));
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  const problems: ConfigProblem[] = [];
  const repeated = new Map<string, unknown[]>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-' || /^-\d/.test(a)) {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const rawName = eq === -1 ? a : a.slice(0, eq);
    const name = rawName.startsWith('--') ? rawName.slice(2) : (short.get(rawName.slice(1)) ?? rawName.slice(1));
    const spec = opts.get(name);
    if (!spec) {
      problems.push(unknownOption(cmd, rawName, commands));
      // Note: skip a value that plainly belongs to the unknown option (or to the option it is a typo of, --nomda
      // 1.9.7), so it is not taken for a positional and reported again as an unknown scenario.
      const meant = closest(name, [...opts.keys()]);
      const valued = takesValue(name, commands) || (meant !== undefined && opts.get(meant)!.type === 'string');
      if (eq === -1 && args[i + 1] !== undefined && !args[i + 1]!.startsWith('-') && valued) i++;
      continue;
    }
    if (spec.type === 'boolean') {
      let v: boolean | string = true;
      const words = SWITCH_WORDS[name] ?? [];
      if (eq !== -1) {
        const text = a.slice(eq + 1);
        const said = switchWord(text);
        if (said === undefined && !words.includes(text)) {
          problems.push({
            field: rawName,
            value: text,
            message: `is a switch and takes no value but ${['true', 'false', 'yes', 'no', '1', '0', ...words].join(', ')}`,
            fix: `write ${rawName} alone (or ${rawName}=${['true', 'false', 'yes', 'no', ...words].join('|')})`,
          });
          continue;
        }
        v = words.includes(text) ? text : said!;
      } else if (words.includes(args[i + 1] ?? '')) v = args[++i]!;
      if (values[name] !== undefined && values[name] !== v)
        repeated.set(name, [...(repeated.get(name) ?? [values[name]]), v]);
      values[name] = v;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = a.slice(eq + 1);
    else {
      const next = args[i + 1];
      // A value may start with a dash (`--reboots -1` is a bad number, not a missing value), but not be another option.
      if (next !== undefined && !(next.startsWith('--') && opts.has(next.slice(2).split('=')[0]!))) {
        value = next;
        i++;
      }
    }
    if (value === undefined) {
      problems.push({
        field: rawName,
        value: undefined,
        message: 'needs a value',
        fix: `write ${rawName} <value> (${commandLine(['reboot-harness', cmd.name, '--help'])})`,
      });
      continue;
    }
    if (spec.multiple) values[name] = [...((values[name] as string[] | undefined) ?? []), value];
    else if (values[name] !== undefined) repeated.set(name, [...(repeated.get(name) ?? [values[name]]), value]);
    else values[name] = value;
  }
  const multiple = [...opts.values()].filter((o) => o.multiple).map((o) => `--${o.name}`);
  for (const [name, given] of repeated) problems.push(givenTwice(name, given, multiple));
  return { values, positionals, problems };
}

/** A single-value option given more than once: taking the last (or the first) would be a guess at what was meant. */
function givenTwice(name: string, given: unknown[], multiple: readonly string[]): ConfigProblem {
  const which = multiple.length ? `only ${multiple.join(', ')} can be repeated` : 'no option of this command repeats';
  return {
    field: `--${name}`,
    value: given,
    message: 'is given more than once and takes one value',
    fix: `give --${name} once (${which})`,
  };
}

/** An option this command does not take: another command's (name it), or none at all (the nearest name). */
function unknownOption(cmd: CliCommand, raw: string, commands: readonly CliCommand[]): ConfigProblem {
  const name = raw.replace(/^-+/, '');
  const owners = commands.filter((c) => optionsOf(c).has(name)).map((c) => c.name);
  if (owners.length && name !== 'help') {
    return {
      field: raw,
      value: raw,
      message: `is an option of ${owners.map((c) => `\`${c}\``).join(', ')}, not of \`${cmd.name}\``,
      fix: `drop it, or run ${owners.map((c) => commandLine(['reboot-harness', c])).join(' / ')} (${commandLine(['reboot-harness', cmd.name, '--help'])} lists ${cmd.name}'s options)`,
    };
  }
  const every = [...new Set(commands.flatMap((c) => [...optionsOf(c).keys()]))];
  const near = closest(name, [...optionsOf(cmd).keys()]) ?? closest(name, every);
  return {
    field: raw,
    value: raw,
    message: 'is not an option',
    fix: `${near ? `did you mean --${near}? ` : ''}see ${commandLine(['reboot-harness', cmd.name, '--help'])}`,
  };
}

/** The help text of one command, or the general help (no topic, or `help`). */
export function helpText(topic?: string, commands: readonly CliCommand[] = COMMANDS): string {
  const cmd = topic === undefined ? undefined : commandNamed(topic, commands);
  if (cmd) return commandHelp(cmd);
  const rows: [string, string][] = [
    ...commands.map((c): [string, string] => [c.name, c.summary]),
    [HELP.name, HELP.summary],
  ];
  const width = Math.max(...rows.map(([n]) => n.length));
  return [
    'reboot-harness: proves whether Nomad survives a client host reboot with bridge networking',
    '',
    'Usage: reboot-harness <command> [options]',
    '',
    'Commands:',
    ...rows.map(([n, s]) => `  ${n.padEnd(width)}  ${s}`),
    '',
    'Run "reboot-harness <command> --help" (or "reboot-harness help <command>") for a command\'s options and exit codes.',
  ].join('\n');
}
