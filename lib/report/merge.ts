// `merge`: many runners' sessions (read back from their JSON reports) as one SessionReport, which the same reporters
// as a session's render: suites sorted by name, a suite name from two runs refused, the same run given twice kept
// once, every artifact pointed at where it is now. JUnit files among the inputs only vouch for their suites: each must
// be a run some JSON report holds. Pure.
import { basename, dirname, isAbsolute, normalize, resolve } from 'node:path';
import type { ConfigProblem } from '../errors.js';
import type { ArtifactRef, RunRecord } from '../model/run.js';
import type { BuildInfo, SessionReport, SuiteReport } from '../model/session.js';
import { commandLine } from '../shell/command-line.js';
import { judgeRepeats } from './flaky.js';
import { sessionExitCode } from './outcome.js';

/** A session read from a JSON report, and where it came from (named in problems and on the index page). */
export interface MergeSource {
  path: string;
  session: SessionReport;
}

/** The suites a JUnit file names (its testsuite name and id attributes). */
export interface JUnitSuites {
  path: string;
  suites: { name: string; id: string | undefined }[];
}

interface MergeInput {
  sessions: readonly MergeSource[];
  junit: readonly JUnitSuites[];
  /**
   * where an artifact a run wrote is now (absolute), when it was found among the inputs; `source` is the JSON report
   * it was read from (a relative path may be where that report's folder says)
   */
  attachmentFor?: (path: string, source: string) => string | undefined;
  /** the merge's output folder: an artifact not found keeps its path as written, relative to it */
  outDir: string;
}

interface MergedSession {
  session: SessionReport;
  /** the JSON report each suite came from, by suite name */
  sources: Map<string, string>;
  /** what merge noticed and handled (the same run given twice) */
  warnings: string[];
  /** artifacts pointed at their place among the inputs, and those whose file was not among them */
  attachments: { rewritten: number; unresolved: number };
}

type MergeResult = { ok: true; merged: MergedSession } | { ok: false; problems: ConfigProblem[] };

const byName = (a: { name: string }, b: { name: string }): number =>
  a.name.localeCompare(b.name, 'en', { numeric: true });

/** The run id of a suite: its final attempt's (what its JUnit suite's id says). */
const runIdOf = (x: SuiteReport): string | undefined => x.attempts.at(-1)?.runId;

/** Merge the sessions; problems (a suite name from two runs, a JUnit suite no JSON report holds) when any. */
export function mergeSessions(input: MergeInput): MergeResult {
  const warnings: string[] = [];
  const problems: ConfigProblem[] = [];
  const seen = new Map<string, { source: string; id: string | undefined }>();
  const kept: { suite: SuiteReport; source: string }[] = [];
  const holds = (name: string, id: string | undefined) =>
    input.sessions.some((s) => s.session.suites.some((x) => x.name === name && runIdOf(x) === id));
  // the JUnit files that vouch for a run: the earlier run's to move out with its summary (Q351)
  // (a JUnit file inside the folder goes with it: not named again)
  const filesOf = (id: string, source: string) => [
    source,
    ...input.junit
      .filter((j) => j.suites.some((x) => x.id === id) && !j.path.startsWith(`${source}/`))
      .map((j) => j.path),
  ];
  const earlierFiles = (r: { earlier: string; earlierSource: string }) =>
    filesOf(r.earlier, r.earlierSource).join(' and ');
  // ... and the re-run's: a --junit file outside its folder (GitLab's template writes reports/<job>/junit.xml) left
  // in the inputs was then refused as "left by an earlier run" (Q422)
  const laterFiles = (r: { later: string; laterSource: string }) => filesOf(r.later, r.laterSource);
  // a JUnit suite of a run whose summary.json is not among the inputs (moved away, or cut) beside another run of the
  // cell: not two runners (Q351), a JUnit file the earlier run left
  const leftJUnit = (name: string, path: string, first: { source: string; id: string | undefined }, id?: string) =>
    problems.push({
      field: `${path}: testsuite "${name}"`,
      value: id ?? name,
      message: `is of run ${id ?? '(none)'}, whose summary.json is not among the inputs, while ${first.source} holds run ${first.id ?? '(none)'} of that cell: a JUnit file another run of the cell (a retried job, or a re-run) left beside the reports`,
      fix: `move ${path} out of the inputs (or give that run's summary.json too, and keep one of the two runs)`,
    });
  // Note: each printed merge names an --out of its own: without one both wrote <reports-dir>/merged, the second
  // over the first (or over the merge of the rest), which the fix's own words, "with its own --out", forbid (Q651)
  const ownOut = (id: string | undefined) => ['--out', `merged-${id ?? 'alone'}`];
  const twice = (name: string, path: string, first: { source: string; id: string | undefined }, id?: string) => {
    const runIds = `run ids ${first.id ?? '(none)'} and ${id ?? '(none)'}`;
    const again = cellRunAgain(input.sessions, name, first.id, id);
    const rerun = sameShardTwice(input.sessions, name, first.id, id);
    const files = twoMatrixFiles(input.sessions, name, first.id, id);
    const kinds = notCellsOfAMatrix(input.sessions, name, first.id, id);
    // Note: two runs of one command in one reports folder are one job run twice (a retried job, or a runner whose
    // folder kept the earlier run's reports), as sameShardTwice tells of a shard: "merge each on its own" sent the
    // user to two merges of what is one report and its stale copy (Q565)
    const retried = kinds && sameFolderTwice(input.sessions, name, first.id, id);
    if (retried)
      return void problems.push({
        field: `${path}: testsuite "${name}"`,
        value: name,
        message: `is also in ${first.source} (${runIds}): the ${retried.command} ran twice into ${retried.folder} (a retried job, or a runner whose earlier reports were kept), and merging would count it twice`,
        fix: `merge the reports of one of the two runs (the earlier is ${retried.earlier}: move ${earlierFiles(retried)} out of the inputs)`,
      });
    if (kinds)
      return void problems.push({
        field: `${path}: testsuite "${name}"`,
        value: name,
        message: `is also in ${first.source} (${runIds}): two runs that are no cells of one matrix (${kinds.map((k) => k.kind).join(' and ')}) have a suite of this name, and merging would count it twice`,
        fix: `merge the reports of each on their own (one merge, with its own --out, each: ${kinds
          .map((k) => commandLine(['reboot-harness', 'merge', k.source, ...ownOut(k.id)]))
          .join(' and ')}), or leave one of them out`,
      });
    if (files && !again && !rerun)
      return void problems.push({
        field: `${path}: testsuite "${name}"`,
        value: name,
        message: `is also in ${first.source} (${runIds}): two matrix files (${files.join(' and ')}) have a cell of this name, and merging would count it twice`,
        fix: 'merge the reports of each matrix file on their own (one merge, with its own --out, per file), or name the cells apart (another scenario or axis value)',
      });
    if (again)
      return void problems.push({
        field: `${path}: testsuite "${name}"`,
        value: name,
        message: `is also in ${first.source} (${runIds}): the cell ran again with --cell (run ${again.later}, after run ${again.earlier} of ${again.file}), and merging would count it twice`,
        fix: `merge one run of the cell: leave the re-run out (${laterFiles(again).join(' and ')}) and read it on its own (${commandLine(['reboot-harness', 'merge', ...laterFiles(again), ...ownOut(again.later)])}), or leave out ${earlierFiles(again)} once every other cell it holds ran again too`,
      });
    problems.push({
      field: `${path}: testsuite "${name}"`,
      value: name,
      message: rerun
        ? `is also in ${first.source} (${runIds}): shard ${rerun.shard} of ${rerun.file} ran twice (a retried job, or a runner whose earlier reports were kept), and merging would count the cell twice`
        : `is also in ${first.source} (${runIds}): one cell ran on two runners, and merging would count it twice`,
      fix: rerun
        ? `merge the reports of one of the two runs (the earlier is ${rerun.earlier}: move ${earlierFiles(rerun)} out of the inputs)`
        : 'merge one of the two reports (check the shard split with matrix --list-cells --shards N)',
    });
  };
  for (const { path, session } of input.sessions) {
    for (const suite of session.suites) {
      const id = runIdOf(suite);
      const first = seen.get(suite.name);
      if (first && first.id === id) {
        warnings.push(`suite ${suite.name} (run ${id}) is in ${first.source} and ${path}: the same run, kept once`);
        continue;
      }
      if (first) {
        twice(suite.name, path, first, id);
        continue;
      }
      seen.set(suite.name, { source: path, id });
      kept.push({ suite, source: path });
    }
  }
  const vouched = new Map<string, string>();
  for (const { path, suites } of input.junit) {
    for (const { name, id } of suites) {
      const first = seen.get(name);
      if (!first)
        problems.push({
          field: `${path}: testsuite "${name}"`,
          value: id ?? name,
          message: 'is in no JSON report among the inputs (merge rebuilds the runs from the summary.json a run writes)',
          fix: 'give the report folder the run wrote (its summary.json beside the JUnit file)',
        });
      else if (first.id !== id && !holds(name, id)) leftJUnit(name, path, first, id);
      else if (first.id !== id) twice(name, path, first, id);
      else if (vouched.has(name) && vouched.get(name) !== path)
        warnings.push(`suite ${name} (run ${id}) is in ${vouched.get(name)} and ${path}: the same run, kept once`);
      else vouched.set(name, path);
    }
  }
  if (problems.length) return { ok: false, problems };

  const attachments = { rewritten: 0, unresolved: 0 };
  const moved = (a: ArtifactRef, source: string): ArtifactRef => {
    const now = input.attachmentFor?.(a.path, source);
    if (now === undefined) attachments.unresolved++;
    else attachments.rewritten++;
    return { ...a, path: now ?? resolve(input.outDir, a.path) };
  };
  const withArtifacts = (r: RunRecord, source: string): RunRecord => ({
    ...r,
    artifacts: r.artifacts.map((a) => moved(a, source)),
  });
  const sorted = kept.sort((a, b) => byName(a.suite, b.suite));
  const suites = sorted.map(({ suite, source }) => ({
    ...suite,
    attempts: suite.attempts.map((r) => withArtifacts(r, source)),
  }));
  const sessions = input.sessions.map((s) => s.session);
  const interrupted = sessions.some((s) => s.interrupted);
  const starts = sessions.map((s) => s.startedAtMs).filter(Number.isFinite);
  const ends = sessions.map((s) => s.startedAtMs + s.durationMs).filter(Number.isFinite);
  const startedAtMs = starts.length ? Math.min(...starts) : Number.NaN;
  const comparisons = sessions.flatMap((s) => (s.comparison ? [s.comparison] : []));
  const matrices = sessions.flatMap((s) => (s.matrix ? [s.matrix] : []));
  const session: SessionReport = {
    command: 'merge',
    startedAtMs,
    durationMs: ends.length && starts.length ? Math.max(...ends) - startedAtMs : 0,
    suites,
    interrupted,
    exitCode: sessionExitCode(suites, interrupted),
    builds: uniqueBuilds(sessions.flatMap((s) => s.builds)),
    ...(comparisons.length === 1 ? { comparison: comparisons[0]! } : {}),
    ...(matrices.length ? { matrix: mergedMatrix(matrices) } : {}),
    repeats: judgeRepeats(suites),
    kept: sessions.flatMap((s) => s.kept),
  };
  const sources = new Map(sorted.map(({ suite, source }) => [suite.name, source]));
  return { ok: true, merged: { session, sources, warnings, attachments } };
}

/**
 * Two runs of one cell that are the same shard of the same matrix file (Q311): a retried shard job, or a runner whose
 * folder kept the earlier run's reports, was told as "one cell ran on two runners" with "check the shard split",
 * which sends the user to a split that is right. Names the shard and the earlier run, whose reports to leave out.
 */
function sameShardTwice(
  sessions: MergeInput['sessions'],
  name: string,
  a: string | undefined,
  b: string | undefined,
): { shard: string; file: string; earlier: string; earlierSource: string } | undefined {
  const find = (id: string | undefined) =>
    id === undefined
      ? undefined
      : sessions.find((s) => s.session.suites.some((x) => x.name === name && runIdOf(x) === id));
  const [x, y] = [find(a), find(b)];
  const [mx, my] = [x?.session.matrix, y?.session.matrix];
  if (!x || !y || !mx || !my || !sameMatrixFile(mx, my) || mx.shard !== my.shard) return undefined;
  const older = x.session.startedAtMs <= y.session.startedAtMs ? x : y;
  return { shard: mx.shard, file: mx.file, earlier: (older === x ? a : b)!, earlierSource: dirname(older.path) };
}

/**
 * Two runs of one cell of the same matrix file, the later a `matrix --cell` run (the command a failed cell prints to
 * re-run exactly it): a re-run, not "one cell ran on two runners" with "check the shard split" (Q383), nor, when the
 * earlier was a --cell run too, "shard 1/1 ran twice". Names both runs, the earlier's folder and the re-run's.
 */
function cellRunAgain(
  sessions: MergeInput['sessions'],
  name: string,
  a: string | undefined,
  b: string | undefined,
): { file: string; earlier: string; earlierSource: string; later: string; laterSource: string } | undefined {
  const find = (id: string | undefined) =>
    id === undefined
      ? undefined
      : sessions.find((s) => s.session.suites.some((x) => x.name === name && runIdOf(x) === id));
  const [x, y] = [find(a), find(b)];
  if (!x?.session.matrix || !y?.session.matrix || !sameMatrixFile(x.session.matrix, y.session.matrix)) return undefined;
  const [older, newer] = x.session.startedAtMs <= y.session.startedAtMs ? [x, y] : [y, x];
  // a --cell run is labelled shard 1/1 and holds fewer cells than its matrix (a whole run, even interrupted, lists all)
  const m = newer.session.matrix;
  if (m?.shard !== '1/1' || newer.session.suites.length >= m.cellsInMatrix) return undefined;
  return {
    file: x.session.matrix.file,
    earlier: (older === x ? a : b)!,
    earlierSource: dirname(older.path),
    later: (older === x ? b : a)!,
    laterSource: dirname(newer.path),
  };
}

/**
 * Two runs' labels of one matrix file: named alike, resolved to one path, or named by its absolute path on one and
 * relative on the other. The command a failed cell prints to re-run it (the console's line, its repro.sh) names the
 * file by its absolute path, the shards by the path as given: that re-run was told "one cell ran on two runners"
 * with "check the shard split" (Q421).
 */
function sameMatrixFile(a: MatrixLabel, b: MatrixLabel): boolean {
  if (a.file === b.file || (!!a.path && a.path === b.path)) return true;
  const tail = (abs: string, rel: string) => isAbsolute(abs) && !isAbsolute(rel) && abs.endsWith(`/${normalize(rel)}`);
  return tail(a.file, b.file) || tail(b.file, a.file);
}

/**
 * The files of two runs of a cell of one name that are cells of two different matrix files (no file in common: a
 * merged label names several, "ci/m.yaml, ci/n.yaml"): a cell of each, not "one cell ran on two runners" with
 * "check the shard split", which is right for each (Q423).
 */
/** The commands whose report holds one run's suites, not cells. */
const SOLO_COMMANDS: ReadonlySet<string> = new Set(['run', 'compare']);

/**
 * What the two runs of a suite are when one of them is no matrix cell: a `run` (its suite the scenario's name) or a
 * `compare` (`<scenario>@<version>`) named by two jobs, or a chain of compares sharing a build (1.9.3 → 1.9.4, then
 * 1.9.4 → 1.9.5): no shard split to check, which the fallback's fix asked for (Q523). Undefined when both are cells.
 */
function notCellsOfAMatrix(
  sessions: MergeInput['sessions'],
  name: string,
  a: string | undefined,
  b: string | undefined,
): { kind: string; source: string; id: string | undefined }[] | undefined {
  const sourceOf = (id: string | undefined) =>
    id === undefined
      ? undefined
      : sessions.find((s) => s.session.suites.some((x) => x.name === name && runIdOf(x) === id));
  const [x, y] = [sourceOf(a), sourceOf(b)];
  // a run's or a compare's own report (a merged one, or a matrix's, holds cells, even unlabelled as older ones are):
  // the command an input records is data of that input, not a branch on the command running now
  const alone = ({ session }: MergeSource) => !session.matrix && SOLO_COMMANDS.has(session.command);
  if (!x || !y || !(alone(x) || alone(y))) return undefined;
  const kind = (m: MergeSource, id: string | undefined) =>
    `a ${m.session.command}${alone(m) ? '' : ' report'} (${id ?? 'no run id'})`;
  return [
    { kind: kind(x, a), source: x.path, id: a },
    { kind: kind(y, b), source: y.path, id: b },
  ];
}

/**
 * Two runs of a suite, each a `run`'s or a `compare`'s own report, of one command written into one reports folder
 * (`<reports-dir>/<run id>/summary.json` each): one job run twice. Names the folder and the earlier run.
 */
function sameFolderTwice(
  sessions: MergeInput['sessions'],
  name: string,
  a: string | undefined,
  b: string | undefined,
): { command: string; folder: string; earlier: string; earlierSource: string } | undefined {
  const find = (id: string | undefined) =>
    id === undefined
      ? undefined
      : sessions.find((s) => s.session.suites.some((x) => x.name === name && runIdOf(x) === id));
  const [x, y] = [find(a), find(b)];
  if (!x || !y || x === y || x.session.matrix || y.session.matrix) return undefined;
  const [cx, cy] = [x.session.command, y.session.command];
  if (cx !== cy || !SOLO_COMMANDS.has(cx)) return undefined;
  const folder = dirname(dirname(x.path));
  if (folder !== dirname(dirname(y.path))) return undefined;
  const older = x.session.startedAtMs <= y.session.startedAtMs ? x : y;
  return { command: x.session.command, folder, earlier: (older === x ? a : b)!, earlierSource: dirname(older.path) };
}

function twoMatrixFiles(
  sessions: MergeInput['sessions'],
  name: string,
  a: string | undefined,
  b: string | undefined,
): [string, string] | undefined {
  const labelOf = (id: string | undefined) =>
    id === undefined
      ? undefined
      : sessions.find((s) => s.session.suites.some((x) => x.name === name && runIdOf(x) === id))?.session.matrix;
  const [x, y] = [labelOf(a), labelOf(b)];
  if (!x?.file || !y?.file) return undefined;
  const each = (m: MatrixLabel) => m.file.split(', ').map((file) => ({ ...m, file }));
  const shared = each(x).some((p) => each(y).some((q) => sameMatrixFile(p, q)));
  return shared ? undefined : [x.file, y.file];
}

const byShard = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

type MatrixLabel = NonNullable<SessionReport['matrix']>;

/**
 * The matrix label of a merged summary. Several matrix files among the inputs (Q310): labelled with the first one's
 * file and the largest one's cell count, a merged summary of `ci/m.yaml` (4 cells) and `ci/n.yaml` (2) held 6 cells
 * of a "4-cell ci/m.yaml", and merging it again was refused as "two matrix files of that name". The label names every
 * file and counts the cells of each (the largest count of each file, known as lib/cli/merge-shards.ts knows a matrix:
 * by its path as given, by its last segment when absolute), so a merged summary merged again holds all its cells.
 */
function mergedMatrix(matrices: readonly MatrixLabel[]): MatrixLabel {
  const byFile = new Map<string, MatrixLabel[]>();
  for (const m of matrices) {
    const key = m.file && !isAbsolute(m.file) ? normalize(m.file) : basename(m.path || m.file);
    byFile.set(key, [...(byFile.get(key) ?? []), m]);
  }
  const shard = [...new Set(matrices.map((m) => m.shard))].sort(byShard).join(',');
  const cells = (ms: readonly MatrixLabel[]) => Math.max(...ms.map((m) => m.cellsInMatrix));
  if (byFile.size === 1) return { ...matrices[0]!, shard, cellsInMatrix: cells(matrices) };
  const groups = [...byFile.values()];
  return {
    file: [...new Set(groups.map((ms) => ms[0]!.file))].join(', '),
    path: '',
    shard,
    cellsInMatrix: groups.reduce((n, ms) => n + cells(ms), 0),
  };
}

function uniqueBuilds(builds: readonly BuildInfo[]): BuildInfo[] {
  const out = new Map<string, BuildInfo>();
  for (const b of builds) if (!out.has(b.path)) out.set(b.path, b);
  return [...out.values()];
}
