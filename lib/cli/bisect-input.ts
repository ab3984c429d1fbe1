// What a bisect is given, judged: the line (as typed, or the one a folder's bisect started with under --resume, and
// the events it logged), its own options' values, the source tree and the commits the two refs name (the nearest tags
// for a ref git does not know), and the run flags each try is given. Every problem is returned, never thrown one by one.
import { dirname, join, resolve } from 'node:path';
import { readFile, realpath, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { ConfigError, type ConfigProblem } from '../errors.js';
import { BISECT_LOG, BISECT_LOG_SCHEMA, readEvents, readInputs, type BisectInputs } from '../bisect/log.js';
import { trackedChanges } from '../git/history.js';
import { commandLine } from '../shell/command-line.js';
import { raw } from '../shell/quote.js';
import { findRepo, resolveCommit, similarTags } from '../builds/git.js';
import { deadlineIn } from '../time/deadlines.js';
import { gitUrlProblem } from '../session/builds.js';
import { optionsOf, type CommandDeps, type ParsedArgs } from './command.js';
import {
  damagedInputs,
  damagedLog,
  eventsProblem,
  inputsShapeProblem,
  spoiledLog,
  valuesProblem,
} from './bisect-records.js';
import { notAFileProblems } from './paths.js';

/** bisect's own options: what is not passed on to each try's run. */
const OWN = ['good', 'bad', 'check', 'source', 'tries', 'max-skips', 'resume', 'replay'] as const;
/** Run flags a bisect keeps for itself: its own JUnit and JSON (each try writes its own under the bisect's folder). */
const KEPT = ['junit', 'report-json', 'help'] as const;

interface Line {
  args: ParsedArgs;
  dir?: string;
  /** under --resume: what the bisect started with (its commits are kept, whatever its refs name now) */
  inputs?: BisectInputs;
  earlier: Awaited<ReturnType<typeof readEvents>>;
  /** what is wrong with --replay: told with the line's own problems, the log left unread */
  problems?: ConfigProblem[];
}

/** What only changes what is printed: given with --resume, it applies to the rest of the bisect. */
const PRINTING = ['json', 'verbose', 'quiet'] as const;

/**
 * Why the bisect-inputs.json in `dir`, which is there, is not read (readInputs gave nothing): of another schema (a
 * newer or older reboot-harness wrote it: said so, Q505), or not one a bisect wrote.
 */
async function inputsUnread(dir: string): Promise<{ why: string; otherVersion: boolean }> {
  let schema: unknown;
  try {
    schema = (JSON.parse(await readFile(join(dir, 'bisect-inputs.json'), 'utf8')) as { schema?: unknown }).schema;
  } catch {
    schema = undefined;
  }
  return typeof schema === 'string' && schema.startsWith('nomad-reboot-harness/bisect-log@')
    ? {
        why: `is of ${schema}, which this reboot-harness does not read (it reads ${BISECT_LOG_SCHEMA}): another version wrote it`,
        otherVersion: true,
      }
    : { why: 'is not one reboot-harness bisect wrote (cut, not JSON, or another schema)', otherVersion: false };
}

/** Why `dir` holds no bisect to resume: it is not there, is a file, or its bisect-inputs.json is missing or unreadable. */
async function noBisectWhy(dir: string): Promise<string> {
  const st = await stat(dir).catch((err: NodeJS.ErrnoException) => err);
  if (st instanceof Error) return unreachable(st);
  if (!st.isDirectory()) return 'is a file, not the folder of a bisect';
  const inputs = join(dir, 'bisect-inputs.json');
  if (!existsSync(inputs)) return 'holds no bisect (no bisect-inputs.json from reboot-harness bisect)';
  return `holds a bisect-inputs.json that ${(await inputsUnread(dir)).why}`;
}

/** Why a path stat could not reach is none to read: not there, or (a symlink loop, a file where a folder goes) why not. */
function unreachable(err: NodeJS.ErrnoException): string {
  return err.code === 'ENOENT' ? 'does not exist' : `cannot be read (${err.code ?? err.message})`;
}

/** The line to judge: as given, or (--resume) the one the folder's bisect started with, and the events it logged. */
export async function lineOf(args: ParsedArgs, deps: CommandDeps): Promise<Line> {
  const v = args.values;
  const earlier: Line['earlier'] = [];
  // a log or inputs file that is a pipe or a device would be read for ever (or whole, /dev/zero): refused first
  const reads = [
    ...(typeof v['resume'] === 'string'
      ? ['bisect-inputs.json', BISECT_LOG].map((f) => ({ field: '--resume', value: join(v['resume'] as string, f) }))
      : []),
    ...(typeof v['replay'] === 'string'
      ? [
          { field: '--replay', value: v['replay'] as string },
          { field: '--replay', value: join(dirname(v['replay'] as string), 'bisect-inputs.json') },
        ]
      : []),
  ];
  const pipes = await notAFileProblems(reads, deps.cwd);
  if (pipes.length && typeof v['resume'] === 'string') throw new ConfigError(pipes);
  // a --replay that cannot be replayed is told with the rest of the line (its flags are judged all the same)
  if (pipes.length) return { args, earlier, problems: pipes };
  if (typeof v['resume'] === 'string') {
    const dir = resolve(deps.cwd, v['resume'] as string);
    const others = Object.keys(v).filter((k) => k !== 'resume' && !(PRINTING as readonly string[]).includes(k));
    const read = await readInputs(dir);
    const problems: ConfigProblem[] = [];
    if (!read)
      problems.push({
        field: '--resume',
        value: v['resume'],
        message: await noBisectWhy(dir),
        fix:
          existsSync(join(dir, 'bisect-inputs.json')) && (await inputsUnread(dir)).otherVersion
            ? 'resume it with the version of reboot-harness that started it, or start the bisect again'
            : 'give the folder a bisect printed on its first line (<reports-dir>/bisect-<id>)',
      });
    const bisect = deps.commands.find((c) => c.name === 'bisect');
    const shape =
      read && (inputsShapeProblem(read) ?? valuesProblem(read, bisect && new Set(optionsOf(bisect).keys())));
    if (shape) problems.push(damagedInputs('--resume', v['resume'], `its bisect-inputs.json ${shape}`));
    const inputs = shape ? undefined : read;
    if (others.length || args.positionals.length)
      problems.push({
        field: '--resume',
        value: [...args.positionals, ...others.map((o) => `--${o}`)],
        message: 'takes nothing else: the folder holds the line the bisect started with',
        fix: `give --resume <folder> alone (or with ${PRINTING.map((p) => `--${p}`).join(', ')})`,
      });
    // Note: its line names paths (-c, --job, git:., ./harness.yaml read by default) as given in the directory it
    // started in; read from another one they name other files, or none
    if (inputs?.cwd && (await real(inputs.cwd)) !== (await real(deps.cwd)))
      problems.push({
        field: '--resume',
        value: v['resume'],
        message: `continues a bisect started in ${inputs.cwd}, whose paths (its -c, --job, --source git:<dir>, ./harness.yaml) are read from there, not from ${deps.cwd}`,
        fix: resumeCommand(dir, inputs.cwd),
      });
    const earlier = problems.length ? [] : await readEvents(join(dir, BISECT_LOG));
    const odd = eventsProblem(earlier) ?? (problems.length ? undefined : await spoiledLog(join(dir, BISECT_LOG)));
    if (odd) problems.push(damagedLog('--resume', v['resume'], `${BISECT_LOG} ${odd}`));
    if (problems.length) throw new ConfigError(problems);
    const printing = Object.fromEntries(PRINTING.filter((p) => p in v).map((p) => [p, v[p]]));
    return {
      args: {
        command: 'bisect',
        rawArgs: args.rawArgs,
        positionals: [inputs!.scenario],
        values: { ...inputs!.values, ...printing },
      },
      dir,
      inputs: inputs!,
      earlier,
    };
  }
  if (typeof v['replay'] === 'string') {
    // what is wrong with the log: told with the line's own problems (judged by the caller), the log left unread
    const refused = (message: string, fix: string): Line => ({
      args,
      earlier,
      problems: [{ field: '--replay', value: v['replay'], message, fix }],
    });
    // a log that is not there (or a loop, a folder) would read as one with no event: said as what it is
    const st = await stat(resolve(deps.cwd, v['replay'] as string)).catch((err: NodeJS.ErrnoException) => err);
    const none = st instanceof Error ? unreachable(st) : st.isDirectory() ? 'is a folder, not a bisect log' : undefined;
    if (none)
      return refused(
        none,
        'give the bisect-log.jsonl of an earlier bisect (in the folder it printed on its first line)',
      );
    const events = await readEvents(resolve(deps.cwd, v['replay'] as string));
    if (!events.length)
      return refused('is no bisect log (no event in it)', 'give the bisect-log.jsonl of an earlier bisect');
    const odd = eventsProblem(events) ?? (await spoiledLog(resolve(deps.cwd, v['replay'] as string)));
    if (odd) return { args, earlier, problems: [damagedLog('--replay', v['replay'], odd)] };
    // Note: a try in the log holds a verdict, not what it judged: replayed into another check or scenario it would be
    // taken for that one's verdict, and the answer would be wrong without a word
    const beside = dirname(resolve(deps.cwd, v['replay'] as string));
    const theirs = await readInputs(beside);
    // Note: a bisect-inputs.json beside the log that cannot be read (cut, not JSON, of another schema) said nothing,
    // and a log of another check's bisect was replayed as this one's verdicts (Q502); a log alone is taken as given
    if (!theirs && existsSync(join(beside, 'bisect-inputs.json')))
      return {
        args,
        earlier,
        problems: [
          damagedInputs(
            '--replay',
            v['replay'],
            `the bisect-inputs.json beside it ${(await inputsUnread(beside)).why}, so the check its tries judged cannot be told`,
          ),
        ],
      };
    const shape = theirs && inputsShapeProblem(theirs);
    if (shape)
      return {
        args,
        earlier,
        problems: [damagedInputs('--replay', v['replay'], `the bisect-inputs.json beside it ${shape}`)],
      };
    const scenario = args.positionals[0] ?? 'bridge-exec-reboot';
    if (theirs && (theirs.check !== v['check'] || theirs.scenario !== scenario))
      return refused(
        `is the log of a bisect of ${theirs.check} on ${theirs.scenario}: its tries' verdicts are that check's, not ${String(v['check'])}'s on ${scenario}`,
        `replay it with the line it ran with (its bisect-inputs.json): ${commandLine(['reboot-harness', 'bisect', theirs.scenario, '--check', theirs.check, raw('…'), '--replay', raw('<log>')])}; or bisect ${String(v['check'])} without --replay`,
      );
    return { args, earlier: events };
  }
  return { args, earlier };
}

export function intOption(
  raw: unknown,
  field: string,
  def: number,
  min: number,
  max: number,
  problems: ConfigProblem[],
): number {
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!/^\d+$/.test(String(raw)) || n < min || n > max) {
    problems.push({
      field,
      value: raw,
      message: `must be a whole number from ${min} to ${max}`,
      fix: `e.g. ${field} ${def}`,
    });
    return def;
  }
  return n;
}

/** The run flags each try takes: bisect's own options and its reports out; the lab's snapshot before any Nomad ran. */
export function passedOn(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    if (!(OWN as readonly string[]).includes(k) && !(KEPT as readonly string[]).includes(k)) out[k] = x;
  // Note: a newer build's client state must never be opened by an older one: every try starts from VMs no Nomad ran on
  if (out['warm-snapshot'] === undefined && !out['fresh']) out['warm-snapshot'] = 'before-nomad';
  return out;
}

/** The source tree and the two refs' commits, or the problems (the nearest tags for a ref git does not know). */
export async function treeOf(
  source: string,
  deps: CommandDeps,
  v: Record<string, unknown>,
  problems: ConfigProblem[],
): Promise<{ gitDir: string; good: string; bad: string } | undefined> {
  if (!source.startsWith('git:')) {
    problems.push({
      field: '--source',
      value: source,
      message: 'is not a source tree spec',
      fix: 'write git:<dir>, e.g. --source git:~/src/nomad',
    });
    return undefined;
  }
  const raw = source.slice(4);
  const url = gitUrlProblem(source, '--source');
  if (url) {
    problems.push(url);
    return undefined;
  }
  if (raw.includes('@'))
    problems.push({
      field: '--source',
      value: source,
      message: 'names a ref; bisect takes the refs from --good and --bad',
      fix: `write ${commandLine(['--source', `git:${raw.split('@')[0]}`])}`,
    });
  const dir = resolve(deps.cwd, raw.split('@')[0]!.replace(/^~(?=\/|$)/, deps.env['HOME'] ?? '~'));
  const o = { deadline: deadlineIn(30_000) };
  const repo = await findRepo(dir, o);
  if ('error' in repo) {
    problems.push({
      field: '--source',
      value: source,
      message: `is not a git repository (${repo.error})`,
      fix: 'give git:<dir> of a clone of hashicorp/nomad',
    });
    return undefined;
  }
  if (repo.workTree) {
    const changed = await trackedChanges(repo.workTree, o);
    if (changed.length)
      problems.push({
        field: '--source',
        value: source,
        message: `has uncommitted changes (${changed.length} file${changed.length === 1 ? '' : 's'}: ${changed.slice(0, 3).join(', ')}${changed.length > 3 ? ', …' : ''})`,
        fix: 'commit or stash them: bisect builds commits, never the work tree, and a result on a dirty tree is easily misread',
      });
  }
  const commits: Record<string, string | undefined> = {};
  for (const name of ['good', 'bad']) {
    const ref = v[name];
    if (typeof ref !== 'string' || !ref) continue;
    commits[name] = await resolveCommit(repo.gitDir, ref, o);
    if (!commits[name]) {
      const near = await similarTags(repo.gitDir, ref, o);
      problems.push({
        field: `--${name}`,
        value: ref,
        message: `names no commit in ${dir}`,
        fix: near.length
          ? `the nearest tags: ${near.join(', ')}`
          : 'give a tag, a branch or a commit of the tree (git log --oneline)',
      });
    }
  }
  if (commits['good'] && commits['good'] === commits['bad'])
    problems.push({
      field: '--good/--bad',
      value: [v['good'], v['bad']],
      message: `name the same commit (${commits['good'].slice(0, 10)})`,
      fix: 'give the last ref where the check behaved one way as --good and the first where it behaved the other way as --bad',
    });
  return commits['good'] && commits['bad']
    ? { gitDir: repo.gitDir, good: commits['good'], bad: commits['bad'] }
    : undefined;
}

/** A directory as the file system names it (a symlinked /tmp and its target are one directory). */
const real = (dir: string): Promise<string> => realpath(dir).catch(() => resolve(dir));

/** The command that continues the bisect of folder `dir` (from `cwd` first, when its paths are read from there). */
export function resumeCommand(dir: string, cwd?: string): string {
  return commandLine([...(cwd ? ['cd', cwd, raw('&&')] : []), 'reboot-harness', 'bisect', '--resume', dir]);
}
