// `reboot-harness compare <scenario> --before <build> --after <build>`: the same scenario on two Nomad builds,
// one after the other (each a normal run with its own run id and lab), then a side-by-side table of every check.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, EXIT, type ConfigProblem } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import type { Logger } from '../log/events.js';
import { redact, redactDeep, redactKnown } from '../log/redact.js';
import { runScenario } from '../run/runner.js';
import { watchSignals } from '../run/signals.js';
import type { RunRecord } from '../report/model.js';
import { renderConsoleSummary } from '../report/console.js';
import { renderJsonSummary } from '../report/json.js';
import { exitCodeOf } from '../report/outcome.js';
import { redactRuns, writeHtmlReports, writeReports } from '../report/write.js';
import { compareRuns, comparisonJson, comparisonSuiteNames, renderComparison } from '../report/compare.js';
import type { ParsedArgs } from './args.js';
import { CLI_PATH, newRunId, reproBuild, type CliDeps } from './main.js';
import { reproCommand } from './repro.js';
import { findScenario, preflightScenarios } from './scenarios.js';
import type { Scenario } from '../run/scenario.js';

/** The two sides of a comparison, in the order they run. */
const SIDES = ['before', 'after'] as const;

/** Run the scenario on --before then --after, write one JUnit (a suite per build) and JSON with a comparison; exit code = the after build's. */
export async function compareCommand(args: ParsedArgs, config: HarnessConfig, deps: CliDeps, logger: Logger, userScenarios: readonly Scenario[] = []): Promise<number> {
  const builds = compareInputs(args, userScenarios);
  const scenario = findScenario(args.positionals[0] ?? config.scenario, userScenarios);
  await preflightScenarios([scenario], config, deps.checkBinary);
  for (const b of SIDES) if (deps.checkBinary) await deps.checkBinary(builds[b], `--${b}`);
  if (deps.prepareHost) {
    const code = await deps.prepareHost(config, ['compare', ...args.rawArgs], logger);
    if (code !== undefined) return code;
  }

  const watcher = watchSignals(deps.signalSource ? { proc: deps.signalSource } : {});
  const records: RunRecord[] = [];
  try {
    for (const side of SIDES) {
      if (watcher.signal.aborted) break;
      const runId = newRunId();
      // Note: --expect describes the build being validated (after); the before build is shown as it is.
      const cfg: HarnessConfig = { ...config, nomadBinary: builds[side], expect: side === 'after' ? config.expect : { scenario: undefined, perCheck: {} } };
      logger({ kind: 'info', t: 0, message: `compare ${side}: run ${runId}: scenario ${scenario.name} on ${builds[side]}` });
      const { record, kept } = await runScenario({ runId, scenario, env: deps.makeEnv(cfg, runId, logger), config: cfg, logger, signal: watcher.signal, suiteName: `${scenario.name}@${side}`, artifactDir: join(config.reports.dir, runId) });
      record.properties['nomad.binary'] = builds[side];
      record.properties['compare.side'] = side;
      records.push(record);
      if (kept.length) deps.err(`kept (--keep): ${kept.join('; ')}\n  destroy later with: reboot-harness destroy ${runId}\n`);
    }
  } finally {
    watcher.dispose();
  }
  const [before, after] = records;
  const secrets = config.nomad.token ? [config.nomad.token] : [];
  const runDir = join(config.reports.dir, records[0]?.runId ?? 'compare');
  const junitPath = config.reports.junit ?? join(runDir, 'junit.xml');
  const jsonPath = config.reports.json ?? join(runDir, 'summary.json');
  let extra: Record<string, unknown> = {};
  let table = '';
  if (before && after) {
    const names = comparisonSuiteNames(scenario.name, before, after);
    before.suiteName = names.before;
    after.suiteName = names.after;
    const rows = compareRuns(before, after);
    extra = { comparison: comparisonJson(before, after, rows) };
    table = renderComparison(rows, { color: deps.isTTY && !deps.env['NO_COLOR'] && !deps.env['CI'], beforeName: names.before, afterName: names.after });
  }
  const code = records.some((r) => r.interrupted) || !after ? (records.length ? EXIT.INTERRUPTED : EXIT.INFRA) : exitCodeOf([after]);
  await writeReports(records, { junitPath, secrets });
  const htmlPaths = await writeHtmlReports(records, { dir: config.reports.dir, secrets });
  const json = await writeJsonWith(records, jsonPath, secrets, { ...extra, outcome: after?.outcome ?? 'error', exitCode: code });
  // When the after build did not meet its expectations: one command that runs the same comparison again.
  let repro = '';
  if (code === EXIT.CHECK_FAILED || code === EXIT.INFRA) {
    const built = await Promise.all(SIDES.map((side) => reproBuild(`--${side}`, resolve(deps.cwd, builds[side]))));
    const command = reproCommand({ command: 'compare', args: args.rawArgs, scenario: scenario.name, cwd: deps.cwd, cli: CLI_PATH, builds: built });
    const file = join(runDir, 'repro.sh');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `#!/bin/sh\n# re-runs compare ${scenario.name} with the same inputs\n${command}\n`, { mode: 0o755 });
    repro = `re-run this comparison exactly (also in ${file}):\n  ${command}\n`;
  }
  if (config.output.json) deps.out(redact(json, secrets));
  else deps.out(redact(renderConsoleSummary(records, { color: deps.isTTY && !deps.env['NO_COLOR'] && !deps.env['CI'] }) + (table ? `\n${table}` : ''), secrets) + `\nreports: ${[junitPath, jsonPath, ...htmlPaths].join(' ')}\n${repro}`);
  return code;
}

/** --before and --after, both required; a --nomad-binary given with them is ambiguous. All problems at once. */
function compareInputs(args: ParsedArgs, extra: readonly Scenario[]): { before: string; after: string } {
  const problems: ConfigProblem[] = [];
  const get = (k: 'before' | 'after'): string => {
    const v = args.values[k];
    if (typeof v !== 'string' || v.trim() === '') problems.push({ field: `--${k}`, value: v, message: 'is required', fix: `give the ${k === 'before' ? 'build released so far' : 'candidate build'}: --${k} ./path/to/nomad (linux/amd64)` });
    return typeof v === 'string' ? v.trim() : '';
  };
  const out = { before: get('before'), after: get('after') };
  if (args.values['nomad-binary'] !== undefined) problems.push({ field: '--nomad-binary', value: args.values['nomad-binary'], message: 'cannot be combined with --before/--after', fix: 'drop --nomad-binary: compare installs --before, then --after' });
  if (args.positionals.length > 1) problems.push({ field: 'scenario', value: args.positionals, message: 'only one scenario can be compared', fix: 'name one scenario (reboot-harness list)' });
  else if (args.positionals[0] && !findScenarioSafe(args.positionals[0], extra)?.needsNomad) {
    problems.push({ field: 'scenario', value: args.positionals[0], message: 'does not install Nomad, so two builds cannot differ', fix: 'compare a Nomad scenario, e.g. bridge-exec-reboot (reboot-harness list)' });
  }
  if (problems.length) throw new ConfigError(problems);
  return out;
}

function findScenarioSafe(name: string, extra: readonly Scenario[]) {
  try {
    return findScenario(name, extra);
  } catch {
    return { needsNomad: true }; // unknown names are reported by findScenario itself
  }
}

/**
 * Write the JSON summary of `records` with extra top-level sections (comparison, matrix), redacted like writeReports;
 * returns the text written.
 */
export async function writeJsonWith(records: readonly RunRecord[], path: string, secrets: readonly string[], extra: Record<string, unknown>): Promise<string> {
  const doc = { ...(JSON.parse(renderJsonSummary(redactRuns(records, secrets))) as Record<string, unknown>), ...redactDeep(extra, secrets) };
  const text = redactKnown(`${JSON.stringify(doc, null, 2)}\n`, secrets.filter((s) => !/["&<>'\\]/.test(s)));
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text, 'utf8');
  return text;
}
