// A command's input from every source (the command line, harness.yaml, the environment, the config, and whatever the
// command itself checks: output paths, jobs, keys, builds) judged in one answer: every problem at once, in one order,
// each once. Also reads harness.yaml and other YAML inputs, naming the file in each problem.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ConfigError, type ConfigProblem } from '../errors.js';
import { resolveConfig } from '../config/validate.js';
import { FIELDS } from '../config/table.js';
import { decodeUtf8 } from '../config/text-file.js';
import type { HarnessConfig } from '../config/schema.js';
import { SCENARIOS } from './scenarios.js';
import { labConfigRules } from '../lab/providers.js';
import { groupCellProblems } from './group-problems.js';
import type { CommandDeps, ParsedArgs } from './command.js';
import { readInputFile } from '../input/read.js';

/** harness.yaml as read: its parsed data and the name problems give it. */
export interface HarnessFile {
  data: unknown;
  name: string;
}

/** Where a command's problems came from; each list may be empty. The order is the order they are told in. */
interface InputProblems {
  /** the command line's own (unknown options, words too many) */
  argv?: readonly ConfigProblem[];
  /** harness.yaml or another input file that cannot be read or parsed */
  files?: readonly ConfigProblem[];
  /** the user's scenario files */
  userScenarios?: readonly ConfigProblem[];
  /** the config and the plan (the values, the scenario names, the matrix) */
  config?: readonly ConfigProblem[];
  /** what the command checks itself (contradicting selectors, output paths, jobs, keys, labs, builds) */
  command?: readonly ConfigProblem[];
}

/**
 * Every problem of a command's input, from every source, in one list (identical ones once, a matrix's per-cell ones
 * grouped). When a user's scenario file did not load, a scenario named on the command line or in the matrix may be in
 * it: "is not a known scenario" would be a guess, so it is left out.
 */
export function inputProblems(p: InputProblems): ConfigProblem[] {
  const user = p.userScenarios ?? [];
  const config = (p.config ?? []).filter((x) => !user.length || x.message !== 'is not a known scenario');
  const all = withoutMoot([...(p.argv ?? []), ...(p.files ?? []), ...user, ...config, ...(p.command ?? [])]);
  const seen = new Set<string>();
  return groupCellProblems(all.filter((x) => !seen.has(JSON.stringify(x)) && !!seen.add(JSON.stringify(x))));
}

/**
 * A flag the scenario refuses as a whole ("applies to rolling-reboot and server-reboot"): what else is wrong with its
 * value (a machine this lab lacks) is moot once the flag goes, so it is left out: one problem per mistake. Likewise a
 * build given as "": it is empty, not also missing; and a provider the command refuses: its hosts are not also asked for.
 */
function withoutMoot(all: ConfigProblem[]): ConfigProblem[] {
  const refused = new Set(
    all.flatMap((x) => (x.message.startsWith('applies to ') ? (x.field.match(/--[a-z][a-z-]*/g) ?? []) : [])),
  );
  // Note: a build flag given empty is one mistake: "must be a non-empty string" says it, "needs a build" repeats it.
  const emptied = new Set(all.filter((x) => x.message === 'must be a non-empty string').map((x) => x.field));
  // Note: a provider the command refuses as a whole (doctor --provider ssh) needs no hosts listed for it.
  const providerRefused = all.some(
    (x) => x.field === 'lab.provider (--provider)' && x.message.includes('no checks for'),
  );
  return all.filter(
    (x) =>
      (x.message.startsWith('applies to ') || !refused.has(x.field)) &&
      !(emptied.has(x.field) && x.message.endsWith(' needs a build')) &&
      !(providerRefused && /\blab\.hosts\./.test(x.field)),
  );
}

/** Throw every problem of the input at once (exit 2), or return when there is none. */
export function assertInput(p: InputProblems): void {
  const all = inputProblems(p);
  if (all.length) throw new ConfigError(all);
}

/**
 * harness.yaml (--config, or ./harness.yaml when present), parsed; undefined when there is none. A file that cannot be
 * read or parsed is a problem among the others: `problems` gets it and the input is judged without the file.
 */
export async function readHarnessFile(
  args: ParsedArgs,
  deps: Pick<CommandDeps, 'cwd'>,
  problems: ConfigProblem[],
): Promise<HarnessFile | undefined> {
  const explicit = typeof args.values['config'] === 'string' ? (args.values['config'] as string) : undefined;
  const found = join(deps.cwd, 'harness.yaml');
  if (explicit === undefined && existsSync(found) && statSync(found).isDirectory()) {
    problems.push({
      field: './harness.yaml (read by default)',
      value: found,
      message: 'is a directory',
      fix: 'remove or rename it, or pass --config <file>',
    });
    return undefined;
  }
  const path = explicit !== undefined ? resolve(deps.cwd, explicit) : existsSync(found) ? found : undefined;
  if (!path) return undefined;
  try {
    return { data: await readYaml(path, '--config'), name: path };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
    return undefined;
  }
}

/**
 * The value problems of the keys a command reads (`reads`: keys or sections ending in "."); one of a key it does not
 * read, from harness.yaml or a variable, is the commands' that read it. Problems of no key (unknown keys, the file's
 * shape) stay.
 */
function readProblems(
  problems: readonly ConfigProblem[],
  reads: readonly string[] | undefined,
  fileName = 'harness.yaml',
): ConfigProblem[] {
  if (!reads) return [...problems];
  const read = (yaml: string) => reads.some((r) => (r.endsWith('.') ? yaml.startsWith(r) : yaml === r));
  const unread = FIELDS.filter((f) => !read(f.yaml));
  return problems.filter(
    (p) =>
      p.message === 'is not a known key' ||
      !unread.some((f) => p.field === `${fileName}: ${f.yaml}` || (!!f.env && p.field === `env ${f.env}`)),
  );
}

/** Read and parse one YAML document (merge keys `<<` allowed); a ConfigError naming the file when it cannot be. */
export async function readYaml(path: string, what: string): Promise<unknown> {
  // Note: through the one guarded read: a FIFO or a device is told without waiting on it (Q179), and a file swapped for
  // one between a look and the read is refused all the same
  const read = await readInputFile(path);
  if (!read.ok) {
    const code = read.code;
    if (!code) throw new ConfigError([{ field: what, value: path, message: read.message, fix: read.fix }]);
    const fix = code === 'EISDIR' ? 'give the path of a file, not a directory' : 'give the path of an existing file';
    throw new ConfigError([{ field: what, value: path, message: `cannot be read (${code})`, fix }]);
  }
  const bytes = read.bytes;
  const decoded = decodeUtf8(bytes, what, path);
  if (!decoded.ok) throw new ConfigError([decoded.problem]);
  const text = decoded.text;
  const docs = parseAllDocuments(text, { merge: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const bad = list.flatMap((d) => d.errors)[0];
  if (bad)
    throw new ConfigError([
      {
        field: path,
        value: bad.message.split('\n')[0],
        message: 'is not valid YAML',
        fix: 'fix the YAML syntax at the line named',
      },
    ]);
  if (list.length > 1)
    throw new ConfigError([
      {
        field: path,
        value: `${list.length} documents`,
        message: `holds ${list.length} YAML documents (separated by ---)`,
        fix: 'give one document: keep one part of the file, or split it into several files',
      },
    ]);
  return list.length ? (list[0]!.toJS() as unknown) : null;
}

/**
 * The config a command other than a session reads (harness.yaml < env < its flags), with every problem of its input
 * told at once: the command line's, the file's, the values', and what `own` finds in what could be read (the config
 * as far as it is valid). The token it names is a secret from here on.
 */
export async function commandConfig(
  args: ParsedArgs,
  deps: CommandDeps,
  own: (config: HarnessConfig) => ConfigProblem[] | Promise<ConfigProblem[]> = () => [],
): Promise<HarnessConfig> {
  const files: ConfigProblem[] = [];
  const harness = await readHarnessFile(args, deps, files);
  const known = [...new Set(SCENARIOS.flatMap((s) => s.checks.map((c) => c.id)))];
  const res = resolveConfig({
    file: harness?.data,
    ...(harness ? { fileName: harness.name } : {}),
    env: deps.env,
    flags: args.values,
    knownChecks: known,
    labRules: labConfigRules,
  });
  if (res.config.nomad.token) deps.addSecrets([res.config.nomad.token]);
  const reads = deps.commands.find((c) => c.name === args.command)?.reads;
  assertInput({
    argv: deps.argvProblems,
    files,
    config: res.ok ? [] : readProblems(res.problems, reads, harness?.name),
    command: await own(res.config),
  });
  return res.config;
}
