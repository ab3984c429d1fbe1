// `reboot-harness matrix <file> --list-cells [--json] [--shards N]`: print the fan-out plan (cells, shards, the
// command that runs each) after the matrix validated, without checking builds, preparing the host or creating
// anything.
import type { ConfigProblem } from '../errors.js';
import { EXIT } from '../errors.js';
import type { Cell } from '../matrix/expand.js';
import { listCells, parseShardCount, renderCellList } from '../matrix/list.js';
import type { HarnessConfig } from '../config/schema.js';
import type { Scenario } from '../run/scenario.js';
import { JOB_FIELD } from '../steps/job-input.js';
import type { OptionSpec, ParsedArgs } from './command.js';
import { notAFileProblems, type InputPath } from './paths.js';
import { allScenarios } from './scenarios.js';
import { sessionJobProblems } from './session-input.js';
import { knownIssueFileProblems, pipedInputs, withoutPiped } from './session-inputs.js';

/** Flags that shape the listing itself; the listed commands never carry them. */
const LISTING_FLAGS = new Set(['list-cells', 'json', 'shards', 'shard', 'cell']);

/** Problems with the listing flags: --shards without --list-cells, a bad N, or --shard i/n disagreeing with N. */
export function listingProblems(args: ParsedArgs): ConfigProblem[] {
  // Note: the listed commands repeat the run flags; with --plan every CI job made from them would only print a plan.
  const planToo: ConfigProblem[] =
    args.values['list-cells'] && args.values['plan']
      ? [
          {
            field: '--plan',
            value: true,
            message: 'cannot be combined with --list-cells (the listed commands would carry it and only print plans)',
            fix: 'drop --plan to list the cells, or drop --list-cells to print the plan',
          },
        ]
      : [];
  return [...planToo, ...shardsProblems(args)];
}

/**
 * The files every shard reads before its cells run, judged as a run judges them: a known-issue file (--known-issues-file,
 * the matrix's defaults, harness.yaml) that cannot be read or names no check, a job file that does not exist. The
 * listing left them out: it exited 0 and every shard it fanned out to was refused with exit 2 (Q401). A FIFO is told,
 * never read. Builds stay unread (the plan job of a pipeline may not have them); output places are each runner's own.
 * `configs`: the session's (lib/cli/session-input.ts sessionConfigs); `issues`: the one whose known-issue file counts;
 * `defaults`: the matrix defaults' files when the file failed to plan (matrixDefaultsInputs).
 */
export async function listedInputProblems(o: {
  configs: readonly HarnessConfig[];
  issues: HarnessConfig;
  defaults: readonly InputPath[];
  extra: readonly Scenario[];
  cwd: string;
}): Promise<ConfigProblem[]> {
  // a matrix that failed to plan: its defaults' jobs judged too, as the session's parse of them does (Q363)
  const jobs = o.defaults.filter((d) => d.field === JOB_FIELD).map((d) => d.value);
  const first = o.configs[0];
  const configs = jobs.length && first ? [...o.configs, { ...first, job: { ...first.job, files: jobs } }] : o.configs;
  const files: InputPath[] = [
    ...configs.flatMap((c) => c.job.files.filter((f) => f !== '').map((f) => ({ field: JOB_FIELD, value: f }))),
    ...(o.issues.knownIssuesFile ? [{ field: 'known_issues_file', value: o.issues.knownIssuesFile }] : []),
    ...o.defaults.filter((d) => d.field !== JOB_FIELD),
  ];
  const piped = await pipedInputs(files, o.cwd);
  const safe = (c: HarnessConfig) => withoutPiped(c, piped, o.cwd);
  return [
    ...(await notAFileProblems(files, o.cwd)),
    ...(await sessionJobProblems(configs.map(safe), o.cwd)),
    ...(await knownIssueFileProblems(safe(o.issues), allScenarios(o.extra))),
  ];
}

function shardsProblems(args: ParsedArgs): ConfigProblem[] {
  const text = typeof args.values['shards'] === 'string' ? (args.values['shards'] as string) : undefined;
  if (text === undefined) return [];
  if (!args.values['list-cells']) {
    return [
      {
        field: '--shards',
        value: text,
        message: 'only applies to --list-cells',
        fix: 'use --shard i/n to run one shard, or add --list-cells',
      },
    ];
  }
  const n = parseShardCount(text);
  if (typeof n !== 'number') return [n];
  const shard = typeof args.values['shard'] === 'string' ? (args.values['shard'] as string) : undefined;
  const m = shard === undefined ? null : /\/(\d+)$/.exec(shard.trim());
  if (m && Number(m[1]) !== n) {
    return [
      {
        field: '--shards',
        value: text,
        message: `disagrees with --shard ${shard}`,
        fix: `drop --shards, or write --shards ${m[1]}`,
      },
    ];
  }
  return [];
}

/** The arguments after the command minus the matrix file and the listing flags: what every listed command repeats. */
export function carriedArgs(rawArgs: readonly string[], opts: ReadonlyMap<string, Pick<OptionSpec, 'type'>>): string[] {
  const out: string[] = [];
  let file = true;
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!;
    if (!a.startsWith('-') || /^-\d/.test(a)) {
      if (file) file = false;
      else out.push(a);
      continue;
    }
    const name = a.replace(/^-+/, '').split('=')[0]!;
    const takesValue = opts.get(name)?.type === 'string' && !a.includes('=');
    const value = takesValue ? rawArgs[++i] : undefined;
    if (LISTING_FLAGS.has(name)) continue;
    out.push(a, ...(value !== undefined ? [value] : []));
  }
  return out;
}

/** Print the listing of the selected cells (a --shard or --cell narrows it) as a table or JSON; always exit 0. */
export function listCellsCommand(
  args: ParsedArgs,
  all: readonly Cell[],
  selected: readonly Cell[],
  out: (s: string) => void,
  opts: ReadonlyMap<string, Pick<OptionSpec, 'type'>>,
): number {
  const shard = typeof args.values['shard'] === 'string' ? /\/(\d+)$/.exec(args.values['shard'] as string) : null;
  const n = parseShardCount(typeof args.values['shards'] === 'string' ? (args.values['shards'] as string) : shard?.[1]);
  const shards = typeof n === 'number' ? n : 1;
  const listing = listCells(all, { file: args.positionals[0]!, shards, extra: carriedArgs(args.rawArgs, opts) });
  const names = new Set(selected.map((c) => c.name));
  const narrowed =
    selected.length === all.length
      ? listing
      : {
          ...listing,
          cells: listing.cells.filter((c) => names.has(c.name)),
          shardJobs: listing.shardJobs.filter((s) => s.cells.some((c) => names.has(c))),
          selection:
            typeof args.values['cell'] === 'string'
              ? `--cell ${args.values['cell']}`
              : `--shard ${args.values['shard']}`,
        };
  out(args.values['json'] ? `${JSON.stringify(narrowed, null, 2)}\n` : renderCellList(narrowed));
  return EXIT.OK;
}
