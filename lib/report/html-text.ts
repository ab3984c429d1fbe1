// Small pure helpers for the HTML report: escaping, times relative to the run start, severity colours.
import type { Verdict } from '../model/check.js';
import type { TimelineEvent } from '../model/run.js';
import { escapeMarkup } from './xml.js';

export type Severity = NonNullable<TimelineEvent['severity']>;

/** Text colour per severity (also used for marks); chosen to read on white and to stay apart for colour-blind readers. */
export const SEVERITY_COLOR: Record<Severity, string> = {
  info: '#475569',
  ok: '#15803d',
  warn: '#b45309',
  fail: '#b91c1c',
};

/** Escape text for HTML/SVG element content and quoted attributes; ANSI codes and control characters are dropped. */
export function esc(text: string): string {
  return escapeMarkup(text).replace(/'/g, '&#39;');
}

/** An href for a file path: each segment percent-encoded, so no path can become a `javascript:` or other URL scheme. */
export function fileHref(path: string): string {
  return path
    .replace(/\\/g, '/')
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}

/** `ms` after the run start as `+m:ss` (or `+h:mm:ss`), with milliseconds when `precise`; negative before the start. */
export function relTime(ms: number, precise = true): string {
  const sign = ms < 0 ? '-' : '+';
  const abs = Math.abs(Math.round(ms));
  const h = Math.floor(abs / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  const s = Math.floor((abs % 60_000) / 1000);
  const frac = precise ? `.${String(abs % 1000).padStart(3, '0')}` : '';
  const mm = h > 0 ? `${h}:${String(m).padStart(2, '0')}` : String(m);
  return `${sign}${mm}:${String(s).padStart(2, '0')}${frac}`;
}

/** Wall-clock time of day in UTC (`11:38:40.000`), or `?` for a time that is not a number. */
export function clockTime(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(11, 23) : '?';
}

/** Full UTC timestamp, or `?`. */
export function isoTime(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : '?';
}

/** How a verdict reads at a glance: unmet = fail, expected failure = warn, passed = ok, skipped = info. */
export function verdictSeverity(v: Pick<Verdict, 'met' | 'label'>): Severity {
  if (!v.met) return 'fail';
  return v.label === 'expected failure' ? 'warn' : v.label === 'passed' ? 'ok' : 'info';
}

/** A short tag per verdict label, as the console summary prints it. */
export const VERDICT_MARK: Record<Verdict['label'], string> = {
  passed: 'ok',
  failed: 'FAIL',
  'expected failure': 'xfail',
  'unexpected pass': 'XPASS',
  skipped: 'skip',
};

/** Shorten text to `max` characters with an ellipsis (SVG labels; the table keeps the full text). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
