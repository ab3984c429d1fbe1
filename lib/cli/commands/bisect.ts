// `reboot-harness bisect [scenario] --good <ref> --bad <ref> --check <id>`: the first commit of a Nomad source tree
// where a check's verdict flips, in either direction, built and run on a warm lab step by step (lib/bisect).
import { dirname, join, resolve } from 'node:path';
import { ConfigError, type ConfigProblem } from '../../errors.js';
import { closest } from '../../config/near.js';
import { runBisect } from '../../bisect/driver.js';
import {
  appendEvent,
  BISECT_LOG,
  BISECT_LOG_SCHEMA,
  gitBisectLog,
  writeGitBisectLog,
  writeInputs,
  writeText,
  type BisectInputs,
} from '../../bisect/log.js';
import { historyOf } from '../../git/history.js';
import { watchSignals } from '../../run/signals.js';
import {
  bisectExitCode,
  renderBisectHtml,
  renderBisectJson,
  renderBisectJUnit,
  renderBisectSummary,
  type BisectReport,
} from '../../report/bisect.js';
import { allScenarios } from '../scenarios.js';
import { checkSession, newRunId, readSession } from '../session-command.js';
import { inputFiles, userScenarios } from '../session-input.js';
import { readHarnessFile } from '../input.js';
import { argvOf, realSteps } from '../bisect-steps.js';
import { pathProblems } from '../paths.js';
import { reportsInSourceTrees } from '../source-tree-outputs.js';
import type { CliCommand, CommandDeps, ConfigFlag, ParsedArgs } from '../command.js';
import { CONFIG, FRESH } from './options.js';
import { FIELDS } from '../../config/table.js';
import { intOption, lineOf, passedOn, resumeCommand, treeOf } from '../bisect-input.js';
import { run } from './run.js';

/** The config flags bisect does not take: the builds. */
const NOT_TAKEN = new Set(['nomad', 'nomad-binary', 'upgrade-to', 'upgrade-mode']);

export const bisect: CliCommand = {
  name: 'bisect',
  summary:
    'find the commit where a check flips between two refs of a Nomad source tree: each step built and run on one warm lab, flake-aware, resumable',
  usage: [
    'reboot-harness bisect [scenario] --good <ref> --bad <ref> --check <id> [--source git:<dir>] [--tries k] [run options]',
    'reboot-harness bisect --resume <folder>',
    '',
    'Like git bisect run over real reboots: <ref> is anything git names in the source tree (tag, branch, commit);',
    '--good is the older ref, --bad the newer (given the other way round, or on two branches: as git bisect, from',
    'their merge base). The direction is read from the endpoints: a regression (passes on the older, fails on the',
    'newer) gives the first bad commit, a fix the first fixed commit. Both endpoints are verified first; the failing',
    'one runs --tries times to measure how often the failure reproduces (p); a commit is bad (or unfixed) when the',
    'check fails once, good (or fixed) after k passing tries with (1-p)^k <= 0.05. A commit that does not build, a',
    'run that broke or a skipped check is skipped (git bisect 125). Each step builds its commit (cached by commit),',
    "reverts the lab's snapshot taken before any Nomad ran, installs the build and runs the scenario. The folder",
    '<reports-dir>/bisect-<id>/ holds the log (resume after Ctrl-C with --resume), git-bisect.log (git bisect replay),',
    "bisect.json, report.html, junit.xml and every try's run reports. docs/bisect.md",
  ],
  exits:
    '0 the commit found with enough confidence; 1 inconclusive (the range left is printed) or too many skips in a row; 2 usage or configuration error, or no flip between the endpoints; 3 an endpoint could not be built or run; 70 harness bug; 130 interrupted (resume with --resume)',
  options: [
    { name: 'good', type: 'string', arg: '<ref>', doc: 'the older ref (tag, branch, commit) of the source tree' },
    { name: 'bad', type: 'string', arg: '<ref>', doc: 'the newer ref' },
    { name: 'check', type: 'string', arg: '<id>', doc: "the check whose verdict flips (one of the scenario's checks)" },
    {
      name: 'source',
      type: 'string',
      arg: 'git:<dir>',
      file: 'read',
      doc: 'the Nomad source tree (a work tree or a bare repository; default git:. )',
    },
    {
      name: 'tries',
      type: 'string',
      arg: '<k>',
      doc: "the failing endpoint's runs, and the cap on the passes a pass needs (default 3)",
    },
    { name: 'max-skips', type: 'string', arg: '<n>', doc: 'stop after this many skipped commits in a row (default 5)' },
    {
      name: 'resume',
      type: 'string',
      arg: '<folder>',
      file: 'read',
      doc: 'continue the bisect of that folder (after Ctrl-C, SIGTERM or a crash); finished tries are not run again',
    },
    {
      name: 'replay',
      type: 'string',
      arg: '<log>',
      file: 'read',
      doc: "re-apply another bisect's log (bisect-log.jsonl) of the same source: its builds and tries are taken as they were",
    },
    CONFIG,
    FRESH,
  ],
  // Note: every run flag but the builds (each step's build comes from --source); --junit and --report-json name the
  // bisect's own files
  configFlags: FIELDS.flatMap((f): ConfigFlag[] =>
    !f.flag || NOT_TAKEN.has(f.flag)
      ? []
      : f.flag === 'junit'
        ? [
            {
              flag: f.flag,
              doc: "the bisect's JUnit file (default <bisect folder>/junit.xml); each try writes its own",
            },
          ]
        : f.flag === 'report-json'
          ? [{ flag: f.flag, doc: "the bisect's JSON document (default <bisect folder>/bisect.json)" }]
          : f.flag === 'json'
            ? [{ flag: f.flag, doc: "print the bisect's JSON document (bisect@1) on stdout, its progress on stderr" }]
            : [f.flag],
  ),
  positionals: { what: 'scenario', max: 1, complete: 'scenario' },
  run: bisectCommand,
};

async function bisectCommand(given: ParsedArgs, deps: CommandDeps): Promise<number> {
  // a line refused before it is judged (--resume with more, a log that is a pipe) is told with the argv's own
  // problems (an option of another command: the parser dropped it, so --resume cannot name it), not before them
  const line = await lineOf(given, deps).catch((err: unknown) => {
    if (err instanceof ConfigError && deps.argvProblems.length)
      throw new ConfigError([...deps.argvProblems, ...err.problems]);
    throw err;
  });
  const { args } = line;
  const v = args.values;
  const scenario = args.positionals[0] ?? 'bridge-exec-reboot';
  // a --replay that cannot be replayed is told with the line's own problems, not in a round before them
  const problems: ConfigProblem[] = [...(line.problems ?? [])];
  const need = (name: string, example: string) => {
    if (typeof v[name] !== 'string' || v[name] === '')
      problems.push({ field: `--${name}`, value: v[name], message: 'is required', fix: `give --${name} ${example}` });
  };
  need('good', '<ref>, e.g. v2.0.4');
  need('bad', '<ref>, e.g. v2.0.5');
  need('check', "<id>, e.g. task-dirs (reboot-harness list shows each scenario's checks)");
  const tries = intOption(v['tries'], '--tries', 3, 1, 20, problems);
  const maxSkips = intOption(v['max-skips'], '--max-skips', 5, 1, 100, problems);
  const sourceText = typeof v['source'] === 'string' ? (v['source'] as string) : 'git:.';
  // Note: a resumed bisect goes on with the commits it started with, even when a ref (a branch) has moved since
  const refs = line.inputs ? { good: line.inputs.good.sha, bad: line.inputs.bad.sha } : v;
  const tree = await treeOf(sourceText, deps, refs, problems);
  // a tree already told as unusable is not told again through the first try's build of it
  const sourceTold = problems.some((p) => p.field === '--source');
  // The check must be one the scenario judges.
  const harness = await readHarnessFile(args, deps, []).catch(() => undefined);
  const user = await userScenarios(args, deps, harness);
  const sc = allScenarios(user.extra).find((s) => s.name === scenario);
  if (sc && !sc.needsNomad)
    problems.push({
      field: 'scenario',
      value: scenario,
      message: 'runs no Nomad, so there is nothing to bisect',
      fix: 'name a scenario that installs Nomad, e.g. bridge-exec-reboot',
    });
  if (sc && typeof v['check'] === 'string' && !sc.checks.some((c) => c.id === v['check'])) {
    const near = closest(
      v['check'] as string,
      sc.checks.map((c) => c.id),
    );
    problems.push({
      field: '--check',
      value: v['check'],
      message: `is not a check of ${scenario}`,
      fix: `${near ? `did you mean ${near}? ` : ''}one of: ${sc.checks.map((c) => c.id).join(', ')}`,
    });
  }
  // Every run flag, as the first try's run would judge it (the scenario, the lab, the job, the output paths).
  const runValues = passedOn(v);
  const stepArgs = (commit: string): ParsedArgs => {
    const values = { ...runValues, nomad: `${sourceText}@${commit}` };
    return { command: 'run', rawArgs: [scenario, ...argvOf(values)], positionals: [scenario], values };
  };
  const stepDeps: CommandDeps = { ...deps, argvProblems: [] };
  let checked: Awaited<ReturnType<typeof checkSession>> | undefined;
  let read: Awaited<ReturnType<typeof readSession>> | undefined;
  try {
    const req = {
      command: run,
      args: stepArgs(tree?.good ?? 'HEAD'),
      deps: stepDeps,
      plan: 'run' as const,
      named: () => [scenario],
    };
    read = await readSession(req);
    checked = await checkSession(req, read);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(
      ...err.problems
        .filter((p) => !(sourceTold && p.field === '--nomad'))
        .map((p) => asBisectProblem(p, sourceText, tree?.good)),
    );
  }
  // Its own JUnit and JSON files (the tries' run reports go under its folder): checked as a run checks its own
  const own = (flag: 'junit' | 'report-json') => (typeof v[flag] === 'string' ? (v[flag] as string) : undefined);
  const outs = (['junit', 'report-json'] as const).flatMap((f) =>
    own(f) ? [{ field: `--${f}`, value: own(f)!, kind: 'file' as const }] : [],
  );
  // Note: neither may be a file the bisect reads (harness.yaml, the job, a user's scenario): it would be replaced
  const configs = checked ? [checked.plan.base, ...checked.plan.cells.map((c) => c.config)] : [];
  const readFiles = inputFiles(checked?.plan, configs, { harness: read?.harness, extra: read?.user.extra });
  // Note: --replay and the bisect-inputs.json beside it are read too: a report over either lost the other bisect (Q199)
  const replay = typeof v['replay'] === 'string' ? (v['replay'] as string) : undefined;
  const replayed = replay
    ? [
        { field: '--replay', value: replay },
        { field: '--replay (its bisect-inputs.json)', value: join(dirname(replay), 'bisect-inputs.json') },
      ]
    : [];
  problems.push(...(await pathProblems(outs, deps.cwd, [...readFiles, ...replayed])));
  // the source tree is read by every step's build: a report in it is written over a file of the tree (Q200)
  const source = { field: '--source', spec: sourceText, cwd: deps.cwd };
  problems.push(...(await reportsInSourceTrees(outs, [source], deps.cwd, deps.env['HOME'])));
  const all = [...deps.argvProblems, ...problems];
  // Note: a session check that fails throws its problems, so `checked` is unset only with problems told
  if (all.length || !checked || !tree) throw new ConfigError(all);

  const config = checked.plan.base;
  const dir = line.dir ?? resolve(deps.cwd, config.reports.dir, `bisect-${newRunId()}`);
  const inputs: BisectInputs = {
    schema: BISECT_LOG_SCHEMA,
    values: Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'resume')),
    scenario,
    source: sourceText,
    good: { ref: v['good'] as string, sha: tree.good },
    bad: { ref: v['bad'] as string, sha: tree.bad },
    check: v['check'] as string,
    tries,
    startedAt: line.inputs?.startedAt ?? new Date().toISOString(),
    cwd: line.inputs?.cwd ?? deps.cwd,
  };
  if (!line.dir) await writeInputs(dir, inputs);
  // With --json stdout holds the bisect's document alone (as run's holds its summary); what people read goes to stderr.
  const json = config.output.json;
  const say = json ? deps.err : deps.out;
  say(
    `bisect ${inputs.check} on ${scenario}: ${inputs.good.ref} (${inputs.good.sha.slice(0, 10)}) .. ${inputs.bad.ref} (${inputs.bad.sha.slice(0, 10)}) in ${dir}\n`,
  );
  const watcher = watchSignals({
    ...(deps.signalSource ? { proc: deps.signalSource } : {}),
    onFirst: (sig) =>
      deps.err(`${sig}: the bisect stops after this step's cleanup; continue with: ${resumeCommand(dir)}\n`),
    onSecond: () => undefined,
  });
  const started = Date.now();
  const logFile = join(dir, BISECT_LOG);
  let outcome: Awaited<ReturnType<typeof runBisect>>;
  try {
    outcome = await runBisect(
      { good: inputs.good, bad: inputs.bad, check: inputs.check, tries, maxSkips },
      {
        history: historyOf(tree.gitDir),
        runner: realSteps({
          deps: stepDeps,
          builds: checked.builds,
          config,
          logger: checked.logger,
          gitDir: tree.gitDir,
          source: sourceText,
          scenario,
          check: inputs.check,
          dir,
          runValues,
          runCommand: (a, d) => run.run(a, d),
        }),
        record: (e) => appendEvent(logFile, e),
        earlier: line.earlier,
        say: (l) => say(`${l}\n`),
        signal: watcher.signal,
      },
    );
  } finally {
    watcher.dispose();
  }
  const pages: Record<string, string> = {};
  for (const s of outcome.steps)
    for (const t of s.tries) if (t.runId && t.reportDir) pages[t.runId] = join(t.reportDir, 'report.html');
  const report: BisectReport = {
    scenario,
    check: inputs.check,
    source: sourceText,
    good: inputs.good,
    bad: inputs.bad,
    old: outcome.old,
    new: outcome.new,
    steps: outcome.steps,
    result: outcome.result,
    startedAtMs: started,
    durationMs: Date.now() - started,
    pages,
  };
  await appendEvent(logFile, { e: 'end', result: outcome.result });
  await writeGitBisectLog(
    dir,
    gitBisectLog(
      { old: outcome.old, new: outcome.new, direction: outcome.result.direction },
      outcome.steps,
      outcome.result.status === 'found' ? outcome.result.culprit?.sha : undefined,
    ),
  );
  // Note: --junit and --report-json are the bisect's own, never passed on to a try (passedOn keeps them back)
  const jsonFile = own('report-json') ? resolve(deps.cwd, own('report-json')!) : join(dir, 'bisect.json');
  const junit = own('junit') ? resolve(deps.cwd, own('junit')!) : join(dir, 'junit.xml');
  const doc = renderBisectJson(report);
  await writeText(jsonFile, doc);
  await writeText(junit, renderBisectJUnit(report));
  await writeText(join(dir, 'report.html'), renderBisectHtml(report));
  say(`${renderBisectSummary(report).join('\n')}\n`);
  say(`reports: ${[junit, jsonFile, join(dir, 'report.html'), join(dir, 'git-bisect.log')].join(' ')}\n`);
  if (json) deps.out(doc.endsWith('\n') ? doc : `${doc}\n`);
  return bisectExitCode(outcome.result);
}

/**
 * A problem of the first try's run, as bisect names it: the build of a commit is `--source` at that commit (no Go on
 * PATH, not a Nomad tree), and upgrade-in-place's build to upgrade to cannot be a bisect flag (bisect builds one
 * build per step): the config or the environment gives it. Every other problem is the run's own, told as it is.
 */
function asBisectProblem(p: ConfigProblem, source: string, good: string | undefined): ConfigProblem {
  if (p.field === '--nomad')
    return {
      ...p,
      field: '--source',
      value: source,
      message: `${good ? `at ${good.slice(0, 10)} (--good)` : 'its commits'}: ${p.message}`,
    };
  if (p.field === '--upgrade-to')
    return {
      ...p,
      field: 'upgrade_to (NOMAD_UPGRADE_TO)',
      fix: 'bisect installs each commit as the build the client starts on; give the build it is upgraded to as upgrade_to in harness.yaml (-c) or NOMAD_UPGRADE_TO, or upgrade.mode: restart-only there',
    };
  return p;
}
