// Pure: the per-alloc table of the HTML report: one row per judged alloc, one column per check that reports per alloc,
// each cell the alloc's status in that check with its one-line detail; the last column is the alloc's outcome (in a
// cluster run: restored, migrated, replaced, with its machine before and after). In a cluster run two columns name
// each alloc's machine before the fault and the one its place runs on after it.
import type { AllocDetail, Verdict } from '../model/check.js';
import { esc, SEVERITY_COLOR } from './html-text.js';
import { ALLOC_RESTORED } from '../checks/alloc-restored.js';
import { ALLOCS_FOLLOWED } from '../checks/allocs-followed.js';

/** The checks whose per-alloc detail is the alloc's outcome (a cluster run's names its machine before and after). */
const OUTCOME_CHECKS = new Set([ALLOC_RESTORED.id, ALLOCS_FOLLOWED.id]);

const MARK: Record<AllocDetail['status'], { word: string; cls: string }> = {
  passed: { word: 'ok', cls: 'ok' },
  failed: { word: 'FAIL', cls: 'fail' },
  skipped: { word: 'skip', cls: 'info' },
};

/** One row of the table: an alloc by ID and name. */
interface AllocRow {
  allocId: string;
  name: string;
}

/** The checks that carry per-alloc detail, and every alloc they name (first seen order), for the table. */
function allocRows(verdicts: readonly Verdict[]): { checks: Verdict[]; allocs: AllocRow[] } {
  const checks = verdicts.filter((v) => v.perAlloc?.length);
  const seen = new Map<string, string>();
  for (const v of checks) for (const p of v.perAlloc!) if (!seen.has(p.allocId)) seen.set(p.allocId, p.name);
  const byName = (a: AllocRow, b: AllocRow): number => a.name.localeCompare(b.name, 'en', { numeric: true });
  const allocs = [...seen].map(([allocId, name]) => ({ allocId, name })).sort(byName);
  return { checks, allocs };
}

/** The alloc's machine before and after, as the first check that names them says ("—" when none does). */
function nodeCells(checks: readonly Verdict[], allocId: string): string {
  const p = checks
    .flatMap((v) => v.perAlloc!.filter((x) => x.allocId === allocId))
    .find((x) => x.nodeBefore !== undefined);
  const cell = (v: string | undefined) => `<td class="t">${esc(v ?? '—')}</td>`;
  return cell(p?.nodeBefore) + cell(p?.nodeAfter);
}

/** The table as an HTML section ("" when no check reported per alloc); every text is escaped. */
export function renderAllocTable(verdicts: readonly Verdict[]): string {
  const { checks, allocs } = allocRows(verdicts);
  if (!checks.length) return '';
  const outcome = checks.find((v) => OUTCOME_CHECKS.has(v.id));
  const columns = checks.map((v) => `<th title="${esc(v.title)}"><code>${esc(v.id)}</code></th>`).join('');
  const nodes = checks.some((v) => v.perAlloc!.some((p) => p.nodeBefore !== undefined));
  const head = `<tr><th>alloc</th>${nodes ? '<th>node before</th><th>node after</th>' : ''}${columns}<th>outcome</th></tr>`;
  const rows = allocs.map((a) => {
    const cells = checks.map((v) => {
      const p = v.perAlloc!.find((x) => x.allocId === a.allocId);
      if (!p) return '<td class="t">—</td>';
      const m = MARK[p.status];
      const data = `data-check="${esc(v.id)}" data-status="${esc(p.status)}" title="${esc(p.detail)}"`;
      return `<td class="t cell-${m.cls}" ${data}>${esc(m.word)}</td>`;
    });
    const o = outcome?.perAlloc?.find((x) => x.allocId === a.allocId)?.detail ?? '';
    const who = `<td class="t">${esc(a.name || '(unnamed)')}<br><code>${esc(a.allocId.slice(0, 8))}</code></td>`;
    const where = nodes ? nodeCells(checks, a.allocId) : '';
    return `<tr data-alloc="${esc(a.allocId)}">${who}${where}${cells.join('')}<td class="detail">${esc(o)}</td></tr>`;
  });
  const style =
    `<style>#allocs td.cell-ok { color: ${SEVERITY_COLOR.ok}; } #allocs td.cell-fail { color: ${SEVERITY_COLOR.fail}; font-weight: 700; }` +
    ` #allocs td.cell-info { color: ${SEVERITY_COLOR.info}; }</style>`;
  const title = `<h2>Allocs <span class="meta">${allocs.length} judged; hover a cell for its detail</span></h2>`;
  return `<section id="allocs-section">${title}${style}
<table id="allocs"><thead>${head}</thead><tbody>${rows.join('\n')}</tbody></table></section>`;
}
