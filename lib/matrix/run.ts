// Run matrix cells with the ordinary runner: each attempt a normal runScenario with its own run id, artifacts and lab.
import { join } from 'node:path';
import type { HarnessConfig } from '../config/schema.js';
import type { Logger } from '../log/events.js';
import type { RunRecord } from '../model/run.js';
import { runScenario } from '../run/runner.js';
import type { Scenario, ScenarioEnv } from '../run/scenario.js';
import type { Cell } from './expand.js';
import type { CellAttempts } from './junit.js';
import { runPool } from './pool.js';

export interface PlannedCell {
  cell: Cell;
  scenario: Scenario;
  /** the cell's config in a slot (0 = the base subnets; 1..n = a subnet pair of its own) */
  configFor(slot: number): HarnessConfig;
}

export interface RunMatrixOptions {
  parallel: number;
  budgetMb: number | undefined;
  retryInfra: boolean;
  costMb: (c: PlannedCell) => number;
  makeEnv: (config: HarnessConfig, runId: string, logger: Logger) => ScenarioEnv;
  newRunId: () => string;
  logger: Logger;
  signal: AbortSignal;
  /** e.g. "2/4"; recorded as a property of every suite */
  shard: string;
  /** runs kept by --keep: tell the person how to reach them */
  onKept?: (runId: string, kept: string[]) => void;
}

export type CellResult = CellAttempts & { cell: Cell };

/** An attempt that broke before a verdict (not interrupted): the lab's fault, worth one more try. */
export function isRetryable(r: RunRecord): boolean {
  return r.outcome === 'error' && !r.interrupted;
}

/** Run the planned cells (parallel within the budget) and return every cell's attempts in plan order. */
export async function runMatrix(plan: readonly PlannedCell[], o: RunMatrixOptions): Promise<CellResult[]> {
  const results = await runPool(plan, {
    parallel: o.parallel,
    budgetMb: o.budgetMb,
    costMb: o.costMb,
    signal: o.signal,
    retry: (r: RunRecord) => o.retryInfra && isRetryable(r),
    run: async (p, slot, attempt) => {
      const runId = o.newRunId();
      const config = p.configFor(o.parallel > 1 ? slot : 0);
      o.logger({ kind: 'info', t: 0, message: `cell ${p.cell.name}: run ${runId}${attempt > 1 ? ` (attempt ${attempt}, after an infrastructure error)` : ''}${o.parallel > 1 ? ` in slot ${slot} (${config.lab.privateSubnet})` : ''}` });
      const { record, kept } = await runScenario({ runId, scenario: p.scenario, env: o.makeEnv(config, runId, o.logger), config, logger: o.logger, signal: o.signal, suiteName: p.cell.name, artifactDir: join(config.reports.dir, runId) });
      Object.assign(record.properties, {
        'matrix.cell': p.cell.name,
        'matrix.attempt': String(attempt),
        'matrix.shard': o.shard,
        ...Object.fromEntries(p.cell.values.map(([k, v]) => [`matrix.${k}`, v])),
        ...(config.nomadBinary ? { 'nomad.binary': config.nomadBinary } : {}),
      });
      if (kept.length) o.onKept?.(runId, kept);
      return record;
    },
  });
  return results.map((r) => ({ cell: r.item.cell, cellName: r.item.cell.name, attempts: r.attempts }));
}
