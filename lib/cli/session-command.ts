// The session machinery every command that runs plans shares (run, compare, matrix; a command of your own can call it
// with its own plan inputs): read the inputs, plan, judge every problem of the input at once, execute, write the
// reports, print the verdict. docs/architecture.md "Recipe: add a command".
import { secretsByName, secretsInArgv } from '../log/redact.js';
import { givenAt } from '../config/given-at.js';
import { JOB_FIELD } from '../steps/job-input.js';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, EXIT, type ConfigProblem } from '../errors.js';
import { DEFAULTS, type HarnessConfig } from '../config/schema.js';
import { FIELDS } from '../config/table.js';
import type { Logger } from '../log/events.js';
import type { Scenario } from '../run/scenario.js';
import type { SessionReport } from '../model/session.js';
import { planSession, type PlanResult } from '../plan/plan.js';
import { PLAN_JSON_SCHEMA, type Plan, type PlanInput } from '../plan/session-plan.js';
import { executePlan } from '../session/execute.js';
import { nomadJobConverter } from '../cluster/job-convert.js';
import { REPORTERS, type ReportContext } from '../report/reporters.js';
import { attachmentBase } from '../report/attachment-paths.js';
import { renderQuietSummary, renderSessionConsole } from '../report/console.js';
import { writeSessionReports } from '../report/write.js';
import { IN_NETNS_ENV } from '../lab/host/host.js';
import { labConfigRules, vmOverheadMb } from '../lab/providers.js';
import { keptMessage } from './labs.js';
import { allScenarios, findScenario } from './scenarios.js';
import { notAFileProblems, pathProblems } from './paths.js';
import { reportsInSourceTrees } from './source-tree-outputs.js';
import {
  kindBesideScheduleProblems,
  kindUnreadByCells,
  scheduleUnreadByCells,
  unusedFlagProblems,
} from './scenario-flags.js';
import { existingHostProblems } from './existing-hosts.js';
import { hostsNetnsProblems } from './hosts-netns.js';
import {
  faultsOf,
  knownIssueFileProblems,
  matrixDefaultsInputs,
  matrixJobConfigs,
  pipedInputs,
  hostKeyInputs,
  matrixDefaultsBuilds,
  withoutFaults,
  withoutPiped,
  wordAfterSwitch,
} from './session-inputs.js';
import { matrixFileProblems, unplannedMatrixProblems } from './matrix-unplanned.js';
import { inputProblems, readHarnessFile, type HarnessFile } from './input.js';
import {
  expectFlagProblems,
  sessionJobProblems,
  labProblems,
  outputPaths,
  inputFiles,
  jobParseConfigs,
  scheduleFiles,
  withMatrixKnownIssues,
  parsedJobProblems,
  sessionConfigs,
  userScenarios,
} from './session-input.js';
import { colorOn, loggerFor } from './logger.js';
import { pathBuilds } from './path-builds.js';
import { optionsOf, strayAware, type CliCommand, type CommandDeps, type ParsedArgs } from './command.js';
import type { BuildLayer } from './deps.js';

/** The CLI entry a person runs (for repro commands). */
const CLI_PATH = fileURLToPath(new URL('../../bin/reboot-harness.js', import.meta.url));

/** What a command hands the session machinery: itself, its parsed line, and what it adds to the plan's input. */
export interface SessionRequest {
  command: CliCommand;
  args: ParsedArgs;
  deps: CommandDeps;
  /** how the planner plans it (run, compare, matrix) */
  plan: PlanInput['command'];
  /** plan input of the command's own (the matrix file) */
  matrixFile?: PlanInput['matrixFile'];
  /** it installs builds of its own (compare: --before/--after), so --nomad and --nomad-binary are its planner's */
  installsOwnBuilds?: boolean;
  /** problems the command found reading its own inputs (a matrix file that cannot be read) */
  problems?: readonly ConfigProblem[];
  /** the scenarios the line names, for checks that need them when the plan has problems */
  named(all: readonly Scenario[]): string[];
}

/** A session read and planned, its problems not yet judged. */
interface ReadSession {
  res: PlanResult;
  harness: HarnessFile | undefined;
  /** harness.yaml and the command's own files that could not be read */
  fileProblems: ConfigProblem[];
  user: { extra: Scenario[]; problems: ConfigProblem[] };
  /** the command line's values as planned: a --faults that is a FIFO left out (told in fileProblems) */
  values: ParsedArgs['values'];
  /** the matrix file as planned: a `defaults.reboot.faults` that is a FIFO left out */
  matrixFile: SessionRequest['matrixFile'];
}

/** Read harness.yaml and the user's scenarios, and plan; prints the planner's warnings. */
export async function readSession(req: SessionRequest): Promise<ReadSession> {
  const { args, deps } = req;
  const fileProblems: ConfigProblem[] = [...(req.problems ?? [])];
  const read = await readHarnessFile(args, deps, fileProblems);
  // Note: a fault schedule that is a FIFO would hold the plan for ever: told with the rest, planned without it (Q179)
  const pipes = await notAFileProblems(scheduleFiles(args.values, read?.data, req.matrixFile?.data), deps.cwd);
  fileProblems.push(...pipes);
  const piped = (v: unknown) => pipes.some((p) => typeof v === 'string' && p.value === v);
  const values = piped(args.values['faults']) ? { ...args.values, faults: undefined } : args.values;
  const harness = read && piped(faultsOf(read.data)) ? { ...read, data: withoutFaults(read.data) } : read;
  const defaults = (req.matrixFile?.data as { defaults?: unknown } | undefined)?.defaults;
  const matrixFile =
    req.matrixFile && piped(faultsOf(defaults))
      ? { ...req.matrixFile, data: { ...(req.matrixFile.data as object), defaults: withoutFaults(defaults) } }
      : req.matrixFile;
  const user = await userScenarios(args, deps, harness, matrixFile);
  const input: PlanInput = {
    command: req.plan,
    positionals: args.positionals,
    values,
    env: deps.env,
    cwd: deps.cwd,
    scenarios: allScenarios(user.extra),
    labRules: labConfigRules,
    vmOverheadMb,
    ...(harness ? { harness } : {}),
    ...(matrixFile ? { matrixFile } : {}),
  };
  const res: PlanResult = planSession(input);
  if (res.ok) for (const w of res.plan.warnings) deps.err(`warning: ${w}\n`);
  return { res, harness, fileProblems, user, values, matrixFile };
}

/** A plan with nothing wrong in its input, and what executing it needs. */
interface CheckedSession {
  plan: Plan;
  extra: Scenario[];
  logger: Logger;
  builds: BuildLayer;
  secrets: string[];
}

/**
 * Every problem of the session's input at once (the command line's, harness.yaml's, the scenario files', the plan's,
 * output paths, jobs, keys, the lab, the builds), thrown as one ConfigError (exit 2); otherwise the plan.
 */
export async function checkSession(req: SessionRequest, read: ReadSession): Promise<CheckedSession> {
  const { args, deps } = req;
  const { res, harness, user } = read;
  const plan = res.ok ? res.plan : undefined;
  const base: HarnessConfig = plan ? plan.base : DEFAULTS;
  const configs = sessionConfigs(plan, { ...args, values: read.values }, deps, harness);
  // Note: a job variable named as a secret (registry_password) and a password in the power-reset command (ipmitool
  // -P) are secrets too: the plan and summary.json show the config
  const secretVars = configs.flatMap((c) => [
    ...secretsByName(c.job.vars),
    ...secretsInArgv(c.lab.hardResetCommand ?? []),
  ]);
  // Note: harness.yaml's (or a matrix's defaults') token as written too: a file that fails to plan has no base config
  // to take it from, and its problems are told with their values
  const written = [harness?.data, (req.matrixFile?.data as { defaults?: unknown } | undefined)?.defaults].map(
    (d) => (d as { nomad?: { token?: unknown } } | null | undefined)?.nomad?.token,
  );
  const secrets = [
    ...new Set(
      [deps.env['NOMAD_TOKEN'], base.nomad.token, ...written, ...secretVars].filter(
        (s): s is string => typeof s === 'string' && s !== '',
      ),
    ),
  ];
  deps.addSecrets(secrets);
  const sources = {
    argv: deps.argvProblems,
    files: read.fileProblems,
    userScenarios: user.problems,
    config: res.ok ? [] : wordAfterSwitch(res.problems, args.rawArgs),
  };
  // Note: a matrix file that could not be read (not UTF-8, missing) still has its cells' --faults schedule judged
  const unplanned =
    !res.ok && (req.matrixFile || req.plan === 'matrix')
      ? unplannedMatrixProblems(read.matrixFile ?? { data: undefined, name: '', dir: deps.cwd }, {
          fileParsed: res.builds.length > 0,
          flags: read.values,
          harness: harness?.data,
          told: res.problems,
        })
      : { builds: [], problems: [] };
  // Note: the builds of a plan that failed are read too (their hash, `nomad version`): a FIFO among them held the
  // command past SIGTERM (Q178)
  const unplannedBuilds = res.ok
    ? []
    : [...res.builds, ...unplanned.builds, ...matrixDefaultsBuilds(configs[0] ?? base, req.matrixFile?.data, deps.cwd)];
  const issuesConfig = plan ? (configs[0] ?? base) : withMatrixKnownIssues(configs[0] ?? base, req, deps.env);
  const readFiles = [
    ...inputFiles(plan, configs, { harness, matrixFile: req.matrixFile, extra: user.extra }),
    ...unplannedBuilds.map((b) => ({ field: b.field, value: b.spec, from: b.cwd })),
    ...(plan ? [] : matrixDefaultsInputs(configs[0] ?? base, req.matrixFile?.data, issuesConfig.knownIssuesFile)),
    ...configs.flatMap(hostKeyInputs),
  ];
  const outs = outputPaths(configs, args, deps, harness, req.matrixFile);
  const outputs = [
    ...(await pathProblems(outs, deps.cwd, readFiles)),
    ...(await reportsInSourceTrees(outs, res.ok ? res.plan.builds : unplannedBuilds, deps.cwd, deps.env['HOME'])),
  ];
  // Note: before anything reads them: a FIFO would hold the check (the build's hash, the job's parse) for ever. It
  // is told with the rest, and the checks below leave it unread (Q179: it was told alone, in a round of its own)
  const fifos = await notAFileProblems(readFiles, deps.cwd);
  const unread = await pipedInputs(readFiles, deps.cwd);
  const safe = (c: HarnessConfig): HarnessConfig => withoutPiped(c, unread, deps.cwd);
  const safeConfigs = configs.map(safe);
  const logger = loggerFor(base, deps);
  const builds = deps.builds ?? pathBuilds(deps);
  const buildProblems = await builds.check(
    (res.ok ? res.plan.builds : unplannedBuilds).filter((b) => !unread.has(resolve(b.cwd, b.spec))),
    safe(base),
    logger,
  );
  // Note: a job problem names where the job was given (HARNESS_JOB, harness.yaml), not always --job
  const jobAt = givenAt(
    { ...(harness ? { file: harness.data, fileName: harness.name } : {}), env: deps.env, flags: args.values },
    ['job.file'],
    JOB_FIELD,
  );
  const jobSourced = (ps: ConfigProblem[]) =>
    jobAt.startsWith('--') ? ps : ps.map((p) => (p.field === JOB_FIELD ? { ...p, field: jobAt } : p));
  const jobs = jobSourced(await sessionJobProblems(safeConfigs, deps.cwd));
  const named = plan ? plan.cells.map((c) => c.scenario) : req.named(allScenarios(user.extra));
  const scenarios = allScenarios(user.extra).filter((s) => named.includes(s.name));
  const own = [
    ...fifos,
    ...expectFlagProblems(args.values),
    ...matrixFileProblems(req, args.values),
    ...unusedFlagProblems(args.values, scenarios, configs, { installsItsBuilds: !!req.installsOwnBuilds }),
    ...kindBesideScheduleProblems(plan, { harness, matrixFile: req.matrixFile }),
    ...scheduleUnreadByCells(plan),
    ...kindUnreadByCells(plan, req.matrixFile),
    ...unplanned.problems,
    ...outputs,
    ...jobs,
    ...(await labProblems(plan, safeConfigs, deps, user.extra)),
    ...(await existingHostProblems(safeConfigs, deps.cwd)),
    ...(await hostsNetnsProblems(safeConfigs, { insideNetns: !!deps.env[IN_NETNS_ENV] })),
    ...buildProblems,
    ...(await knownIssueFileProblems(safe(issuesConfig), allScenarios(user.extra))),
  ];
  // The job as the build parses it (a bridge group without a port, a batch job, Nomad's own parse error): at once with
  // the rest, or under --plan, wherever the build is a file already; otherwise the run's preflight parses it.
  const others = !res.ok || own.length || Object.values(sources).some((s) => s.length);
  if ((others || args.values['plan']) && !jobs.length) {
    const cells = plan && { ...plan, cells: plan.cells.map((c) => ({ ...c, config: safe(c.config) })) };
    const bad = [...buildProblems, ...fifos];
    const unplannedJobs = plan ? [] : matrixJobConfigs(base, req.matrixFile?.data, unplannedBuilds, bad).map(safe);
    const parsed = await parsedJobProblems(
      [...jobParseConfigs(cells, safeConfigs, bad), ...unplannedJobs],
      deps,
      read.fileProblems,
    );
    own.push(...jobSourced(parsed));
  }
  const all = inputProblems({ ...sources, command: own });
  if (!plan || all.length) throw new ConfigError(all);
  return { plan, extra: user.extra, logger, builds, secrets };
}

/** run, compare, matrix: read, plan and judge the input, then print the plan (--plan) or run it. */
export async function sessionCommand(req: SessionRequest): Promise<number> {
  const checked = await checkSession(req, await readSession(req));
  // --plan: the plan is plain data; print it (secrets redacted) and stop before anything exists
  if (req.args.values['plan']) {
    req.deps.out(`${JSON.stringify({ schema: PLAN_JSON_SCHEMA, plan: checked.plan }, null, 2)}\n`);
    return EXIT.OK;
  }
  return runSession(req, checked);
}

/** Execute a checked plan, write its reports and print its verdict; the session's exit code. */
export async function runSession(req: Pick<SessionRequest, 'args' | 'deps' | 'command'>, c: CheckedSession) {
  const { args, deps } = req;
  const { plan, logger } = c;
  const out = await executePlan(plan, {
    scenario: (name) => findScenario(name, c.extra),
    userScenarios: c.extra,
    makeEnv: deps.makeEnv,
    newRunId,
    logger,
    resolveBuild: (ref, signal) => c.builds.resolve(ref, plan.base, logger, signal),
    preflight: async (scenario, config) => [
      ...((await scenario.preflight?.(config, { convertJob: deps.convertJob ?? nomadJobConverter() })) ?? []),
      ...((await deps.hostsPreflight?.(config, logger)) ?? []),
    ],
    ...(deps.prepareHost
      ? { prepareHost: (config, lg, subnets) => deps.prepareHost!(config, [...deps.argv], lg, subnets) }
      : {}),
    ...(deps.signalSource ? { signalSource: deps.signalSource } : {}),
    onKept: (runId, kept, workDir) => deps.err(keptMessage(runId, kept, { workDir, netns: plan.base.lab.netns })),
  });
  if ('exitCode' in out) return out.exitCode;
  const ctx = reportContext(plan, out.session, req.command, args, deps, c.secrets, c.extra);
  const { session, written, errors } = await writeSessionReports(strayAware(out.session, deps), REPORTERS, ctx);
  if (plan.base.output.json) deps.out(written.find((f) => f.kind === 'json')?.text ?? '');
  else if (plan.base.output.quiet) deps.out(renderQuietSummary(session, { color: colorOn(deps), errors }));
  else deps.out(renderSessionConsole(session, { color: colorOn(deps), written, errors }));
  return session.exitCode;
}

/** Where the session's reports go: --junit/--report-json, or a folder named after the first run. */
function reportContext(
  plan: Plan,
  s: SessionReport,
  command: CliCommand,
  args: ParsedArgs,
  deps: CommandDeps,
  secrets: string[],
  extra: readonly Scenario[],
): ReportContext {
  const { reports } = plan.base;
  const first = s.suites.flatMap((x) => x.attempts)[0]?.runId;
  const runDir = join(reports.dir, `${plan.reportFolder.prefix}${first ?? plan.reportFolder.fallback}`);
  return {
    cwd: deps.cwd,
    reportsDir: reports.dir,
    junitPath: reports.junit ?? join(runDir, 'junit.xml'),
    jsonPath: reports.json ?? join(runDir, 'summary.json'),
    attachments: attachmentBase(reports.attachmentPaths, deps.env, deps.cwd),
    cli: CLI_PATH,
    rawArgs: args.rawArgs,
    secrets,
    env: reproEnv(deps.env),
    dropFor: (suite) => droppedAlone(plan, suite, args.values, extra),
    // Note: a short name (-c <file>) takes its value too, or a repro would drop the value and fail
    valueFlags: new Set(
      [...optionsOf(command).values()].flatMap((o) =>
        o.type === 'string' ? [`--${o.name}`, ...(o.short ? [`-${o.short}`] : [])] : [],
      ),
    ),
  };
}

/**
 * What a repro of one scenario of the session leaves out: the flags a run of that scenario alone would refuse as
 * ignored (the one rule, unusedFlagProblems, judged on its own cell) and the `--expect <check>=…` of checks it lacks
 * (its cell's config holds the expectations of its own checks only). `run --all --upgrade-to b --expect
 * task-dirs=fail` passed both to every repro, and a matrix's `--off-for` went to its graceful cell: each refused (exit
 * 2) run alone.
 */
function droppedAlone(
  plan: Plan,
  suite: { key: string; scenario: string },
  values: ParsedArgs['values'],
  extra: readonly Scenario[],
) {
  const s = allScenarios(extra).find((x) => x.name === suite.scenario);
  // Note: the suite's own cell (a matrix's cells of one scenario differ in their fault kind); a repeat's by scenario
  const cell = plan.cells.find((c) => c.key === suite.key) ?? plan.cells.find((c) => c.scenario === suite.scenario);
  if (!s || !cell) return undefined;
  const refused = new Set(
    unusedFlagProblems(values, [s], [cell.config], { installsItsBuilds: plan.command === 'compare' }).map(
      (p) => p.field,
    ),
  );
  const expected = cell.config.expect.perCheck;
  return (flag: string, value?: string): boolean => {
    if (refused.has(flag)) return true;
    const check = flag === '--expect' ? /^([a-z0-9-]+)=/.exec(value?.trim() ?? '')?.[1] : undefined;
    return check !== undefined && !(check in expected);
  };
}

/** Build keys the repro names itself, by path and checksum: their variables would only contradict it. */
const BUILD_KEYS = new Set(['nomad_build', 'nomad_binary', 'upgrade_to']);

/**
 * The environment variables that shaped the run, as the config reads them (an empty one only where "" means
 * something, HARNESS_NETNS="" = the host's network), so a repro sets them again; secrets are never among them.
 */
export function reproEnv(env: Readonly<Record<string, string | undefined>>): [string, string][] {
  const out: [string, string][] = [];
  for (const f of FIELDS) {
    const value = f.env ? env[f.env] : undefined;
    if (!f.env || value === undefined || f.secret || BUILD_KEYS.has(f.yaml)) continue;
    if (value !== '' || f.parse('').ok) out.push([f.env, value]);
  }
  return out;
}

/** A short, unique run id: used in VM names, directories and report paths. */
export function newRunId(): string {
  return `r${Date.now().toString(36).slice(-5)}${randomBytes(4).toString('hex')}`;
}
