// Read a session's JSON report (summary.json, schema nomad-reboot-harness/summary@1) back into the SessionReport it
// was rendered from, so `merge` hands the reporters the same model a session does. Pure. A summary written before a
// field existed still reads: no timeline is an empty one, no `rerun` re-runs the scenario, no `earlierAttempts` keeps
// the final attempts only.
import type { Verdict } from '../model/check.js';
import type { RunKnownIssues } from '../model/known-issue.js';
import type { RunOutcome, RunRecord, StepRecord, TimelineEvent } from '../model/run.js';
import type { BuildInfo, FlakeVerdict, RepeatOf, Rerun, SessionReport, SuiteReport } from '../model/session.js';
import { SUMMARY_SCHEMA } from './json.js';
import { sessionExitCode } from './outcome.js';

type SessionParse = { ok: true; session: SessionReport } | { ok: false; message: string };

type Doc = Record<string, unknown>;
const isMap = (v: unknown): v is Doc => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const list = (v: unknown): Doc[] => (Array.isArray(v) ? v.filter(isMap) : []);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const ms = (v: unknown): number => (typeof v === 'string' ? Date.parse(v) : Number.NaN);
/** Only the fields a value has: JSON's null is an absent optional field. */
const some = <T extends Doc>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as T;
const OUTCOMES: readonly RunOutcome[] = ['passed', 'failed', 'error'];

function verdictOf(v: Doc): Verdict {
  return some({
    id: str(v['id']),
    title: str(v['title']),
    status: v['status'] as Verdict['status'],
    message: str(v['message']),
    evidence: strings(v['evidence']),
    causedBy: v['causedBy'] as string | undefined,
    perAlloc: (Array.isArray(v['perAlloc']) ? v['perAlloc'] : undefined) as Verdict['perAlloc'],
    expected: v['expected'] === 'fail' ? ('fail' as const) : ('pass' as const),
    met: v['met'] === true,
    label: v['label'] as Verdict['label'],
    knownIssue: isMap(v['knownIssue']) ? (some(v['knownIssue']) as unknown as Verdict['knownIssue']) : undefined,
  });
}

function stepOf(s: Doc): StepRecord {
  return some({
    name: str(s['name']),
    // Note: records from before steps had ids have none (null from json.ts is none too).
    id: typeof s['id'] === 'string' ? s['id'] : undefined,
    status: s['status'] as StepRecord['status'],
    startedAtMs: ms(s['startedAt']),
    durationMs: num(s['durationMs']),
    message: s['message'] as string | undefined,
    detail: s['detail'] as string | undefined,
    // Note: older records have no values; an empty object is none either.
    values: valuesOf(s['values']),
  });
}

function valuesOf(v: unknown): Record<string, string> | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
  return Object.keys(out).length ? out : undefined;
}

function eventOf(e: Doc): TimelineEvent {
  return some({
    atMs: ms(e['at']),
    lane: e['lane'] as TimelineEvent['lane'],
    label: str(e['label']),
    detail: e['detail'] as string | undefined,
    severity: e['severity'] as TimelineEvent['severity'],
    machine: e['machine'] as string | undefined,
    untilMs: typeof e['until'] === 'string' ? ms(e['until']) : undefined,
  });
}

/** One run of the summary as the RunRecord it was written from. */
function runOf(r: Doc): RunRecord {
  const props = isMap(r['properties']) ? r['properties'] : {};
  const error = isMap(r['error'])
    ? some({ message: str(r['error']['message']), step: r['error']['step'], detail: r['error']['detail'] })
    : undefined;
  return {
    runId: str(r['runId']),
    scenario: str(r['scenario']),
    suiteName: str(r['suiteName']),
    hostname: str(r['hostname']),
    startedAtMs: ms(r['startedAt']),
    durationMs: num(r['durationMs']),
    properties: Object.fromEntries(
      Object.entries(props).filter((kv): kv is [string, string] => typeof kv[1] === 'string'),
    ),
    steps: list(r['steps']).map(stepOf),
    verdicts: list(r['verdicts']).map(verdictOf),
    artifacts: list(r['artifacts']).map((a) =>
      some({ name: str(a['name']), path: str(a['path']), caseName: a['caseName'] as string | undefined }),
    ),
    timeline: list(r['timeline']).map(eventOf),
    ...(error ? { error: error as RunRecord['error'] & object } : {}),
    ...(r['interrupted'] === true ? { interrupted: true } : {}),
    // Note: a summary written before the known-issue table has none
    ...(isMap(r['knownIssues']) ? { knownIssues: r['knownIssues'] as unknown as RunKnownIssues } : {}),
    outcome: OUTCOMES.find((o) => o === r['outcome']) ?? 'error',
  };
}

/** Re-run a suite of an old summary (no `rerun`): the scenario, with the session's own inputs. */
function defaultRerun(scenario: string): Rerun {
  const builds = [
    { property: 'nomad.binary', flag: '--nomad' as const },
    { property: 'nomad.upgrade_to', flag: '--upgrade-to' as const },
  ];
  return { scope: 'suite', argv: ['run', scenario], keepArgs: true, builds };
}

function suiteOf(x: Doc, runs: ReadonlyMap<string, RunRecord>): SuiteReport {
  const ids = strings(x['runIds']);
  const attempts = ids.flatMap((id) => (runs.has(id) ? [runs.get(id)!] : []));
  const scenario = str(x['scenario']) || attempts[0]?.scenario || '';
  const side = x['side'] === 'before' || x['side'] === 'after' ? { side: x['side'] as 'before' | 'after' } : {};
  const repeat = isMap(x['repeat']) ? { repeat: x['repeat'] as unknown as RepeatOf } : {};
  return {
    name: str(x['name']),
    key: str(x['key']) || str(x['name']),
    scenario,
    ...side,
    counts: x['counts'] !== false,
    attempts,
    rerun: isMap(x['rerun']) ? (x['rerun'] as unknown as Rerun) : defaultRerun(scenario),
    ...repeat,
  };
}

/** Parse a summary.json text into its SessionReport; a message naming the expected schema and what was found otherwise. */
export function parseSessionJson(text: string): SessionParse {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `is not JSON (${withoutExcerpt((err as Error).message)})` };
  }
  if (!isMap(doc) || doc['schema'] !== SUMMARY_SCHEMA) {
    const got = isMap(doc) ? JSON.stringify(doc['schema'] ?? null) : typeof doc;
    return { ok: false, message: `is not a harness summary: expected "schema": "${SUMMARY_SCHEMA}", got ${got}` };
  }
  // Note: a summary@1 always has its runs as a list (and suites, when present): one without is a file changed by hand
  // or by a tool, and read leniently it would merge as no suites at all, whatever its run's verdict was
  const misshapen = ['runs', 'suites', 'earlierAttempts'].filter(
    (k) => (k === 'runs' || doc[k] !== undefined) && !Array.isArray(doc[k]),
  );
  if (misshapen.length)
    return {
      ok: false,
      message: `is not a summary a run wrote: ${misshapen.map((k) => `"${k}"`).join(', ')} not a list`,
    };
  const runs = new Map<string, RunRecord>();
  for (const r of [...list(doc['earlierAttempts']), ...list(doc['runs'])])
    if (str(r['runId'])) runs.set(str(r['runId']), runOf(r));
  // Note: a summary from before sessions had `suites` lists its runs only; each is then a suite of its own.
  const suites = Array.isArray(doc['suites'])
    ? list(doc['suites']).map((x) => suiteOf(x, runs))
    : [...runs.values()].map((r) => suiteOf({ name: r.suiteName, scenario: r.scenario, runIds: [r.runId] }, runs));
  const interrupted = doc['interrupted'] === true;
  const matrix = isMap(doc['matrix']) && typeof doc['matrix']['shard'] === 'string' ? doc['matrix'] : undefined;
  const comparison = isMap(doc['comparison']) ? doc['comparison'] : undefined;
  const command = ['run', 'compare', 'matrix', 'merge'].find((c) => c === doc['command']) as SessionReport['command'];
  const session: SessionReport = {
    command: command ?? 'run',
    startedAtMs: ms(doc['startedAt']),
    durationMs: num(doc['durationMs']),
    suites,
    interrupted,
    exitCode: typeof doc['exitCode'] === 'number' ? doc['exitCode'] : sessionExitCode(suites, interrupted),
    builds: list(doc['builds']).map(buildOf),
    ...(comparison ? { comparison: comparisonOf(comparison, suites) } : {}),
    ...(matrix
      ? {
          matrix: {
            file: str(matrix['file']),
            path: str(matrix['path']),
            shard: str(matrix['shard']),
            cellsInMatrix: num(matrix['cellsInMatrix']),
          },
        }
      : {}),
    repeats: list(doc['repeats']) as unknown as FlakeVerdict[],
    kept: list(doc['kept']) as unknown as SessionReport['kept'],
  };
  return { ok: true, session };
}

function buildOf(b: Doc): BuildInfo {
  const path = str(b['path']);
  return {
    spec: str(b['spec']),
    path,
    sha256: str(b['sha256']),
    version: str(b['version']),
    revision: str(b['revision']),
    origin: isMap(b['origin']) ? (b['origin'] as unknown as BuildInfo['origin']) : { kind: 'path', path },
  };
}

function comparisonOf(c: Doc, suites: readonly SuiteReport[]): NonNullable<SessionReport['comparison']> {
  const name = (k: string) => str(isMap(c[k]) ? c[k]['suiteName'] : '');
  const rows = list(c['rows']).map((r) =>
    some({
      id: str(r['id']),
      title: str(r['title']),
      before: (r['before'] ?? undefined) as NonNullable<SessionReport['comparison']>['rows'][number]['before'],
      after: (r['after'] ?? undefined) as NonNullable<SessionReport['comparison']>['rows'][number]['after'],
      flipped: r['flipped'] === true,
      explainedBy: (isMap(r['explainedBy']) ? r['explainedBy'] : undefined) as
        | NonNullable<SessionReport['comparison']>['rows'][number]['explainedBy']
        | undefined,
    }),
  );
  const after = suites.find((x) => x.name === name('after'));
  return { scenario: after?.scenario ?? '', beforeName: name('before'), afterName: name('after'), rows };
}

/**
 * JSON.parse's message without the text it quotes ("Unexpected token 'g', "ghp_16C7e4"... is not valid JSON"): a
 * token or credentials file given by mistake as a report showed its first characters (Q234).
 */
function withoutExcerpt(message: string): string {
  return message.replace(/, (?:\.\.\.)?"(?:[^"\\]|\\.)*"(?:\.\.\.)? is not valid JSON/gs, '; its text not shown');
}
