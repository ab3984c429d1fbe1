// Pure: one run as a self-contained HTML page (inline CSS and SVG, no scripts, no external resources):
// verdict header, checks with failures first, the timeline around the reboot, the events table, artifacts.
import { checkCaseName } from './case-name.js';
import type { KnownIssueLabel } from '../model/known-issue.js';
import { labelText } from '../known-issues/label.js';
import type { Verdict } from '../model/check.js';
import { formatMs } from '../errors.js';
import { renderTimeline } from './html-timeline.js';
import { renderAllocTable } from './html-allocs.js';
import { HTML_CSS } from './html-style.js';
import {
  clockTime,
  esc,
  fileHref,
  isoTime,
  relTime,
  VERDICT_MARK,
  verdictSeverity,
  type Severity,
} from './html-text.js';
import type { ArtifactRef, RunRecord, TimelineEvent } from '../model/run.js';
import type { FlakeVerdict } from '../model/session.js';
import { countVerdicts } from './outcome.js';
import { AGENT_LINE_LABEL } from '../checks/agent-warnings.js';

interface RenderHtmlOptions {
  /** the link for an artifact, relative to where the page is written; default: the artifact's path as recorded */
  hrefFor?: (a: ArtifactRef) => string;
  /** run --repeat N: this run is attempt `attempt` of `of`, and how the attempts were judged together */
  repeat?: { attempt: number; of: number; flake: FlakeVerdict | undefined };
}

const WORD = { passed: 'PASS', failed: 'FAIL', error: 'ERROR' } as const;

/** Facts shown in the header, first key present wins; everything else is in the properties table. */
const KEY_FACTS: readonly [string, ...string[]][] = [
  ['Nomad version', 'nomad.version'],
  ['reboot', 'reboot.kind'],
  ['host down for', 'reboot.downtimeMs'],
  ['boot_id before', 'bootId.before', 'client.boot_id.before', 'client-1.boot_id.before'],
  ['boot_id after', 'bootId.after', 'client.boot_id.after', 'client-1.boot_id.after'],
  ['alloc', 'alloc.id'],
  ['alloc outcome', 'alloc.outcome'],
  ['alloc address before', 'alloc.address.before'],
  ['alloc address after', 'alloc.address.after'],
  ['CNI state dir before', 'cni.stateDir.before'],
  ['CNI state dir after', 'cni.stateDir.after'],
  ['CNI bridge plugin', 'cni.bridge.version'],
  ['warm lab', 'lab.warm'],
  ['snapshot key', 'lab.snapshot.key'],
  ['snapshot age (s)', 'lab.snapshot.age_s'],
];

/** The header's single-alloc facts, replaced by a summary when the run watched several allocs. */
const ONE_ALLOC_KEYS = new Set(['alloc.id', 'alloc.outcome', 'alloc.address.before', 'alloc.address.after']);

/** "name=value name=value" (allocs.outcomes, allocs.addresses) as the values. */
const perAllocValues = (v: string): string[] =>
  v
    .split(' ')
    .filter((x) => x.includes('='))
    .map((x) => x.slice(x.lastIndexOf('=') + 1));

/**
 * Every alloc in two lines: how many ended in each outcome, how many addresses changed ("3: 2 restored, 1 replaced";
 * "1 of 3 changed"); the per-alloc table has the rest.
 */
function allocSummaryFacts(props: Readonly<Record<string, string>>): [label: string, key: string, v: string][] {
  const out: [string, string, string][] = [];
  const outcomes = perAllocValues(props['allocs.outcomes'] ?? '');
  const count = Number(props['allocs.count'] ?? outcomes.length);
  if (outcomes.length) {
    const byOutcome = new Map<string, number>();
    for (const o of outcomes) byOutcome.set(o, (byOutcome.get(o) ?? 0) + 1);
    const parts = [...byOutcome].map(([o, k]) => `${k} ${o}`).join(', ');
    out.push(['allocs', 'allocs.outcomes', `${count}: ${parts}`]);
  }
  const moves = perAllocValues(props['allocs.addresses'] ?? '').map((x) => x.split('->'));
  if (moves.length) {
    const unknown = moves.filter(([b, a]) => b === '?' || a === '?' || a === undefined).length;
    const changed = moves.filter(([b, a]) => b !== '?' && a !== '?' && a !== undefined && a !== b).length;
    const what = `${changed ? `${changed} of ${moves.length}` : `none of ${moves.length}`} changed`;
    out.push(['alloc addresses', 'allocs.addresses', `${what}${unknown ? `, ${unknown} not known` : ''}`]);
  }
  return out;
}

function header(run: RunRecord): string {
  const n = countVerdicts(run.verdicts);
  const several = Number(run.properties['allocs.count'] ?? 1) > 1;
  const fact = (label: string, key: string, v: string): string =>
    `<dt>${esc(label)}</dt><dd data-key="${esc(key)}">${esc(v)}</dd>`;
  const summary = several ? allocSummaryFacts(run.properties).map(([l, k, v]) => fact(l, k, v)) : [];
  const facts = KEY_FACTS.flatMap(([label, ...keys]) => {
    if (several && ONE_ALLOC_KEYS.has(keys[0]!)) return keys[0] === 'alloc.id' ? summary : [];
    const key = keys.find((k) => run.properties[k] !== undefined);
    if (key === undefined) return [];
    const v = run.properties[key]!;
    return [fact(label, key, key === 'reboot.downtimeMs' && /^\d+$/.test(v) ? formatMs(Number(v)) : v)];
  });
  return `<header><h1><span class="badge ${esc(run.outcome)}" id="verdict">${WORD[run.outcome]}</span> <span>${esc(run.suiteName)}</span></h1>
<p class="sub">scenario <b>${esc(run.scenario)}</b> · run <code>${esc(run.runId)}</code> · host ${esc(run.hostname)} · started ${esc(isoTime(run.startedAtMs))} · took ${esc(formatMs(run.durationMs))}${run.interrupted ? ' · <b>interrupted</b>' : ''}</p>
<p class="counts">${n.total} checks: ${n.failed} failed, ${n.passed} passed, ${n.expectedFailures} expected failures, ${n.skipped} skipped</p>
${facts.length ? `<dl class="facts">${facts.join('')}</dl>` : ''}</header>`;
}

function artifactsFor(run: RunRecord, v: Verdict, href: (a: ArtifactRef) => string): string {
  const mine = run.artifacts.filter(
    (a) => a.caseName !== undefined && [v.id, v.title, checkCaseName(v)].includes(a.caseName),
  );
  return mine.length
    ? `<p class="meta">artifacts: ${mine.map((a) => `<a href="${esc(href(a))}">${esc(a.name)}</a>`).join(', ')}</p>`
    : '';
}

function verdictBlock(run: RunRecord, v: Verdict, href: (a: ArtifactRef) => string): string {
  const sev = verdictSeverity(v);
  const meta = [
    `expected to ${v.expected}`,
    `observed: ${v.status}`,
    ...(v.causedBy ? [`caused by: ${v.causedBy}`] : []),
  ].join(' · ');
  const evidence = v.evidence.length
    ? `<ul class="evidence">${v.evidence.map((e) => `<li>${esc(e)}</li>`).join('')}</ul>`
    : '<p class="note">no evidence recorded</p>';
  return `<details class="check ${sev}" data-check="${esc(v.id)}" data-label="${esc(v.label)}">
<summary><span class="tag ${sev}">${esc(VERDICT_MARK[v.label])}</span> <b>${esc(v.title)}</b> <code>${esc(v.id)}</code>${knownIssueBadge(v.knownIssue)} — <span class="msg">${esc(v.message)}</span></summary>
<p class="meta">${esc(`${v.label} · ${meta}`)}</p>${evidence}${artifactsFor(run, v, href)}</details>`;
}

/** A failed check's public issue as a badge linking to it ("known: GH-28345 (fixed in 2.0.5)"), or "new". */
function knownIssueBadge(l: KnownIssueLabel | undefined): string {
  if (!l) return '';
  const text = esc(labelText(l));
  const inner = l.url ? `<a href="${esc(l.url)}">${text}</a>` : text;
  return ` <span class="known ${esc(l.kind)}" data-known-issue="${esc(l.issue ?? 'new')}">${inner}</span>`;
}

/** The loud findings of the known-issue table on this run, on top of its checks. */
function findingBlocks(run: RunRecord): string[] {
  return (run.knownIssues?.findings ?? []).map(
    (f) =>
      `<div class="error-box" data-finding="${esc(f.kind)}"><span class="tag fail">${f.kind === 'fix-regressed' ? 'FIX REGRESSED' : 'NOT REPRODUCED'}</span> <a href="${esc(f.url)}">${esc(f.issue)}</a>: ${esc(f.message)} (build ${esc(f.build)})</div>`,
  );
}

function errorBlocks(run: RunRecord): string[] {
  const out: string[] = [];
  const detail = (d: string | undefined): string =>
    d ? `<details><summary>detail</summary><pre>${esc(d)}</pre></details>` : '';
  if (run.error)
    out.push(
      `<div class="error-box" data-error="run"><span class="tag fail">ERROR</span> ${run.error.step ? `in step “${esc(run.error.step)}”: ` : ''}${esc(run.error.message)}${detail(run.error.detail)}</div>`,
    );
  if (run.interrupted)
    out.push(
      '<div class="error-box" data-error="interrupted"><span class="tag fail">ERROR</span> the run was interrupted (SIGINT/SIGTERM)</div>',
    );
  for (const s of run.steps) {
    if (s.status !== 'error' && s.status !== 'failed') continue;
    if (s.status === 'error' && run.error?.step === s.name) continue; // said above
    out.push(
      `<div class="error-box" data-error="step"><span class="tag fail">${esc(s.status.toUpperCase())}</span> step “${esc(s.name)}”${s.message ? `: ${esc(s.message)}` : ''}${detail(s.detail)}</div>`,
    );
  }
  return out;
}

function checks(run: RunRecord, href: (a: ArtifactRef) => string): string {
  const unmet = run.verdicts.filter((v) => !v.met).map((v) => verdictBlock(run, v, href));
  const rest = run.verdicts.filter((v) => v.met).map((v) => verdictBlock(run, v, href));
  const none = run.verdicts.length ? [] : ['<p class="note">No checks ran.</p>'];
  const body = [...findingBlocks(run), ...unmet, ...errorBlocks(run), ...rest, ...none];
  return `<section id="checks"><h2>Checks <span class="meta">failures first; open one for its evidence</span></h2>${body.join('\n')}</section>`;
}

interface Row {
  atMs: number;
  lane: string;
  label: string;
  detail: string;
  sev: Severity;
}

/** Timeline events and step starts as rows, in time order (events at the same time keep their recorded order). */
function eventRows(run: RunRecord, events: readonly TimelineEvent[]): Row[] {
  const rows: Row[] = events.map((e) => ({
    atMs: e.atMs,
    lane: e.lane === 'step' ? 'steps' : e.machine ? `${e.lane} ${e.machine}` : e.lane,
    label: e.label,
    detail: e.detail ?? '',
    sev: e.severity ?? 'info',
  }));
  for (const s of run.steps) {
    // Note: a passed step is not news in the table; only failed steps stand out.
    const sev: Severity = s.status === 'passed' || s.status === 'skipped' ? 'info' : 'fail';
    rows.push({
      atMs: s.startedAtMs,
      lane: 'steps',
      label: s.name,
      detail: `${s.status} in ${formatMs(s.durationMs)}${s.message ? `: ${s.message}` : ''}`,
      sev,
    });
  }
  return rows.sort((a, b) => a.atMs - b.atMs);
}

function table(run: RunRecord, events: readonly TimelineEvent[]): string {
  const rows = eventRows(run, events).map(
    (r) =>
      `<tr class="${r.sev}" data-lane="${esc(r.lane)}"><td class="t">${esc(relTime(r.atMs - run.startedAtMs))}</td><td class="t">${esc(clockTime(r.atMs))}</td><td>${esc(r.lane)}</td><td class="label">${esc(r.label)}</td><td class="detail">${esc(r.detail)}</td></tr>`,
  );
  return `<table id="events"><thead><tr><th>since start</th><th>UTC</th><th>lane</th><th>event</th><th>detail</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
}

function artifacts(run: RunRecord, href: (a: ArtifactRef) => string): string {
  if (run.artifacts.length === 0) return '<p class="note">No artifacts were written.</p>';
  return `<ul id="artifacts">${run.artifacts.map((a) => `<li><a href="${esc(href(a))}">${esc(a.name)}</a>${a.caseName ? ` <span class="meta">(${esc(a.caseName)})</span>` : ''}</li>`).join('')}</ul>`;
}

function properties(run: RunRecord): string {
  const rows = Object.entries(run.properties)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `<tr><td class="t">${esc(k)}</td><td class="detail">${esc(v)}</td></tr>`);
  return `<details><summary>all ${rows.length} properties</summary><table id="properties">${rows.join('')}</table></details>`;
}

/**
 * The Nomad agent's own WARN and ERROR lines since the fault, each with its time and machine (they are timeline
 * events labelled AGENT_LINE_LABEL); the `<machine>.agent.warnings` property says how many there were in all.
 */
function agentLines(run: RunRecord, events: readonly TimelineEvent[]): string {
  const counts = Object.entries(run.properties).filter(([k]) => k.endsWith('.agent.warnings'));
  if (!counts.length) return '';
  const lines = events.filter((e) => e.label.startsWith(`${AGENT_LINE_LABEL} `));
  const head = counts.map(([k, v]) => `${esc(k.slice(0, -'.agent.warnings'.length))}: ${esc(v)}`).join('; ');
  const rows = lines.map(
    (e) =>
      `<tr><td class="t">${esc(new Date(e.atMs).toISOString())}</td><td>${esc(e.machine ?? '')}</td><td><span class="tag ${e.severity === 'fail' ? 'fail' : 'warn'}">${esc(e.label.slice(AGENT_LINE_LABEL.length + 1))}</span></td><td class="detail">${esc(e.detail ?? '')}</td></tr>`,
  );
  return `<section id="agent-warnings"><h2>Nomad agent warnings since the fault <span class="meta">${head}</span></h2>${rows.length ? `<table>${rows.join('')}</table>` : ''}</section>`;
}

/** run --repeat N: which attempt this page is and the verdict over every attempt (flaky, failed, passed). */
function repeatBlock(r: NonNullable<RenderHtmlOptions['repeat']>): string {
  const verdict = r.flake ? ` · <b data-key="repeat.verdict">${esc(r.flake.verdict)}</b>: ${esc(r.flake.message)}` : '';
  return `<p class="sub" id="repeat">attempt ${r.attempt} of ${r.of}${verdict}</p>`;
}

/** Render one run as a self-contained HTML page; every piece of run content is escaped (it is untrusted text). */
export function renderHtml(run: RunRecord, opts: RenderHtmlOptions = {}): string {
  const { hrefFor = (a: ArtifactRef) => a.path } = opts;
  const href = (a: ArtifactRef): string => fileHref(hrefFor(a));
  // Note: old JSON records have no timeline; treat it as empty.
  const events = [...((run.timeline as TimelineEvent[] | undefined) ?? [])].sort((a, b) => a.atMs - b.atMs);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${WORD[run.outcome]} ${esc(run.suiteName)} (${esc(run.runId)})</title>
<style>${HTML_CSS}</style></head>
<body>
${header(run)}
${opts.repeat ? repeatBlock(opts.repeat) : ''}
${checks(run, href)}
${renderAllocTable(run.verdicts)}
<section id="timeline"><h2>Timeline</h2>
${renderTimeline(run, events)}
<h3>Events in time order</h3>
${table(run, events)}</section>
${agentLines(run, events)}
<section><h2>Artifacts</h2>${artifacts(run, href)}</section>
<section><h2>Properties</h2>${properties(run)}</section>
</body></html>
`;
}
