// `reboot-harness matrix <file.yaml>`: the cells of a matrix file (or one shard of them), or their listing.
import { dirname, resolve } from 'node:path';
import { ConfigError, type ConfigProblem } from '../../errors.js';
import { optionsOf, type CliCommand } from '../command.js';
import { inputProblems, readYaml } from '../input.js';
import { listCellsCommand, listedInputProblems, listingProblems } from '../list-cells.js';
import { readSession, sessionCommand, type SessionRequest } from '../session-command.js';
import { matrixFileProblems, unplannedAxisFlagProblems } from '../matrix-unplanned.js';
import { kindBesideScheduleProblems, kindUnreadByCells, scheduleUnreadByCells } from '../scenario-flags.js';
import { sessionConfigs, withMatrixKnownIssues } from '../session-input.js';
import { matrixDefaultsInputs } from '../session-inputs.js';
import { CONFIG, EXPECT, FRESH, PLAN } from './options.js';

export const matrix: CliCommand = {
  name: 'matrix',
  summary: 'run the cells of a matrix file (builds x reboot kinds x ...), optionally one shard of them',
  usage: [
    'reboot-harness matrix <file.yaml> [--shard i/n | --cell name] [run options]',
    'reboot-harness matrix <file.yaml> --list-cells [--json] [--shards N]',
    '',
    'Expands the matrix file (docs/matrix.md) into cells with stable names, e.g. bridge-exec-reboot/nomad=1.9.3/reboot=hard,',
    "runs this shard's cells (parallel: and memory_budget_mb: in the file), retries a cell ONCE after an infrastructure",
    'error (never after a failed check), and writes one JUnit file with a <testsuite> per cell.',
  ],
  exits:
    '0 every cell met its expectations; 1 a cell did not; 2 usage or configuration error; 3 a cell broke (after its retry); 70 harness bug; 130 interrupted',
  options: [
    CONFIG,
    EXPECT,
    {
      name: 'shard',
      type: 'string',
      arg: '<i/n>',
      doc: 'run only shard i of n (1-based; cell k goes to shard k mod n + 1)',
    },
    {
      name: 'cell',
      type: 'string',
      arg: '<name>',
      doc: "run only the cell of that name (what a failed cell's repro command uses)",
    },
    PLAN,
    {
      name: 'list-cells',
      type: 'boolean',
      doc: 'print every cell, its shard and the command that runs exactly it; run nothing (docs/ci.md)',
    },
    { name: 'shards', type: 'string', arg: '<N>', doc: "with --list-cells: each cell's shard among N CI jobs" },
    FRESH,
  ],
  configFlags: 'all run flags',
  // Note: a repeat is run's (--repeat N, a flake rate); the planner refuses it here, so the help must not offer it
  notFlags: ['repeat'],
  positionals: { what: 'matrix file', complete: 'files' },
  async run(args, deps) {
    const problems: ConfigProblem[] = [...listingProblems(args)];
    const file = args.positionals.length === 1 ? args.positionals[0]! : undefined;
    const path = file === undefined ? undefined : resolve(deps.cwd, file);
    const data = path ? await readYaml(path, 'matrix file').catch(caught(problems)) : undefined;
    const req: SessionRequest = {
      command: matrix,
      args,
      deps,
      plan: 'matrix',
      ...(path && data !== undefined ? { matrixFile: { data, name: file!, path, dir: dirname(path) } } : {}),
      problems,
      named: () => [],
    };
    if (!args.values['list-cells']) return sessionCommand(req);
    // --list-cells: the matrix validated; print its fan-out before any build is read or anything is created.
    const read = await readSession(req);
    // the known-issue and job files every shard reads first, judged as the session judges them (Q401)
    const plan = read.res.ok ? read.res.plan : undefined;
    const configs = sessionConfigs(plan, { ...args, values: read.values }, deps, read.harness);
    const issues = plan ? configs[0]! : withMatrixKnownIssues(configs[0]!, req, deps.env);
    const files = await listedInputProblems({
      configs,
      issues,
      defaults: plan ? [] : matrixDefaultsInputs(configs[0]!, req.matrixFile?.data, issues.knownIssuesFile),
      extra: read.user.extra,
      cwd: deps.cwd,
    });
    const found = inputProblems({
      argv: deps.argvProblems,
      files: read.fileProblems,
      userScenarios: read.user.problems,
      config: read.res.ok ? [] : read.res.problems,
      command: [
        ...matrixFileProblems(req, args.values),
        // a flag for an axis the file varies, told with the file's own problems (Q201)
        ...(read.res.ok || !req.matrixFile
          ? []
          : unplannedAxisFlagProblems(req.matrixFile, args.values, read.res.problems)),
        // what the cells' configs say of the file's fault kinds and schedule (axes.reboot beside reboot.faults, …): the
        // file's own problems, which every shard the listing fans out to would be refused on (Q293)
        ...(read.res.ok
          ? [
              ...kindBesideScheduleProblems(read.res.plan, { harness: read.harness, matrixFile: req.matrixFile }),
              ...scheduleUnreadByCells(read.res.plan),
              ...kindUnreadByCells(read.res.plan, req.matrixFile),
            ]
          : []),
        ...files,
      ],
    });
    if (!read.res.ok || found.length) throw new ConfigError(found);
    const m = read.res.plan.matrix!;
    const selected = read.res.plan.cells.map((c) => m.all.find((x) => x.name === c.key)!);
    return listCellsCommand(args, m.all, selected, deps.out, optionsOf(matrix));
  },
};

/** A ConfigError's problems into `into` (and no value), anything else thrown on. */
const caught =
  (into: ConfigProblem[]) =>
  (err: unknown): undefined => {
    if (!(err instanceof ConfigError)) throw err;
    into.push(...err.problems);
    return undefined;
  };
