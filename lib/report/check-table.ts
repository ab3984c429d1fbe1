// Pure: a scenario's checks as the README's Markdown table, from their one definition each (lib/model/check.ts).
import type { CheckInfo } from '../model/check.js';

/** `| check | passes when |` with one row per check, in report order. */
export function renderCheckTable(checks: readonly CheckInfo[]): string {
  const cell = (t: string) => t.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
  return [
    '| check | passes when |',
    '| --- | --- |',
    ...checks.map((c) => `| \`${c.id}\` | ${cell(c.passesWhen)} |`),
  ].join('\n');
}

/** The markers around a scenario's generated table in the README. */
export const tableMarkers = (scenario: string) =>
  [`<!-- checks:${scenario} (generated: npm run docs) -->`, `<!-- /checks:${scenario} -->`] as const;

/** `text` with every scenario's table between its markers replaced by the generated one; scenarios without markers are left alone. */
export function withCheckTables(
  text: string,
  scenarios: readonly { name: string; checks: readonly CheckInfo[] }[],
): string {
  let out = text;
  for (const s of scenarios) {
    const [open, close] = tableMarkers(s.name);
    const a = out.indexOf(open);
    const b = out.indexOf(close);
    if (a === -1 || b === -1 || b < a) continue;
    out = `${out.slice(0, a + open.length)}\n${renderCheckTable(s.checks)}\n${out.slice(b)}`;
  }
  return out;
}
