// Command-line parsing: which options each command takes (config flags come from the config table), every problem
// of the whole command line at once, and the help text. Pure.
import { FIELDS } from '../config/table.js';
import { DEFAULTS } from '../config/schema.js';
import type { Field } from '../config/fields.js';
import { closest } from '../config/near.js';
import { defaultText } from '../config/doc-table.js';
import { ConfigError, type ConfigProblem } from '../errors.js';

export const COMMANDS = {
  run: 'run a scenario (or --all) on VMs (its warm lab reverted, or fresh ones with --fresh) and write reports',
  compare: 'run a scenario on two Nomad builds (--before, --after) and show which checks flipped',
  matrix: 'run the cells of a matrix file (builds x reboot kinds x ...), optionally one shard of them',
  list: 'list the scenarios and what each checks',
  doctor: 'check the host: vagrant, provider, libvirtd, virtualization, box, disk, memory',
  setup: 'install the host packages the lab needs and build the offline box (Debian/Ubuntu, root)',
  destroy:
    'destroy labs left by --keep or a killed run (by run id, or --all), and warm labs (--warm, --stale, --older-than)',
  merge: 'merge the reports of many runners (matrix shards) into one JUnit file, one JSON summary and one index page',
  build: 'resolve Nomad builds (release version, git:<dir>[@<ref>], path) into the cache and print their provenance',
  completion: 'print the shell completion script for bash, zsh or fish',
  login: 'open a shell (or run --command) on a machine of a kept lab, inside the lab network namespace',
  'list-labs': 'list the labs left on this host: kept, warm and orphaned, with their age, machines and topology',
  help: 'show help (also: <command> --help)',
} as const;
export type Command = keyof typeof COMMANDS;

/** An option that is not a config key: its type, help line and the commands that take it. */
interface CommandOption {
  name: string;
  type: 'boolean' | 'string';
  multiple?: boolean;
  short?: string;
  /** how the value is written in help, e.g. "<i/n>" */
  arg?: string;
  doc: string;
  commands: readonly Command[];
}

const RUNS: readonly Command[] = ['run', 'compare', 'matrix'];
const OPTIONS: readonly CommandOption[] = [
  { name: 'help', type: 'boolean', short: 'h', doc: 'show this help', commands: Object.keys(COMMANDS) as Command[] },
  {
    name: 'config',
    type: 'string',
    short: 'c',
    arg: '<file>',
    doc: 'harness.yaml to read (default ./harness.yaml when present)',
    commands: [...RUNS, 'list', 'doctor', 'destroy', 'merge', 'login', 'list-labs'],
  },
  {
    name: 'expect',
    type: 'string',
    multiple: true,
    arg: '<fail|pass|check=fail|check=pass>',
    doc: 'expected outcome, repeatable: "fail" for the scenario, or per check',
    commands: RUNS,
  },
  {
    name: 'all',
    type: 'boolean',
    doc: 'run: every scenario (Nomad scenarios are skipped without a build); destroy: every lab, warm labs included, and orphan domains',
    commands: ['run', 'destroy'],
  },
  {
    name: 'before',
    type: 'string',
    arg: '<build>',
    doc: 'the Nomad build released so far (linux/amd64)',
    commands: ['compare'],
  },
  { name: 'after', type: 'string', arg: '<build>', doc: 'the candidate build being validated', commands: ['compare'] },
  {
    name: 'shard',
    type: 'string',
    arg: '<i/n>',
    doc: 'run only shard i of n (1-based; cell k goes to shard k mod n + 1)',
    commands: ['matrix'],
  },
  {
    name: 'cell',
    type: 'string',
    arg: '<name>',
    doc: "run only the cell of that name (what a failed cell's repro command uses)",
    commands: ['matrix'],
  },
  {
    name: 'plan',
    type: 'boolean',
    doc: 'validate everything, print the plan (every cell, its config and builds) as JSON, and create nothing',
    commands: ['run', 'compare', 'matrix'],
  },
  {
    name: 'list-cells',
    type: 'boolean',
    doc: 'print every cell, its shard and the command that runs exactly it; run nothing (docs/ci.md)',
    commands: ['matrix'],
  },
  {
    name: 'shards',
    type: 'string',
    arg: '<N>',
    doc: "with --list-cells: each cell's shard among N CI jobs",
    commands: ['matrix'],
  },
  {
    name: 'out',
    type: 'string',
    arg: '<dir>',
    doc: 'where the merged junit.xml, summary.json and index.html go (default <reports-dir>/merged)',
    commands: ['merge'],
  },
  {
    name: 'command',
    type: 'string',
    arg: '<cmd>',
    doc: "login: run this one command on the machine instead of a shell (its output and exit code are the command's)",
    commands: ['login'],
  },
  {
    name: 'copy-attachments',
    type: 'boolean',
    doc: "copy every run's attachments and page into --out, so the merged folder stands alone (its JUnit names the copies)",
    commands: ['merge'],
  },
  {
    name: 'fresh',
    type: 'boolean',
    doc: 'a cold lab: no warm lab snapshot is used or made (lab.warm: false)',
    commands: RUNS,
  },
  {
    name: 'warm',
    type: 'boolean',
    doc: 'destroy: every warm lab (kept snapshots of prepared labs)',
    commands: ['destroy'],
  },
  {
    name: 'stale',
    type: 'boolean',
    doc: 'destroy: warm labs whose build or box changed or is gone, or whose domains or snapshot are gone',
    commands: ['destroy'],
  },
  {
    name: 'older-than',
    type: 'string',
    arg: '<duration>',
    doc: 'destroy: labs and warm labs older than this (Go duration: 90m, 24h)',
    commands: ['destroy'],
  },
  { name: 'force', type: 'boolean', doc: 'rebuild the box even when it is current', commands: ['setup'] },
  {
    name: 'docker',
    type: 'boolean',
    doc: 'also build the Docker box nomad-reboot-harness/bookworm-docker (for --driver docker)',
    commands: ['setup'],
  },
  {
    name: 'host',
    type: 'boolean',
    doc: "also stop the libvirtd/virtlogd and network namespace the harness started, and put back /dev/kvm's mode if it changed it",
    commands: ['destroy'],
  },
];

/** Config flags (from the table) each command takes beyond the run options. */
const DOCTOR_FLAGS = new Set([
  'nomad',
  'nomad-binary',
  'provider',
  'box',
  'libvirt-driver',
  'netns',
  'work-dir',
  'memory',
  'servers',
  'clients',
  'json',
  'verbose',
  'quiet',
]);
const DESTROY_FLAGS = new Set(['netns', 'work-dir', 'provider', 'verbose', 'quiet']);
const LIST_FLAGS = new Set(['json', 'scenarios']);
const BUILD_FLAGS = new Set(['json', 'quiet', 'verbose', 'releases-url', 'releases-key']);
const MERGE_FLAGS = new Set(['reports-dir', 'quiet', 'attachment-paths']);
const LOGIN_FLAGS = new Set(['netns', 'work-dir', 'provider', 'quiet']);
const LIST_LABS_FLAGS = new Set(['netns', 'work-dir', 'provider', 'json']);
const BOOL_FLAGS = new Set(['keep', 'json', 'verbose', 'quiet', 'rolling', 'drain']);
/** Switches that also take one of a few words as their value, written after them or with `=`: `--keep on-failure`. */
const SWITCH_WORDS: Record<string, readonly string[]> = { keep: ['on-failure'] };

/** Whether a config field's flag belongs to `command`. */
function fieldFor(command: Command, f: Field): boolean {
  if (!f.flag) return false;
  if (RUNS.includes(command)) return true;
  if (command === 'doctor') return DOCTOR_FLAGS.has(f.flag);
  if (command === 'destroy') return DESTROY_FLAGS.has(f.flag);
  if (command === 'list') return LIST_FLAGS.has(f.flag);
  if (command === 'build') return BUILD_FLAGS.has(f.flag);
  if (command === 'merge') return MERGE_FLAGS.has(f.flag);
  if (command === 'login') return LOGIN_FLAGS.has(f.flag);
  if (command === 'list-labs') return LIST_LABS_FLAGS.has(f.flag);
  return false;
}

interface OptionSpec {
  name: string;
  type: 'boolean' | 'string';
  multiple: boolean;
}

/** Every option `command` takes, by long name. */
export function optionsOf(command: Command): Map<string, OptionSpec> {
  const out = new Map<string, OptionSpec>();
  for (const o of OPTIONS)
    if (o.commands.includes(command)) out.set(o.name, { name: o.name, type: o.type, multiple: !!o.multiple });
  for (const f of FIELDS)
    if (fieldFor(command, f))
      out.set(f.flag!, { name: f.flag!, type: BOOL_FLAGS.has(f.flag!) ? 'boolean' : 'string', multiple: !!f.multiple });
  return out;
}

/** One option as shell completion sees it: its names, whether it takes a value, the values it allows. */
export interface CompletionOption {
  name: string;
  short?: string;
  takesValue: boolean;
  /** the allowed values (a config key's one-of list) */
  values?: readonly string[];
  /** the value names a file or folder */
  path: boolean;
  doc: string;
}

/** Options whose value is a path (completed as files). */
const PATH_OPTIONS = new Set([
  'config',
  'job',
  'junit',
  'report-json',
  'reports-dir',
  'work-dir',
  'scenarios',
  'out',
  'nomad',
  'nomad-binary',
  'upgrade-to',
  'before',
  'after',
  'releases-key',
]);

/** Every command's options for completion scripts, from the same table as --help. */
export function completionSpec(): { name: Command; doc: string; options: CompletionOption[] }[] {
  return (Object.keys(COMMANDS) as Command[]).map((name) => ({
    name,
    doc: COMMANDS[name],
    options: [...optionsOf(name).values()].map((o) => {
      const opt = OPTIONS.find((x) => x.name === o.name && x.commands.includes(name));
      const field = FIELDS.find((f) => f.flag === o.name);
      const values = field ? (field.parse as { values?: readonly string[] }).values : undefined;
      return {
        name: o.name,
        ...(opt?.short ? { short: opt.short } : {}),
        takesValue: o.type === 'string',
        ...(values ? { values } : {}),
        path: PATH_OPTIONS.has(o.name),
        doc: (opt?.doc ?? field?.doc ?? '').split(/; | \(|\. /)[0]!.trim(),
      };
    }),
  }));
}

/** Every long option name any command takes (for "did you mean" and "belongs to another command"). */
function allOptionNames(): string[] {
  return [...new Set([...OPTIONS.map((o) => o.name), ...FIELDS.flatMap((f) => (f.flag ? [f.flag] : []))])];
}

/** The commands that take an option. */
function commandsTaking(name: string): Command[] {
  return (Object.keys(COMMANDS) as Command[]).filter((c) => c !== 'help' && optionsOf(c).has(name));
}

export interface ParsedArgs {
  command: Command;
  /** the arguments after the command, as given (for repro commands) */
  rawArgs: string[];
  positionals: string[];
  values: Record<string, unknown>;
}

const SHORT: Record<string, string> = Object.fromEntries(OPTIONS.filter((o) => o.short).map((o) => [o.short!, o.name]));

/** Parse argv (without node and script). Every unknown, misplaced or incomplete option is reported at once (exit 2). */
export function parseCli(argv: string[]): ParsedArgs {
  const { args, problems } = parseCliCollecting(argv);
  if (problems.length) throw new ConfigError(problems);
  return args;
}

/**
 * Parse argv, keeping the option problems instead of throwing them, so a session command can report them together
 * with every problem of its configuration; an unknown command still throws (nothing else can be judged without it).
 */
export function parseCliCollecting(argv: string[]): { args: ParsedArgs; problems: ConfigProblem[] } {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h')
    return { args: { command: 'help', rawArgs: [], positionals: [], values: {} }, problems: [] };
  if (first === '--version')
    return { args: { command: 'help', rawArgs: [], positionals: ['--version'], values: {} }, problems: [] };
  if (!(first in COMMANDS)) {
    const near = closest(first, Object.keys(COMMANDS));
    throw new ConfigError([
      {
        field: 'command',
        value: first,
        message: 'is not a command',
        fix: `${near ? `did you mean "${near}"? ` : ''}use one of: ${Object.keys(COMMANDS).join(', ')} (reboot-harness --help)`,
      },
    ]);
  }
  const command = first as Command;
  if (command === 'help')
    return {
      args: { command, rawArgs: rest, positionals: rest.filter((a) => !a.startsWith('-')), values: {} },
      problems: [],
    };
  const { values, positionals, problems } = tokenize(command, rest);
  return { args: { command, rawArgs: switchWordsJoined(rest), positionals, values }, problems };
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

/**
 * Walk the tokens once, collecting values and every problem. Hand-written rather than util.parseArgs: parseArgs takes
 * `--nomad --json` as --nomad's value and stops at the first unknown or ambiguous option (`--reboots -1`) with its own
 * wording, where every problem of the line is wanted at once, each naming its flag and fix.
 */
function tokenize(
  command: Command,
  args: string[],
): { values: Record<string, unknown>; positionals: string[]; problems: ConfigProblem[] } {
  const opts = optionsOf(command);
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
    const name = rawName.startsWith('--') ? rawName.slice(2) : (SHORT[rawName.slice(1)] ?? rawName.slice(1));
    const spec = opts.get(name);
    if (!spec) {
      problems.push(unknownOption(command, rawName));
      // Note: skip a value that plainly belongs to the unknown option (or to the option it is a typo of, --nomda
      // 1.9.7), so it is not taken for a positional and reported again as an unknown scenario.
      const meant = closest(name, [...opts.keys()]);
      const valued = takesValueSomewhere(name) || (meant !== undefined && opts.get(meant)!.type === 'string');
      if (eq === -1 && args[i + 1] !== undefined && !args[i + 1]!.startsWith('-') && valued) i++;
      continue;
    }
    if (spec.type === 'boolean') {
      let v: boolean | string = true;
      const words = SWITCH_WORDS[name] ?? [];
      if (eq !== -1) {
        const text = a.slice(eq + 1);
        if (!/^(true|false)$/.test(text) && !words.includes(text)) {
          problems.push({
            field: rawName,
            value: text,
            message: words.length ? `takes no value but ${words.join(', ')}` : 'is a switch and takes no value',
            fix: `write ${rawName} alone (or ${rawName}=${['true', 'false', ...words].join('|')})`,
          });
          continue;
        }
        v = words.includes(text) ? text : text === 'true';
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
        fix: `write ${rawName} <value> (reboot-harness ${command} --help)`,
      });
      continue;
    }
    if (spec.multiple) values[name] = [...((values[name] as string[] | undefined) ?? []), value];
    else if (values[name] !== undefined) repeated.set(name, [...(repeated.get(name) ?? [values[name]]), value]);
    else values[name] = value;
  }
  for (const [name, given] of repeated) problems.push(givenTwice(name, given));
  return { values, positionals, problems };
}

/** A single-value option given more than once: taking the last (or the first) would be a guess at what was meant. */
function givenTwice(name: string, given: unknown[]): ConfigProblem {
  return {
    field: `--${name}`,
    value: given,
    message: 'is given more than once and takes one value',
    fix: `give --${name} once (only ${OPTIONS.filter((o) => o.multiple)
      .map((o) => `--${o.name}`)
      .join(', ')} can be repeated)`,
  };
}

function takesValueSomewhere(name: string): boolean {
  return (
    OPTIONS.some((o) => o.name === name && o.type === 'string') ||
    FIELDS.some((f) => f.flag === name && !BOOL_FLAGS.has(name))
  );
}

/** An option this command does not take: another command's (name it), or none at all (the nearest name). */
function unknownOption(command: Command, raw: string): ConfigProblem {
  const name = raw.replace(/^-+/, '');
  const owners = commandsTaking(name);
  if (owners.length) {
    return {
      field: raw,
      value: raw,
      message: `is an option of ${owners.map((c) => `\`${c}\``).join(', ')}, not of \`${command}\``,
      fix: `drop it, or run ${owners.map((c) => `reboot-harness ${c}`).join(' / ')} (reboot-harness ${command} --help lists ${command}'s options)`,
    };
  }
  const mine = [...optionsOf(command).keys()];
  const near = closest(name, mine) ?? closest(name, allOptionNames());
  return {
    field: raw,
    value: raw,
    message: 'is not an option',
    fix: `${near ? `did you mean --${near}? ` : ''}see reboot-harness ${command} --help`,
  };
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

export const USAGE: Record<Exclude<Command, 'help'>, string[]> = {
  completion: [
    'reboot-harness completion bash|zsh|fish',
    '',
    "Prints a completion script for the shell, made from the same option table as --help (commands, each one's",
    'options, the values a key allows, files where a path goes, the shipped scenario names). Load it with:',
    '  bash: source <(reboot-harness completion bash)     (or save it in /etc/bash_completion.d/reboot-harness)',
    '  zsh:  source <(reboot-harness completion zsh)      (after compinit; or save it as _reboot-harness in $fpath)',
    '  fish: reboot-harness completion fish > ~/.config/fish/completions/reboot-harness.fish',
  ],
  run: [
    'reboot-harness run [scenario] [options]    (default scenario: bridge-exec-reboot)',
    'reboot-harness run --all [options]',
  ],
  compare: [
    'reboot-harness compare <scenario> --before <build> --after <build> [run options]',
    '',
    'Runs the scenario once per build, one after the other (each a normal run with its own run id and VMs), then prints',
    'every check side by side (before | after | flipped?). One JUnit file with a <testsuite> per build, named',
    '<scenario>@<nomad version> (@before/@after when the versions are unknown or equal); the JSON summary has a',
    '"comparison" section. --expect applies to the after build; the exit code is the after build\'s.',
  ],
  matrix: [
    'reboot-harness matrix <file.yaml> [--shard i/n | --cell name] [run options]',
    'reboot-harness matrix <file.yaml> --list-cells [--json] [--shards N]',
    '',
    'Expands the matrix file (docs/matrix.md) into cells with stable names, e.g. bridge-exec-reboot/nomad=1.9.3/reboot=hard,',
    "runs this shard's cells (parallel: and memory_budget_mb: in the file), retries a cell ONCE after an infrastructure",
    'error (never after a failed check), and writes one JUnit file with a <testsuite> per cell.',
  ],
  list: [
    'reboot-harness list [--json] [--scenarios <dir>]',
    '',
    'The shipped scenarios, then your own from --scenarios / HARNESS_SCENARIOS_DIR / scenarios_dir (each with its file;',
    'docs/scenarios.md); every problem with any of your files is reported at once (exit 2).',
  ],
  doctor: [
    'reboot-harness doctor [--nomad <build>] [--memory <MiB>] [--netns <name>] [--json]',
    '',
    'Every prerequisite of a run on a libvirt host, each missing piece with the command that fixes it. --nomad',
    'takes what run takes: a path is inspected, a release in the cache too (otherwise named as what the first run',
    'downloads), a source tree must exist; nothing is downloaded or built. --memory sets the free memory needed',
    '(two VMs), --netns the namespace libvirtd must run in. --provider virtualbox or ssh is refused: doctor has no',
    'checks for them.',
  ],
  setup: [
    'reboot-harness setup [--force] [--docker]',
    '',
    'Runs vms/setup-host.ts: Debian packages, then the offline box.',
  ],
  destroy: [
    'reboot-harness destroy <run-id>... | --all [--host] | --warm | --stale | --older-than <duration>',
    '',
    'Destroys the VMs and Vagrant directory of the given runs under the work dir (--work-dir), or the warm labs',
    'kept there (--warm: all, --stale: those that can never be used again), or labs older than --older-than.',
    "Every sweep (--all, --warm, --stale, --older-than) also removes orphan domains: a lab's VMs whose directory was",
    "deleted (vagrant-libvirt names that directory in each domain's description).",
  ],
  login: [
    'reboot-harness login <run-id> [machine] [--command <cmd>]',
    '',
    'SSH into a machine of a lab a run kept (keep: true or on-failure), like `vagrant ssh`: inside the lab network',
    "namespace (--netns), with the ssh-config the run wrote. machine: a slot (server, client, client-2) or the VM's",
    "name; default the first client. With lab.provider ssh: the config's hosts, with their user, port and key.",
    'list-labs shows the kept labs; destroy <run-id> removes one.',
  ],
  'list-labs': [
    'reboot-harness list-labs [--json] [--work-dir <dir>]',
    '',
    'Lists the labs under the work dir (kept by a run, or left by a killed one, and warm labs) with their age,',
    "machines and topology, and (libvirt) orphan domains: a lab's VMs whose directory is gone. Removes nothing.",
  ],
  merge: [
    'reboot-harness merge <report folder | JUnit file>... [--out <dir>] [--copy-attachments]',
    '',
    "Reads every JUnit file (given, or found under the folders), the summary.json files and the cells'",
    'report.html pages, and writes <out>/junit.xml (one suite per cell, counts recounted, reruns kept) and',
    '<out>/index.html (the matrix as a table of verdicts, each cell linking its page). A suite name found in two',
    "runs is an error (exit 2): one cell ran twice (docs/ci.md). --copy-attachments copies every run's attachments",
    'and page into <out>/<run id>/ and points the merged JUnit and index at the copies (a folder that stands alone).',
  ],
  build: [
    'reboot-harness build <spec>... [--json] [--releases-url <url>] [--releases-key <file>]',
    '',
    'Resolves each build spec without running a scenario and prints its path, sha256, version, revision and origin.',
    'A spec is a release version (1.9.7, 1.9.7+ent, latest: downloaded, SHA256SUMS signature and zip checksum',
    'verified, cached), a source tree git:<dir>[@<ref>] (HEAD with uncommitted changes, or a ref; built like a',
    'release, cached by commit), or the path of a linux/amd64 nomad binary (./1.9.3 is a file, 1.9.3 a version).',
    'Cache: ${XDG_CACHE_HOME:-~/.cache}/nomad-reboot-harness/builds. Details: docs/builds.md',
  ],
};

/** Exit codes each command can end with. */
export const EXITS: Record<Exclude<Command, 'help'>, string> = {
  completion: '0 printed; 2 no shell or one it does not know',
  run: '0 every check met its expectation; 1 a check did not; 2 usage or configuration error (nothing created); 3 infrastructure error before a verdict; 70 harness bug; 130 interrupted',
  compare:
    '0/1 the after build met / did not meet its expectations; 2 usage or configuration error; 3 infrastructure error; 70 harness bug; 130 interrupted',
  matrix:
    '0 every cell met its expectations; 1 a cell did not; 2 usage or configuration error; 3 a cell broke (after its retry); 70 harness bug; 130 interrupted',
  list: '0 listed; 2 usage error or a scenario file of yours that does not load; 70 harness bug',
  doctor: '0 every prerequisite is met; 2 usage error; 3 something is missing (the fix is printed); 70 harness bug',
  setup: '0 set up; 2 usage error or a missing prerequisite; 3 an install or the box build failed; 70 harness bug',
  destroy:
    '0 destroyed (or nothing to destroy); 2 usage error; 3 a destroy failed, or a lab or the orphan domains could not be looked at (kept); 70 harness bug',
  merge:
    '0 every merged cell passed; 1 a check failed; 2 usage error, unreadable input or a cell found twice; 3 an infrastructure error in a cell; 70 harness bug',
  login:
    "the command's or the shell's exit code (ssh's 255 when the machine is not reachable); 2 usage error, or no kept lab of that id",
  'list-labs': '0 listed; 2 usage error; 3 a lab or the orphan domains could not be looked at (the rest is listed)',
  build:
    '0 every build resolved; 2 a bad spec, an unknown version, a checksum or signature that does not hold, a tree that is not Nomad; 3 the releases site unreachable or a compile failed; 70 harness bug; 130 interrupted',
};

/** The help text of one command (or of all). */
export function helpText(command?: Command | string): string {
  if (!command || command === 'help' || !(command in COMMANDS)) {
    const lines = [
      'reboot-harness: proves whether Nomad survives a client host reboot with bridge networking',
      '',
      'Usage: reboot-harness <command> [options]',
      '',
      'Commands:',
    ];
    for (const [c, d] of Object.entries(COMMANDS)) lines.push(`  ${c.padEnd(9)} ${d}`);
    lines.push(
      '',
      'Run "reboot-harness <command> --help" (or "reboot-harness help <command>") for a command\'s options and exit codes.',
    );
    return lines.join('\n');
  }
  const c = command as Exclude<Command, 'help'>;
  const lines = [
    `reboot-harness ${c}: ${COMMANDS[c]}`,
    '',
    ...USAGE[c].map((u, i) => (i === 0 ? `Usage: ${u}` : u)),
    '',
    'Options:',
  ];
  for (const [left, right] of optionRows(c))
    lines.push(left.length > 32 ? `  ${left}\n  ${' '.repeat(32)} ${right}` : `  ${left.padEnd(32)} ${right}`);
  lines.push('', `Exit codes: ${EXITS[c]}.`);
  return lines.join('\n');
}

/**
 * The options of `command` as `--help` and docs/cli.md both show them: how each is written, and what it does (a
 * config key's line with its values, default and variable).
 */
export function optionRows(command: Exclude<Command, 'help'>): [usage: string, doc: string][] {
  const rows: [string, string][] = [];
  for (const o of OPTIONS)
    if (o.commands.includes(command))
      rows.push([`--${o.name}${o.short ? `, -${o.short}` : ''}${o.arg ? ` ${o.arg}` : ''}`, o.doc]);
  for (const f of FIELDS)
    if (fieldFor(command, f)) rows.push([`--${f.flag}${BOOL_FLAGS.has(f.flag!) ? '' : ' <value>'}`, fieldHelp(f)]);
  return rows;
}
