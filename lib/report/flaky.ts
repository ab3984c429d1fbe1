// Pure: `run --repeat N` (like `go test -count N`): the attempts of one scenario judged together. A failure every
// attempt shows the same way is a verdict; a failure that comes and goes, or changes its shape, is flaky, with the
// attempts that differ named so a reader can open both.
import type { RunRecord } from '../model/run.js';

/** How one attempt ended, in a form two attempts can be compared by. */
export interface AttemptSummary {
  runId: string;
  outcome: RunRecord['outcome'];
  /** what went wrong: the unmet verdicts' ids, or the error's step; "" when it passed */
  signature: string;
}

/** The attempts of one scenario judged together. */
export interface FlakeReport {
  scenario: string;
  attempts: AttemptSummary[];
  /** passed: every attempt passed; failed: every attempt failed the same way; flaky: anything else */
  verdict: 'passed' | 'failed' | 'flaky';
  /** attempts that did not pass / attempts */
  flakeRate: number;
  /** one line for people */
  message: string;
}

/** The signature of one attempt: which checks missed their expectation, or where it broke. */
export function attemptSignature(r: Pick<RunRecord, 'outcome' | 'verdicts' | 'error' | 'interrupted'>): string {
  if (r.outcome === 'passed') return '';
  if (r.interrupted) return 'interrupted';
  const unmet = r.verdicts
    .filter((v) => !v.met)
    .map((v) => `${v.id}=${v.label}`)
    .sort();
  if (unmet.length) return unmet.join(', ');
  return `error in ${r.error?.step ?? 'the run'}`;
}

/** Judge the attempts of each scenario (in run order) together. */
export function flakeReports(records: readonly RunRecord[]): FlakeReport[] {
  const byScenario = new Map<string, RunRecord[]>();
  for (const r of records) byScenario.set(r.scenario, [...(byScenario.get(r.scenario) ?? []), r]);
  return [...byScenario].map(([scenario, runs]) => {
    const attempts = runs.map((r) => ({ runId: r.runId, outcome: r.outcome, signature: attemptSignature(r) }));
    const bad = attempts.filter((a) => a.outcome !== 'passed');
    const rate = attempts.length ? bad.length / attempts.length : 0;
    const shapes = new Set(bad.map((a) => a.signature));
    const n = `${bad.length} of ${attempts.length}`;
    const all = attempts.length;
    const passed = `passed ${all} of ${all} attempts`;
    if (!bad.length) return { scenario, attempts, verdict: 'passed', flakeRate: 0, message: passed };
    if (bad.length === attempts.length && shapes.size === 1) {
      const message = `failed ${n} attempts the same way (${bad[0]!.signature}): a verdict, not a flake`;
      return { scenario, attempts, verdict: 'failed', flakeRate: rate, message };
    }
    const pass = attempts.find((a) => a.outcome === 'passed');
    const shown = (a: AttemptSummary) => `${a.runId} (${a.signature || 'passed'})`;
    const differ = pass ? `${shown(bad[0]!)} vs ${shown(pass)}` : bad.map(shown).join(' vs ');
    const message = `FLAKY: ${n} attempts did not pass (flake rate ${(rate * 100).toFixed(0)}%); compare ${differ}`;
    return { scenario, attempts, verdict: 'flaky', flakeRate: rate, message };
  });
}

/** The console lines of the flake reports. */
export function renderFlakeReports(reports: readonly FlakeReport[]): string {
  const line = (a: AttemptSummary, i: number) =>
    `  attempt ${i + 1}: ${a.runId} ${a.outcome}${a.signature ? ` (${a.signature})` : ''}`;
  return reports.map((r) => [`${r.scenario}: ${r.message}`, ...r.attempts.map(line)].join('\n')).join('\n') + '\n';
}
