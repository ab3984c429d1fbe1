// Side-by-side comparison of one scenario run on two Nomad builds (release validation). Pure.
import { painter } from '../log/ansi.js';
import { checkCaseName } from './case-name.js';
import type { Verdict } from '../model/check.js';
import type { RunRecord } from '../model/run.js';
import type { ComparisonRow } from '../model/session.js';

const side = (v: Verdict | undefined): ComparisonRow['before'] =>
  v ? { label: v.label, met: v.met, message: v.message } : undefined;

/** Pair the verdicts of two runs by check id (after's order, then checks only the before run has) and mark flips. */
export function compareRuns(before: RunRecord, after: RunRecord): ComparisonRow[] {
  const ids = [...new Set([...after.verdicts.map((v) => v.id), ...before.verdicts.map((v) => v.id)])];
  return ids.map((id) => {
    const b = before.verdicts.find((v) => v.id === id);
    const a = after.verdicts.find((v) => v.id === id);
    const flipped = !a || !b || a.label !== b.label || a.met !== b.met;
    const explainedBy = flipped ? explainFlip(before, b, after, a) : undefined;
    return {
      id,
      title: (a ?? b)!.title,
      before: side(b),
      after: side(a),
      flipped,
      ...(explainedBy ? { explainedBy } : {}),
    };
  });
}

/**
 * The issue whose fix explains a flip: the side that failed has a known-issue label, and the other side's build has
 * that issue's fix while the failing side's lacks it. Nothing under `--known-issues off` (no labels).
 */
function explainFlip(
  before: RunRecord,
  b: Verdict | undefined,
  after: RunRecord,
  a: Verdict | undefined,
): ComparisonRow['explainedBy'] {
  const failedWith = (v: Verdict | undefined) => (v?.status === 'failed' ? v.knownIssue : undefined);
  const hasFix = (r: RunRecord, issue: string) => r.knownIssues?.fixes[issue]?.has;
  const lb = failedWith(b);
  if (lb?.kind === 'known' && a?.status === 'passed' && hasFix(after, lb.issue!) === 'yes')
    return { issue: lb.issue!, url: lb.url!, fixedIn: lb.fixedIn!, has: 'after' };
  const la = failedWith(a);
  if (la?.kind === 'known' && b?.status === 'passed' && hasFix(before, la.issue!) === 'yes')
    return { issue: la.issue!, url: la.url!, fixedIn: la.fixedIn!, has: 'before' };
  return undefined;
}

interface RenderComparisonOptions {
  color: boolean;
  /** column headers; default "before" / "after" */
  beforeName?: string;
  afterName?: string;
}

const FLIP = 'FLIPPED';

function cell(s: ComparisonRow['before']): string {
  return s ? s.label : '(not run)';
}

/** Render the rows as an aligned text table: check | before | after | flipped?, then a count of flips. */
export function renderComparison(rows: readonly ComparisonRow[], opts: RenderComparisonOptions): string {
  const { color, beforeName = 'before', afterName = 'after' } = opts;
  const paint = painter(color);
  const head = ['check', beforeName, afterName, 'flipped?'];
  const body = rows.map((r) => [checkCaseName(r), cell(r.before), cell(r.after), r.flipped ? FLIP : '']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const fmt = (cols: string[]): string =>
    cols
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const tint = (r: ComparisonRow, text: string, s: ComparisonRow['before']): string =>
    !s ? text : !s.met ? paint('red', text) : s.label === 'passed' ? paint('green', text) : paint('yellow', text);
  const lines = [paint('bold', fmt(head)), widths.map((w) => '-'.repeat(w)).join('  ')];
  rows.forEach((r, i) => {
    const cols = body[i]!.map((c, j) => c.padEnd(widths[j]!));
    cols[1] = tint(r, cols[1]!, r.before);
    cols[2] = tint(r, cols[2]!, r.after);
    if (r.flipped) cols[3] = paint('bold', cols[3]!);
    lines.push(cols.join('  ').trimEnd());
  });
  const n = rows.filter((r) => r.flipped).length;
  lines.push('', `${n} of ${rows.length} checks flipped between ${beforeName} and ${afterName}`);
  for (const r of rows.filter((x) => x.explainedBy)) {
    const e = r.explainedBy!;
    const who = e.has === 'after' ? afterName : beforeName;
    lines.push(`  ${r.id}: the fix of ${e.issue} explains the flip (${who} has it; fixed in ${e.fixedIn}) ${e.url}`);
  }
  return `${lines.join('\n')}\n`;
}
