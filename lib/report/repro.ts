// Pure: the one command that re-runs exactly one run (or compare) with the same inputs, naming every Nomad build by
// absolute path and checksum. A secret is never written: an argument holding one refers to $NOMAD_TOKEN instead.
import { secretPattern } from '../log/redact.js';
import { commandLine, type CommandWord } from '../shell/command-line.js';
import { quote, raw, type RawShell } from '../shell/quote.js';

/** Flags that only say where output goes or which scenarios to pick: not inputs of the run itself. */
const OUTPUT_FLAGS = new Set(['--junit', '--report-json', '--reports-dir', '--all', '--json', '--quiet']);
/** Of those, the ones that take a value (when the command's option table is not given). */
const VALUE_FLAGS_DROPPED = new Set(['--junit', '--report-json', '--reports-dir']);
/** Flags that pick which cells of a matrix run: the repro's argv names its one cell itself. */
const SELECTION_FLAGS = new Set(['--cell', '--shard', '--shards', '--list-cells', '--plan']);

/** A build the command passes (or only checks): its flag, what to pass, and its sha256 (checked before anything runs). */
export interface ReproBuild {
  /** absent: the build is named elsewhere (a matrix file) and only its checksum is checked */
  flag?: '--nomad' | '--nomad-binary' | '--upgrade-to' | '--before' | '--after';
  /** absolute path of the binary */
  path: string;
  sha256?: string;
  /**
   * a release version or source tree as given: the repro passes the spec and first re-resolves it with
   * `reboot-harness build --json`, refusing a build whose sha256 differs; absent = the path itself is passed
   */
  spec?: string;
  /** the CLI entry, for re-resolving a spec */
  cli?: string;
}

/** Flags that name the same input: passing one replaces every other given. */
const SAME_INPUT: Record<string, string[]> = {
  '--nomad': ['--nomad', '--nomad-binary'],
  '--nomad-binary': ['--nomad', '--nomad-binary'],
};

interface ReproInput {
  /** what is re-run, after the CLI entry: ['run', <scenario>], ['compare', <scenario>], ['matrix', <file>, '--cell', <key>] */
  argv: readonly string[];
  /** the session's argv after the command name, whose input flags are passed on ([] passes none) */
  args: readonly string[];
  cwd: string;
  /** absolute path of the CLI entry (bin/reboot-harness.js) */
  cli: string;
  builds?: ReproBuild[];
  /** secret values (ACL tokens): an argument containing one is replaced by a reference to $NOMAD_TOKEN */
  secrets?: readonly string[];
  /** environment variables that shaped the run (secrets left out): set again in front of every command */
  env?: readonly (readonly [string, string])[];
  /** the flags that take a value (`--timeout`); without it, a flag followed by a non-flag is taken to take it */
  valueFlags?: ReadonlySet<string>;
  /**
   * a flag (with its value) of the session that the re-run must not pass: one scenario of `run --all` re-run alone
   * refuses a flag only another scenario reads (`--upgrade-to`, `--nomad` on cni-ipam-reboot) and an `--expect` of a
   * check it lacks
   */
  drop?: (flag: string, value?: string) => boolean;
}

/**
 * An argument with every secret in it replaced by "$NOMAD_TOKEN" (double-quoted so the shell expands it): the value
 * itself when it holds none (commandLine quotes it), else the word as shell text, its other parts quoted.
 */
function withoutSecrets(arg: string, secrets: readonly string[]): string | RawShell {
  // Note: the redactor's own idea of where a secret stands (a whole token, or a short one as the whole value), so a
  // token that is also a word ("nomad") leaves the flags and paths that contain it alone.
  const re = secretPattern(secrets);
  const text = re ? arg.replace(re, '\u0000') : arg;
  if (!text.includes('\u0000')) return arg;
  const parts = text.split('\u0000').map((p) => (p === '' ? '' : quote(p)));
  return raw(parts.join('"$NOMAD_TOKEN"'));
}

/**
 * The flags of `args` that are inputs of the run, with their values: output places, the picks of what runs and the
 * flags `replaced` names are dropped, and so are positionals (the repro's argv names the scenario or matrix file).
 */
function keptArgs(
  args: readonly string[],
  replaced: ReadonlySet<string>,
  valueFlags?: ReadonlySet<string>,
  drop?: ReproInput['drop'],
): string[] {
  const takesValue = (flag: string, next: string | undefined): boolean => {
    if (valueFlags) return valueFlags.has(flag);
    if (OUTPUT_FLAGS.has(flag) || SELECTION_FLAGS.has(flag)) return VALUE_FLAGS_DROPPED.has(flag);
    if (replaced.has(flag)) return true;
    return next !== undefined && !next.startsWith('-');
  };
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const flag = a.split('=')[0]!;
    if (!a.startsWith('-') || /^-\d/.test(a)) continue;
    const value = !a.includes('=') && i + 1 < args.length && takesValue(flag, args[i + 1]);
    const given = a.includes('=') ? a.slice(a.indexOf('=') + 1) : value ? args[i + 1] : undefined;
    if (OUTPUT_FLAGS.has(flag) || SELECTION_FLAGS.has(flag) || replaced.has(flag) || drop?.(flag, given)) {
      if (value) i++;
      continue;
    }
    kept.push(a);
    if (value) kept.push(args[++i]!);
  }
  return kept;
}

/**
 * `NAME=value` for every variable that shaped the run, in front of a command (for that command only: a person pasting
 * the line keeps their shell as it was). A value holding a secret refers to $NOMAD_TOKEN instead.
 */
function envAssignments(env: ReproInput['env'], secrets: readonly string[]): RawShell[] {
  return (env ?? []).map(([name, value]) => raw(`${name}=${commandLine([withoutSecrets(value, secrets)])}`));
}

/** `cd <cwd> && <checksum checks> && <env> node <cli> <argv> <builds> <same inputs>` as one shell line. */
export function reproCommand(r: ReproInput): string {
  const builds = (r.builds ?? []).filter((b) => !(b.flag && r.drop?.(b.flag)));
  const replaced = new Set<string>(builds.flatMap((b) => (b.flag ? (SAME_INPUT[b.flag] ?? [b.flag]) : [])));
  const kept = keptArgs(r.args, replaced, r.valueFlags, r.drop);
  const env = envAssignments(r.env, r.secrets ?? []);
  const words: CommandWord[] = ['cd', r.cwd, raw('&&'), ...checksumChecks(builds, env)];
  words.push(...env, 'node', r.cli, ...r.argv);
  for (const b of builds) if (b.flag) words.push(b.flag, b.spec ?? b.path);
  words.push(...kept.map((a) => withoutSecrets(a, r.secrets ?? [])));
  return commandLine(words);
}

/**
 * Per build with a checksum, a guard that stops the repro when the build changed: `echo '<sha>  <path>' | sha256sum
 * --check --quiet &&` for a path; for a release or source spec, the spec is resolved again and its sha256 compared.
 */
function checksumChecks(
  builds: readonly Pick<ReproBuild, 'path' | 'sha256' | 'spec' | 'cli'>[],
  env: readonly RawShell[] = [],
): CommandWord[] {
  return builds.flatMap((b) => {
    if (!b.sha256) return [];
    if (b.spec && b.cli)
      return [
        ...env,
        'node',
        b.cli,
        'build',
        '--quiet',
        '--json',
        b.spec,
        raw('|'),
        'grep',
        '-q',
        `"sha256": "${b.sha256}"`,
        raw('&&'),
      ];
    return ['echo', `${b.sha256}  ${b.path}`, raw('|'), 'sha256sum', '--check', '--quiet', raw('&&')];
  });
}
