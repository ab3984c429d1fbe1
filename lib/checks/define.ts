// Pure: how a check is defined and run. A check is one object (lib/model/check.ts CheckDef); running it stamps its id
// and title on its judge's judgement, and running a list also applies the list's own rules (`explains`).
import type { CheckDef, CheckInfo, CheckResult, Judgement } from '../model/check.js';
import { judgement, judgementOf, oneLine } from './result.js';

/** Identity helper that types a check over the evidence `E` of the scenario that lists it. */
export function defineCheck<E>(check: CheckDef<E>): CheckDef<E> {
  return check;
}

/**
 * A check whose rule is written as a function returning its whole result (the whole-alloc checks: their tests and the
 * per-task helpers work on results); the check object judges with it.
 */
export function resultCheck<E>(info: CheckInfo, check: (evidence: E) => CheckResult): CheckDef<E> {
  return { ...info, judge: (e) => judgementOf(check(e)) };
}

/**
 * A judge that needs one part of the evidence: skipped with `reason` (made from the evidence where it names what was
 * seen) when `part` finds none, else `judge` of it.
 */
export const needing =
  <E, P>(part: (evidence: E) => P | undefined, reason: string | ((evidence: E) => string)) =>
  (judge: (p: P, evidence: E) => Judgement) =>
  (evidence: E): Judgement => {
    const p = part(evidence);
    if (p !== undefined) return judge(p, evidence);
    return judgement('skipped', typeof reason === 'string' ? reason : reason(evidence), []);
  };

/** One check over the evidence; a judge that throws fails its own check, saying so. */
export function judgeCheck<E>(check: CheckDef<E>, evidence: E): CheckResult {
  const { id, title } = check;
  try {
    const j = check.judge(evidence);
    const out: CheckResult = { id, title, status: j.status, message: oneLine(j.message), evidence: j.evidence ?? [] };
    return j.perAlloc ? { ...out, perAlloc: j.perAlloc } : out;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { id, title, status: 'failed', message: oneLine(`the check itself threw: ${why}`), evidence: [] };
  }
}

/** Every check over the same evidence, in the list's order, with the failures a failed check explains linked to it. */
export function judgeAll<E>(checks: readonly CheckDef<E>[], evidence: E): CheckResult[] {
  return linkExplained(
    checks,
    checks.map((c) => judgeCheck(c, evidence)),
    evidence,
  );
}

/**
 * Mark each failed result that a failed check's `explains` rule claims as that check's consequence (`causedBy`).
 * A result keeps the first cause that claims it, in the list's order; checks not in the list are left alone.
 */
function linkExplained<E>(checks: readonly CheckDef<E>[], results: readonly CheckResult[], evidence: E): CheckResult[] {
  const out = [...results];
  for (const cause of checks) {
    const own = out.find((r) => r.id === cause.id);
    if (own?.status !== 'failed') continue;
    for (const rule of cause.explains ?? []) {
      const ids = new Set(rule.checks.map((c) => c.id));
      out.forEach((r, i) => {
        if (ids.has(r.id) && r.status === 'failed' && !r.causedBy && rule.when(evidence, r))
          out[i] = { ...r, causedBy: cause.id };
      });
    }
  }
  return out;
}
