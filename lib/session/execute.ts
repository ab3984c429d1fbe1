// The one executor: describe the builds, prepare the host once, watch signals, run the plan's cells in a pool (retrying
// an infrastructure error once where the plan says so), and return one immutable SessionReport. Cleanup of each cell
// lives in the runner (lib/run/runner.ts); this is the only place that loops over cells.
import { join } from 'node:path';
import type { HarnessConfig } from '../config/schema.js';
import { ConfigError, type ConfigProblem, type ExitCode } from '../errors.js';
import type { Logger } from '../log/events.js';
import type { RunRecord } from '../model/run.js';
import type { BuildInfo, SessionReport, SuiteReport } from '../model/session.js';
import { runPool, type PoolResult } from '../matrix/pool.js';
import { cellCostMb } from '../matrix/expand.js';
import { buildKey, configInSlot, type BuildRef, type Plan, type PlannedCell } from '../plan/session-plan.js';
import { buildProperties } from '../builds/provenance.js';
import { repeatSuiteName, sideLabels, suiteName } from '../plan/names.js';
import { judgeRepeats } from '../report/flaky.js';
import { compareRuns } from '../report/compare.js';
import { runScenario } from '../run/runner.js';
import type { Scenario, ScenarioEnv } from '../run/scenario.js';
import { watchSignals } from '../run/signals.js';
import { sessionExitCode } from '../report/outcome.js';
import { warmAffinity } from '../lab/warm/warm-key.js';
import { vmOverheadMb } from '../lab/providers.js';
import { skippedRecord } from './skipped.js';
import { SCENARIOS } from '../cli/scenarios.js';
import type { KnownIssue } from '../model/known-issue.js';
import type { Ancestry } from '../known-issues/label.js';
import { buildAncestry } from '../builds/ancestry.js';
import { buildUnderTest, fixCommitsOf, labelRecord, loadKnownIssueTable } from './known-issues.js';
import { inCellAttempt, withCellExits } from './cell-exits.js';
import { interruptNow } from './interrupt-exit.js';

export interface ExecuteDeps {
  scenario(name: string): Scenario;
  /**
   * every user scenario of the session's folder (--scenarios), not only the planned cells': the known-issue file is
   * judged against them all, as the checks before the plan judged it (Q362)
   */
  userScenarios?: readonly Scenario[];
  makeEnv(config: HarnessConfig, runId: string, logger: Logger, scenario: Scenario): ScenarioEnv;
  /** resolve a build (a path is checked, a release downloaded and verified, a source tree built; all cached) */
  resolveBuild(ref: BuildRef, signal: AbortSignal): Promise<BuildInfo>;
  /**
   * problems only a tool finds, with the builds resolved (the user's job parsed by the Nomad build on the host);
   * still before anything is created
   */
  preflight?(scenario: Scenario, config: HarnessConfig): Promise<ConfigProblem[]>;
  /** may re-run the CLI inside the lab's network namespace and return its exit code */
  prepareHost?(config: HarnessConfig, logger: Logger, subnets: readonly string[]): Promise<ExitCode | undefined>;
  signalSource?: NodeJS.EventEmitter;
  newRunId(): string;
  logger: Logger;
  /** git ancestry of fix commits in a source build's tree (default: asked of the build's repository, lib/builds) */
  fixAncestry?(build: BuildInfo, commits: readonly string[]): Promise<Ancestry | undefined>;
  /** runs kept by --keep (their labs under `workDir`): tell the person how to reach them, as soon as the run ends */
  onKept?(runId: string, kept: string[], workDir: string): void;
}

/** An attempt that broke before a verdict (not interrupted): the lab's fault, worth one more try. */
function isRetryable(r: RunRecord): boolean {
  return r.outcome === 'error' && !r.interrupted;
}

/** Execute the plan; `exitCode` alone when the host preparation handed the session to a child in the lab namespace. */
export async function executePlan(
  plan: Plan,
  deps: ExecuteDeps,
): Promise<{ session: SessionReport } | { exitCode: ExitCode }> {
  const startedAtMs = Date.now();
  // the user's known-issue file is an input like any other: every problem at once, exit 2, before anything is made
  const planned = [...new Set(plan.cells.map((c) => c.scenario))].map((n) => deps.scenario(n));
  const scenarios = [
    ...new Map([...SCENARIOS, ...(deps.userScenarios ?? []), ...planned].map((s) => [s.name, s])).values(),
  ];
  const table = await loadKnownIssueTable(plan.base, scenarios);
  // Note: one after the other (a source build takes minutes, a download a while), and before the host is prepared:
  // the lab's namespace has no route to a releases site.
  const resolved = new Map<string, BuildInfo>();
  // Note: Ctrl-C during a download or a source build (minutes) stops it cleanly; this watcher ends before the host is
  // prepared, since a re-run inside the lab namespace forwards signals to its child.
  const early = watchSignals({ onSecond: interruptNow, ...(deps.signalSource ? { proc: deps.signalSource } : {}) });
  try {
    for (const b of plan.builds) {
      if (early.signal.aborted) break;
      if (!resolved.has(buildKey(b))) resolved.set(buildKey(b), await deps.resolveBuild(b, early.signal));
    }
  } finally {
    early.dispose();
  }
  if (early.signal.aborted) throw early.signal.reason;
  if (plan.comparison) warnSameBuild(plan, plan.comparison, resolved, deps.logger);
  const builds = [...resolved.values()];
  const ancestry = new Map<BuildInfo, Ancestry>();
  const commits = fixCommitsOf(table);
  for (const b of builds) {
    const a = await (deps.fixAncestry ?? ((x, c) => buildAncestry(x, c)))(b, commits);
    if (a) ancestry.set(b, a);
  }
  const runnable = plan.cells.filter((c) => !c.skip);
  if (deps.preflight) {
    const problems: ConfigProblem[] = [];
    for (const c of runnable)
      problems.push(...(await deps.preflight(deps.scenario(c.scenario), withResolvedBuilds(c.config, c, resolved))));
    const seen = new Set<string>();
    const unique = problems.filter((p) => !seen.has(JSON.stringify(p)) && !!seen.add(JSON.stringify(p)));
    if (unique.length) throw new ConfigError(unique);
  }
  if (deps.prepareHost && runnable.length) {
    const code = await deps.prepareHost(plan.base, deps.logger, plan.subnets);
    if (code !== undefined) return { exitCode: code };
  }
  const names = suiteNames(plan, resolved);
  const kept: SessionReport['kept'] = [];
  const watcher = watchSignals({ onSecond: interruptNow, ...(deps.signalSource ? { proc: deps.signalSource } : {}) });
  let results: PoolResult<PlannedCell, RunRecord>[];
  try {
    results = await withCellExits(() =>
      runPool(plan.cells, {
        parallel: plan.parallel,
        budgetMb: plan.budgetMb,
        costMb: (c) => cellCostMb(c.config, vmOverheadMb(c.config)),
        affinity: warmAffinity,
        signal: watcher.signal,
        retry: (r: RunRecord) => plan.retryInfra && isRetryable(r),
        run: (cell, slot, attempt) =>
          inCellAttempt(() =>
            runCell(
              plan,
              cell,
              { slot, attempt, name: names.get(cell)!, resolved, kept, signal: watcher.signal, table, ancestry },
              deps,
            ),
          ),
      }),
    );
  } finally {
    watcher.dispose();
  }
  const suites: SuiteReport[] = results.map(({ item, attempts }) => ({
    name: names.get(item)!,
    key: item.key,
    scenario: item.scenario,
    ...(item.side ? { side: item.side } : {}),
    counts: item.counts,
    attempts,
    rerun: item.rerun,
    ...(item.repeat ? { repeat: item.repeat } : {}),
  }));
  const interrupted = watcher.signal.aborted;
  const session: SessionReport = {
    command: plan.command,
    startedAtMs,
    durationMs: Date.now() - startedAtMs,
    suites,
    interrupted,
    exitCode: sessionExitCode(suites, interrupted),
    builds,
    kept,
    ...plan.report,
    ...(plan.comparison ? comparisonOf(suites, plan.comparison) : {}),
    repeats: judgeRepeats(suites),
  };
  return { session };
}

/** compare of one build against itself (the same spec, or two specs of one binary): it runs, but says so first. */
function warnSameBuild(
  plan: Plan,
  pair: NonNullable<Plan['comparison']>,
  resolved: ReadonlyMap<string, BuildInfo>,
  logger: Logger,
): void {
  const ref = (key: string) => plan.cells.find((c) => c.key === key)?.builds.find((b) => b.role === 'nomad');
  const [b, a] = [ref(pair.before), ref(pair.after)];
  if (!b || !a) return;
  const [ib, ia] = [resolved.get(buildKey(b)), resolved.get(buildKey(a))];
  const same = buildKey(b) === buildKey(a) || (!!ib?.sha256 && ib.sha256 === ia?.sha256);
  // Note: the plan already warned when the specs themselves name one build (lib/plan/compare.ts)
  if (!same || plan.warnings.some((w) => w.includes('are the same build'))) return;
  const which = ib?.sha256 ? ` (sha256 ${ib.sha256.slice(0, 12)}…)` : '';
  const message =
    `--before ${b.spec} and --after ${a.spec} are the same build${which}: the comparison runs it twice, so ` +
    'a check that flips is flakiness, not a difference between builds';
  logger({ kind: 'warn', t: 0, message });
}

interface CellRun {
  slot: number;
  attempt: number;
  name: string;
  resolved: ReadonlyMap<string, BuildInfo>;
  kept: SessionReport['kept'];
  signal: AbortSignal;
  table: readonly KnownIssue[];
  ancestry: ReadonlyMap<BuildInfo, Ancestry>;
}

/** One attempt of one cell: a skipped record, or a normal run with its own run id, lab and artifacts. */
async function runCell(plan: Plan, cell: PlannedCell, o: CellRun, deps: ExecuteDeps): Promise<RunRecord> {
  const runId = deps.newRunId();
  const scenario = deps.scenario(cell.scenario);
  const resolvedConfig = withResolvedBuilds(
    configInSlot(cell.config, plan.parallel > 1 ? o.slot : 0),
    cell,
    o.resolved,
  );
  // Note: a retry after an infrastructure error runs cold: the warm lab may be what broke
  const config = o.attempt > 1 ? { ...resolvedConfig, lab: { ...resolvedConfig.lab, warm: false } } : resolvedConfig;
  const { attempt, fixed } = plan.runProperties ?? { fixed: {} };
  const properties: Record<string, string> = {
    ...cell.properties,
    ...provenance(cell, o.resolved),
    ...(attempt ? { [attempt]: String(o.attempt) } : {}),
    ...fixed,
  };
  if (cell.skip) {
    const r = skippedRecord(runId, scenario, cell.skip);
    return { ...r, suiteName: o.name, properties: { ...r.properties, ...properties } };
  }
  const retry = o.attempt > 1 ? ` (attempt ${o.attempt}, after an infrastructure error)` : '';
  const slot = plan.parallel > 1 ? ` in slot ${o.slot} (${config.lab.privateSubnet})` : '';
  deps.logger({ kind: 'info', t: 0, message: `${o.name}: run ${runId}${retry}${slot}` });
  const env = deps.makeEnv(config, runId, deps.logger, scenario);
  const artifactDir = join(config.reports.dir, runId);
  const { record, kept } = await runScenario({
    runId,
    scenario,
    env,
    config,
    logger: deps.logger,
    signal: o.signal,
    suiteName: o.name,
    artifactDir,
  });
  if (kept.length) {
    o.kept.push({ runId, what: kept });
    deps.onKept?.(runId, kept, config.lab.workDir);
  }
  // after judging: the labels say which public issue a failure reproduces; they change no observation
  const tested = testedBuild(cell, o.resolved);
  const labelled = labelRecord(
    record,
    config,
    o.table,
    tested ? buildUnderTest(tested, o.ancestry.get(tested)) : undefined,
  );
  return { ...labelled, properties: { ...record.properties, ...properties } };
}

/** The build the cell's checks judge: the one upgraded to when there is one, else the cell's build. */
function testedBuild(cell: PlannedCell, resolved: ReadonlyMap<string, BuildInfo>): BuildInfo | undefined {
  const ref = cell.builds.find((b) => b.role === 'upgrade-to') ?? cell.builds.find((b) => b.role === 'nomad');
  return ref ? resolved.get(buildKey(ref)) : undefined;
}

/** The cell's config with each build spec replaced by the binary it resolved to. */
function withResolvedBuilds(
  config: HarnessConfig,
  cell: PlannedCell,
  resolved: ReadonlyMap<string, BuildInfo>,
): HarnessConfig {
  const path = (role: BuildRef['role']) => {
    const ref = cell.builds.find((b) => b.role === role);
    return ref ? resolved.get(buildKey(ref))?.path : undefined;
  };
  const nomad = path('nomad');
  const upgrade = path('upgrade-to');
  return { ...config, ...(nomad ? { nomadBinary: nomad } : {}), ...(upgrade ? { upgradeTo: upgrade } : {}) };
}

/** Report properties of the builds a cell installs: spec, origin, sha256, version, revision (lib/builds/provenance). */
function provenance(cell: PlannedCell, resolved: ReadonlyMap<string, BuildInfo>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const ref of cell.builds) {
    const info = resolved.get(buildKey(ref));
    if (!info) continue;
    out[ref.role === 'nomad' ? 'nomad.binary' : 'nomad.upgrade_to'] = info.path;
    Object.assign(out, buildProperties(info, ref.role === 'nomad' ? 'nomad.build' : 'nomad.upgrade_to.build'));
  }
  return out;
}

/** Every cell's suite name, `<scenario>@<build>[/<variant>]`; the two cells of a comparison are named apart. */
function suiteNames(plan: Plan, resolved: ReadonlyMap<string, BuildInfo>): Map<PlannedCell, string> {
  const version = (c: PlannedCell | undefined) => {
    const ref = c?.builds.find((x) => x.role === 'nomad');
    return ref ? resolved.get(buildKey(ref))?.version || undefined : undefined;
  };
  const pair = plan.comparison;
  const cellOf = (key: string) => plan.cells.find((c) => c.key === key);
  const labels = pair && sideLabels(version(cellOf(pair.before)), version(cellOf(pair.after)));
  const label = (c: PlannedCell): string | undefined => {
    if (labels && c.key === pair.before) return labels.before;
    if (labels && c.key === pair.after) return labels.after;
    return c.buildLabel ?? (c.builds.length ? (version(c) ?? 'unknown') : undefined);
  };
  const out = new Map<PlannedCell, string>();
  for (const c of plan.cells) {
    const name = suiteName(c.scenario, label(c), c.variant);
    out.set(c, c.repeat ? repeatSuiteName(name, c.repeat.attempt) : name);
  }
  return out;
}

function comparisonOf(
  suites: readonly SuiteReport[],
  pair: NonNullable<Plan['comparison']>,
): Pick<SessionReport, 'comparison'> {
  const b = suites.find((s) => s.key === pair.before);
  const a = suites.find((s) => s.key === pair.after);
  const [rb, ra] = [b?.attempts.at(-1), a?.attempts.at(-1)];
  if (!b || !a || !rb || !ra) return {};
  return { comparison: { scenario: a.scenario, beforeName: b.name, afterName: a.name, rows: compareRuns(rb, ra) } };
}
