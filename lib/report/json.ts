// Machine-readable summary of runs (`--json`, CI artifacts). Pure; field order and key order are stable.
import { countVerdicts, exitCodeOf } from './outcome.js';
import type { RunOutcome, RunRecord } from '../model/run.js';
import type { SessionReport } from '../model/session.js';
import { findingsOf } from '../known-issues/label.js';

/** Bump when a field changes meaning or disappears (adding fields does not bump it). */
export const SUMMARY_SCHEMA = 'nomad-reboot-harness/summary@1';

function overall(runs: readonly RunRecord[]): RunOutcome {
  if (runs.length === 0 || runs.some((r) => r.outcome === 'error' || r.interrupted)) return 'error';
  return runs.some((r) => r.outcome === 'failed') ? 'failed' : 'passed';
}

/**
 * The session's JSON summary: `runs` holds every suite's final attempt, `earlierAttempts` the
 * attempts a retry replaced, `suites` the run ids of every attempt by suite, and the comparison or matrix section when
 * the session has one. The exit code is the session's. It holds the whole SessionReport: `merge` rebuilds it from here
 * (lib/report/parse-session.ts).
 */
export function renderSessionJson(s: SessionReport): string {
  const finals = s.suites.flatMap((x) => x.attempts.slice(-1));
  const doc = {
    ...summaryDoc(finals),
    earlierAttempts: s.suites.flatMap((x) => x.attempts.slice(0, -1)).map(runDoc),
    command: s.command,
    startedAt: Number.isFinite(s.startedAtMs) ? new Date(s.startedAtMs).toISOString() : null,
    exitCode: s.exitCode,
    interrupted: s.interrupted,
    durationMs: s.durationMs,
    suites: s.suites.map((x) => ({
      name: x.name,
      key: x.key,
      scenario: x.scenario,
      side: x.side ?? null,
      counts: x.counts,
      runIds: x.attempts.map((a) => a.runId),
      outcomes: x.attempts.map((a) => a.outcome),
      retried: x.attempts.length > 1,
      outcome: x.attempts.at(-1)?.outcome ?? 'not run',
      repeat: x.repeat ?? null,
      rerun: x.rerun,
    })),
    repeats: s.repeats,
    builds: s.builds.map((b) => ({
      spec: b.spec,
      path: b.path,
      sha256: b.sha256 ?? null,
      version: b.version ?? null,
      revision: b.revision ?? null,
      origin: b.origin,
    })),
    kept: s.kept,
    ...(s.comparison ? { comparison: comparisonDoc(s) } : {}),
    ...(s.matrix
      ? {
          matrix: {
            file: s.matrix.file,
            path: s.matrix.path,
            shard: s.matrix.shard,
            cellsInMatrix: s.matrix.cellsInMatrix,
          },
        }
      : {}),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function comparisonDoc(s: SessionReport): Record<string, unknown> {
  const c = s.comparison!;
  const side = (k: 'before' | 'after') => {
    const x = s.suites.find((y) => y.side === k);
    const r = x?.attempts.at(-1);
    return r
      ? {
          runId: r.runId,
          suiteName: x!.name,
          build: r.properties['nomad.binary'] ?? null,
          version: r.properties['nomad.build.version'] ?? null,
          outcome: r.outcome,
        }
      : null;
  };
  return {
    before: side('before'),
    after: side('after'),
    flipped: c.rows.filter((r) => r.flipped).map((r) => r.id),
    rows: c.rows.map((r) => ({
      id: r.id,
      title: r.title,
      before: r.before ?? null,
      after: r.after ?? null,
      flipped: r.flipped,
      explainedBy: r.explainedBy ?? null,
    })),
  };
}

function summaryDoc(runs: readonly RunRecord[]) {
  return {
    schema: SUMMARY_SCHEMA,
    outcome: overall(runs),
    exitCode: exitCodeOf(runs) as number,
    knownIssues: knownIssuesDoc(runs),
    runs: runs.map(runDoc),
  };
}

/**
 * The known-issue labels of the runs at a glance: failed checks by label (an expected failure a known issue explains
 * counts as known), the issues that reproduced, and every loud finding with its run.
 */
function knownIssuesDoc(runs: readonly RunRecord[]) {
  const labelled = runs.flatMap((r) => r.verdicts.flatMap((v) => (v.knownIssue ? [v.knownIssue] : [])));
  const count = (k: string) => labelled.filter((l) => l.kind === k).length;
  return {
    policy: policyOf(runs),
    known: count('known'),
    new: count('new'),
    regression: count('regression'),
    unknown: count('unknown'),
    issues: [...new Set(labelled.flatMap((l) => (l.kind === 'known' ? [l.issue!] : [])))],
    findings: findingsOf(runs),
  };
}

/** The runs' known-issue policy: theirs when they share one, `mixed` when merged runs ran under different ones. */
function policyOf(runs: readonly RunRecord[]): string | null {
  const policies = [...new Set(runs.flatMap((r) => (r.knownIssues ? [r.knownIssues.policy] : [])))];
  return policies.length > 1 ? 'mixed' : (policies[0] ?? null);
}

const iso = (ms: number): string | null => (Number.isFinite(ms) ? new Date(ms).toISOString() : null);

/** One run as the summary holds it: every field of its RunRecord (properties in the order the run recorded them). */
function runDoc(r: RunRecord) {
  return {
    runId: r.runId,
    scenario: r.scenario,
    suiteName: r.suiteName,
    outcome: r.outcome,
    interrupted: r.interrupted ?? false,
    hostname: r.hostname,
    startedAt: iso(r.startedAtMs),
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
      knownIssue: v.knownIssue ?? null,
    })),
    steps: r.steps.map((s) => ({
      name: s.name,
      id: s.id ?? null,
      status: s.status,
      startedAt: iso(s.startedAtMs),
      durationMs: s.durationMs,
      message: s.message ?? null,
      detail: s.detail ?? null,
      values: s.values ?? {},
    })),
    properties: r.properties,
    knownIssues: r.knownIssues ?? null,
    artifacts: r.artifacts.map((a) => ({ name: a.name, path: a.path, caseName: a.caseName ?? null })),
    // Note: old JSON records have no timeline; the reader treats it as empty.
    timeline: (r.timeline ?? []).map((e) => ({
      at: iso(e.atMs),
      lane: e.lane,
      label: e.label,
      detail: e.detail ?? null,
      severity: e.severity ?? null,
      // the machine a host-lane event happened on (an agent's log line, a reboot), and the end of what lasted
      ...(e.machine ? { machine: e.machine } : {}),
      ...(e.untilMs !== undefined ? { until: iso(e.untilMs) } : {}),
    })),
  };
}
