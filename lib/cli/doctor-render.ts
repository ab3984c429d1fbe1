// doctor's items as a terminal shows them (moved out of lib/cli/doctor.ts, which holds the probes).
import type { DoctorItem } from './doctor.js';

/** Render doctor items for a terminal: one line per item, the fix indented below each failure, and a summary. Pure. */
export function renderDoctor(items: readonly DoctorItem[], o: { quiet?: boolean } = {}): string {
  const width = Math.max(...items.map((i) => i.name.length), 4);
  const bad = items.filter((i) => !i.ok).length;
  const verdict = bad === 0 ? `all ${items.length} checks passed` : `${bad} of ${items.length} checks failed`;
  // --quiet: the names of the failed checks and the verdict; the details and fixes are one run without it away
  if (o.quiet) return [...items.filter((i) => !i.ok).map((i) => `FAIL  ${i.name}`), verdict].join('\n') + '\n';
  const lines = items.flatMap((i) => [
    `${i.ok ? 'ok  ' : 'FAIL'}  ${i.name.padEnd(width)}  ${i.detail}`,
    ...(i.ok || !i.fix ? [] : [`      ${''.padEnd(width)}  fix: ${i.fix}`]),
  ]);
  lines.push(verdict);
  return lines.join('\n') + '\n';
}
