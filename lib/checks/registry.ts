// The registry of shipped checks is the union of the shipped scenarios' lists (lib/cli/scenarios.ts builds it), so a
// check is registered by the one line that puts it in a scenario. Ids are unique across it (test/unit/check-registry.test.ts
// holds the rule): two objects under one id are two meanings for one name.
import type { CheckDef } from '../model/check.js';

/** Every check of `lists` once (the same object listed by two scenarios is one check), in first-listed order. */
export function registryOf(lists: readonly (readonly CheckDef[])[]): CheckDef[] {
  return [...new Set(lists.flat())];
}
