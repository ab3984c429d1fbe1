// Machine-readable summary of runs (`--json`, CI artifacts). Pure; field order and key order are stable.
import { countVerdicts, exitCodeOf } from './outcome.js';
import type { RunOutcome, RunRecord } from './model.js';

/** Bump when a field changes meaning or disappears (adding fields does not bump it). */
export const SUMMARY_SCHEMA = 'nomad-reboot-harness/summary@1';

function sorted(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function overall(runs: readonly RunRecord[]): RunOutcome {
  if (runs.length === 0 || runs.some((r) => r.outcome === 'error' || r.interrupted)) return 'error';
  return runs.some((r) => r.outcome === 'failed') ? 'failed' : 'passed';
}

/** Render runs as a stable JSON document: overall outcome and exit code, then per run verdicts, steps, properties, artifacts. */
export function renderJsonSummary(runs: readonly RunRecord[]): string {
  const doc = {
    schema: SUMMARY_SCHEMA,
    outcome: overall(runs),
    exitCode: exitCodeOf(runs),
    runs: runs.map((r) => ({
      runId: r.runId,
      scenario: r.scenario,
      suiteName: r.suiteName,
      outcome: r.outcome,
      interrupted: r.interrupted ?? false,
      hostname: r.hostname,
      startedAt: Number.isFinite(r.startedAtMs) ? new Date(r.startedAtMs).toISOString() : null,
      durationMs: r.durationMs,
      error: r.error ? { message: r.error.message, step: r.error.step ?? null, detail: r.error.detail ?? null } : null,
      counts: countVerdicts(r.verdicts),
      verdicts: r.verdicts.map((v) => ({
        id: v.id,
        title: v.title,
        status: v.status,
        expected: v.expected,
        label: v.label,
        met: v.met,
        message: v.message,
        evidence: v.evidence,
        causedBy: v.causedBy ?? null,
        perAlloc: v.perAlloc ?? null,
      })),
      steps: r.steps.map((s) => ({
        name: s.name,
        status: s.status,
        startedAt: Number.isFinite(s.startedAtMs) ? new Date(s.startedAtMs).toISOString() : null,
        durationMs: s.durationMs,
        message: s.message ?? null,
        detail: s.detail ?? null,
      })),
      properties: sorted(r.properties),
      artifacts: r.artifacts.map((a) => ({ name: a.name, path: a.path, caseName: a.caseName ?? null })),
    })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
