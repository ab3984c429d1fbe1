// Pure: docs/faults.md's table of kinds, written from the registry (`npm run docs`; test/unit/docs-tables.test.ts
// fails while it is stale), so the page cannot say what the code does not do.
import type { FaultRegistry } from './registry.js';

export const FAULT_TABLE_MARKERS = ['<!-- faults (generated: npm run docs) -->', '<!-- /faults -->'] as const;

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One row per kind, in the registry's order. */
export function renderFaultTable(registry: FaultRegistry): string {
  const rows = registry.kinds.map((k) => {
    const opts = [...k.options.map((o) => `\`${o.yaml}\``), ...(k.reads ?? []).map((y) => `\`${y}\` (read)`)].join(
      ', ',
    );
    const needs = [...k.needs, ...(k.needsNomadAgent ? ['a Nomad agent'] : [])].join(', ');
    return (
      `| \`${k.name}\` | ${cell(k.doc)} | ${cell(k.nomadExpected)} | ${k.rebootsHost ? 'yes' : 'no'} | ` +
      `${needs} | ${k.roles.join(', ')} | ${opts} |`
    );
  });
  return [
    '| kind | what the harness does | what Nomad is expected to do | host reboots | needs | aimed at | options |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** `text` with the table between its markers replaced by `table` (the markers must be there). */
export function withFaultTable(text: string, table: string): string {
  const [open, close] = FAULT_TABLE_MARKERS;
  const a = text.indexOf(open);
  const b = text.indexOf(close);
  if (a < 0 || b < a) throw new Error(`docs/faults.md: the markers ${open} ... ${close} are missing`);
  return `${text.slice(0, a + open.length)}\n${table}\n${text.slice(b)}`;
}
