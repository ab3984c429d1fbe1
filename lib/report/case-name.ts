// The name of a check's test case, once: its human title, then its stable id ("Alloc restored (alloc-restored)"). JUnit
// names its <testcase> so, and the console, the HTML report and the comparison table show a check by the same words.
import type { Verdict } from '../model/check.js';

/** A check's case name: the title, then the stable id in parentheses. */
export function checkCaseName(v: Pick<Verdict, 'title' | 'id'>): string {
  return `${v.title} (${v.id})`;
}
