// Pure: the configuration reference as a Markdown table, from the one key table (lib/config/table.ts) and the one set
// of defaults (schema.ts), so docs/config.md and `--help` cannot drift apart.
import type { Field } from './fields.js';
import { goDurationOf } from './durations.js';

/** The value at `path` of `defaults`, or undefined. */
function at(defaults: unknown, path: readonly string[]): unknown {
  let v: unknown = defaults;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/**
 * A default as a reader writes it, without quotes; undefined when there is none. Seconds fields as a Go duration
 * (`20s`, `1m`, `30m`), lists and maps as JSON. One writer for docs/config.md and `--help`, so neither says `60` where
 * the other says `1m`.
 */
function plainDefault(path: readonly string[], value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === '') return '""';
  if (typeof value === 'number' && /S$/.test(path.at(-1) ?? '')) return value === 0 ? '0s' : goDurationOf(value);
  if (Array.isArray(value)) return value.length ? JSON.stringify(value) : '[]';
  if (typeof value === 'object') return Object.keys(value).length ? JSON.stringify(value) : '{}';
  return String(value);
}

/** The default of one key as docs/config.md and `--help` both write it; a key named in seconds (`_s`) takes a number. */
export function defaultText(f: Field, defaults: unknown): string | undefined {
  if (f.secret) return undefined;
  const v = at(defaults, f.path);
  // an empty list is no value given (job.files: each scenario's own job)
  if (Array.isArray(v) && v.length === 0) return undefined;
  if (typeof v === 'number' && /_s$/.test(f.yaml)) return String(v);
  return plainDefault(f.path, v);
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One row per key, in the table's order; aliases say which key they are an older name of. */
export function renderConfigTable(fields: readonly Field[], defaults: unknown): string {
  const rows = fields.map((f) => {
    const doc = f.doc;
    const d = defaultText(f, defaults);
    const def = d === undefined ? 'none' : `\`${d}\``;
    return `| \`${f.yaml}\` | ${f.flag ? `\`--${f.flag}\`` : ''} | ${f.env ? `\`${f.env}\`` : ''} | ${def} | ${cell(doc)} |`;
  });
  return ['| harness.yaml key | flag | env | default | meaning |', '| --- | --- | --- | --- | --- |', ...rows].join(
    '\n',
  );
}

/** The markers around the generated table in docs/config.md. */
export const CONFIG_TABLE_MARKERS = [
  '<!-- config-table (generated: npm run docs) -->',
  '<!-- /config-table -->',
] as const;

/** `text` with the table between the markers replaced; unchanged when the markers are absent. */
export function withConfigTable(text: string, table: string): string {
  const [open, close] = CONFIG_TABLE_MARKERS;
  const i = text.indexOf(open);
  const j = text.indexOf(close);
  if (i < 0 || j < i) return text;
  return `${text.slice(0, i + open.length)}\n${table}\n${text.slice(j)}`;
}
