// One merged JUnit file for a matrix: a <testsuite> per cell (named by the cell), and for a cell retried after an
// infrastructure error, its first attempt's error as a Surefire rerun element inside a testcase. Pure.
import { renderJUnit } from '../report/junit.js';
import type { RunRecord } from '../model/run.js';
import { escapeAttr, serialize, type XmlElement } from '../report/xml.js';

/** A cell's attempts, first first; the last one is the cell's result. */
export interface CellAttempts {
  cellName: string;
  attempts: RunRecord[];
}

/**
 * Surefire's elements, as junit-10.xsd accepts them inside <testcase>: `flakyError` when the retry reached a verdict
 * (the first error was the lab's, not Nomad's), `rerunError` when the retry broke too.
 */
export function rerunElement(first: RunRecord, final: RunRecord): XmlElement {
  const name = final.outcome === 'error' ? 'rerunError' : 'flakyError';
  const msg = `attempt 1 (run ${first.runId}) ended in an infrastructure error${first.error?.step ? ` in "${first.error.step}"` : ''}: ${first.error?.message ?? first.outcome}; retried as run ${final.runId}`;
  const steps = first.steps.map((s) => `${s.status.padEnd(7)} ${s.name}${s.message ? `: ${s.message}` : ''}`);
  return {
    name,
    attrs: { message: msg.replace(/\s+/g, ' ').slice(0, 500), type: 'infrastructure' },
    children: [
      { name: 'stackTrace', text: first.error?.detail ?? first.error?.message ?? '' },
      { name: 'system-out', text: [`run ${first.runId} (attempt 1)`, ...steps].join('\n') },
    ],
  };
}

/** Render every cell's final attempt as one document, with rerun elements for retried cells. */
export function renderMatrixJUnit(cells: readonly CellAttempts[]): string {
  const finals = cells.map((c) => c.attempts[c.attempts.length - 1]).filter((r): r is RunRecord => !!r);
  let xml = renderJUnit(finals);
  for (const c of cells) {
    const first = c.attempts[0];
    const final = c.attempts[c.attempts.length - 1];
    if (!first || !final || first === final) continue;
    xml = insertIntoCase(xml, final.runId, first.error?.step, serialize(rerunElement(first, final), '      '));
  }
  return xml;
}

/** Tags of the document outside CDATA sections, with their offsets (our serializer writes no comments). */
export function tagsOutsideCdata(xml: string): { at: number; end: number; tag: string }[] {
  const out: { at: number; end: number; tag: string }[] = [];
  let i = 0;
  while ((i = xml.indexOf('<', i)) !== -1) {
    if (xml.startsWith('<![CDATA[', i)) {
      const close = xml.indexOf(']]>', i);
      i = close === -1 ? xml.length : close + 3;
      continue;
    }
    // Note: attribute values are escaped (escapeAttr), so the first '>' ends the tag.
    const end = xml.indexOf('>', i);
    if (end === -1) break;
    out.push({ at: i, end, tag: xml.slice(i, end + 1) });
    i = end + 1;
  }
  return out;
}

/**
 * Insert `element` (serialized) as the first child of a testcase in the suite whose id is `runId`: the case named
 * `caseName` when there is one, else the suite's first case. Returns the document unchanged when the suite is absent.
 */
export function insertIntoCase(xml: string, runId: string, caseName: string | undefined, element: string): string {
  const tags = tagsOutsideCdata(xml);
  const s = tags.findIndex((t) => t.tag.startsWith('<testsuite ') && t.tag.includes(` id="${escapeAttr(runId)}"`));
  if (s === -1) return xml;
  const endIdx = tags.findIndex((t, k) => k > s && t.tag === '</testsuite>');
  const inSuite = tags.slice(s + 1, endIdx === -1 ? undefined : endIdx).filter((t) => t.tag.startsWith('<testcase '));
  const target = (caseName !== undefined ? inSuite.find((t) => t.tag.startsWith(`<testcase name="${escapeAttr(caseName)}"`)) : undefined) ?? inSuite[0];
  if (!target) return xml;
  if (target.tag.endsWith('/>')) return `${xml.slice(0, target.end - 1)}>\n${element}\n    </testcase>${xml.slice(target.end + 1)}`;
  return `${xml.slice(0, target.end + 1)}\n${element}${xml.slice(target.end + 1)}`;
}
