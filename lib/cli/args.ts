// Command-line parsing: one table of options (built from the config table) and the help text.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { FIELDS } from '../config/table.js';
import { ConfigError } from '../errors.js';

export const COMMANDS = {
  run: 'run a scenario (or --all) on fresh VMs and write reports',
  list: 'list the scenarios and what each checks',
  doctor: 'check the host: vagrant, provider, libvirtd, virtualization, box, disk, memory',
  setup: 'install the host packages the lab needs and build the offline box (Debian/Ubuntu, root)',
  destroy: 'destroy labs left by --keep or a killed run (by run id, or --all)',
  compare: 'run a scenario on two Nomad builds (--before, --after) and show which checks flipped',
  matrix: 'run the cells of a matrix file (builds x reboot kinds x ...), optionally one shard of them',
  merge: 'merge the reports of many runners (matrix shards) into one JUnit file and one index page',
  help: 'show help',
} as const;
export type Command = keyof typeof COMMANDS;

const BOOL_FLAGS = new Set(['keep', 'json', 'verbose', 'quiet']);

/** Options of every command: config flags from the table plus command-specific ones. */
export function optionTable(): NonNullable<ParseArgsConfig['options']> {
  const opts: NonNullable<ParseArgsConfig['options']> = {
    help: { type: 'boolean', short: 'h' },
    config: { type: 'string', short: 'c' },
    all: { type: 'boolean' },
    expect: { type: 'string', multiple: true },
    force: { type: 'boolean' },
    docker: { type: 'boolean' },
    host: { type: 'boolean' },
    before: { type: 'string' },
    after: { type: 'string' },
    shard: { type: 'string' },
    cell: { type: 'string' },
    'list-cells': { type: 'boolean' },
    shards: { type: 'string' },
    out: { type: 'string' },
  };
  for (const f of FIELDS) if (f.flag) opts[f.flag] = { type: BOOL_FLAGS.has(f.flag) ? 'boolean' : 'string' };
  return opts;
}

export interface ParsedArgs {
  command: Command;
  /** the arguments after the command, as given (for repro commands) */
  rawArgs: string[];
  positionals: string[];
  values: Record<string, unknown>;
}

/** Parse argv (without node and script); unknown flags are usage errors naming the flag. */
export function parseCli(argv: string[]): ParsedArgs {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h') return { command: 'help', rawArgs: [], positionals: [], values: {} };
  if (first === '--version') return { command: 'help', rawArgs: [], positionals: ['--version'], values: {} };
  if (!(first in COMMANDS)) {
    throw new ConfigError([{ field: 'command', value: first, message: 'is not a command', fix: `use one of: ${Object.keys(COMMANDS).join(', ')} (see reboot-harness --help)` }]);
  }
  try {
    const { values, positionals } = parseArgs({ args: rest, options: optionTable(), allowPositionals: true, strict: true });
    return { command: first as Command, rawArgs: rest, positionals, values: values as Record<string, unknown> };
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const flag = /'(-{1,2}[^' ]+)/.exec(msg)?.[1] ?? 'argument';
    throw new ConfigError([{ field: flag, value: flag, message: msg.replace(/\. To specify.*$/s, ''), fix: `see reboot-harness ${first} --help` }]);
  }
}

/** The help text of one command (or of all). */
export function helpText(command?: Command): string {
  const lines: string[] = [];
  if (!command || command === 'help') {
    lines.push('reboot-harness: proves whether Nomad survives a client host reboot with bridge networking', '', 'Usage: reboot-harness <command> [options]', '', 'Commands:');
    for (const [c, d] of Object.entries(COMMANDS)) lines.push(`  ${c.padEnd(9)} ${d}`);
    lines.push('', 'Run "reboot-harness <command> --help" for the options of a command.', '', EXIT_HELP);
    return lines.join('\n');
  }
  lines.push(`reboot-harness ${command}: ${COMMANDS[command]}`, '');
  if (command === 'run') {
    lines.push('Usage: reboot-harness run [scenario] [options]    (default scenario: bridge-exec-reboot)', '       reboot-harness run --all [options]', '', 'Options:');
    lines.push(`  ${'--config, -c <file>'.padEnd(30)} harness.yaml to read (default ./harness.yaml when present)`);
    lines.push(`  ${'--expect <fail|pass|check=fail>'.padEnd(30)} expected outcome, repeatable: "fail" for the scenario, or per check`);
    lines.push(`  ${'--all'.padEnd(30)} run every scenario (Nomad scenarios are skipped without --nomad-binary)`);
    for (const f of FIELDS) if (f.flag) lines.push(`  ${(`--${f.flag}${BOOL_FLAGS.has(f.flag) ? '' : ' <value>'}`).padEnd(30)} ${f.doc}${f.env ? ` [env ${f.env}]` : ''}`);
  } else if (command === 'compare') {
    lines.push('Usage: reboot-harness compare <scenario> --before <build> --after <build> [run options]', '',
      'Runs the scenario once per build, one after the other (each a normal run with its own run id and VMs), then prints',
      'every check side by side (before | after | flipped?). One JUnit file with a <testsuite> per build, named',
      '<scenario>@<nomad version> (or @before/@after when the versions are unknown or equal); the JSON summary has a',
      '"comparison" section. --expect applies to the after build; the exit code is the after build\'s (0/1/3).', '', 'Options:');
    lines.push(`  ${'--before <build>'.padEnd(30)} the Nomad build released so far (linux/amd64)`);
    lines.push(`  ${'--after <build>'.padEnd(30)} the candidate build being validated`);
    lines.push(`  ${'(every run option)'.padEnd(30)} see reboot-harness run --help; --nomad-binary is not allowed here`);
  } else if (command === 'matrix') {
    lines.push('Usage: reboot-harness matrix <file.yaml> [--shard i/n] [--junit path] [run options]', '',
      'Expands the matrix file (docs/matrix.md) into cells with stable names, e.g. bridge-exec-reboot/nomad=1.9.3/reboot=hard,',
      'runs this shard\'s cells (parallel: and memory_budget_mb: in the file), retries a cell ONCE after an infrastructure',
      'error (never after a failed check), and writes one JUnit file with a <testsuite> per cell.', '', 'Options:');
    lines.push(`  ${'--shard <i/n>'.padEnd(30)} run only shard i of n (1-based; cell k goes to shard k mod n + 1)`);
    lines.push(`  ${'--cell <name>'.padEnd(30)} run only the cell of that name (what a failed cell's repro command uses)`);
    lines.push(`  ${'--list-cells [--json]'.padEnd(30)} print every cell, its shard and its command; run nothing`);
    lines.push(`  ${'--shards <N>'.padEnd(30)} with --list-cells: each cell's shard among N CI jobs (docs/ci.md)`);
    lines.push(`  ${'--junit <path>'.padEnd(30)} the merged JUnit file (default <reports-dir>/matrix-<first run id>/junit.xml)`);
    lines.push(`  ${'(every run option)'.padEnd(30)} applies to every cell; the cell's axis values win (see reboot-harness run --help)`);
  } else if (command === 'merge') {
    lines.push('Usage: reboot-harness merge <report folder | JUnit file>... [--out <dir>]', '',
      'Reads every JUnit file (given, or found under the folders), the summary.json files and the cells\'',
      'report.html pages, and writes <out>/junit.xml (one suite per cell, counts recounted, reruns kept) and',
      '<out>/index.html (the matrix as a table of verdicts, each cell linking its page). A suite name found in two',
      'runs is an error (exit 2): one cell ran twice. Exit code as for run over the merged cells: 0 all passed,',
      '1 a check failed, 3 an infrastructure error (docs/ci.md).', '', 'Options:');
    lines.push(`  ${'--out <dir>'.padEnd(30)} where junit.xml and index.html go (default <reports-dir>/merged)`);
  } else if (command === 'destroy') {
    lines.push('Usage: reboot-harness destroy <run-id>... | --all [--host]', '', 'Destroys the VMs and Vagrant directory of the given runs under the work dir (--work-dir).', '--host also stops the libvirtd/virtlogd and network namespace that the harness itself started (isolated mode).');
  } else if (command === 'list') {
    lines.push('Usage: reboot-harness list [--json]');
  } else if (command === 'doctor') {
    lines.push('Usage: reboot-harness doctor [--nomad-binary <path>] [--json]', '', 'Exit code 0 when every prerequisite is met, 3 otherwise.');
  } else if (command === 'setup') {
    lines.push('Usage: reboot-harness setup [--force] [--docker]', '', 'Runs vms/setup-host.sh: apt packages, then the offline box (--force rebuilds it).', '--docker also builds the Docker box nomad-reboot-harness/bookworm-docker (for --driver docker).');
  }
  lines.push('', '  --help, -h                     show this help', '', EXIT_HELP);
  return lines.join('\n');
}

const EXIT_HELP = 'Exit codes: 0 every check met its expectation; 1 a check did not; 2 usage or configuration error; 3 infrastructure error (VM, SSH, Nomad unreachable) before a verdict; 130 interrupted.';
