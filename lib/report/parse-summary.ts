// Read what `merge` needs from a JSON summary (summary.json, schema nomad-reboot-harness/summary@1): per run its
// suite, outcome, properties (the matrix axes) and verdict counts, and per matrix cell its attempts. Pure.
import { SUMMARY_SCHEMA } from './json.js';
import type { RunOutcome } from '../model/run.js';
import type { VerdictCounts } from './outcome.js';

/** One run of a summary, as the merge index shows it. */
export interface SummaryRun {
  runId: string;
  suiteName: string;
  scenario: string;
  outcome: RunOutcome;
  interrupted: boolean;
  durationMs: number;
  properties: Record<string, string>;
  counts?: VerdictCounts;
}

/** One matrix cell of a summary: its run ids and outcomes per attempt. */
export interface SummaryCell {
  name: string;
  runIds: string[];
  outcomes: string[];
}

export interface ParsedSummary {
  runs: SummaryRun[];
  cells: SummaryCell[];
}

export type SummaryParse = { ok: true; summary: ParsedSummary } | { ok: false; message: string };

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const OUTCOMES: readonly RunOutcome[] = ['passed', 'failed', 'error'];

/** Parse a summary.json text; a message naming the expected schema and what was found otherwise. */
export function parseSummary(text: string): SummaryParse {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `is not JSON (${(err as Error).message})` };
  }
  if (!isMap(doc) || doc['schema'] !== SUMMARY_SCHEMA) {
    const got = isMap(doc) ? JSON.stringify(doc['schema'] ?? null) : typeof doc;
    return { ok: false, message: `is not a harness summary: expected "schema": "${SUMMARY_SCHEMA}", got ${got}` };
  }
  const runs: SummaryRun[] = [];
  for (const r of Array.isArray(doc['runs']) ? doc['runs'] : []) {
    if (!isMap(r) || !str(r['runId'])) continue;
    const props = isMap(r['properties']) ? r['properties'] : {};
    const outcome = OUTCOMES.find((o) => o === r['outcome']) ?? 'error';
    runs.push({
      runId: str(r['runId']),
      suiteName: str(r['suiteName']),
      scenario: str(r['scenario']),
      outcome,
      interrupted: r['interrupted'] === true,
      durationMs: typeof r['durationMs'] === 'number' ? r['durationMs'] : 0,
      properties: Object.fromEntries(
        Object.entries(props).filter((kv): kv is [string, string] => typeof kv[1] === 'string'),
      ),
      ...(isMap(r['counts']) ? { counts: r['counts'] as unknown as VerdictCounts } : {}),
    });
  }
  // Note: a session's `suites` (every suite with its attempts); summaries before the pipeline had `matrix.cells`.
  const matrix = isMap(doc['matrix']) ? doc['matrix'] : {};
  const list = Array.isArray(doc['suites']) ? doc['suites'] : Array.isArray(matrix['cells']) ? matrix['cells'] : [];
  const cells: SummaryCell[] = list.filter(isMap).map((c) => ({
    name: str(c['name']),
    runIds: Array.isArray(c['runIds']) ? c['runIds'].map(str) : [],
    outcomes: Array.isArray(c['outcomes']) ? c['outcomes'].map(str) : [],
  }));
  return { ok: true, summary: { runs, cells } };
}
