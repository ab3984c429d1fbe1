// The index page of a merge (or a session): the matrix as a table of verdicts, one row per cell, each linking its
// own HTML page; self-contained like the cell pages (inline CSS, no script). Pure.
import type { MergedCell, MergedReport } from './merge.js';
import { HTML_CSS } from './html-style.js';
import { esc, fileHref } from './html-text.js';

const VERDICT: Record<MergedCell['outcome'], string> = { passed: 'PASS', failed: 'FAIL', error: 'ERROR' };
/** Outcome order for the counts line. */
const ORDER: MergedCell['outcome'][] = ['failed', 'error', 'passed'];

const INDEX_CSS = `
table.matrix td, table.matrix th { white-space: nowrap; }
table.matrix td.cell { white-space: normal; word-break: break-all; }
table.matrix tr.failed td.verdict { color: #b91c1c; font-weight: 700; }
table.matrix tr.error td.verdict { color: #7c2d12; font-weight: 700; }
table.matrix tr.passed td.verdict { color: #15803d; font-weight: 700; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
`;

function duration(s: number): string {
  const m = Math.floor(s / 60);
  return m ? `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${s.toFixed(1)}s`;
}

function row(c: MergedCell, axes: readonly string[]): string {
  const verdict = `${VERDICT[c.outcome]}${c.interrupted ? ' (interrupted)' : ''}`;
  const link = c.page
    ? `<a href="${esc(fileHref(c.page))}">${esc(c.name)}</a>`
    : `${esc(c.name)} <span class="note">(no page)</span>`;
  const cells = [
    `<td class="cell">${link}</td>`,
    ...axes.map((a) => `<td data-axis="${esc(a)}">${esc(c.axes[a] ?? '')}</td>`),
    `<td class="verdict">${verdict}</td>`,
    ...[c.tests, c.failures, c.errors, c.skipped].map((n) => `<td class="n">${n}</td>`),
    `<td class="n">${c.attempts > 1 ? `${c.attempts} (retried)` : '1'}</td>`,
    `<td class="t">${duration(c.timeS)}</td>`,
    `<td class="mono">${esc(c.shard ?? '')}</td>`,
  ];
  return `<tr class="${c.outcome}" data-cell="${esc(c.name)}">${cells.join('')}</tr>`;
}

/** Render the index: overall verdict, counts, the table of cells (failures first), sources and warnings. */
export function renderIndexHtml(report: MergedReport, o: { title?: string; generatedAt?: string } = {}): string {
  const { title = 'nomad-reboot-harness: merged matrix', generatedAt } = o;
  const overall = report.cells.some((c) => c.outcome === 'error' || c.interrupted)
    ? 'error'
    : report.cells.some((c) => c.outcome === 'failed')
      ? 'failed'
      : report.cells.length
        ? 'passed'
        : 'error';
  const byOutcome = ORDER.map((k) => [k, report.cells.filter((c) => c.outcome === k).length] as const).filter(
    ([, n]) => n,
  );
  const rank = (c: MergedCell): number => ORDER.indexOf(c.outcome);
  const rows = [...report.cells].sort((a, b) => rank(a) - rank(b)).map((c) => row(c, report.axes));
  const head = [
    'cell',
    ...report.axes,
    'verdict',
    'tests',
    'failures',
    'errors',
    'skipped',
    'attempts',
    'time',
    'shard',
  ];
  const t = report.totals;
  const sources = [...new Set(report.cells.map((c) => c.source))];
  const outcomes = byOutcome.map(([k, n]) => `${n} ${k}`).join(', ') || 'none';
  const items = (xs: readonly string[]): string => xs.map((x) => `<li>${esc(x)}</li>`).join('');
  const warnings = report.warnings.length
    ? `<h2>Warnings</h2>\n<ul class="evidence" id="warnings">${items(report.warnings)}</ul>`
    : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${VERDICT[overall]} ${esc(title)} (${report.cells.length} cells)</title>
<style>${HTML_CSS}${INDEX_CSS}</style>
</head>
<body>
<h1><span class="badge ${overall}" id="verdict">${VERDICT[overall]}</span> ${esc(title)}</h1>
<p class="sub">${report.cells.length} cells: ${outcomes}${generatedAt ? `; merged ${esc(generatedAt)}` : ''}</p>
<p class="counts" id="totals">${t.tests} tests, ${t.failures} failures, ${t.errors} errors, ${t.skipped} skipped</p>
<table class="matrix" id="matrix">
<thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
<h2>Sources</h2>
<ul class="evidence">${items(sources)}</ul>
${warnings}
</body>
</html>
`;
}
