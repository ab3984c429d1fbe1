// The tests' lists of check ids, read from the shipped scenarios' own lists (the registry's objects), so a test never
// keeps a copy that drifts from what the scenario judges.
import { SCENARIOS } from '../../lib/cli/scenarios.js';
import type { CheckInfo } from '../../lib/model/check.js';

/** The ids of these checks, in their order. */
export const idsOf = (checks: readonly CheckInfo[]): string[] => checks.map((c) => c.id);

/** The ids of a shipped scenario's checks in report order, but `except`; throws for a scenario that is not shipped. */
export function checkIds(scenario: string, except: readonly CheckInfo[] = []): string[] {
  const s = SCENARIOS.find((x) => x.name === scenario);
  if (!s) throw new Error(`no shipped scenario ${scenario}`);
  const left = new Set(except.map((c) => c.id));
  return idsOf(s.checks).filter((id) => !left.has(id));
}
