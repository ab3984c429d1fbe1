// Pure: `run --repeat N` (like `go test -count N`): the attempts of one repeated cell judged together. A failure every
// attempt shows the same way is a verdict; a failure that comes and goes, or changes its shape, is flaky, with the
// attempts that differ named so a reader can open both. The verdicts are part of the SessionReport.
import type { RunRecord } from '../model/run.js';
import type { AttemptSummary, FlakeVerdict, SuiteReport } from '../model/session.js';

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

/** Every repeated cell's attempts (suites with `repeat`, grouped by it, in run order) judged together. */
export function judgeRepeats(suites: readonly SuiteReport[]): FlakeVerdict[] {
  const groups = new Map<string, SuiteReport[]>();
  for (const x of suites) if (x.repeat) groups.set(x.repeat.group, [...(groups.get(x.repeat.group) ?? []), x]);
  return [...groups].map(([group, xs]) => {
    const ran = xs.filter((x) => x.attempts.length);
    const runs = ran.map((x) => x.attempts.at(-1)!);
    return judgeAttempts(
      group,
      xs[0]!.scenario,
      ran.map((x) => x.name),
      runs,
    );
  });
}

/** The final runs of one repeated cell's attempts judged together. */
function judgeAttempts(group: string, scenario: string, suites: string[], runs: readonly RunRecord[]): FlakeVerdict {
  const attempts = runs.map((r) => ({ runId: r.runId, outcome: r.outcome, signature: attemptSignature(r) }));
  const base = { group, scenario, suites, attempts };
  const bad = attempts.filter((a) => a.outcome !== 'passed');
  const rate = attempts.length ? bad.length / attempts.length : 0;
  const shapes = new Set(bad.map((a) => a.signature));
  const n = `${bad.length} of ${attempts.length}`;
  const all = attempts.length;
  if (!bad.length) return { ...base, verdict: 'passed', flakeRate: 0, message: `passed ${all} of ${all} attempts` };
  if (bad.length === attempts.length && shapes.size === 1) {
    const message = `failed ${n} attempts the same way (${bad[0]!.signature}): a verdict, not a flake`;
    return { ...base, verdict: 'failed', flakeRate: rate, message };
  }
  const pass = attempts.find((a) => a.outcome === 'passed');
  const shown = (a: AttemptSummary) => `${a.runId} (${a.signature || 'passed'})`;
  const differ = pass ? `${shown(bad[0]!)} vs ${shown(pass)}` : bad.map(shown).join(' vs ');
  const message = `FLAKY: ${n} attempts did not pass (flake rate ${(rate * 100).toFixed(0)}%); compare ${differ}`;
  return { ...base, verdict: 'flaky', flakeRate: rate, message };
}

/** The console lines of the flake verdicts. */
export function renderFlakeReports(reports: readonly FlakeVerdict[]): string {
  const line = (a: AttemptSummary, i: number) =>
    `  attempt ${i + 1}: ${a.runId} ${a.outcome}${a.signature ? ` (${a.signature})` : ''}`;
  return `${reports.map((r) => [`${r.scenario}: ${r.message}`, ...r.attempts.map(line)].join('\n')).join('\n')}\n`;
}

/** The flake verdict a suite is part of, if it is one attempt of a repeated cell. */
export function flakeOf(s: { repeats: readonly FlakeVerdict[] }, x: SuiteReport): FlakeVerdict | undefined {
  return x.repeat ? s.repeats.find((r) => r.group === x.repeat!.group) : undefined;
}
