// Pure: which ids an expectation may name for a scenario's checks, and the old ids of renamed checks moved to the new
// ones. A renamed check keeps its old id working (`formerly`), with a warning that names the new id.
import type { CheckInfo, Expectation } from '../model/check.js';

/** The old ids of these checks (none of them an id a check of the list still has). */
export function formerIds(checks: readonly CheckInfo[]): string[] {
  const current = new Set(checks.map((c) => c.id));
  return [...new Set(checks.flatMap((c) => c.formerly ?? []))].filter((id) => !current.has(id));
}

/** Every id an expectation may name for these checks: their ids, then their old ids. */
export function expectableIds(checks: readonly CheckInfo[]): string[] {
  return [...checks.map((c) => c.id), ...formerIds(checks)];
}

/**
 * Per-check expectations under the checks' current ids: one given under an old id moves to its check's id (one given
 * under the new id as well wins), and each move is a warning naming both ids. Ids of no check are left as they are.
 */
export function withCurrentIds(
  perCheck: Readonly<Record<string, Expectation>>,
  checks: readonly CheckInfo[],
  scenario: string,
): { perCheck: Record<string, Expectation>; warnings: string[] } {
  const old = new Set(formerIds(checks));
  const out: Record<string, Expectation> = {};
  const warnings: string[] = [];
  for (const [id, exp] of Object.entries(perCheck)) {
    const now = old.has(id) ? checks.find((c) => c.formerly?.includes(id)) : undefined;
    if (!now) {
      out[id] = exp;
      continue;
    }
    warnings.push(
      `expectation ${id}=${exp} (scenario ${scenario}): the check ${id} is now ${now.id}; the old id is deprecated, write ${now.id}=${exp}`,
    );
    if (!Object.hasOwn(perCheck, now.id)) out[now.id] = exp;
  }
  return { perCheck: out, warnings };
}
