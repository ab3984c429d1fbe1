// Pure: the run's timeline as inline SVG: lanes host / node / alloc / steps on one time axis, host-down shading,
// marks coloured by severity, step bars, and every check's verdict at the end of the run.
import type { Verdict } from '../model/check.js';
import { formatMs } from '../errors.js';
import { hostDownSpans, packLabels, rebootWindow, runWindow, ticks, type Span, type Window } from './html-layout.js';
import { clip, esc, relTime, SEVERITY_COLOR, VERDICT_MARK, verdictSeverity, type Severity } from './html-text.js';
import type { RunRecord, StepRecord, TimelineEvent } from '../model/run.js';

const W = 1200;
/** room for the lane names */
const GUTTER = 64;
/** the verdict column after the run's end */
const CHECKS_W = 270;
const AXIS_H = 34;
const MARK_BAND = 22;
const ROW_H = 15;
/** Note: average advance of an 11px sans-serif character; labels are packed with this estimate. */
const CHAR_W = 6.4;
const MAX_ROWS = 4;
/** steps are many and their names long: give them more label rows */
const MAX_STEP_ROWS = 6;
const LABEL_CHARS = 44;
const TEXT = '#1e293b';

const LANES = [
  { key: 'host', name: 'host' },
  { key: 'node', name: 'node' },
  { key: 'alloc', name: 'alloc' },
  { key: 'probe', name: 'probes' },
  { key: 'step', name: 'steps' },
] as const;

interface LaneOf {
  key: (typeof LANES)[number]['key'];
  name: string;
  has: (e: TimelineEvent) => boolean;
}

/** Machine names in topology order: servers, then clients, each by index. */
const machineOrder = (a: string, b: string): number => {
  const k = (m: string) => [m.startsWith('server') ? 0 : 1, Number(/-(\d+)$/.exec(m)?.[1] ?? 0)] as const;
  const [x, y] = [k(a), k(b)];
  return x[0] - y[0] || x[1] - y[1] || a.localeCompare(b);
};

/**
 * The lanes of a run: the host lane split into one per machine when its events name machines (those naming none keep
 * the host lane), the probe lane only when there is a probe series. Pure.
 */
export function lanesOf(events: readonly TimelineEvent[]): LaneOf[] {
  const host = events.filter((e) => e.lane === 'host');
  const machines = [...new Set(host.flatMap((e) => (e.machine ? [e.machine] : [])))].sort(machineOrder);
  const out: LaneOf[] = [];
  if (machines.length === 0 || host.some((e) => !e.machine))
    out.push({ key: 'host', name: 'host', has: (e) => e.lane === 'host' && !e.machine });
  for (const m of machines) out.push({ key: 'host', name: m, has: (e) => e.lane === 'host' && e.machine === m });
  for (const l of LANES.filter((x) => x.key !== 'host')) {
    if (l.key === 'probe' && !events.some((e) => e.lane === 'probe')) continue;
    out.push({ key: l.key, name: l.name, has: (e) => e.lane === l.key });
  }
  return out;
}

interface Item {
  x: number;
  x2: number | undefined;
  label: string;
  title: string;
  sev: Severity;
}

const STEP_SEVERITY: Record<StepRecord['status'], Severity> = {
  passed: 'ok',
  failed: 'fail',
  error: 'fail',
  skipped: 'info',
};

function laneSvg(
  name: string,
  items: Item[],
  top: number,
  right: number,
  maxRows: number,
): { svg: string; height: number } {
  items.sort((a, b) => a.x - b.x);
  const inside = (i: Item): boolean => i.x2 !== undefined && i.x2 - i.x >= i.label.length * CHAR_W + 10;
  const outside = items.filter((i) => !inside(i));
  const placed = packLabels(
    outside.map((i) => ({ x: i.x, width: i.label.length * CHAR_W })),
    right,
    maxRows,
  );
  const rows = Math.max(0, ...placed.map((p) => p.row + 1));
  const height = Math.max(34, MARK_BAND + rows * ROW_H + 8);
  const out = [
    `<rect class="lane" x="0" y="${top}" width="${W}" height="${height}"/>`,
    `<text class="lane-name" x="8" y="${top + 15}">${esc(name)}</text>`,
  ];
  for (const i of items) {
    const color = SEVERITY_COLOR[i.sev];
    const title = `<title>${esc(i.title)}</title>`;
    if (i.x2 !== undefined) {
      out.push(
        `<rect class="bar" x="${r(i.x)}" y="${top + 4}" width="${r(Math.max(2, i.x2 - i.x))}" height="15" fill="${color}" stroke="${color}">${title}</rect>`,
      );
      if (inside(i)) out.push(`<text x="${r(i.x + 5)}" y="${top + 15}" fill="${TEXT}">${esc(i.label)}</text>`);
    } else
      out.push(
        `<circle cx="${r(i.x)}" cy="${top + 11}" r="5.5" fill="${color}" stroke="#fff" stroke-width="1.5">${title}</circle>`,
      );
  }
  outside.forEach((i, k) => {
    const p = placed[k]!;
    if (p.row < 0) return;
    const y = top + MARK_BAND + 9 + p.row * ROW_H;
    out.push(`<line class="leader" x1="${r(i.x)}" y1="${top + 17}" x2="${r(i.x)}" y2="${y - 9}"/>`);
    const fill = i.sev === 'fail' ? SEVERITY_COLOR.fail : TEXT;
    out.push(
      `<text x="${r(i.x + (p.anchor === 'start' ? 2 : -2))}" y="${y}" text-anchor="${p.anchor}" fill="${fill}">${esc(i.label)}<title>${esc(i.title)}</title></text>`,
    );
  });
  return { svg: out.join(''), height };
}

const r = (n: number): string => (Math.round(n * 10) / 10).toString();

function checksColumn(verdicts: readonly Verdict[], endX: number, top: number): { svg: string; height: number } {
  const x0 = endX + 28;
  const maxChars = Math.floor((W - x0 - 24) / CHAR_W);
  const out = [`<text class="axis" x="${r(x0)}" y="${top - 8}">checks at the end</text>`];
  verdicts.forEach((v, k) => {
    const y = top + 6 + k * 17;
    const color = SEVERITY_COLOR[verdictSeverity(v)];
    const text = clip(`${VERDICT_MARK[v.label]} ${v.title}`, maxChars);
    out.push(`<line class="leader" x1="${r(endX)}" y1="${y + 5}" x2="${r(x0 - 2)}" y2="${y + 5}"/>`);
    out.push(
      `<rect x="${r(x0)}" y="${y}" width="10" height="10" fill="${color}"/><text x="${r(x0 + 15)}" y="${y + 9}" fill="${v.met ? TEXT : color}">${esc(text)}<title>${esc(`${v.id}: ${v.label}: ${v.message}`)}</title></text>`,
    );
  });
  return { svg: out.join(''), height: verdicts.length * 17 + 10 };
}

/** One SVG view of the run over window `w` (times shown relative to the run start). */
function view(
  run: RunRecord,
  events: readonly TimelineEvent[],
  spans: readonly Span[],
  w: Window,
  withChecks: boolean,
  caption: string,
): string {
  const right = W - 14 - (withChecks ? CHECKS_W : 0);
  const x = (t: number): number => GUTTER + ((t - w.from) / (w.to - w.from)) * (right - GUTTER);
  const inWin = (t: number): boolean => t >= w.from && t <= w.to;
  const rel = (t: number): string => relTime(t - run.startedAtMs);
  const lanes: string[] = [];
  let y = AXIS_H;
  for (const lane of lanesOf(events)) {
    const items: Item[] = events
      .filter((e) => lane.has(e) && inWin(e.atMs))
      .map((e) => ({
        x: x(e.atMs),
        x2: e.untilMs === undefined ? undefined : x(Math.min(Math.max(e.untilMs, e.atMs), w.to)),
        label: clip(e.label, LABEL_CHARS),
        sev: e.severity ?? 'info',
        title: `${rel(e.atMs)} ${lane.name}: ${e.label}${e.detail ? ` — ${e.detail}` : ''}`,
      }));
    if (lane.key === 'step') {
      for (const s of run.steps) {
        const a = Math.max(s.startedAtMs, w.from);
        const b = Math.min(s.startedAtMs + s.durationMs, w.to);
        if (b < a) continue;
        items.push({
          x: x(a),
          x2: x(b),
          label: clip(s.name, LABEL_CHARS),
          sev: STEP_SEVERITY[s.status],
          title: `${rel(s.startedAtMs)} step: ${s.name} — ${s.status} in ${formatMs(s.durationMs)}${s.message ? `: ${s.message}` : ''}`,
        });
      }
    }
    const l = laneSvg(lane.name, items, y, right, lane.key === 'step' ? MAX_STEP_ROWS : MAX_ROWS);
    lanes.push(l.svg);
    y += l.height;
  }
  const bottom = y;
  const grid = ticks(w, run.startedAtMs).map(
    (t) =>
      `<line class="tick" x1="${r(x(t.at))}" y1="${AXIS_H - 6}" x2="${r(x(t.at))}" y2="${bottom}"/><text class="axis" x="${r(x(t.at))}" y="12" text-anchor="middle">${esc(relTime(t.at - run.startedAtMs, t.step < 1000))}</text>`,
  );
  const down = spans
    .filter((s) => s.to >= w.from && s.from <= w.to)
    .map((s) => {
      const a = x(Math.max(s.from, w.from));
      const b = x(Math.min(s.to, w.to));
      const who = s.machine ?? 'host';
      const label = s.open ? `${who} down (SSH not back)` : `${who} down ${formatMs(s.to - s.from)}`;
      return (
        `<rect class="down" x="${r(a)}" y="${AXIS_H - 6}" width="${r(Math.max(2, b - a))}" height="${bottom - AXIS_H + 6}"><title>${esc(`${label}: ${rel(s.from)} to ${rel(s.to)}`)}</title></rect>` +
        `<text class="down-label" x="${r((a + b) / 2)}" y="${AXIS_H - 10}" text-anchor="middle">${esc(label)}</text>`
      );
    });
  let extra = '';
  let height = bottom;
  if (withChecks) {
    const endX = x(run.startedAtMs + run.durationMs);
    const c = checksColumn(run.verdicts, endX, AXIS_H);
    extra = `<line class="end" x1="${r(endX)}" y1="${AXIS_H - 6}" x2="${r(endX)}" y2="${bottom}"/>` + c.svg;
    height = Math.max(bottom, AXIS_H + c.height);
  }
  const svg = `<svg class="timeline" viewBox="0 0 ${W} ${height + 4}" width="100%" role="img" aria-label="${esc(caption)}" xmlns="http://www.w3.org/2000/svg">${lanes.join('')}${grid.join('')}${down.join('')}${extra}</svg>`;
  return `<figure><figcaption>${esc(caption)}</figcaption>${svg}</figure>`;
}

/** The timeline section: the whole run with the verdicts at its end, then a zoom around the reboot when there was one. */
export function renderTimeline(run: RunRecord, events: readonly TimelineEvent[]): string {
  const whole = runWindow(run, events);
  const spans = hostDownSpans(events, whole.to);
  const zoom = rebootWindow(spans, events, whole);
  const parts = [
    view(run, events, spans, whole, true, `whole run, ${formatMs(whole.to - whole.from)} (time since the run started)`),
  ];
  if (zoom)
    parts.push(
      view(
        run,
        events,
        spans,
        zoom,
        false,
        `around the reboot: ${relTime(zoom.from - run.startedAtMs, false)} to ${relTime(zoom.to - run.startedAtMs, false)}`,
      ),
    );
  if (events.length === 0)
    parts.push('<p class="note">No timeline events were recorded for this run (only steps are shown).</p>');
  return parts.join('\n');
}
