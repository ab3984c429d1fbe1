// What a session (run, compare, matrix, and any command that runs plans) checks of its input before anything exists,
// beyond the planner's own problems: the user's scenario files, contradicting expectations, output paths, job files,
// host keys, what the lab provider refuses, and the job as a local build parses it. Each returns problems, never throws.
import { allScenarios } from './scenarios.js';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ConfigProblem } from '../errors.js';
import { resolveConfig } from '../config/validate.js';
import { configTopology } from '../config/topology.js';
import type { HarnessConfig } from '../config/schema.js';
import { FIELDS } from '../config/table.js';
import { scenariosDirOf } from '../config/scenarios-dir.js';
import { labConfigRules, providerFor } from '../lab/providers.js';
import type { Scenario } from '../run/scenario.js';
import type { Plan } from '../plan/session-plan.js';
import { nomadJobConverter, type JobConverter } from '../cluster/job-convert.js';
import { JOB_FIELD, jobFileProblems } from '../steps/job-input.js';
import { decodeUtf8, isUtf16 } from '../config/text-file.js';
import { findScenario, loadUserScenarios } from './scenarios.js';
import { nearestPackageJson } from '../scenario-api/load.js';
import type { InputPath, OutputPath } from './paths.js';
import type { CliDeps } from './deps.js';
import type { ParsedArgs } from './command.js';
import type { HarnessFile } from './input.js';

/**
 * The user's scenarios (--scenarios, HARNESS_SCENARIOS_DIR or scenarios_dir; relative to the working directory) and
 * every problem with their files (none is loaded when any file has one).
 */
export async function userScenarios(
  args: ParsedArgs,
  deps: Pick<CliDeps, 'env' | 'cwd'>,
  harness: HarnessFile | undefined,
  matrix?: { data: unknown; name: string },
): Promise<{ extra: Scenario[]; problems: ConfigProblem[] }> {
  // Note: a matrix file's `defaults:` is harness.yaml's keys over harness.yaml's own, scenarios_dir too
  const defaults = matrix && isRecord(matrix.data) ? matrix.data['defaults'] : undefined;
  const fromMatrix = isRecord(defaults) && defaults['scenarios_dir'] !== undefined;
  const from = fromMatrix
    ? { file: defaults, fileName: `${matrix!.name}: defaults` }
    : { file: harness?.data, ...(harness ? { fileName: harness.name } : {}) };
  const where = scenariosDirOf({ ...from, env: deps.env, flags: args.values });
  return where ? loadUserScenarios(resolve(deps.cwd, where.dir), where.field) : { extra: [], problems: [] };
}

/** One expectation as its target (`the scenario`, or a check id) and its outcome. Pure. */
export function expectTarget(raw: string): [target: string, outcome: string] {
  const eq = raw.lastIndexOf('=');
  return eq === -1 ? ['the scenario', raw] : [raw.slice(0, eq), raw.slice(eq + 1)];
}

/**
 * Expectations given both ways for one target (`fail` and `pass`, or `c=fail` and `c=pass`): which wins is a guess.
 * `field`: where they were given (`--expect`, a matrix file's `axes.nomad[0].expect`).
 */
export function expectContradictions(given: readonly string[], field: string): ConfigProblem[] {
  // Note: only well-formed ones: "FAIL" or "c=" is told for its form, not as one side of a contradiction (Q367)
  const formed = given.filter((g) => ['pass', 'fail'].includes(expectTarget(g)[1]) && expectTarget(g)[0] !== '');
  const byTarget = new Map<string, Set<string>>();
  for (const raw of formed) {
    const [target, outcome] = expectTarget(raw);
    byTarget.set(target, (byTarget.get(target) ?? new Set()).add(outcome));
  }
  return [...byTarget]
    .filter(([, outcomes]) => outcomes.size > 1)
    .map(([target, outcomes]) => ({
      field,
      value: formed.filter((g) => expectTarget(g)[0] === target),
      message: `${[...outcomes].join(' and ')} for ${target === 'the scenario' ? target : `check ${target}`} contradict each other`,
      fix: 'give one expectation per target',
    }));
}

/** `--expect` given both ways for one target. */
export const expectFlagProblems = (values: Record<string, unknown>): ConfigProblem[] =>
  expectContradictions(Array.isArray(values['expect']) ? (values['expect'] as string[]) : [], '--expect');

/** The session's base config, then every cell's; without a plan (other problems), the values that were valid. */
export function sessionConfigs(
  plan: Plan | undefined,
  args: ParsedArgs,
  deps: Pick<CliDeps, 'env'>,
  harness: HarnessFile | undefined,
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
export async function labProblems(
  plan: Plan | undefined,
  configs: readonly HarnessConfig[],
  deps: Pick<CliDeps, 'hostFacts'>,
  extra: readonly Scenario[],
): Promise<ConfigProblem[]> {
  const host = (await deps.hostFacts?.()) ?? {};
  const cells = plan
    ? plan.cells.map((c) => ({ config: c.config, roles: findScenario(c.scenario, extra)?.roles }))
    : configs.map((config) => ({ config, roles: undefined }));
  return cells.flatMap(({ config, roles }) =>
    providerFor(config).validate(configTopology(config), config, { ...host, ...(roles ? { roles } : {}) }),
  );
}

/**
 * The user's job parsed by each config's build, where that build is a file here (a path, not a release or tree). With
 * `fileProblems` (harness.yaml or the matrix file did not read, so no job.vars came from it), Nomad's "Unset variable"
 * is left out: the variables the file sets would be told unset.
 */
export async function parsedJobProblems(
  configs: readonly HarnessConfig[],
  deps: Pick<CliDeps, 'cwd' | 'convertJob'>,
  fileProblems: readonly ConfigProblem[] = [],
): Promise<ConfigProblem[]> {
  // Note: the base config and each cell's name the same file with the same build and variables: converted once
  const converter = deps.convertJob ?? nomadJobConverter();
  const done = new Map<string, ReturnType<JobConverter>>();
  const convert: JobConverter = (o) => {
    const key = JSON.stringify([o.nomadBinary, o.file, o.vars]);
    if (!done.has(key)) done.set(key, converter(o));
    return done.get(key)!;
  };
  const all: ConfigProblem[] = [];
  for (const c of configs) {
    const scenario = allScenarios().find((s) => s.name === c.scenario);
    if (!c.job.files.length || !c.nomadBinary || !scenario?.jobs || !scenario.preflight) continue;
    const path = resolve(deps.cwd, c.nomadBinary);
    if (!existsSync(path)) continue;
    const files = c.job.files.map((f) => resolve(deps.cwd, f));
    // Note: the scenario's own preflight, so the job types it takes are the ones checked here
    const found = await scenario.preflight(
      { ...c, nomadBinary: path, job: { ...c.job, files } },
      { convertJob: convert },
    );
    // each problem names the file as the user gave it
    all.push(
      ...found
        .filter((p) => !(fileProblems.length && /Unset variable/.test(p.message)))
        .map((p) =>
          files.includes(p.value as string) ? { ...p, value: c.job.files[files.indexOf(p.value as string)] } : p,
        ),
    );
  }
  return all;
}

/**
 * The configs whose job can be parsed by their own build, each naming it by the path it resolves to (a matrix file's
 * build paths are read from its folder, not the working directory). A build with a problem parses nothing (its problem
 * says why; a file that is no Nomad build would only add a parse error), but another build's problem (a mistyped
 * --upgrade-to or --after, one axis value) must not hold back what a good build finds in the job.
 */
export function jobParseConfigs(
  plan: Plan | undefined,
  configs: readonly HarnessConfig[],
  buildProblems: readonly ConfigProblem[],
): HarnessConfig[] {
  const bad = new Set(buildProblems.map((p) => p.value));
  const usable = (c: HarnessConfig) => typeof c.nomadBinary === 'string' && !bad.has(c.nomadBinary);
  if (!plan) return configs.filter(usable);
  // Note: the cells, not the base config: each cell runs, and names its build with the folder it is read from
  return plan.cells.flatMap((cell) => {
    const ref = cell.builds.find((b) => b.role === 'nomad');
    if (!ref) return usable(cell.config) ? [cell.config] : [];
    return bad.has(ref.spec) ? [] : [{ ...cell.config, nomadBinary: resolve(ref.cwd, ref.spec) }];
  });
}

/**
 * The files the session reads, each with what names it: harness.yaml, the matrix file, the jobs, the fault schedule,
 * the known-issue file, the release key, the builds given as paths (a matrix's from its folder) and the user's
 * scenario files. A report must not be written over one of them.
 */
export function inputFiles(
  plan: Plan | undefined,
  configs: readonly HarnessConfig[],
  o: { harness?: HarnessFile | undefined; matrixFile?: { path: string } | undefined; extra?: readonly Scenario[] },
): InputPath[] {
  const text = (v: unknown): v is string => typeof v === 'string' && v !== '';
  const out: InputPath[] = [];
  if (o.harness) out.push({ field: '--config', value: o.harness.name });
  if (o.matrixFile) out.push({ field: 'matrix file', value: o.matrixFile.path });
  for (const c of configs) {
    for (const f of c.job.files) if (text(f)) out.push({ field: 'job.file (--job)', value: f });
    if (text(c.reboot.faults)) out.push({ field: 'reboot.faults (--faults)', value: c.reboot.faults });
    if (text(c.knownIssuesFile)) out.push({ field: 'known_issues_file', value: c.knownIssuesFile });
    if (text(c.builds.releasesKey)) out.push({ field: '--releases-key', value: c.builds.releasesKey });
    if (!plan && text(c.nomadBinary)) out.push({ field: '--nomad', value: c.nomadBinary });
    if (!plan && text(c.upgradeTo)) out.push({ field: '--upgrade-to', value: c.upgradeTo });
  }
  for (const b of plan?.builds ?? []) out.push({ field: b.field, value: b.spec, from: b.cwd });
  for (const s of o.extra ?? []) if ('file' in s && text(s.file)) out.push({ field: '--scenarios', value: s.file });
  // the package.json that makes them load as ES modules: a report written over it breaks the next load
  const folders = new Set((o.extra ?? []).flatMap((s) => ('file' in s && text(s.file) ? [dirname(s.file)] : [])));
  for (const d of folders) {
    const pkg = nearestPackageJson(d);
    if (pkg) out.push({ field: '--scenarios', value: pkg });
  }
  return out;
}

/** The fault schedules named by --faults, harness.yaml and a matrix's `defaults:` (read while the plan is made). */
export function scheduleFiles(values: Record<string, unknown>, harness: unknown, matrix: unknown): InputPath[] {
  const faults = (d: unknown) => (d as { reboot?: { faults?: unknown } } | null | undefined)?.reboot?.faults;
  return [values['faults'], faults(harness), faults((matrix as { defaults?: unknown } | undefined)?.defaults)].flatMap(
    (v) => (typeof v === 'string' && v !== '' ? [{ field: 'reboot.faults (--faults)', value: v }] : []),
  );
}

/**
 * A config that failed to plan holds harness.yaml, the variables and the flags, not the matrix file's `defaults:`; its
 * known-issue file is read all the same (below the variable and the flag, as the planner orders them), so a mistake in
 * it is told with the rest, not in a round of its own once the rest plans.
 */
export function withMatrixKnownIssues(
  config: HarnessConfig,
  req: { args: Pick<ParsedArgs, 'values'>; matrixFile?: { data: unknown } | undefined },
  env: Record<string, string | undefined>,
): HarnessConfig {
  const data = req.matrixFile?.data;
  const defaults = isRecord(data) && isRecord(data['defaults']) ? data['defaults'] : undefined;
  const file = defaults?.['known_issues_file'];
  if (typeof file !== 'string' || !file || req.args.values['known-issues-file'] || env['HARNESS_KNOWN_ISSUES_FILE'])
    return config;
  return { ...config, knownIssuesFile: file };
}

/** The user's job in every config of the session, as far as it is judged without a build (a file that cannot be read). */
export async function sessionJobProblems(configs: readonly HarnessConfig[], cwd: string): Promise<ConfigProblem[]> {
  const found = (await Promise.all(configs.map((c) => jobFileProblems(c, cwd)))).flat();
  // Note: a job file in UTF-16, which Nomad refuses ("Invalid character encoding"), is told without a build: only
  // Nomad's parse said it, so a bad build hid it a round (a Latin-1 byte Nomad takes, in a comment: left to Nomad)
  const told = new Set<string>();
  for (const file of configs.flatMap((c) => c.job.files)) {
    const abs = resolve(cwd, file);
    if (told.has(abs) || found.some((p) => p.value === file)) continue;
    told.add(abs);
    const bytes = statSync(abs, { throwIfNoEntry: false })?.isFile() ? readFileSync(abs) : undefined;
    const decoded = bytes && decodeUtf8(bytes, JOB_FIELD, file);
    if (bytes && isUtf16(bytes) && decoded && !decoded.ok) found.push(decoded.problem);
  }
  return found;
}

/**
 * The folders and files a session writes, each named as the user gave it: the reports folder, --junit and
 * --report-json, and the work dir of every cell's lab.
 */
export function outputPaths(
  configs: readonly HarnessConfig[],
  args: ParsedArgs,
  deps: Pick<CliDeps, 'env'>,
  harness: HarnessFile | undefined,
  matrixFile?: { data: unknown; name: string },
): OutputPath[] {
  const at = (data: unknown, yaml: string) => {
    let v: unknown = data;
    for (const k of yaml.split('.'))
      v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
    return v;
  };
  // Note: a matrix's `defaults:` (over harness.yaml) too: its report paths were named "--junit (default)" (Q190)
  const defaults = isRecord(matrixFile?.data) ? matrixFile.data['defaults'] : undefined;
  const named = (yaml: string): string => {
    const f = FIELDS.find((x) => x.yaml === yaml)!;
    if (f.flag && args.values[f.flag] !== undefined) return `--${f.flag}`;
    if (f.env && deps.env[f.env]) return `env ${f.env}`;
    if (at(defaults, yaml) !== undefined) return `${matrixFile!.name}: defaults: ${yaml}`;
    return at(harness?.data, yaml) !== undefined ? `${harness!.name}: ${yaml}` : `--${f.flag} (default)`;
  };
  // Note: a matrix that failed to plan has a config without its defaults: their report paths are checked all the
  // same, with the file's problems, not in a second round (Q191)
  const value = (yaml: string, planned: string | undefined): string | undefined => {
    const d = at(defaults, yaml);
    return named(yaml).startsWith(`${matrixFile?.name}: defaults:`) && typeof d === 'string' ? d : planned;
  };
  const base = configs[0]!;
  const dir = value('reports.dir', base.reports.dir)!;
  const junit = value('reports.junit', base.reports.junit);
  const json = value('reports.json', base.reports.json);
  const out: OutputPath[] = [{ field: named('reports.dir'), value: dir, kind: 'dir' }];
  if (junit !== undefined) out.push({ field: named('reports.junit'), value: junit, kind: 'file' });
  if (json !== undefined) out.push({ field: named('reports.json'), value: json, kind: 'file' });
  for (const c of configs)
    if (providerFor(c).host.workDir) out.push({ field: named('lab.work_dir'), value: c.lab.workDir, kind: 'dir' });
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
