// Pure geometry for the HTML timeline: time windows, axis ticks, host-down spans, label packing.
import type { RunRecord, TimelineEvent } from '../model/run.js';

export interface Window {
  from: number;
  to: number;
}

export interface Span extends Window {
  /** true when SSH never came back before the run ended */
  open: boolean;
  /** the machine that was down, when the events name it */
  machine?: string;
}

/** The run's time range, widened to hold every event and step (a zero-length run still gets one second). */
export function runWindow(run: RunRecord, events: readonly TimelineEvent[]): Window {
  const times = [
    run.startedAtMs,
    run.startedAtMs + run.durationMs,
    ...events.map((e) => e.atMs),
    ...run.steps.flatMap((s) => [s.startedAtMs, s.startedAtMs + s.durationMs]),
  ].filter(Number.isFinite);
  const from = Math.min(...times);
  const to = Math.max(...times);
  return { from, to: Math.max(to, from + 1000) };
}

/** Host-down spans: from each "reboot requested" host event to the next host event saying SSH is back (or the end). */
export function hostDownSpans(events: readonly TimelineEvent[], end: number): Span[] {
  const spans: Span[] = [];
  // one open span per machine (events that name none share one)
  const open = new Map<string, number>();
  const of = (m: string) => (m ? { machine: m } : {});
  for (const e of events) {
    if (e.lane !== 'host') continue;
    const m = e.machine ?? '';
    if (/reboot requested/i.test(e.label)) {
      if (!open.has(m)) open.set(m, e.atMs);
    } else if (open.has(m) && /\bback\b|new boot/i.test(e.label)) {
      spans.push({ from: open.get(m)!, to: e.atMs, open: false, ...of(m) });
      open.delete(m);
    }
  }
  for (const [m, from] of open) spans.push({ from, to: Math.max(from, end), open: true, ...of(m) });
  return spans;
}

/** How long after SSH is back node and alloc events still count as "around the reboot". */
const AFTERMATH_MS = 5 * 60_000;

/** A zoomed window around the reboot (host down plus what followed), or undefined when the whole run shows it well enough. */
export function rebootWindow(
  spans: readonly Span[],
  events: readonly TimelineEvent[],
  whole: Window,
): Window | undefined {
  if (spans.length === 0) return undefined;
  const from = Math.min(...spans.map((s) => s.from));
  const back = Math.max(...spans.map((s) => s.to));
  const after = events
    .filter((e) => (e.lane === 'node' || e.lane === 'alloc') && e.atMs >= back && e.atMs <= back + AFTERMATH_MS)
    .map((e) => e.atMs);
  const to = Math.max(back, ...after);
  const pad = Math.max(3000, (to - from) * 0.15);
  const w = { from: Math.max(whole.from, from - pad), to: Math.min(whole.to, to + pad) };
  return w.to - w.from > 0.6 * (whole.to - whole.from) ? undefined : w;
}

const STEPS_MS = [
  100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
  3_600_000, 7_200_000,
];

/** Axis ticks at round offsets from the run start (`origin`), about `target` of them inside the window. */
export function ticks(w: Window, origin: number, target = 8): { at: number; step: number }[] {
  const span = w.to - w.from;
  const step = STEPS_MS.find((s) => span / s <= target) ?? Math.ceil(span / target / 3_600_000) * 3_600_000;
  const out: { at: number; step: number }[] = [];
  for (let k = Math.ceil((w.from - origin) / step); origin + k * step <= w.to; k++)
    out.push({ at: origin + k * step, step });
  return out;
}

interface Placed {
  /** sub-row under the marks, or -1 when there was no room (the table still lists it) */
  row: number;
  anchor: 'start' | 'end';
}

/**
 * Greedy label packing: each label starts at its mark (or ends there when it would cross `right`) and takes
 * the first sub-row where it does not overlap the label before it. Items must be sorted by x.
 */
export function packLabels(
  items: readonly { x: number; width: number }[],
  right: number,
  maxRows: number,
  gap = 8,
): Placed[] {
  const rowEnd: number[] = [];
  return items.map(({ x, width }) => {
    const anchor = x + width <= right ? 'start' : 'end';
    const start = anchor === 'start' ? x : x - width;
    let row = rowEnd.findIndex((end) => end + gap <= start);
    if (row === -1 && rowEnd.length < maxRows) row = rowEnd.length;
    if (row === -1) return { row: -1, anchor };
    rowEnd[row] = start + width;
    return { row, anchor };
  });
}
