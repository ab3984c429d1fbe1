// `reboot-harness matrix <file.yaml> [--shard i/n] [--junit path]`: validate the matrix, expand and shard its cells,
// run them (parallel within a memory budget, one retry after an infrastructure error), one merged JUnit file.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError, EXIT, type ConfigProblem } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import { resolveConfig } from '../config/validate.js';
import type { Logger } from '../log/events.js';
import { redact, redactKnown } from '../log/redact.js';
import { watchSignals } from '../run/signals.js';
import { renderConsoleSummary } from '../report/console.js';
import { exitCodeOf } from '../report/outcome.js';
import { redactRuns, writeHtmlReports } from '../report/write.js';
import { cellConfig, cellCostMb, expandCells, parseShard, planProblems, shard } from '../matrix/expand.js';
import { renderMatrixJUnit } from '../matrix/junit.js';
import { runMatrix, type PlannedCell } from '../matrix/run.js';
import { parseMatrix } from '../matrix/spec.js';
import type { ParsedArgs } from './args.js';
import { writeJsonWith } from './compare.js';
import { newRunId, reproBuild, type CliDeps } from './main.js';
import { checksumChecks } from './repro.js';
import { allScenarios, findScenario } from './scenarios.js';
import type { Scenario } from '../run/scenario.js';
import { quote } from '../ssh/quote.js';
import { fileURLToPath } from 'node:url';

/** The CLI entry a person runs (for repro commands). */
const CLI_PATH = fileURLToPath(new URL('../../bin/reboot-harness.js', import.meta.url));

/** Validate, plan and run this shard of the matrix; exit code as for `run` over the cells' final attempts. */
export async function matrixCommand(args: ParsedArgs, config: HarnessConfig, deps: CliDeps, logger: Logger, extra: readonly Scenario[] = []): Promise<number> {
  if (args.positionals.length !== 1) throw new ConfigError([{ field: 'matrix file', value: args.positionals, message: args.positionals.length ? 'only one matrix file can be run' : 'is required', fix: 'reboot-harness matrix matrix.yaml [--shard i/n] (docs/matrix.md)' }]);
  const path = resolve(deps.cwd, args.positionals[0]!);
  const spec = parseMatrix(await readYaml(path, 'matrix file'), args.positionals[0]!, Object.fromEntries(allScenarios(extra).map((s) => [s.name, s.checks.map((c) => c.id)])));
  const sh = parseShard(typeof args.values['shard'] === 'string' ? (args.values['shard'] as string) : undefined);
  if (!spec.ok || 'field' in sh) throw new ConfigError([...(spec.ok ? [] : spec.problems), ...('field' in sh ? [sh] : [])]);
  const { spec: m } = spec;
  const shardLabel = `${sh.i}/${sh.n}`;
  const only = typeof args.values['cell'] === 'string' ? (args.values['cell'] as string) : undefined;
  const all = expandCells(m);
  if (only !== undefined && !all.some((c) => c.name === only)) {
    throw new ConfigError([{ field: '--cell', value: only, message: 'names no cell of this matrix', fix: `use one of: ${all.map((c) => c.name).join(', ')}` }]);
  }
  const cells = only !== undefined ? all.filter((c) => c.name === only) : shard(all, sh.i, sh.n);

  const harnessFile = await readHarnessYaml(args, deps);
  const bases = new Map<string, HarnessConfig>();
  const problems: ConfigProblem[] = [];
  for (const name of m.scenarios) {
    const s = findScenario(name, extra);
    const res = resolveConfig({ file: deepMerge(harnessFile, m.defaults), fileName: `harness.yaml + ${args.positionals[0]} defaults`, env: deps.env, flags: args.values, knownChecks: s.checks.map((c) => c.id), scenario: name });
    if (res.ok) bases.set(name, res.config);
    else problems.push(...res.problems);
  }
  if (problems.length) throw new ConfigError(problems);
  const plan: PlannedCell[] = cells.map((cell) => ({ cell, scenario: findScenario(cell.scenario, extra), configFor: (slot) => cellConfig(bases.get(cell.scenario)!, cell, slot, (p) => resolve(dirname(path), p)) }));
  problems.push(...planProblems(plan.map((p) => ({ cell: p.cell, config: p.configFor(0) })), m.parallel, m.memoryBudgetMb, args.positionals[0]!));
  for (const p of plan) {
    const c = p.configFor(0);
    if (p.scenario.needsNomad && !c.nomadBinary) problems.push({ field: `cell ${p.cell.name}`, value: undefined, message: 'installs Nomad and has no build', fix: 'add a nomad axis ({name, binary}) or nomad_binary under defaults' });
    problems.push(...(p.scenario.validate?.(c) ?? []).map((q) => ({ ...q, field: `cell ${p.cell.name}: ${q.field}` })));
  }
  if (problems.length) throw new ConfigError(problems);
  const builds = [...new Set(plan.flatMap((p) => [p.configFor(0).nomadBinary, p.configFor(0).upgradeTo]).filter((b): b is string => !!b))];
  for (const b of builds) if (deps.checkBinary) await deps.checkBinary(b, 'matrix axis nomad: binary');
  if (deps.prepareHost && cells.length) {
    // Every subnet a cell may get (slot 0 when run alone, 1..parallel otherwise) is guarded by a host blackhole.
    const slots = m.parallel > 1 ? Array.from({ length: m.parallel }, (_, k) => k + 1) : [0];
    const subnets = [...new Set(plan.flatMap((p) => slots.flatMap((slot) => { const c = p.configFor(slot); return [c.lab.managementSubnet, c.lab.privateSubnet]; })))];
    const code = await deps.prepareHost(config, ['matrix', ...args.rawArgs], logger, subnets);
    if (code !== undefined) return code;
  }

  const watcher = watchSignals(deps.signalSource ? { proc: deps.signalSource } : {});
  let results;
  try {
    results = await runMatrix(plan, {
      parallel: m.parallel, budgetMb: m.memoryBudgetMb, retryInfra: m.retryInfra, costMb: (p) => cellCostMb(p.configFor(0)),
      makeEnv: deps.makeEnv, newRunId, logger, signal: watcher.signal, shard: shardLabel,
      onKept: (runId, kept) => deps.err(`kept (--keep): ${kept.join('; ')}\n  destroy later with: reboot-harness destroy ${runId}\n`),
    });
  } finally {
    watcher.dispose();
  }
  const finals = results.flatMap((r) => r.attempts.slice(-1));
  const secrets = config.nomad.token ? [config.nomad.token] : [];
  const dir = join(config.reports.dir, `matrix-${finals[0]?.runId ?? `shard-${sh.i}-of-${sh.n}`}`);
  const junitPath = config.reports.junit ?? join(dir, 'junit.xml');
  const jsonPath = config.reports.json ?? join(dir, 'summary.json');
  const clean = results.map((r) => ({ ...r, attempts: redactRuns(r.attempts, secrets) }));
  await mkdir(dirname(junitPath), { recursive: true });
  await writeFile(junitPath, redactKnown(renderMatrixJUnit(clean), secrets.filter((s) => !/["&<>'\\]/.test(s))), 'utf8');
  const code = cells.length === 0 ? EXIT.OK : results.some((r) => r.attempts.length === 0) ? EXIT.INTERRUPTED : exitCodeOf(finals);
  const matrix = {
    file: args.positionals[0], shard: shardLabel, cellsInMatrix: expandCells(m).length, exitCode: code,
    cells: results.map((r) => ({ name: r.cellName, runIds: r.attempts.map((a) => a.runId), outcomes: r.attempts.map((a) => a.outcome), retried: r.attempts.length > 1, outcome: r.attempts.at(-1)?.outcome ?? 'not run' })),
  };
  const json = await writeJsonWith(finals, jsonPath, secrets, { matrix, exitCode: code });
  const htmlPaths = await writeHtmlReports(results.flatMap((r) => r.attempts), { dir: config.reports.dir, secrets });
  const retried = results.filter((r) => r.attempts.length > 1).map((r) => `retried after an infrastructure error: ${r.cellName} (${r.attempts.map((a) => `${a.runId} ${a.outcome}`).join(' -> ')})\n`);
  const notRun = results.filter((r) => r.attempts.length === 0).map((r) => `not run (interrupted): ${r.cellName}\n`);
  // One command per failed cell that re-runs exactly that cell of the same file.
  // The cell's builds are checked by sha256 first, so the repro fails loudly if a build changed since.
  const repros: string[] = [];
  for (const r of results.filter((x) => x.attempts.at(-1)?.outcome !== 'passed' && x.attempts.length > 0)) {
    const p = plan.find((x) => x.cell.name === r.cellName);
    const builds = p ? [p.configFor(0).nomadBinary, p.configFor(0).upgradeTo].filter((b): b is string => !!b) : [];
    const checks = checksumChecks(await Promise.all(builds.map((b) => reproBuild('--nomad-binary', b))));
    repros.push(`re-run ${r.cellName} exactly:\n  cd ${quote(deps.cwd)} && ${checks.map((c) => `${c} `).join('')}node ${quote(CLI_PATH)} matrix ${quote(path)} --cell ${quote(r.cellName)}\n`);
  }
  if (config.output.json) deps.out(redact(json, secrets));
  else deps.out(redact(`${cells.length ? renderConsoleSummary(finals, { color: deps.isTTY && !deps.env['NO_COLOR'] && !deps.env['CI'] }) : `shard ${shardLabel} has no cells (the matrix has ${matrix.cellsInMatrix})\n`}${retried.join('')}${notRun.join('')}\nreports: ${[junitPath, jsonPath, ...htmlPaths].join(' ')}\n${repros.join('')}`, secrets));
  return code;
}

/** Read and parse a YAML file; a ConfigError naming it when it cannot be read or parsed. */
async function readYaml(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError([{ field: what, value: path, message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`, fix: 'give the path of an existing file' }]);
  }
  try {
    return parseYaml(text) as unknown;
  } catch (err) {
    throw new ConfigError([{ field: path, value: (err as Error).message.split('\n')[0], message: 'is not valid YAML', fix: 'fix the YAML syntax at the line named' }]);
  }
}

/** The harness.yaml main() already validated (--config, or ./harness.yaml when present): matrix defaults go on top of it. */
async function readHarnessYaml(args: ParsedArgs, deps: CliDeps): Promise<unknown> {
  const explicit = typeof args.values['config'] === 'string' ? resolve(deps.cwd, args.values['config'] as string) : undefined;
  const path = explicit ?? (existsSync(join(deps.cwd, 'harness.yaml')) ? join(deps.cwd, 'harness.yaml') : undefined);
  return path ? readYaml(path, '--config') : undefined;
}

/** Merge YAML mappings, later wins; lists and scalars are replaced whole. */
function deepMerge(a: unknown, b: unknown): unknown {
  const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isMap(a) || !isMap(b)) return b === undefined ? a : b;
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = deepMerge(a[k], v);
  return out;
}
