// The CLI: argv -> command; the only place errors become exit codes.
import { randomBytes, createHash } from 'node:crypto';
import { existsSync, createReadStream } from 'node:fs';
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { parse as parseYaml } from 'yaml';
import { EXIT, ConfigError, HarnessError, type ExitCode } from '../errors.js';
import { resolveConfig } from '../config/validate.js';
import type { HarnessConfig } from '../config/schema.js';
import { consoleLogger } from '../log/format.js';
import { redact } from '../log/redact.js';
import type { Logger } from '../log/events.js';
import { runScenario } from '../run/runner.js';
import { watchSignals } from '../run/signals.js';
import type { Scenario, ScenarioEnv } from '../run/scenario.js';
import type { RunRecord } from '../report/model.js';
import { renderConsoleSummary } from '../report/console.js';
import { renderJsonSummary } from '../report/json.js';
import { writeReports, writeHtmlReports } from '../report/write.js';
import { exitCodeOf } from '../report/outcome.js';
import { helpText, parseCli, type ParsedArgs } from './args.js';
import { allScenarios, findScenario, listText, loadUserScenarios, preflightScenarios } from './scenarios.js';
import { scenariosDirOf } from '../config/scenarios-dir.js';
import { compareCommand } from './compare.js';
import { matrixCommand } from './matrix.js';
import { skippedRecord } from './skipped.js';
import { reproCommand, type ReproBuild } from './repro.js';

/** The CLI entry a person runs (for repro commands). */
export const CLI_PATH = fileURLToPath(new URL('../../bin/reboot-harness.js', import.meta.url));

/** What the CLI needs from the outside world; tests hand in stand-ins (a stand-in lab and Nomad). */
export interface CliDeps {
  env: Record<string, string | undefined>;
  cwd: string;
  out: (s: string) => void;
  err: (s: string) => void;
  isTTY: boolean;
  /** the scenario environment: real VMs (lib/lab/real-env.ts) or stand-ins */
  makeEnv: (config: HarnessConfig, runId: string, logger: Logger) => ScenarioEnv;
  /**
   * before a run: make sure the lab host is ready; may re-run the CLI inside the lab's network namespace and return its
   * exit code. `subnets`: every lab subnet the runs will use (default: the config's two), each guarded by a host-stack blackhole.
   */
  prepareHost?: (config: HarnessConfig, argv: string[], logger: Logger, subnets?: readonly string[]) => Promise<ExitCode | undefined>;
  /** checks the Nomad binary before anything is created (ConfigError when it is not a linux/amd64 ELF) */
  /** `field` names the flag the path came from (--nomad-binary, --before, --upgrade-to, a matrix axis) */
  checkBinary?: (path: string, field?: string) => Promise<void>;
  doctor?: (config: HarnessConfig, json: boolean) => Promise<ExitCode>;
  destroy?: (config: HarnessConfig, ids: string[], all: boolean, logger: Logger, stopHost: boolean) => Promise<ExitCode>;
  setup?: (o: { force: boolean; docker: boolean }) => Promise<ExitCode>;
  signalSource?: NodeJS.EventEmitter;
}

/** Run the CLI; returns the exit code (never throws). */
export async function main(argv: string[], deps: CliDeps): Promise<number> {
  // Note: the token from the environment is a secret even before the config is valid.
  let secrets: string[] = deps.env['NOMAD_TOKEN'] ? [deps.env['NOMAD_TOKEN']] : [];
  try {
    const args = parseCli(argv);
    if (args.command === 'help') {
      deps.out((args.positionals[0] === '--version' ? await version() : helpText()) + '\n');
      return EXIT.OK;
    }
    if (args.values['help']) {
      deps.out(helpText(args.command) + '\n');
      return EXIT.OK;
    }
    if (args.command === 'list') {
      const { extra } = await userScenarios(args, deps, await readConfigFile(args, deps));
      const all = allScenarios(extra);
      const json = all.map((s) => ({
        name: s.name, summary: s.summary, needsNomad: s.needsNomad,
        checks: s.checks.map(({ id, title, passesWhen }) => ({ id, title, passesWhen })),
        ...('file' in s ? { file: s.file } : {}),
      }));
      deps.out(args.values['json'] ? JSON.stringify(json, null, 2) + '\n' : listText(extra) + '\n');
      return EXIT.OK;
    }
    const scenarioName = (args.command === 'run' && !args.values['all']) || args.command === 'compare' ? args.positionals[0] : undefined;
    const { config, extra } = await loadConfig(args, deps, scenarioName);
    if (config.nomad.token) secrets = [...secrets, config.nomad.token];
    const logger = consoleLogger(deps.err, { verbose: config.output.verbose, quiet: config.output.quiet || config.output.json, color: deps.isTTY && !deps.env['NO_COLOR'] && !deps.env['CI'], secrets });
    switch (args.command) {
      case 'doctor':
        return deps.doctor ? await deps.doctor(config, config.output.json) : unsupported('doctor');
      case 'setup':
        return deps.setup ? await deps.setup({ force: Boolean(args.values['force']), docker: Boolean(args.values['docker']) }) : unsupported('setup');
      case 'destroy':
        if (!args.values['all'] && !args.values['host'] && args.positionals.length === 0) throw new ConfigError([{ field: 'run id', value: undefined, message: 'is required', fix: 'give one or more run ids (see the "kept" line of a run, or ls the work dir), --all, or --host' }]);
        return deps.destroy ? await deps.destroy(config, args.positionals, Boolean(args.values['all']), logger, Boolean(args.values['host'])) : unsupported('destroy');
      case 'run':
        return await runCommand(args, config, deps, logger, argv, extra);
      case 'compare':
        return await compareCommand(args, config, deps, logger, extra);
      case 'matrix':
        return await matrixCommand(args, config, deps, logger, extra);
    }
  } catch (err) {
    return reportError(err, deps, secrets);
  }
}

async function runCommand(args: ParsedArgs, config: HarnessConfig, deps: CliDeps, logger: Logger, argv: string[], extra: readonly Scenario[]): Promise<number> {
  const scenarios = args.values['all'] ? allScenarios(extra) : [findScenario(args.positionals[0] ?? config.scenario, extra)];
  if (args.positionals.length > 1) throw new ConfigError([{ field: 'scenario', value: args.positionals, message: 'only one scenario can be named', fix: 'name one scenario, or use --all' }]);
  const needsNomad = scenarios.some((s) => s.needsNomad);
  if (!args.values['all'] && needsNomad && !config.nomadBinary) {
    throw new ConfigError([{ field: '--nomad-binary', value: undefined, message: `scenario ${scenarios[0]!.name} installs Nomad and needs a build`, fix: 'pass --nomad-binary ./path/to/nomad (a linux/amd64 build), set NOMAD_BINARY, or nomad_binary in harness.yaml' }]);
  }
  if (config.nomadBinary && deps.checkBinary) await deps.checkBinary(config.nomadBinary);
  if (!args.values['all']) await preflightScenarios(scenarios, config, deps.checkBinary);
  if (deps.prepareHost) {
    const code = await deps.prepareHost(config, argv, logger);
    if (code !== undefined) return code;
  }

  const watcher = watchSignals(deps.signalSource ? { proc: deps.signalSource } : {});
  const records: RunRecord[] = [];
  const runIds: string[] = [];
  try {
    for (const scenario of scenarios) {
      const runId = newRunId();
      runIds.push(runId);
      if (watcher.signal.aborted) break;
      if (scenario.needsNomad && !config.nomadBinary) {
        records.push(skippedRecord(runId, scenario, 'no Nomad build given (--nomad-binary / NOMAD_BINARY)'));
        continue;
      }
      logger({ kind: 'info', t: 0, message: `run ${runId}: scenario ${scenario.name}` });
      const env = deps.makeEnv(config, runId, logger);
      const { record, kept } = await runScenario({ runId, scenario, env, config, logger, signal: watcher.signal, artifactDir: join(config.reports.dir, runId) });
      records.push(record);
      if (kept.length) deps.err(keptMessage(runId, kept));
    }
  } finally {
    watcher.dispose();
  }
  const runDir = join(config.reports.dir, runIds[0] ?? 'run');
  const junitPath = config.reports.junit ?? join(runDir, 'junit.xml');
  const jsonPath = config.reports.json ?? join(runDir, 'summary.json');
  await writeReports(records, { junitPath, jsonPath, secrets: config.nomad.token ? [config.nomad.token] : [] });
  const htmlPaths = await writeHtmlReports(records, { dir: config.reports.dir, secrets: config.nomad.token ? [config.nomad.token] : [] });
  const secrets = config.nomad.token ? [config.nomad.token] : [];
  const repros = await writeRepros(records, args, config, deps);
  if (config.output.json) deps.out(redact(renderJsonSummary(records), secrets) + '\n');
  else deps.out(redact(renderConsoleSummary(records, { color: deps.isTTY && !deps.env['NO_COLOR'] && !deps.env['CI'] }), secrets) + `\nreports: ${[junitPath, jsonPath, ...htmlPaths].join(' ')}\n` + repros.map((r) => `re-run ${r.scenario} exactly (also in ${r.file}):\n  ${r.command}\n`).join(''));
  return exitCodeOf(records);
}

/** For every run that did not pass: the command that re-runs it with the same inputs, printed and written to repro.sh. */
async function writeRepros(records: RunRecord[], args: ParsedArgs, config: HarnessConfig, deps: CliDeps): Promise<{ scenario: string; command: string; file: string }[]> {
  const failed = records.filter((r) => r.outcome !== 'passed' && !r.interrupted);
  if (!failed.length) return [];
  const nomad = config.nomadBinary ? await reproBuild('--nomad-binary', resolve(deps.cwd, config.nomadBinary)) : undefined;
  const upgrade = config.upgradeTo ? await reproBuild('--upgrade-to', resolve(deps.cwd, config.upgradeTo)) : undefined;
  const out: { scenario: string; command: string; file: string }[] = [];
  for (const r of failed) {
    const builds = [nomad, r.scenario === 'upgrade-in-place' ? upgrade : undefined].filter((b): b is ReproBuild => !!b);
    const command = reproCommand({ args: args.rawArgs, scenario: r.scenario, cwd: deps.cwd, cli: CLI_PATH, builds });
    const file = join(config.reports.dir, r.runId, 'repro.sh');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `#!/bin/sh\n# re-runs ${r.scenario} (run ${r.runId}) with the same inputs${nomad?.sha256 ? `; Nomad build sha256 ${nomad.sha256}` : ''}\n${command}\n`, { mode: 0o755 });
    out.push({ scenario: r.scenario, command, file });
  }
  return out;
}

/** A build for a repro command: its flag, path and sha256 (absent when the file cannot be read). */
export async function reproBuild(flag: ReproBuild['flag'], path: string): Promise<ReproBuild> {
  const sha256 = await sha256File(path).catch(() => undefined);
  return { flag, path, ...(sha256 ? { sha256 } : {}) };
}

/** sha256 of a file, hex (names a Nomad build in repro commands). */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** harness.yaml (./harness.yaml when present, or --config): its path and parsed content. */
async function readConfigFile(args: ParsedArgs, deps: CliDeps): Promise<{ path: string | undefined; file: unknown }> {
  const explicit = typeof args.values['config'] === 'string' ? (args.values['config'] as string) : undefined;
  const path = explicit !== undefined ? resolve(deps.cwd, explicit) : (existsSync(join(deps.cwd, 'harness.yaml')) ? join(deps.cwd, 'harness.yaml') : undefined);
  let file: unknown;
  if (path) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      throw new ConfigError([{ field: '--config', value: path, message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`, fix: 'give the path of an existing harness.yaml' }]);
    }
    try {
      file = parseYaml(text);
    } catch (err) {
      throw new ConfigError([{ field: path, value: (err as Error).message.split('\n')[0], message: 'is not valid YAML', fix: 'fix the YAML syntax at the line named' }]);
    }
  }
  return { path, file };
}

/** The user's scenarios (--scenarios, HARNESS_SCENARIOS_DIR or scenarios_dir; relative to the working directory);
 * every problem with their files at once (exit 2). */
async function userScenarios(
  args: ParsedArgs, deps: CliDeps, f: { path: string | undefined; file: unknown },
): Promise<{ extra: Scenario[] }> {
  const fileName = f.path ? { fileName: f.path } : {};
  const where = scenariosDirOf({ file: f.file, ...fileName, env: deps.env, flags: args.values });
  if (!where) return { extra: [] };
  const { extra, problems } = await loadUserScenarios(resolve(deps.cwd, where.dir), where.field);
  if (problems.length) throw new ConfigError(problems);
  return { extra };
}

async function loadConfig(
  args: ParsedArgs, deps: CliDeps, scenarioName: string | undefined,
): Promise<{ config: HarnessConfig; extra: Scenario[] }> {
  const { path, file } = await readConfigFile(args, deps);
  const { extra } = await userScenarios(args, deps, { path, file });
  const scenario = scenarioName ? findScenario(scenarioName, extra) : undefined;
  const allChecks = () => [...new Set(allScenarios(extra).flatMap((s) => s.checks.map((c) => c.id)))];
  const known = scenario ? scenario.checks.map((c) => c.id) : allChecks();
  const res = resolveConfig({ file, ...(path ? { fileName: path } : {}), ...(scenario ? { scenario: scenario.name } : {}), env: deps.env, flags: args.values, knownChecks: known });
  if (!res.ok) throw new ConfigError(res.problems);
  if (scenario) res.config.scenario = scenario.name;
  return { config: res.config, extra };
}

function reportError(err: unknown, deps: CliDeps, secrets: string[]): number {
  if (err instanceof HarnessError) {
    deps.err(redact(`error: ${err.message}${err.hint ? `\nhint: ${err.hint}` : ''}\n`, secrets));
    return err.exitCode;
  }
  deps.err(redact(`internal error (please report): ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`, secrets));
  return EXIT.INTERNAL;
}

function keptMessage(runId: string, kept: string[]): string {
  return `kept (--keep): ${kept.join('; ')}\n  destroy later with: reboot-harness destroy ${runId}\n`;
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
