// One mistake in a matrix's defaults or axes repeats in every cell it reaches: the same problem said once, naming how
// many cells it is in and a few of them, instead of once per cell (300 identical lines for one docker box). Pure.
import type { ConfigProblem } from '../errors.js';

const CELL = /^cell (\S+): (.*)$/s;
/** Cells named in a grouped problem's field; the count says the rest. */
const NAMED = 2;

/** Problems with identical text apart from their cell, grouped in first-seen order; others as they are. */
export function groupCellProblems(problems: readonly ConfigProblem[]): ConfigProblem[] {
  const groups = new Map<string, { first: number; cells: string[]; p: ConfigProblem; field: string }>();
  const out: (ConfigProblem | string)[] = [];
  for (const p of problems) {
    const m = CELL.exec(p.field);
    if (!m) {
      out.push(p);
      continue;
    }
    const [, cell, field] = m as unknown as [string, string, string];
    const key = JSON.stringify([field, p.value, p.message, p.fix]);
    const g = groups.get(key);
    if (g) g.cells.push(cell);
    else {
      groups.set(key, { first: out.length, cells: [cell], p, field });
      out.push(key);
    }
  }
  return out.map((x) => {
    if (typeof x !== 'string') return x;
    const g = groups.get(x)!;
    if (g.cells.length === 1) return g.p;
    const named = g.cells.slice(0, NAMED).join(', ');
    const more = g.cells.length > NAMED ? ` and ${g.cells.length - NAMED} more` : '';
    return { ...g.p, field: `${g.cells.length} cells (${named}${more}): ${g.field}` };
  });
}
