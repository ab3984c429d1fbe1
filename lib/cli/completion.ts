// `reboot-harness completion bash|zsh|fish`: a completion script made from the commands' own tables (completionSpec),
// so it names exactly the commands, options and values --help names. Pure: each function returns the script text.
import { HELP, optionsOf, type CliCommand, type Positionals } from './command.js';

/** One option as shell completion sees it: its names, whether it takes a value, the values it allows. */
interface CompletionOption {
  name: string;
  short?: string;
  takesValue: boolean;
  /** repeatable */
  multiple: boolean;
  /** the allowed values (a config key's one-of list) */
  values?: readonly string[];
  /** the value names a file or folder */
  path: boolean;
  doc: string;
}

/** What completion offers for each command, from the same tables as --help; `help` last, offering the commands. */
export function completionSpec(commands: readonly CliCommand[]): CompletionCommand[] {
  const mine = commands.map((c) => ({
    name: c.name,
    doc: c.summary,
    positional: c.positionals.complete,
    positionalName: c.positionals.what,
    options: [...optionsOf(c).values()].map((o) => {
      const values = o.field ? (o.field.parse as { values?: readonly string[] }).values : undefined;
      return {
        name: o.name,
        ...(o.short ? { short: o.short } : {}),
        takesValue: o.type === 'string',
        multiple: o.multiple,
        ...(values ? { values } : {}),
        path: o.path,
        doc: o.doc.split(/; | \(|\. /)[0]!.trim(),
      };
    }),
  }));
  const help = {
    name: HELP.name,
    doc: HELP.summary,
    positional: 'command' as const,
    positionalName: 'command',
    options: [],
  };
  return [...mine, help];
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface CompletionCommand {
  name: string;
  doc: string;
  /** what goes after the command: a scenario, a command, files, or one of some words */
  positional: Positionals['complete'];
  /** how its words are named (zsh shows it) */
  positionalName: string;
  options: CompletionOption[];
}

interface CompletionInput {
  commands: readonly CompletionCommand[];
  /** the shipped scenario names, offered where a scenario goes */
  scenarios: readonly string[];
  /** the program name completed (reboot-harness) */
  prog?: string;
}

/** A word list as one shell word in single quotes. */
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const fnName = (prog: string) => `_${prog.replace(/[^A-Za-z0-9]/g, '_')}`;
/** The words offered after a command: the scenarios, the commands, some words; undefined = files. */
function positionalWords(c: CompletionCommand, input: CompletionInput): readonly string[] | undefined {
  if (c.positional === 'files') return undefined;
  if (c.positional === 'scenario') return input.scenarios;
  if (c.positional === 'command') return input.commands.map((x) => x.name);
  return c.positional;
}

export function completionScript(shell: Shell, input: CompletionInput): string {
  if (shell === 'bash') return bash(input);
  if (shell === 'zsh') return zsh(input);
  return fish(input);
}

function bash(input: CompletionInput): string {
  const { commands, prog = 'reboot-harness' } = input;
  const fn = fnName(prog);
  const names = commands.map((c) => c.name).join(' ');
  const wordCases = commands.flatMap((c) => {
    const words = positionalWords(c, input);
    return words ? [`    ${c.name}) COMPREPLY=($(compgen -W ${sq(words.join(' '))} -- "$cur")) ;;`] : [];
  });
  const optionCases = commands
    .map((c) => {
      const words = c.options.flatMap((o) => [`--${o.name}`, ...(o.short ? [`-${o.short}`] : [])]).join(' ');
      return `    ${c.name}) opts=${sq(words)} ;;`;
    })
    .join('\n');
  const valueCases: string[] = [];
  const byValue = new Map<string, string[]>();
  for (const c of commands)
    for (const o of c.options) {
      if (!o.takesValue) continue;
      const what = o.values ? `values:${o.values.join(' ')}` : o.path ? 'files' : 'free';
      const flags = [`--${o.name}`, ...(o.short ? [`-${o.short}`] : [])];
      for (const f of flags) {
        const key = `${c.name} ${f}`;
        byValue.set(what, [...(byValue.get(what) ?? []), key]);
      }
    }
  for (const [what, keys] of byValue) {
    const pattern = keys.map((k) => sq(k)).join('|');
    if (what === 'files') valueCases.push(`    ${pattern}) COMPREPLY=($(compgen -f -- "$cur")); return ;;`);
    else if (what === 'free') valueCases.push(`    ${pattern}) COMPREPLY=(); return ;;`);
    else valueCases.push(`    ${pattern}) COMPREPLY=($(compgen -W ${sq(what.slice(7))} -- "$cur")); return ;;`);
  }
  return `# bash completion for ${prog} (made by: ${prog} completion bash)
${fn}() {
  local cur prev cmd i opts
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      -*) ;;
      *) cmd="\${COMP_WORDS[i]}"; break ;;
    esac
  done
  if [[ -z "$cmd" ]]; then
    COMPREPLY=($(compgen -W ${sq(`${names} --help --version`)} -- "$cur"))
    return
  fi
  case "$cmd $prev" in
${valueCases.join('\n')}
  esac
  case "$cmd" in
${optionCases}
    *) opts="" ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  case "$cmd" in
${wordCases.join('\n')}
    *) COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
}
complete -F ${fn} ${prog}
`;
}

/** Text inside a zsh _arguments spec: no brackets, colons or backslashes. */
const zdoc = (s: string) => s.replace(/[[\]:\\]/g, ' ').replace(/'/g, '');

function zsh(input: CompletionInput): string {
  const { commands, prog = 'reboot-harness' } = input;
  const fn = fnName(prog);
  const describe = commands.map((c) => `    ${sq(`${c.name}:${zdoc(c.doc)}`)}`).join('\n');
  const cases = commands
    .map((c) => {
      const specs = c.options.map((o) => {
        const names = o.short ? `{-${o.short},--${o.name}}` : `--${o.name}`;
        const action = !o.takesValue
          ? ''
          : `:${o.name}:${o.values ? `(${o.values.join(' ')})` : o.path ? '_files' : ' '}`;
        // Note: a repeatable option's leading * is inside the quotes (outside, zsh would take it for a glob).
        if (o.multiple) return `        '*--${o.name}[${zdoc(o.doc)}]${action}'`;
        return `        ${names}'[${zdoc(o.doc)}]${action}'`;
      });
      const words = positionalWords(c, input);
      const rest = !words
        ? "'*:file:_files'"
        : words.length
          ? `'1:${zdoc(c.positionalName)}:(${words.join(' ')})'`
          : '';
      const args = [...specs, ...(rest ? [`        ${rest}`] : [])].join(' \\\n');
      return `      ${c.name})\n        _arguments -s \\\n${args}\n        ;;`;
    })
    .join('\n');
  return `#compdef ${prog}
# zsh completion for ${prog} (made by: ${prog} completion zsh)
${fn}() {
  local -a commands
  commands=(
${describe}
  )
  if (( CURRENT == 2 )); then
    _describe -t commands command commands
    return
  fi
  local cmd=$words[2]
  shift words
  (( CURRENT-- ))
  case $cmd in
${cases}
  esac
}
if [[ $funcstack[1] == ${fn} ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${prog}
fi
`;
}

function fish(input: CompletionInput): string {
  const { commands, prog = 'reboot-harness' } = input;
  const lines = [`# fish completion for ${prog} (made by: ${prog} completion fish)`, `complete -c ${prog} -f`];
  for (const c of commands) lines.push(`complete -c ${prog} -n '__fish_use_subcommand' -a ${c.name} -d ${sq(c.doc)}`);
  for (const c of commands) {
    const when = `'__fish_seen_subcommand_from ${c.name}'`;
    for (const o of c.options) {
      const parts = [`complete -c ${prog} -n ${when} -l ${o.name}`];
      if (o.short) parts.push(`-s ${o.short}`);
      if (o.takesValue) parts.push(o.path ? '-r -F' : '-x');
      if (o.values) parts.push(`-a ${sq(o.values.join(' '))}`);
      parts.push(`-d ${sq(o.doc)}`);
      lines.push(parts.join(' '));
    }
    const words = positionalWords(c, input);
    if (words) lines.push(`complete -c ${prog} -n ${when} -a ${sq(words.join(' '))}`);
    else lines.push(`complete -c ${prog} -n ${when} -F`);
  }
  return `${lines.join('\n')}\n`;
}
