// Pure: the one command that re-runs exactly one run (or compare) with the same inputs, naming every Nomad build by
// absolute path and checksum. A secret is never written: an argument holding one refers to $NOMAD_TOKEN instead.
import { quote } from '../shell/quote.js';

/** Flags that only say where output goes or which scenarios to pick: not inputs of the run itself. */
const OUTPUT_FLAGS = new Set(['--junit', '--report-json', '--reports-dir', '--all', '--json', '--quiet']);
const VALUE_FLAGS_DROPPED = new Set(['--junit', '--report-json', '--reports-dir']);

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

export interface ReproInput {
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
}

/** An argument with every secret in it replaced by "$NOMAD_TOKEN" (double-quoted so the shell expands it). */
function withoutSecrets(arg: string, secrets: readonly string[]): string {
  const hits = secrets.filter((s) => s.length > 0 && arg.includes(s));
  if (!hits.length) return quote(arg);
  let text = arg;
  for (const s of hits) text = text.split(s).join('\u0000');
  const parts = text.split('\u0000').map((p) => (p === '' ? '' : quote(p)));
  return parts.join('"$NOMAD_TOKEN"');
}

/** `cd <cwd> && <checksum checks> && node <cli> <argv> <builds> <same inputs>` as one shell line. */
export function reproCommand(r: ReproInput): string {
  const builds = r.builds ?? [];
  const replaced = new Set<string>(builds.flatMap((b) => (b.flag ? (SAME_INPUT[b.flag] ?? [b.flag]) : [])));
  const kept: string[] = [];
  for (let i = 0; i < r.args.length; i++) {
    const a = r.args[i]!;
    const flag = a.split('=')[0]!;
    if (!a.startsWith('-')) continue; // the positional scenario name is in argv
    if (OUTPUT_FLAGS.has(flag) || replaced.has(flag)) {
      if ((VALUE_FLAGS_DROPPED.has(flag) || replaced.has(flag)) && !a.includes('=')) i++;
      continue;
    }
    kept.push(a);
    const next = r.args[i + 1];
    if (!a.includes('=') && next !== undefined && !next.startsWith('-')) kept.push(r.args[++i]!);
  }
  const parts = ['cd', quote(r.cwd), '&&', ...checksumChecks(builds)];
  parts.push('node', quote(r.cli), ...r.argv.map((a) => quote(a)));
  for (const b of builds) if (b.flag) parts.push(b.flag, quote(b.spec ?? b.path));
  parts.push(...kept.map((a) => withoutSecrets(a, r.secrets ?? [])));
  return parts.join(' ');
}

/**
 * Per build with a checksum, a guard that stops the repro when the build changed: `echo '<sha>  <path>' | sha256sum
 * --check --quiet &&` for a path; for a release or source spec, the spec is resolved again and its sha256 compared.
 */
export function checksumChecks(builds: readonly Pick<ReproBuild, 'path' | 'sha256' | 'spec' | 'cli'>[]): string[] {
  return builds.flatMap((b) => {
    if (!b.sha256) return [];
    if (b.spec && b.cli)
      return [
        'node',
        quote(b.cli),
        'build',
        '--quiet',
        '--json',
        quote(b.spec),
        '|',
        'grep',
        '-q',
        quote(`"sha256": "${b.sha256}"`),
        '&&',
      ];
    return ['echo', quote(`${b.sha256}  ${b.path}`), '|', 'sha256sum', '--check', '--quiet', '&&'];
  });
}
