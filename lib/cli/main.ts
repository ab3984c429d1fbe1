// The CLI: argv -> plan -> execute -> report -> exit code. It only parses, reads the input files, and maps errors to
// exit codes (the only place that does); run, compare and matrix are plans of one pipeline (docs/architecture.md).
import { durationSeconds, goDuration } from '../config/fields.js';
import type { DestroySweep } from './destroy.js';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { parse as parseYaml } from 'yaml';
import { EXIT, ConfigError, HarnessError, type ConfigProblem } from '../errors.js';
import { resolveConfig } from '../config/validate.js';
import { configTopology } from '../config/topology.js';
import { labConfigRules, providerFor } from '../lab/providers.js';
import { DEFAULTS, type HarnessConfig } from '../config/schema.js';
import { consoleLogger } from '../log/format.js';
import { redactingWriter } from '../log/redact.js';
import type { Logger } from '../log/events.js';
import type { Scenario } from '../run/scenario.js';
import type { SessionReport } from '../model/session.js';
import { PLAN_JSON_SCHEMA, planSession, type Plan, type PlanCommand } from '../plan/plan.js';
import { executePlan } from '../session/execute.js';
import { nomadJobConverter } from '../cluster/job-convert.js';
import { REPORTERS, type ReportContext } from '../report/reporters.js';
import { attachmentBase } from '../report/attachment-paths.js';
import { renderQuietSummary, renderSessionConsole } from '../report/console.js';
import { writeSessionReports } from '../report/write.js';
import { COMMANDS, completionSpec, helpText, optionsOf, parseCliCollecting, type ParsedArgs } from './args.js';
import { completionScript, SHELLS, type Shell } from './completion.js';
import { closest } from '../config/near.js';
import { SCENARIOS, allScenarios, findScenario, listText, loadUserScenarios, needsOf } from './scenarios.js';
import { scenariosDirOf } from '../config/scenarios-dir.js';
import { buildCommand } from './build.js';
import { sha256File } from '../builds/cache.js';
import { pathProblems, type OutputPath } from './paths.js';
import { unusedFlagProblems } from './scenario-flags.js';
import { checkJobInput, jobFileProblems } from '../scenario/job-input.js';
import { hostKeyProblems } from '../lab/ssh/ssh-preflight.js';
import { hostsNetnsProblems } from './hosts-netns.js';
import { groupCellProblems } from './group-problems.js';
import { IN_NETNS_ENV } from '../lab/host/host.js';
import { FIELDS } from '../config/table.js';
import { mergeCommand } from './merge.js';
import { loginCommand } from './login.js';
import { listLabsCommand } from './labs.js';
import { listCellsCommand, listingProblems } from './list-cells.js';
import type { BuildLayer, CliDeps } from './deps.js';

export type { BuildLayer, CliDeps } from './deps.js';

/** The CLI entry a person runs (for repro commands). */
export const CLI_PATH = fileURLToPath(new URL('../../bin/reboot-harness.js', import.meta.url));

/** Run the CLI; returns the exit code (never throws). */
export async function main(argv: string[], given: CliDeps): Promise<number> {
  // Note: the token from the environment is a secret even before the config is valid.
  let secrets: string[] = given.env['NOMAD_TOKEN'] ? [given.env['NOMAD_TOKEN']] : [];
  // Note: a command that already printed its JSON document (build --json with a failed spec) gets no second one.
  let printed = false;
  // Every console line of every command goes through one redacting stream; no output site redacts on its own.
  const deps: CliDeps = {
    ...given,
    out: redactingWriter(
      (s) => {
        printed = true;
        given.out(s);
      },
      () => secrets,
    ),
    err: redactingWriter(given.err, () => secrets),
  };
  try {
    const { args, problems: argvProblems } = parseCliCollecting(argv);
    const sessionCommandGiven = args.command === 'run' || args.command === 'compare' || args.command === 'matrix';
    if (argvProblems.length && (!sessionCommandGiven || args.values['help'])) throw new ConfigError(argvProblems);
    if (args.command === 'help') {
      const topic = args.positionals[0];
      if (topic !== undefined && topic !== '--version' && !(topic in COMMANDS)) {
        const near = closest(topic, Object.keys(COMMANDS));
        const fix = `${near ? `did you mean "${near}"? ` : ''}use one of: ${Object.keys(COMMANDS).join(', ')}`;
        throw new ConfigError([{ field: 'help topic', value: topic, message: 'is not a command', fix }]);
      }
      deps.out((topic === '--version' ? await version() : helpText(topic)) + '\n');
      return EXIT.OK;
    }
    if (args.values['help']) {
      deps.out(helpText(args.command) + '\n');
      return EXIT.OK;
    }
    if (args.command === 'completion') return completionCommand(args, deps);
    if (args.command === 'list') return await listCommand(args, deps);
    if (args.command === 'run' || args.command === 'compare' || args.command === 'matrix') {
      return await sessionCommand(
        args.command,
        args,
        deps,
        argv,
        (s) => (secrets = [...new Set([...secrets, ...s])]),
        argvProblems,
      );
    }
    const config = await loadConfig(args, deps, undefined);
    if (config.nomad.token) secrets = [...secrets, config.nomad.token];
    const logger = loggerFor(config, deps);
    switch (args.command) {
      case 'doctor':
        doctorProblems(config);
        return deps.doctor ? await deps.doctor(config, config.output.json) : unsupported('doctor');
      case 'setup':
        return deps.setup
          ? await deps.setup({ force: Boolean(args.values['force']), docker: Boolean(args.values['docker']), config })
          : unsupported('setup');
      case 'build':
        return await buildCommand(args, config, deps);
      case 'merge':
        return await mergeCommand(args, config, deps);
      case 'login':
        return await loginCommand(args, config, deps);
      case 'list-labs':
        return await listLabsCommand(args, config, deps);
      case 'destroy': {
        const problems = selectorProblems(args);
        let sweep: DestroySweep = {};
        try {
          sweep = destroySweep(args.values);
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err;
          problems.push(...err.problems);
        }
        if (problems.length) throw new ConfigError(problems);
        const anything = args.values['all'] || args.values['host'] || args.positionals.length > 0;
        if (!anything && !sweep.warm && !sweep.stale && sweep.olderThanS === undefined)
          throw new ConfigError([
            {
              field: 'run id',
              value: undefined,
              message: 'is required',
              fix: 'give one or more run ids (see the "kept" line of a run, or ls the work dir), --all, --warm, --stale, --older-than <duration>, or --host',
            },
          ]);
        return deps.destroy
          ? await deps.destroy(
              config,
              args.positionals,
              Boolean(args.values['all']),
              logger,
              Boolean(args.values['host']),
              sweep,
            )
          : unsupported('destroy');
      }
    }
  } catch (err) {
    return reportError(err, deps, wantsJson(argv) && !printed);
  }
}

/** Schema id of the document `--json` prints on stdout when a command ends in an error. */
export const ERROR_JSON_SCHEMA = 'nomad-reboot-harness/error/v1';

/** --json on the command line, read from the tokens themselves: an error may come before (or from) parsing them. */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--json' || a === '--json=true');
}

/**
 * destroy's selectors that contradict each other: --all is every lab, so naming some besides (run ids, --warm,
 * --stale, --older-than) says two things at once; --warm is every warm lab, of which --stale picks some.
 */
function selectorProblems(args: ParsedArgs): ConfigProblem[] {
  const v = args.values;
  const out: ConfigProblem[] = [];
  const others = [
    ...(args.positionals.length ? [`run id ${args.positionals.join(' ')}`] : []),
    ...(['warm', 'stale', 'older-than'] as const)
      .filter((f) => v[f] !== undefined && v[f] !== false)
      .map((f) => `--${f}`),
  ];
  if (v['all'] && others.length)
    out.push({
      field: '--all',
      value: others,
      message: `destroys every lab, so ${others.join(', ')} besides it contradicts it`,
      fix: 'give --all alone (every lab, warm ones included), or drop it and keep the narrower selection',
    });
  if (v['warm'] && v['stale'] && !v['all'])
    out.push({
      field: '--warm/--stale',
      value: 'both',
      message: 'contradict each other: --warm destroys every warm lab, --stale only those that can never be used again',
      fix: 'give one of --warm and --stale',
    });
  return out;
}

/** destroy's --warm, --stale and --older-than; a bad duration is a usage error naming the flag. */
function destroySweep(values: Record<string, unknown>): DestroySweep {
  const raw = values['older-than'];
  let olderThanS: number | undefined;
  if (raw !== undefined) {
    const p = goDuration(raw);
    if (!p.ok) throw new ConfigError([{ field: '--older-than', value: raw, message: p.message, fix: p.fix }]);
    olderThanS = durationSeconds(String(raw));
  }
  return {
    ...(values['warm'] ? { warm: true } : {}),
    ...(values['stale'] ? { stale: true } : {}),
    ...(olderThanS !== undefined ? { olderThanS } : {}),
  };
}

function loggerFor(config: HarnessConfig, deps: CliDeps): Logger {
  return consoleLogger(deps.err, {
    verbose: config.output.verbose,
    quiet: config.output.quiet || config.output.json,
    color: colorOn(deps),
  });
}

const colorOn = (deps: CliDeps) => deps.isTTY && !deps.env['NO_COLOR'] && !deps.env['CI'];

/** `list [--json] [--scenarios dir]`: the shipped scenarios, then the user's (each with the file it came from). */
async function listCommand(args: ParsedArgs, deps: CliDeps): Promise<number> {
  const { extra, problems } = await userScenarios(args, deps, await readHarnessFile(args, deps));
  if (problems.length) throw new ConfigError(problems);
  const json = allScenarios(extra).map((s) => ({
    name: s.name,
    summary: s.summary,
    needsNomad: s.needsNomad,
    needs: needsOf(s),
    ...(s.jobs ? { jobs: s.jobs } : {}),
    checks: s.checks.map(({ id, title, passesWhen }) => ({ id, title, passesWhen })),
    ...('file' in s ? { file: s.file } : {}),
  }));
  deps.out(args.values['json'] ? JSON.stringify(json, null, 2) + '\n' : listText(extra) + '\n');
  return EXIT.OK;
}

/**
 * The user's scenarios (--scenarios, HARNESS_SCENARIOS_DIR or scenarios_dir; relative to the working directory) and
 * every problem with their files (none is loaded when any file has one).
 */
async function userScenarios(
  args: ParsedArgs,
  deps: CliDeps,
  harness: { data: unknown; name: string } | undefined,
): Promise<{ extra: Scenario[]; problems: ConfigProblem[] }> {
  const from = harness ? { fileName: harness.name } : {};
  const where = scenariosDirOf({ file: harness?.data, ...from, env: deps.env, flags: args.values });
  return where ? loadUserScenarios(resolve(deps.cwd, where.dir), where.field) : { extra: [], problems: [] };
}

/**
 * The planner's problems next to those of the user's scenario files. When a file did not load, a scenario named on
 * the command line or in the matrix may be in it: "is not a known scenario" would be a guess, so it is left out.
 */
function withUserProblems(planned: readonly ConfigProblem[], user: readonly ConfigProblem[]): ConfigProblem[] {
  return [...user, ...(user.length ? planned.filter((p) => p.message !== 'is not a known scenario') : planned)];
}

/** run, compare and matrix: plan (every problem of the input at once, build files included), execute, report. */
async function sessionCommand(
  command: PlanCommand,
  args: ParsedArgs,
  deps: CliDeps,
  argv: string[],
  addSecrets: (s: string[]) => void,
  argvProblems: ConfigProblem[] = [],
): Promise<number> {
  // Note: a harness.yaml that cannot be read or parsed is one problem among the others, judged without it
  const fileProblems: ConfigProblem[] = [];
  const harness = await readHarnessFile(args, deps).catch((err: unknown) => {
    if (!(err instanceof ConfigError)) throw err;
    fileProblems.push(...err.problems);
    return undefined;
  });
  const user = await userScenarios(args, deps, harness);
  const matrixPath =
    command === 'matrix' && args.positionals.length === 1 ? resolve(deps.cwd, args.positionals[0]!) : undefined;
  const matrixFile = matrixPath
    ? {
        data: await readYaml(matrixPath, 'matrix file'),
        name: args.positionals[0]!,
        path: matrixPath,
        dir: dirname(matrixPath),
      }
    : undefined;
  const res = planSession({
    command,
    positionals: args.positionals,
    values: args.values,
    env: deps.env,
    cwd: deps.cwd,
    scenarios: allScenarios(user.extra),
    labRules: labConfigRules,
    ...(harness ? { harness } : {}),
    ...(matrixFile ? { matrixFile } : {}),
  });
  if (res.ok) for (const w of res.plan.warnings) deps.err(`warning: ${w}\n`);
  // --list-cells: the matrix validated; print its fan-out before any build is read or anything is created.
  if (command === 'matrix' && args.values['list-cells']) {
    const listing = listingProblems(args);
    const problems = [...fileProblems, ...withUserProblems(res.ok ? [] : res.problems, user.problems), ...listing];
    if (!res.ok || problems.length) throw new ConfigError(groupCellProblems(problems));
    const m = res.plan.matrix!;
    return listCellsCommand(
      args,
      m.all,
      res.plan.cells.map((c) => m.all.find((x) => x.name === c.key)!),
      deps.out,
    );
  }
  if (args.values['shards'] !== undefined) {
    const planned = withUserProblems(res.ok ? [] : res.problems, user.problems);
    throw new ConfigError([...fileProblems, ...planned, ...listingProblems(args)]);
  }
  const base = res.ok ? res.plan.base : DEFAULTS;
  const secrets = base.nomad.token ? [base.nomad.token] : [];
  addSecrets(secrets);
  const allSecrets = [...new Set([...(deps.env['NOMAD_TOKEN'] ? [deps.env['NOMAD_TOKEN']] : []), ...secrets])];
  const logger = loggerFor(base, deps);
  const layer = deps.builds ?? pathBuilds(deps);
  const buildProblems = await layer.check(res.ok ? res.plan.builds : res.builds, base, logger);
  const configs = sessionConfigs(res.ok ? res.plan : undefined, args, deps, harness);
  const paths = await pathProblems(outputPaths(configs, args, deps, harness), deps.cwd);
  const jobs = await jobProblems(configs, deps.cwd);
  const keys = dedupe((await Promise.all(configs.map((c) => hostKeyProblems(c, deps.cwd)))).flat());
  keys.push(...(await hostsNetnsProblems(configs, { insideNetns: !!deps.env[IN_NETNS_ENV] })));
  const labs = await labProblems(res.ok ? res.plan : undefined, configs, deps, user.extra);
  const unused = unusedFlagProblems(command, args.values, sessionScenarios(command, res, args, user.extra));
  // Every problem of the whole input at once: the command line's, the scenario files', the configuration's, the builds'.
  const planned = withUserProblems(res.ok ? [] : res.problems, user.problems);
  const found = [
    ...argvProblems,
    ...fileProblems,
    ...unused,
    ...planned,
    ...paths,
    ...jobs,
    ...labs,
    ...keys,
    ...buildProblems,
  ];
  // The job as the build parses it (a bridge group without a port, a batch job, Nomad's own parse error): at once with
  // the rest, or under --plan, wherever the build is a file already; otherwise the run's preflight parses it.
  if ((!res.ok || found.length || args.values['plan']) && !jobs.length && !buildProblems.length)
    found.push(...(await parsedJobProblems(configs, deps)));
  if (!res.ok || found.length) throw new ConfigError(groupCellProblems(found));
  const plan = res.plan;
  // --plan: the plan is plain data; print it (secrets redacted) and stop before anything exists
  if (args.values['plan']) {
    deps.out(`${JSON.stringify({ schema: PLAN_JSON_SCHEMA, plan }, null, 2)}\n`);
    return 0;
  }
  const out = await executePlan(plan, {
    scenario: (name) => findScenario(name, user.extra),
    makeEnv: deps.makeEnv,
    newRunId,
    logger,
    resolveBuild: (ref, signal) => layer.resolve(ref, plan.base, logger, signal),
    preflight: async (scenario, config) => [
      ...((await scenario.preflight?.(config, { convertJob: deps.convertJob ?? nomadJobConverter() })) ?? []),
      ...((await deps.hostsPreflight?.(config, logger)) ?? []),
    ],
    ...(deps.prepareHost ? { prepareHost: (config, lg, subnets) => deps.prepareHost!(config, argv, lg, subnets) } : {}),
    ...(deps.signalSource ? { signalSource: deps.signalSource } : {}),
    onKept: (runId, kept) => deps.err(keptMessage(runId, kept)),
  });
  if ('exitCode' in out) return out.exitCode;
  const ctx = reportContext(plan, out.session, args, deps, allSecrets);
  const { session, written, errors } = await writeSessionReports(out.session, REPORTERS, ctx);
  if (plan.base.output.json) deps.out(written.find((f) => f.kind === 'json')?.text ?? '');
  else if (plan.base.output.quiet) deps.out(renderQuietSummary(session, { color: colorOn(deps), errors }));
  else deps.out(renderSessionConsole(session, { color: colorOn(deps), written, errors }));
  return session.exitCode;
}

/** The scenarios a session runs: its plan's, or (when it has other problems) the ones the command line names. */
function sessionScenarios(
  command: PlanCommand,
  res: ReturnType<typeof planSession>,
  args: ParsedArgs,
  extra: readonly Scenario[],
): Scenario[] {
  const all = allScenarios(extra);
  const names = res.ok
    ? res.plan.cells.map((c) => c.scenario)
    : command === 'matrix'
      ? []
      : command === 'run' && args.values['all']
        ? all.map((s) => s.name)
        : [args.positionals[0] ?? all[0]!.name];
  return all.filter((s) => names.includes(s.name));
}

/** The session's base config, then every cell's; without a plan (other problems), the values that were valid. */
function sessionConfigs(
  plan: Plan | undefined,
  args: ParsedArgs,
  deps: CliDeps,
  harness: { data: unknown; name: string } | undefined,
): HarnessConfig[] {
  if (plan) return [plan.base, ...plan.cells.map((c) => c.config)];
  const file = { file: harness?.data, ...(harness ? { fileName: harness.name } : {}) };
  return [
    resolveConfig({ ...file, env: deps.env, flags: args.values, knownChecks: [], labRules: labConfigRules }).config,
  ];
}

/**
 * What each cell's lab provider refuses before anything exists: a topology that does not fit in the host's available
 * memory (the VM providers). Once per distinct problem.
 */
async function labProblems(
  plan: Plan | undefined,
  configs: readonly HarnessConfig[],
  deps: CliDeps,
  extra: readonly Scenario[],
): Promise<ConfigProblem[]> {
  const host = (await deps.hostFacts?.()) ?? {};
  const cells = plan
    ? plan.cells.map((c) => ({ config: c.config, roles: findScenario(c.scenario, extra)?.roles }))
    : configs.map((config) => ({ config, roles: undefined }));
  const all = cells.flatMap(({ config, roles }) =>
    providerFor(config).validate(configTopology(config), config, { ...host, ...(roles ? { roles } : {}) }),
  );
  return all.filter((p, i) => all.findIndex((q) => JSON.stringify(q) === JSON.stringify(p)) === i);
}

/** The user's job as far as it is judged without a build (a file that cannot be read), once per distinct problem. */
/** The user's job parsed by each config's build, where that build is a file here (a path, not a release or tree). */
async function parsedJobProblems(configs: readonly HarnessConfig[], deps: CliDeps): Promise<ConfigProblem[]> {
  const convert = deps.convertJob ?? nomadJobConverter();
  const all: ConfigProblem[] = [];
  for (const c of configs) {
    if (!c.job.files.length || !c.nomadBinary || !allScenarios().find((s) => s.name === c.scenario)?.jobs) continue;
    const path = resolve(deps.cwd, c.nomadBinary);
    if (!existsSync(path)) continue;
    const files = c.job.files.map((f) => resolve(deps.cwd, f));
    const found = await checkJobInput({ ...c, nomadBinary: path, job: { ...c.job, files } }, convert);
    // each problem names the file as the user gave it
    all.push(
      ...found.map((p) =>
        files.includes(p.value as string) ? { ...p, value: c.job.files[files.indexOf(p.value as string)] } : p,
      ),
    );
  }
  return dedupe(all);
}

async function jobProblems(configs: readonly HarnessConfig[], cwd: string): Promise<ConfigProblem[]> {
  const all = (await Promise.all(configs.map((c) => jobFileProblems(c, cwd)))).flat();
  return all.filter((p, i) => all.findIndex((q) => JSON.stringify(q) === JSON.stringify(p)) === i);
}

/**
 * The folders and files a session writes, each named as the user gave it: the reports folder, --junit and
 * --report-json, and the work dir of every cell's lab.
 */
function outputPaths(
  configs: readonly HarnessConfig[],
  args: ParsedArgs,
  deps: CliDeps,
  harness: { data: unknown; name: string } | undefined,
): OutputPath[] {
  const named = (yaml: string): string => {
    const f = FIELDS.find((x) => x.yaml === yaml)!;
    if (f.flag && args.values[f.flag] !== undefined) return `--${f.flag}`;
    if (f.env && deps.env[f.env]) return `env ${f.env}`;
    let v: unknown = harness?.data;
    for (const k of yaml.split('.'))
      v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
    return v !== undefined ? `${harness!.name}: ${yaml}` : `--${f.flag} (default)`;
  };
  const base = configs[0]!;
  const out: OutputPath[] = [{ field: named('reports.dir'), value: base.reports.dir, kind: 'dir' }];
  if (base.reports.junit !== undefined)
    out.push({ field: named('reports.junit'), value: base.reports.junit, kind: 'file' });
  if (base.reports.json !== undefined)
    out.push({ field: named('reports.json'), value: base.reports.json, kind: 'file' });
  for (const c of configs)
    if (providerFor(c).host.workDir) out.push({ field: named('lab.work_dir'), value: c.lab.workDir, kind: 'dir' });
  return out;
}

/** Where the session's reports go: --junit/--report-json, or a folder named after the first run. */
function reportContext(
  plan: Plan,
  s: SessionReport,
  args: ParsedArgs,
  deps: CliDeps,
  secrets: string[],
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
    valueFlags: new Set(
      [...optionsOf(args.command)].flatMap(([name, o]) => (o.type === 'string' ? [`--${name}`] : [])),
    ),
  };
}

/**
 * doctor checks a host that runs the lab's VMs with libvirt; for another provider it would answer about a host that
 * is not the one the run uses, so it refuses the flag instead of ignoring it.
 */
function doctorProblems(config: HarnessConfig): void {
  const { provider } = config.lab;
  const { doctor } = providerFor(config).host;
  if (doctor.checks) return;
  const { fix } = doctor;
  throw new ConfigError([
    {
      field: 'lab.provider (--provider)',
      value: provider,
      message: `doctor checks a libvirt host (vagrant-libvirt, libvirtd, QEMU, the box); it has no checks for ${provider}`,
      fix,
    },
  ]);
}

/** `completion <shell>`: the script on stdout; no shell, or one it does not know, is exit 2 naming the three. */
function completionCommand(args: ParsedArgs, deps: CliDeps): number {
  const [shell, ...extra] = args.positionals;
  const known = (SHELLS as readonly string[]).includes(shell ?? '');
  if (!known || extra.length)
    throw new ConfigError([
      {
        field: 'shell',
        value: extra.length ? args.positionals : shell,
        message: shell === undefined ? 'is required' : extra.length ? 'is one word' : 'is not a shell this knows',
        fix: `give one of: ${SHELLS.join(', ')} (e.g. source <(reboot-harness completion bash))`,
      },
    ]);
  const commands = completionSpec();
  deps.out(completionScript(shell as Shell, { commands, scenarios: SCENARIOS.map((x) => x.name) }));
  return EXIT.OK;
}

/** Problems once each, in order (several cells share one configuration's keys). */
function dedupe(problems: readonly ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => !seen.has(JSON.stringify(p)) && !!seen.add(JSON.stringify(p)));
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
  if (env['HARNESS_REPEAT'] !== undefined && env['HARNESS_REPEAT'] !== '')
    out.push(['HARNESS_REPEAT', env['HARNESS_REPEAT']]);
  return out;
}

/** Without the build layer (stand-in tests): a spec is a path, checked by checkBinary, described by buildVersion. */
function pathBuilds(deps: CliDeps): BuildLayer {
  return {
    async check(refs) {
      const problems: ConfigProblem[] = [];
      for (const b of refs) {
        try {
          await deps.checkBinary?.(resolve(b.cwd, b.spec), b.field);
        } catch (err) {
          if (err instanceof ConfigError) problems.push(...err.problems);
          else throw err;
        }
      }
      return problems;
    },
    async resolve(ref) {
      const path = resolve(ref.cwd, ref.spec);
      const none: { version?: string; revision?: string } = {};
      const v = deps.buildVersion ? await deps.buildVersion(path).catch(() => none) : none;
      const sha256 = await sha256File(path).catch(() => '');
      return {
        spec: ref.spec,
        path,
        sha256,
        version: v.version ?? '',
        revision: v.revision ?? '',
        origin: { kind: 'path', path },
      };
    },
  };
}

/** harness.yaml (--config, or ./harness.yaml when present), parsed; undefined when there is none. */
async function readHarnessFile(args: ParsedArgs, deps: CliDeps): Promise<{ data: unknown; name: string } | undefined> {
  const explicit = typeof args.values['config'] === 'string' ? (args.values['config'] as string) : undefined;
  const path =
    explicit !== undefined
      ? resolve(deps.cwd, explicit)
      : existsSync(join(deps.cwd, 'harness.yaml'))
        ? join(deps.cwd, 'harness.yaml')
        : undefined;
  return path ? { data: await readYaml(path, '--config'), name: path } : undefined;
}

/** Read and parse a YAML file; a ConfigError naming it when it cannot be read or parsed. */
async function readYaml(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError([
      {
        field: what,
        value: path,
        message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
        fix: 'give the path of an existing file',
      },
    ]);
  }
  try {
    return parseYaml(text) as unknown;
  } catch (err) {
    throw new ConfigError([
      {
        field: path,
        value: (err as Error).message.split('\n')[0],
        message: 'is not valid YAML',
        fix: 'fix the YAML syntax at the line named',
      },
    ]);
  }
}

async function loadConfig(args: ParsedArgs, deps: CliDeps, scenarioName: string | undefined): Promise<HarnessConfig> {
  const harness = await readHarnessFile(args, deps);
  const scenario = scenarioName ? findScenario(scenarioName) : undefined;
  const known = scenario
    ? scenario.checks.map((c) => c.id)
    : [...new Set(SCENARIOS.flatMap((s) => s.checks.map((c) => c.id)))];
  const res = resolveConfig({
    file: harness?.data,
    ...(harness ? { fileName: harness.name } : {}),
    ...(scenario ? { scenario: scenario.name } : {}),
    env: deps.env,
    flags: args.values,
    knownChecks: known,
    labRules: labConfigRules,
  });
  if (!res.ok) throw new ConfigError(res.problems);
  if (scenario) res.config.scenario = scenario.name;
  return res.config;
}

function reportError(err: unknown, deps: CliDeps, json = false): number {
  if (json) {
    const doc = {
      schema: ERROR_JSON_SCHEMA,
      ok: false,
      exitCode: err instanceof HarnessError ? err.exitCode : EXIT.INTERNAL,
      error: err instanceof HarnessError ? err.message : `internal error (please report): ${String(err)}`,
      ...(err instanceof HarnessError && err.hint ? { hint: err.hint } : {}),
      ...(err instanceof ConfigError ? { problems: err.problems } : {}),
    };
    deps.out(`${JSON.stringify(doc, null, 2)}\n`);
  }
  if (err instanceof HarnessError) {
    deps.err(`error: ${err.message}${err.hint ? `\nhint: ${err.hint}` : ''}\n`);
    return err.exitCode;
  }
  deps.err(`internal error (please report): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return EXIT.INTERNAL;
}

function keptMessage(runId: string, kept: string[]): string {
  // Note: each kept entry is a lab's own description (how to reach it, how to remove it by hand), several lines long.
  return `lab kept (--keep):\n${kept.join('\n')}\n  destroy later with: reboot-harness destroy ${runId}\n`;
}

function unsupported(what: string): number {
  throw new HarnessError(`${what} is not available in this build`, { exitCode: EXIT.USAGE });
}

/** A short, unique run id: used in VM names, directories and report paths. */
export function newRunId(): string {
  return `r${Date.now().toString(36).slice(-5)}${randomBytes(4).toString('hex')}`;
}

async function version(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return `reboot-harness ${pkg.version}`;
}

export type { Scenario };
