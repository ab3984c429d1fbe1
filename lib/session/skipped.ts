// A RunRecord for a scenario that was not run (e.g. --all without a Nomad build): visible skips, never silent passes.
import { hostname } from 'node:os';
import type { RunRecord } from '../model/run.js';
import type { Scenario } from '../run/scenario.js';
import { skippedResult } from '../checks/result.js';
import { applyExpectations } from '../checks/verdict.js';

/** Every check of the scenario as skipped with the reason. */
export function skippedRecord(runId: string, s: Scenario, reason: string): RunRecord {
  return {
    runId,
    scenario: s.name,
    suiteName: s.name,
    hostname: hostname(),
    startedAtMs: Date.now(),
    durationMs: 0,
    properties: { 'run.id': runId, scenario: s.name, skipped: reason },
    steps: [],
    artifacts: [],
    timeline: [],
    verdicts: applyExpectations(
      s.checks.map((c) => skippedResult(c, reason)),
      { perCheck: {} },
    ),
    outcome: 'passed',
  };
}
