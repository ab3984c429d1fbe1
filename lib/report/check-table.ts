// Pure: docs/checks.md's generated parts, from each check's one definition (lib/model/check.ts): a scenario's checks
// as a Markdown table of their one-sentence `passesWhen`, and every check's long `details` once, below the tables.
import type { CheckInfo } from '../model/check.js';

/**
 * The anchor of a check's details in docs/checks.md (GitHub's anchor of the heading `` `id` ``); the table links a check
 * that has details to it.
 */
const detailsAnchor = (id: string) => id;

/** `| check | passes when |` with one row per check, in report order; a check with details links to them. */
export function renderCheckTable(checks: readonly CheckInfo[]): string {
  const cell = (t: string) => t.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
  const name = (c: CheckInfo) => (c.details ? `[\`${c.id}\`](#${detailsAnchor(c.id)})` : `\`${c.id}\``);
  return [
    '| check | passes when |',
    '| --- | --- |',
    ...checks.map((c) => `| ${name(c)} | ${cell(c.passesWhen)} |`),
  ].join('\n');
}

/** The markers around the generated details of every check. */
export const DETAILS_MARKERS = ['<!-- check-details (generated: npm run docs) -->', '<!-- /check-details -->'] as const;

/**
 * One paragraph per check that has details, each check once (the first scenario listing it decides the order): its
 * id as a heading (the table's link goes there), its title, then the details (the table beside each scenario holds the one-sentence `passesWhen`).
 */
export function renderCheckDetails(scenarios: readonly { checks: readonly CheckInfo[] }[]): string {
  const seen = new Map<string, CheckInfo>();
  for (const c of scenarios.flatMap((s) => s.checks)) if (c.details && !seen.has(c.id)) seen.set(c.id, c);
  const flat = (t: string) => t.replace(/\s+/g, ' ').trim();
  return [...seen.values()].map((c) => `#### \`${c.id}\`\n${c.title}: ${flat(c.details ?? '')}.`).join('\n\n');
}

/** `text` with the part between `markers` replaced by `body`; left alone when the markers are missing. */
function between(text: string, [open, close]: readonly [string, string], body: string): string {
  const a = text.indexOf(open);
  const b = text.indexOf(close);
  if (a === -1 || b === -1 || b < a) return text;
  return `${text.slice(0, a + open.length)}\n${body}\n${text.slice(b)}`;
}

/** The markers around a scenario's generated table in the README. */
export const tableMarkers = (scenario: string) =>
  [`<!-- checks:${scenario} (generated: npm run docs) -->`, `<!-- /checks:${scenario} -->`] as const;

/**
 * `text` with every scenario's table between its markers replaced by the generated one, and the checks' details
 * between theirs; parts without markers are left alone.
 */
export function withCheckTables(
  text: string,
  scenarios: readonly { name: string; checks: readonly CheckInfo[] }[],
): string {
  const tables = scenarios.reduce((out, s) => between(out, tableMarkers(s.name), renderCheckTable(s.checks)), text);
  return between(tables, DETAILS_MARKERS, renderCheckDetails(scenarios));
}
