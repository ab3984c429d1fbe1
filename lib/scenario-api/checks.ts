// How a scenario declares a check: the same one object as a shipped check (lib/model/check.ts CheckDef, made with
// defineCheck), judged by the same judgeAll; and a user scenario's results held to the checks it declared.
import type { CheckInfo, CheckResult } from '../model/check.js';
import { oneLine } from '../checks/result.js';

/**
 * Hold a scenario's results to its declared checks (pure): a declared check without a result fails (a silent gap
 * would read as "not run"), and a result for an undeclared id fails too, since the reports name cases from the list.
 */
export function reconcileResults(declared: readonly CheckInfo[], results: readonly CheckResult[]): CheckResult[] {
  const ids = new Set(declared.map((c) => c.id));
  const out: CheckResult[] = declared.map(
    (c) =>
      results.find((r) => r.id === c.id) ?? {
        id: c.id,
        title: c.title,
        status: 'failed',
        evidence: [],
        message: 'the scenario returned no result for this declared check',
      },
  );
  for (const r of results.filter((x) => !ids.has(x.id))) {
    const message = oneLine(`not declared in the scenario's checks (was ${r.status}: ${r.message})`);
    out.push({ ...r, status: 'failed', message });
  }
  return out;
}
