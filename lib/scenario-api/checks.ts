// How a scenario declares a check: the same one object as a shipped check (lib/model/check.ts CheckDef, made with
// defineCheck), judged by the same judgeAll; and a user scenario's results held to the checks it declared.
import type { CheckInfo, CheckResult } from '../model/check.js';
import { oneLine } from '../checks/result.js';
import { valueShape } from '../log/shape.js';

/**
 * Hold a scenario's results to its declared checks (pure): a declared check without a result fails (a silent gap
 * would read as "not run"), and a result for an undeclared id fails too, since the reports name cases from the list.
 * `results` is what run() returned, held to CheckResult's shape first (see `shaped`): a list is required.
 */
export function reconcileResults(declared: readonly CheckInfo[], returned: unknown): CheckResult[] {
  if (!Array.isArray(returned))
    throw new Error(
      `run() returned ${returned === null ? 'null' : typeof returned}, not the list of its check results (return judgeAll(CHECKS, evidence))`,
    );
  const results = returned.map(shaped);
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

const STATUSES: readonly unknown[] = ['passed', 'failed', 'skipped'];

/**
 * One result as a user's run() returned it, in CheckResult's shape: every report reads `status`, `message` and
 * `evidence` of each (a status the reports have no mark for, or evidence that is no list, ended the console in a
 * TypeError with exit 70 and no JUnit). A result that is not one fails, saying what was wrong with it.
 */
function shaped(r: unknown, i: number): CheckResult {
  const o = (r !== null && typeof r === 'object' ? r : {}) as Record<string, unknown>;
  const id = typeof o['id'] === 'string' && o['id'] !== '' ? o['id'] : `result[${i}]`;
  // an object as the message would print as "[object Object]": it fails the check, named by its shape
  const odd = typeof o['message'] === 'object' && o['message'] !== null;
  const message = typeof o['message'] === 'string' ? o['message'] : odd ? '' : String(o['message'] ?? '');
  const evidence = Array.isArray(o['evidence']) ? o['evidence'].map(String) : [];
  const wrong = [
    ...(r === null || typeof r !== 'object' ? [`a result that is no object (${JSON.stringify(r) ?? String(r)})`] : []),
    ...(typeof o['id'] === 'string' && o['id'] !== '' ? [] : ['no id']),
    ...(STATUSES.includes(o['status'])
      ? []
      : [`status ${JSON.stringify(o['status']) ?? 'undefined'} (passed, failed or skipped)`]),
    ...(o['evidence'] === undefined || Array.isArray(o['evidence']) ? [] : ['evidence that is no list of lines']),
    ...(odd ? [`a message that is no text (${valueShape(o['message'])})`] : []),
  ];
  return {
    ...(o as Partial<CheckResult>),
    id,
    title: typeof o['title'] === 'string' ? o['title'] : id,
    status: wrong.length ? 'failed' : (o['status'] as CheckResult['status']),
    message: wrong.length
      ? oneLine(`the scenario returned ${wrong.join(', ')}${message ? `: ${message}` : ''}`)
      : message,
    evidence,
    ...(Array.isArray(o['perAlloc']) || o['perAlloc'] === undefined ? {} : { perAlloc: undefined }),
  } as CheckResult;
}
