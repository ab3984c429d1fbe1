// `merge`: many runners' JUnit suites (and summaries) into one report: suites sorted by name, counts recounted from
// the testcases, a suite name from two runs refused, reruns kept as they are; one row per cell for the index. Pure.
import type { ConfigProblem } from '../errors.js';
import type { RunOutcome } from '../model/run.js';
import { exitCodeOf } from './outcome.js';
import type { JUnitDoc } from './parse-junit.js';
import type { ParsedSummary, SummaryRun } from './parse-summary.js';
import type { XmlElement } from './xml.js';

/** A parsed JUnit file and where it came from (named in problems and in the index). */
export interface MergeSource {
  path: string;
  doc: JUnitDoc;
}

export interface MergeInput {
  junit: readonly MergeSource[];
  summaries: readonly { path: string; summary: ParsedSummary }[];
  /** the href (relative to the output folder) of a run's HTML page, when one was found */
  pageFor: (runId: string) => string | undefined;
  /**
   * what the merged file writes for an attachment a run wrote (`[[ATTACHMENT|path]]`) in the JUnit file `source`
   * (undefined: not found, kept as written; omit: keep all)
   */
  attachmentFor?: (path: string, source: string) => string | undefined;
}

/** Test counts of a suite (or of the whole report), recounted from its testcases. */
export interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

/** One row of the index: a suite (a matrix cell) with its verdict, axes and page. */
export interface MergedCell extends Counts {
  name: string;
  runId: string | undefined;
  scenario: string;
  outcome: RunOutcome;
  interrupted: boolean;
  /** axis name -> value, from the summary, else the suite's matrix.* properties, else the cell name */
  axes: Record<string, string>;
  timeS: number;
  /** attempts this cell took (a retry after an infrastructure error makes 2) */
  attempts: number;
  shard: string | undefined;
  page: string | undefined;
  /** the JUnit file the suite came from */
  source: string;
}

export interface MergedReport {
  suites: XmlElement[];
  totals: Counts & { timeS: number };
  cells: MergedCell[];
  /** every axis seen, in order of first appearance */
  axes: string[];
  /** what merge noticed and fixed (recounted suites, a suite given twice) */
  warnings: string[];
  /** as for `run` over the cells: 0 passed, 1 a check failed, 3 an infrastructure error, 130 interrupted */
  exitCode: number;
  /** attachment lines pointed at the merged copy's folder, and those whose file was not among the inputs */
  attachments: { rewritten: number; unresolved: number };
}

export type MergeResult = { ok: true; report: MergedReport } | { ok: false; problems: ConfigProblem[] };

const RERUNS = new Set(['flakyError', 'flakyFailure', 'rerunError', 'rerunFailure']);
/** matrix.* properties that describe the run, not an axis. */
const NOT_AXES = new Set(['matrix.cell', 'matrix.attempt', 'matrix.shard']);

/** Every testcase under an element (nested suites included). */
function casesOf(el: XmlElement): XmlElement[] {
  return (el.children ?? []).flatMap((c) => (c.name === 'testcase' ? [c] : c.name === 'testsuite' ? casesOf(c) : []));
}

/** Counts of a suite from its testcases: a case with <error> is an error, else with <failure> a failure, ... */
export function countCases(suite: XmlElement): Counts {
  const c: Counts = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const tc of casesOf(suite)) {
    const kids = new Set((tc.children ?? []).map((k) => k.name));
    c.tests++;
    if (kids.has('error')) c.errors++;
    else if (kids.has('failure')) c.failures++;
    else if (kids.has('skipped')) c.skipped++;
  }
  return c;
}

function propertiesOf(suite: XmlElement): Record<string, string> {
  const props = (suite.children ?? []).filter((c) => c.name === 'properties').flatMap((p) => p.children ?? []);
  return Object.fromEntries(props.map((p) => [String(p.attrs?.['name'] ?? ''), String(p.attrs?.['value'] ?? '')]));
}

/** Axes from matrix.* properties, or from a cell name `<scenario>/<axis>=<value>/...`. */
function axesOf(props: Record<string, string>, name: string): Record<string, string> {
  const fromProps = Object.entries(props).filter(([k]) => k.startsWith('matrix.') && !NOT_AXES.has(k));
  if (fromProps.length) return Object.fromEntries(fromProps.map(([k, v]) => [k.slice('matrix.'.length), v]));
  return Object.fromEntries(
    name
      .split('/')
      .slice(1)
      .map((p) => p.split('='))
      .filter((kv) => kv.length === 2) as [string, string][],
  );
}

function outcomeOf(props: Record<string, string>, c: Counts): RunOutcome {
  const said = props['outcome'];
  if (said === 'passed' || said === 'failed' || said === 'error') return said;
  return c.errors ? 'error' : c.failures ? 'failed' : 'passed';
}

const seconds = (v: unknown): number => {
  const n = Number(String(v ?? '').replace(/,/g, ''));
  return Number.isFinite(n) && n > 0 ? n : 0;
};

const ATTACHMENT = /\[\[ATTACHMENT\|([^\]\n]+)\]\]/g;

/** The element with every `[[ATTACHMENT|path]]` in its texts mapped through `to` (kept when `to` finds nothing). */
export function rewriteAttachments(
  el: XmlElement,
  to: (path: string) => string | undefined,
  tally = { rewritten: 0, unresolved: 0 },
): XmlElement {
  const text = el.text?.replace(ATTACHMENT, (line, path: string) => {
    const moved = to(path);
    if (moved === undefined) tally.unresolved++;
    else tally.rewritten++;
    return moved === undefined ? line : `[[ATTACHMENT|${moved}]]`;
  });
  const children = el.children?.map((c) => rewriteAttachments(c, to, tally));
  return { ...el, ...(text === undefined ? {} : { text }), ...(children ? { children } : {}) };
}

const byName = (a: { name: string }, b: { name: string }): number =>
  a.name.localeCompare(b.name, 'en', { numeric: true });

/** Merge parsed JUnit files and summaries; problems (a suite name from two runs) instead of a report when any. */
export function mergeReports(input: MergeInput): MergeResult {
  const warnings: string[] = [];
  const problems: ConfigProblem[] = [];
  const runs = new Map<string, SummaryRun>();
  const attemptsOf = new Map<string, number>();
  for (const { summary } of input.summaries) {
    for (const r of summary.runs) runs.set(r.runId, r);
    for (const c of summary.cells) for (const id of c.runIds) attemptsOf.set(id, c.runIds.length);
  }
  const seen = new Map<string, { source: string; id: string | undefined }>();
  const kept: { suite: XmlElement; source: string }[] = [];
  for (const { path, doc } of input.junit) {
    for (const suite of doc.suites) {
      const name = String(suite.attrs?.['name'] ?? '');
      const id = suite.attrs?.['id'] === undefined ? undefined : String(suite.attrs['id']);
      const first = seen.get(name);
      if (first && id !== undefined && first.id === id) {
        warnings.push(`suite ${name} (run ${id}) is in ${first.source} and ${path}: the same run, kept once`);
        continue;
      }
      if (first) {
        const runIds = `run ids ${first.id ?? '(none)'} and ${id ?? '(none)'}`;
        problems.push({
          field: `${path}: testsuite "${name}"`,
          value: name,
          message:
            `is also in ${first.source} (${runIds}): ` +
            'one cell ran on two runners, and merging would count it twice',
          fix: 'merge one of the two reports (check the shard split with matrix --list-cells --shards N)',
        });
        continue;
      }
      seen.set(name, { source: path, id });
      kept.push({ suite, source: path });
    }
  }
  if (problems.length) return { ok: false, problems };

  const cells: MergedCell[] = [];
  const suites: XmlElement[] = [];
  const attachments = { rewritten: 0, unresolved: 0 };
  for (const { suite, source } of kept.sort((a, b) =>
    byName({ name: String(a.suite.attrs?.['name']) }, { name: String(b.suite.attrs?.['name']) }),
  )) {
    const name = String(suite.attrs?.['name'] ?? '');
    const c = countCases(suite);
    const declared = ['tests', 'failures', 'errors', 'skipped'].map((k) => suite.attrs?.[k]);
    const mismatch = (['tests', 'failures', 'errors', 'skipped'] as const).filter(
      (k, i) => declared[i] !== undefined && Number(declared[i]) !== c[k],
    );
    if (mismatch.length)
      warnings.push(
        `suite ${name} in ${source}: ` +
          `${mismatch.map((k) => `${k} said ${suite.attrs?.[k]}, counted ${c[k]}`).join(', ')}; ` +
          'the counted values are written',
      );
    const counted = {
      ...suite,
      attrs: { ...suite.attrs, tests: c.tests, failures: c.failures, errors: c.errors, skipped: c.skipped },
    };
    const to = input.attachmentFor;
    suites.push(to ? rewriteAttachments(counted, (p) => to(p, source), attachments) : counted);
    const runId = suite.attrs?.['id'] === undefined ? undefined : String(suite.attrs['id']);
    const props = propertiesOf(suite);
    const run = runId === undefined ? undefined : runs.get(runId);
    const reruns = casesOf(suite)
      .flatMap((tc) => tc.children ?? [])
      .filter((k) => RERUNS.has(k.name)).length;
    cells.push({
      name,
      runId,
      ...c,
      scenario: run?.scenario || props['scenario'] || name.split('/')[0]!.split('@')[0]!,
      outcome: run?.outcome ?? outcomeOf(props, c),
      interrupted: run?.interrupted ?? props['interrupted'] === 'true',
      axes: axesOf(run?.properties ?? props, name),
      timeS: seconds(suite.attrs?.['time']),
      attempts: Math.max(reruns + 1, (runId && attemptsOf.get(runId)) || 1),
      shard: (run?.properties ?? props)['matrix.shard'],
      page: runId === undefined ? undefined : input.pageFor(runId),
      source,
    });
  }
  const axes = [...new Set(cells.flatMap((c) => Object.keys(c.axes)))];
  const sum = (k: keyof Counts): number => cells.reduce((n, c) => n + c[k], 0);
  const totals = {
    tests: sum('tests'),
    failures: sum('failures'),
    errors: sum('errors'),
    skipped: sum('skipped'),
    timeS: cells.reduce((n, c) => n + c.timeS, 0),
  };
  return { ok: true, report: { suites, totals, cells, axes, warnings, exitCode: exitCodeOf(cells), attachments } };
}
