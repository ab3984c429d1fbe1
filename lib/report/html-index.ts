// The index page of a merge (or a session): the matrix as a table of verdicts, one row per cell, each linking its
// own HTML page; self-contained like the cell pages (inline CSS, no script). Pure.
import type { RunOutcome, RunRecord } from '../model/run.js';
import type { SessionReport } from '../model/session.js';
import { HTML_CSS } from './html-style.js';
import { esc, fileHref, SEVERITY_COLOR } from './html-text.js';
import { suiteCounts } from './junit.js';

/** Test counts of a suite (or of the whole index), as its JUnit suite declares them. */
interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

/** One row of the index: a suite (a matrix cell) with its verdict, axes and page. */
interface IndexCell extends Counts {
  name: string;
  runId: string | undefined;
  scenario: string;
  outcome: RunOutcome;
  interrupted: boolean;
  /** axis name -> value: the run's matrix.* properties, else the cell name's `<axis>=<value>` parts */
  axes: Record<string, string>;
  timeS: number;
  /** attempts this cell took (a retry after an infrastructure error makes 2) */
  attempts: number;
  shard: string | undefined;
  page: string | undefined;
  /** the report the suite came from */
  source: string;
  /** the issues its failed checks reproduce (known, fix lacking), in check order, each with its page */
  known: string[];
  /** each known issue's page (the row's url: a row of your own is no GitHub issue of Nomad) */
  knownUrls?: Record<string, string>;
  /** failed checks no row of the table explains (labelled `new`, as summary.json counts them) */
  newFailures: number;
  /** failed checks a row explains on a build that has its fix (labelled `regression`) */
  regressions?: number;
  /** the issues of failed checks on a build the table cannot place (labelled `unknown`), in check order */
  unknown?: string[];
  /** loud findings of the known-issue table on this cell */
  findings: number;
}

interface IndexReport {
  cells: IndexCell[];
  totals: Counts & { timeS: number };
  /** every axis seen, in order of first appearance */
  axes: string[];
  warnings: string[];
}

/** matrix.* properties that describe the run, not an axis. */
const NOT_AXES = new Set(['matrix.cell', 'matrix.attempt', 'matrix.shard']);

/** Axes from matrix.* properties, or from a cell name `<scenario>/<axis>=<value>/...`. */
function axesOf(props: Record<string, string>, name: string): Record<string, string> {
  const fromProps = Object.entries(props).filter(([k]) => k.startsWith('matrix.') && !NOT_AXES.has(k));
  if (fromProps.length) return Object.fromEntries(fromProps.map(([k, v]) => [k.slice('matrix.'.length), v]));
  const pairs = name
    .split('/')
    .slice(1)
    .map((p) => p.split('='));
  return Object.fromEntries(pairs.filter((kv) => kv.length === 2) as [string, string][]);
}

/** The index of a session: a row per suite that ran, with its page (when `pageFor` finds one) and its source. */
export function indexOf(
  s: SessionReport,
  o: { pageFor: (runId: string) => string | undefined; sourceOf: (suite: string) => string; warnings: string[] },
): IndexReport {
  const cells: IndexCell[] = s.suites.flatMap((x) => {
    const run = x.attempts.at(-1);
    if (!run) return [];
    return [
      {
        name: x.name,
        runId: run.runId,
        scenario: x.scenario,
        ...suiteCounts(run),
        outcome: run.outcome,
        interrupted: run.interrupted === true,
        axes: axesOf(run.properties, x.name),
        timeS: Number.isFinite(run.durationMs) && run.durationMs > 0 ? run.durationMs / 1000 : 0,
        attempts: x.attempts.length,
        shard: run.properties['matrix.shard'],
        page: o.pageFor(run.runId),
        source: o.sourceOf(x.name),
        ...knownOf(run),
      },
    ];
  });
  const sum = (k: keyof Counts | 'timeS'): number => cells.reduce((n, c) => n + c[k], 0);
  const totals = { tests: sum('tests'), failures: sum('failures'), errors: sum('errors'), skipped: sum('skipped') };
  const axes = [...new Set(cells.flatMap((c) => Object.keys(c.axes)))];
  return { cells, totals: { ...totals, timeS: sum('timeS') }, axes, warnings: o.warnings };
}

type KnownOf = Pick<IndexCell, 'known' | 'knownUrls' | 'newFailures' | 'regressions' | 'unknown' | 'findings'>;

/**
 * A run's known-issue column: the issues reproduced, the failures labelled new, regression and unknown, each counted
 * as summary.json counts them (an unknown label is a row's issue on a build the table cannot place, not a new
 * failure), the loud findings.
 */
function knownOf(run: RunRecord): KnownOf {
  const labels = run.verdicts.flatMap((v) => (v.status === 'failed' && v.knownIssue ? [v.knownIssue] : []));
  const issues = (kind: string) => [...new Set(labels.flatMap((l) => (l.kind === kind && l.issue ? [l.issue] : [])))];
  const urls = labels.flatMap((l) => (l.kind === 'known' && l.issue && l.url ? [[l.issue, l.url] as const] : []));
  return {
    known: issues('known'),
    knownUrls: Object.fromEntries(urls),
    newFailures: labels.filter((l) => l.kind === 'new').length,
    regressions: labels.filter((l) => l.kind === 'regression').length,
    unknown: issues('unknown'),
    findings: run.knownIssues?.findings.length ?? 0,
  };
}

const VERDICT: Record<IndexCell['outcome'], string> = { passed: 'PASS', failed: 'FAIL', error: 'ERROR' };
/** Outcome order for the counts line. */
const ORDER: IndexCell['outcome'][] = ['failed', 'error', 'passed'];

const INDEX_CSS = `
table.matrix td, table.matrix th { white-space: nowrap; }
table.matrix td.cell { white-space: normal; word-break: break-all; }
table.matrix tr.failed td.verdict { color: ${SEVERITY_COLOR.fail}; font-weight: 700; }
table.matrix tr.error td.verdict { color: #7c2d12; font-weight: 700; }
table.matrix tr.passed td.verdict { color: ${SEVERITY_COLOR.ok}; font-weight: 700; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
`;

function duration(s: number): string {
  const m = Math.floor(s / 60);
  return m ? `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${s.toFixed(1)}s`;
}

/** A known issue's page: its row's url, else Nomad's issue of that number. */
const issueHref = (c: IndexCell, i: string): string =>
  c.knownUrls?.[i] ?? `https://github.com/hashicorp/nomad/issues/${i.replace(/^GH-/, '')}`;

/** known/new: the issues reproduced (each linking its page), then what is not known, then the findings. */
function knownCell(c: IndexCell): string {
  const regressions = c.regressions ?? 0;
  const parts = [
    ...(c.known.length
      ? [`known: ${c.known.map((i) => `<a href="${esc(issueHref(c, i))}">${esc(i)}</a>`).join(', ')}`]
      : []),
    ...(c.newFailures ? [`<b>new: ${c.newFailures}</b>`] : []),
    ...(regressions ? [`<b>regression: ${regressions}</b>`] : []),
    ...(c.unknown?.length ? [`unknown: ${esc(c.unknown.map((i) => `${i}?`).join(', '))}`] : []),
    ...(c.findings ? [`<b>${c.findings} finding${c.findings > 1 ? 's' : ''}</b>`] : []),
  ];
  return parts.join('; ');
}

function row(c: IndexCell, axes: readonly string[]): string {
  const verdict = `${VERDICT[c.outcome]}${c.interrupted ? ' (interrupted)' : ''}`;
  const link = c.page
    ? `<a href="${esc(fileHref(c.page))}">${esc(c.name)}</a>`
    : `${esc(c.name)} <span class="note">(no page)</span>`;
  const cells = [
    `<td class="cell">${link}</td>`,
    ...axes.map((a) => `<td data-axis="${esc(a)}">${esc(c.axes[a] ?? '')}</td>`),
    `<td class="verdict">${verdict}</td>`,
    `<td class="n" data-key="new">${c.newFailures}</td>`,
    `<td data-key="known">${knownCell(c)}</td>`,
    ...[c.tests, c.failures, c.errors, c.skipped].map((n) => `<td class="n">${n}</td>`),
    `<td class="n">${c.attempts > 1 ? `${c.attempts} (retried)` : '1'}</td>`,
    `<td class="t">${duration(c.timeS)}</td>`,
    `<td class="mono">${esc(c.shard ?? '')}</td>`,
  ];
  return `<tr class="${c.outcome}" data-cell="${esc(c.name)}">${cells.join('')}</tr>`;
}

/**
 * On top: how many failures are new (in how many cells), on a build with the fix, of issues on a build the table cannot
 * place, which known issues reproduced, the loud findings.
 */
function knownSummary(report: IndexReport): string {
  const fresh = report.cells.filter((c) => c.newFailures);
  const n = fresh.reduce((k, c) => k + c.newFailures, 0);
  const known = [...new Set(report.cells.flatMap((c) => c.known))];
  const regressions = report.cells.reduce((k, c) => k + (c.regressions ?? 0), 0);
  const unknown = [...new Set(report.cells.flatMap((c) => c.unknown ?? []))];
  const findings = report.cells.reduce((k, c) => k + c.findings, 0);
  if (!n && !known.length && !findings && !regressions && !unknown.length) return '';
  const parts = [
    ...(n ? [`${n} new failure${n === 1 ? '' : 's'} in ${fresh.length} cell${fresh.length === 1 ? '' : 's'}`] : []),
    ...(regressions ? [`${regressions} failure${regressions === 1 ? '' : 's'} on a build that has the fix`] : []),
    ...(unknown.length ? [`on a build the table cannot place: ${unknown.join(', ')}`] : []),
    ...(known.length ? [`known issues reproduced: ${known.join(', ')}`] : []),
    ...(findings ? [`${findings} known-issue finding${findings === 1 ? '' : 's'} to look at`] : []),
  ];
  return `<p class="counts" id="known-issues">${esc(parts.join('; '))}</p>\n`;
}

/** Render the index: overall verdict, counts, the table of cells (failures first), sources and warnings. */
export function renderIndexHtml(report: IndexReport, o: { title?: string; generatedAt?: string } = {}): string {
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
  const rank = (c: IndexCell): number => ORDER.indexOf(c.outcome);
  const rows = [...report.cells].sort((a, b) => rank(a) - rank(b)).map((c) => row(c, report.axes));
  const head = [
    'cell',
    ...report.axes,
    'verdict',
    'new',
    'known / new',
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
${knownSummary(report)}<p class="counts" id="totals">${t.tests} tests, ${t.failures} failures, ${t.errors} errors, ${t.skipped} skipped</p>
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
