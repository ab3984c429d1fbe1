// The registry of shipped checks is the union of the shipped scenarios' lists (lib/cli/scenarios.ts builds it), so a
// check is registered by the one line that puts it in a scenario. Ids are unique across it (registryProblems): two
// objects under one id are two meanings for one name.
import type { CheckDef, CheckInfo } from '../model/check.js';

/** Every check of `lists` once (the same object listed by two scenarios is one check), in first-listed order. */
export function registryOf(lists: readonly (readonly CheckDef[])[]): CheckDef[] {
  return [...new Set(lists.flat())];
}

/**
 * What is wrong with a list of checks as a registry: an id given twice (two meanings for one name), or an old id
 * (`formerly`) claimed by two checks or equal to the check's own id.
 */
export function registryProblems(checks: readonly CheckInfo[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const c of checks) {
    if (seen.has(c.id)) out.push(`check id ${c.id} is defined twice`);
    seen.add(c.id);
  }
  const former = new Map<string, string>();
  for (const c of checks) {
    for (const old of c.formerly ?? []) {
      if (old === c.id) out.push(`check ${c.id} lists its own id as a former one`);
      else if (former.has(old)) out.push(`former id ${old} is claimed by ${former.get(old)} and ${c.id}`);
      else former.set(old, c.id);
    }
  }
  return out;
}
