// How a scenario declares a check: one object (id, title, what passing means, the pure function that judges).
import type { CheckInfo } from '../run/scenario.js';
import type { CheckResult, CheckStatus } from '../model/check.js';
import { oneLine } from '../checks/result.js';

/** What a check's judge returns: passed, failed or skipped, why (one line) and the lines a reader sees as evidence. */
export interface Judgement {
  status: CheckStatus;
  message: string;
  evidence?: string[];
}

/** One check: its report identity plus a pure function from the scenario's evidence to a judgement. */
export interface CheckDef<E> extends CheckInfo {
  judge(evidence: E): Judgement;
}

/** Identity helper that types a check over evidence `E`. */
export function defineCheck<E>(check: CheckDef<E>): CheckDef<E> {
  return check;
}

/** Judge every check over the same evidence, in declaration order; a judge that throws fails its check, saying so. */
export function judgeAll<E>(checks: readonly CheckDef<E>[], evidence: E): CheckResult[] {
  return checks.map((c) => {
    try {
      const j = c.judge(evidence);
      const message = oneLine(j.message);
      return { id: c.id, title: c.title, status: j.status, message, evidence: j.evidence ?? [] };
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      const message = oneLine(`the check itself threw: ${why}`);
      return { id: c.id, title: c.title, status: 'failed', message, evidence: [] };
    }
  });
}

/**
 * Hold a scenario's results to its declared checks (pure): a declared check without a result fails (a silent gap
 * would read as "not run"), and a result for an undeclared id fails too, since the reports name cases from the list.
 */
export function reconcileResults(declared: readonly CheckInfo[], results: readonly CheckResult[]): CheckResult[] {
  const ids = new Set(declared.map((c) => c.id));
  const out: CheckResult[] = declared.map((c) => results.find((r) => r.id === c.id) ?? {
    id: c.id, title: c.title, status: 'failed', evidence: [],
    message: 'the scenario returned no result for this declared check',
  });
  for (const r of results.filter((x) => !ids.has(x.id))) {
    const message = oneLine(`not declared in the scenario's checks (was ${r.status}: ${r.message})`);
    out.push({ ...r, status: 'failed', message });
  }
  return out;
}
