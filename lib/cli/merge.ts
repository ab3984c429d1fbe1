// `reboot-harness merge <report folders or JUnit files>... [--out dir]`: the reports of many runners (matrix shards,
// cells) read back into one SessionReport and written by the session's own reporters: one JUnit file, one JSON
// summary and one index page linking every cell's page (docs/ci.md).
import { lstat, readlink, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { ConfigError, type ConfigProblem } from '../errors.js';
import { commandLine } from '../shell/command-line.js';
import type { HarnessConfig } from '../config/schema.js';
import { collectInputs } from '../merge/collect.js';
import { attachmentLocator } from '../merge/locate.js';
import { mergeSessions } from '../report/merge.js';
import { suiteCounts } from '../report/junit.js';
import { attachmentBase } from '../report/attachment-paths.js';
import { copyFiles, writeSessionReports } from '../report/write.js';
import { attachmentCopies } from '../report/merge-copies.js';
import { indexReporter, jsonReporter, junitReporter, runDirName } from '../report/reporters.js';
import type { ParsedArgs } from './command.js';
import { canonicalPath, notAFileProblems, pathProblem } from './paths.js';
import { copyTargetProblems, outFolderProblems } from './merge-out.js';
import type { SessionReport } from '../model/session.js';
import { missingShardProblems } from './merge-shards.js';
import { leaveOutBisects } from './merge-bisects.js';
import { oversizedInputs } from './merge-sizes.js';
import type { CliDeps } from './deps.js';
import { fileURLToPath } from 'node:url';

/** What merge reads before writing anything: where it writes, what it found, and every problem of both. */
export interface MergeInputs {
  outDir: string;
  found: Awaited<ReturnType<typeof collectInputs>>;
  problems: ConfigProblem[];
  /** the runs read, merged (its problems are among `problems`) */
  merged: ReturnType<typeof mergeSessions>;
  /** what was left out of the inputs and why (a bisect's report found beside the runs), told as warnings */
  leftOut: string[];
}

/** lib/merge/collect.ts's word for a folder in which its scan found no summary.json it could read. */
const NO_REPORT = 'holds no report of a run (summary.json)';

/** The --out folder and the inputs, read; their problems returned (told with the rest of the command's input). */
export async function readMergeInputs(args: ParsedArgs, config: HarnessConfig, deps: CliDeps): Promise<MergeInputs> {
  const given = typeof args.values['out'] === 'string' ? (args.values['out'] as string) : undefined;
  const out = given ?? join(config.reports.dir, 'merged');
  const outDir = resolve(deps.cwd, out);
  const bad = await pathProblem(
    { field: given === undefined ? '--out (default <reports-dir>/merged)' : '--out', value: out, kind: 'dir' },
    deps.cwd,
  );
  // Note: a link whose target is gone: nothing can be made through it, and the writes failed at the end, exit 3 (Q238)
  const dangling =
    !bad &&
    (await lstat(outDir).catch(() => undefined))?.isSymbolicLink() &&
    !(await stat(outDir).catch(() => undefined))
      ? {
          field: given === undefined ? '--out (default <reports-dir>/merged)' : '--out',
          value: out,
          message: `is a symbolic link to ${await readlink(outDir)}, which does not exist`,
          fix: 'make the folder it points to, or give --out a folder',
        }
      : undefined;
  // Note: a FIFO given as an input would hold the read for ever; it is told, the rest read
  const pipes = await notAFileProblems(
    args.positionals.map((value) => ({ field: 'merge input', value })),
    deps.cwd,
  );
  // Note: an input holding a report file too large to read whole is told and left out of the scan (Q233)
  const sized = await oversizedInputs(
    args.positionals.filter((p) => !pipes.some((x) => x.value === p)),
    { cwd: deps.cwd, outDir },
  );
  const readable = sized.inputs;
  // a folder's own summary.json that is a pipe or a device is passed over by the scan: said as what it is, not as
  // a folder that holds no report
  const inside = await notAFileProblems(
    readable.map((p) => ({ field: 'merge input', value: join(p, 'summary.json') })),
    deps.cwd,
  );
  // Note: a bisect's folder is no run's report: left out, or told where an input holds nothing else (Q520)
  const bisects = await leaveOutBisects(
    await collectInputs(readable, { cwd: deps.cwd, outDir, reportsDir: config.reports.dir }),
    readable,
    deps.cwd,
  );
  const collected = bisects.collected;
  const theirs = [
    ...bisects.problems,
    ...(inside.length || bisects.problems.length
      ? collected.problems.filter((p) => p.message !== NO_REPORT)
      : collected.problems),
  ];
  const empty = await emptyFolderProblems(readable, collected, [...inside, ...theirs], deps.cwd);
  // Note: the folders said one by one replace the scan's word for all of them
  const rest = empty.length ? theirs.filter((p) => p.message !== NO_REPORT) : theirs;
  const found =
    pipes.length || sized.problems.length || inside.length || empty.length || bisects.problems.length
      ? {
          ...collected,
          problems: [...pipes, ...sized.problems, ...inside, ...(readable.length ? rest : []), ...empty],
        }
      : collected;
  // the merged junit.xml and summary.json written into an input folder are read back as one more run next time
  // Note: so is a run's own file given by name (or found beside it) where a merged one of the same name is written
  // Note: compared where they are written through symlinks: --out a link to an input folder is that folder
  const realOut = await canonicalPath(outDir, deps.cwd);
  const written = ['junit.xml', 'summary.json', 'index.html'].map((n) => join(realOut, n));
  const named = await Promise.all(args.positionals.map((p) => canonicalPath(p, deps.cwd)));
  const found2 = await Promise.all(found.files.map((f) => canonicalPath(f, deps.cwd)));
  const inputs = [...named, ...named.map((p) => join(dirname(p), 'summary.json')), ...found2];
  const clash = [
    ...args.positionals.filter((_, i) => named[i] === realOut),
    ...(inputs.some((f) => written.includes(f)) ? [relative(deps.cwd, outDir) || '.'] : []),
  ];
  const into: ConfigProblem[] = clash.length
    ? [
        {
          field: given === undefined ? '--out (default <reports-dir>/merged)' : '--out',
          value: out,
          message: `is the input folder ${clash[0]}: the merged reports would land among the ones they merge`,
          fix: `give --out a folder of its own, e.g. ${commandLine(['--out', join(clash[0]!, 'merged')])}`,
        },
      ]
    : [];
  const dirs = await Promise.all(
    named.map(async (p) => ((await stat(p).catch(() => undefined))?.isDirectory() ? p : '')),
  );
  const held = into.length
    ? []
    : await outFolderProblems({
        field: given === undefined ? '--out (default <reports-dir>/merged)' : '--out',
        value: out,
        realOut,
        inputDirs: dirs.filter((d) => d !== ''),
        cwd: deps.cwd,
      });
  // Note: a merged file's name in --out that is a symlink to an input is written through: the input lost (Q235)
  const through = into.length
    ? []
    : (
        await Promise.all(
          written.map(async (w) => {
            const real = await canonicalPath(w, deps.cwd);
            return real !== w && inputs.includes(real) ? [{ w, real }] : [];
          }),
        )
      ).flat();
  const linked: ConfigProblem[] = through.map(({ w, real }) => ({
    field: given === undefined ? '--out (default <reports-dir>/merged)' : '--out',
    value: out,
    message: `holds ${basename(w)}, a link to the input ${relative(deps.cwd, real) || real}: the merged ${basename(w)} would be written over that input`,
    fix: `remove the link ${join(out, basename(w))}, or give --out a folder of its own`,
  }));
  const problems = [
    ...(bad ? [bad] : []),
    ...(dangling ? [dangling] : []),
    ...into,
    ...linked,
    ...held,
    ...found.problems,
  ];
  // Note: merged now, so that a cell found twice or another tool's suite is told with an unreadable input, not after it
  const locate = attachmentLocator(found.files);
  const merged = mergeSessions({
    sessions: found.sessions,
    junit: found.junit,
    attachmentFor: (path, source) => locate(path, dirname(resolve(deps.cwd, source))),
    outDir,
  });
  // Note: a shard whose report was told unreadable (cut, no report in it) is not told again as missing; an input that
  // does not exist holds no shard, and the shards the others lack are told with it, not in a second exit 2 (Q232)
  const damaged = found.problems.some((p) => !p.message.startsWith('cannot be read (ENOENT)'));
  const shards = damaged ? [] : missingShardProblems(found.sessions);
  // Note: the copies planned now, so that one through a link out of --out is told with the rest (Q236)
  const copies =
    args.values['copy-attachments'] && merged.ok && !into.length
      ? await copyTargetProblems({
          field: given === undefined ? '--out (default <reports-dir>/merged)' : '--out',
          value: out,
          outDir,
          realOut,
          targets: copyPlan(merged.merged.session, found, outDir).copies.map((c) => c.to),
          cwd: deps.cwd,
        })
      : [];
  return {
    outDir,
    found,
    merged,
    leftOut: bisects.warnings,
    problems: [...problems, ...copies, ...mergeProblems(merged, problems, deps.cwd), ...shards],
  };
}

/** The copies --copy-attachments makes: every attachment found among the inputs and every cell's page. */
function copyPlan(session: SessionReport, found: MergeInputs['found'], outDir: string) {
  const inputs = new Set(found.files.map((f) => resolve(f)));
  return attachmentCopies(session, {
    outDir,
    exists: (p) => inputs.has(p),
    pageOf: (runId) => found.pages.get(runDirName(runId)),
  });
}

/**
 * The merge's own problems beside the inputs' ones, less those of a JUnit file in a folder whose input was already
 * told (its summary.json cut: "a suite no JSON report holds" would say the same twice).
 */
function mergeProblems(
  merged: ReturnType<typeof mergeSessions>,
  told: readonly ConfigProblem[],
  cwd: string,
): ConfigProblem[] {
  if (merged.ok) return [];
  const dirs = new Set(
    told.flatMap((p) =>
      typeof p.value === 'string'
        ? [resolve(cwd, p.value), dirname(resolve(cwd, p.value))].filter((d) => d !== resolve(cwd))
        : [],
    ),
  );
  return merged.problems.filter((p) => {
    const file = /^(.*): testsuite "/.exec(p.field)?.[1];
    return file === undefined || !dirs.has(dirname(resolve(cwd, file)));
  });
}

/**
 * Each folder given that yielded no run's summary.json, when others did: the scan told such a folder only when no input
 * held a report, so `merge shard-1 shard-2 shard-3` with shard-3 empty (a runner whose upload failed) merged the
 * others and exited 0 without a word of the cells it lacks. Its own summary.json that is a folder or cannot be
 * followed (a symlink loop) is said as such.
 */
async function emptyFolderProblems(
  given: readonly string[],
  collected: Awaited<ReturnType<typeof collectInputs>>,
  told: readonly ConfigProblem[],
  cwd: string,
): Promise<ConfigProblem[]> {
  const others = collected.sessions.length > 0;
  const under = (dir: string, p: string) => p === dir || p.startsWith(dir + sep);
  const named = (dir: string) =>
    told.some((p) => typeof p.value === 'string' && under(dir, resolve(cwd, p.value))) ||
    // a JUnit file's suites are judged by the merge itself (a suite no JSON report holds, one found twice)
    [...collected.sessions, ...collected.junit].some((x) => under(dir, resolve(cwd, x.path)));
  const out: ConfigProblem[] = [];
  for (const value of new Set(given)) {
    const dir = resolve(cwd, value);
    if (!(await stat(dir).catch(() => undefined))?.isDirectory() || named(dir)) continue;
    const own = await stat(join(dir, 'summary.json')).catch((err: NodeJS.ErrnoException) => err);
    const why =
      own instanceof Error
        ? own.code === 'ENOENT'
          ? ''
          : `: its summary.json cannot be read (${own.code ?? own.message})`
        : own.isDirectory()
          ? ': its summary.json is a folder, not a file'
          : '';
    out.push({
      field: 'merge input',
      value,
      message: `${NO_REPORT}${why}${others ? '; the other inputs hold reports, and merging without it would leave its cells out' : ''}`,
      fix: 'give the folder the run (or the matrix shard) wrote its reports to, or leave this one out',
    });
  }
  // Note: with no report anywhere the scan's one word says it, unless a folder's summary.json is no file
  return others || out.some((p) => p.message !== NO_REPORT) ? out : [];
}

/** Merge the inputs read and write <out>/junit.xml, summary.json and index.html; exit code as for `run` over the cells. */
export async function mergeCommand(
  args: ParsedArgs,
  config: HarnessConfig,
  deps: CliDeps,
  input: MergeInputs,
): Promise<number> {
  const { outDir, found, merged: res } = input;
  if (input.problems.length) throw new ConfigError(input.problems);
  const href = (abs: string): string => relative(outDir, abs).split(sep).join('/');
  // Note: with --copy-attachments the pages are the copies inside the merged folder (set once they are planned).
  let pages = found.pages;
  const pageFor = (runId: string): string | undefined => {
    const page = pages.get(runDirName(runId));
    return page === undefined ? undefined : href(page);
  };
  if (!res.ok) throw new ConfigError(res.problems);
  const { sources, warnings, attachments } = res.merged;
  let session = res.merged.session;
  const copied = { files: 0, errors: [] as string[] };
  if (args.values['copy-attachments']) {
    const plan = copyPlan(session, found, outDir);
    copied.errors = await copyFiles(plan.copies);
    copied.files = plan.copies.length - copied.errors.length;
    // Note: a copy that failed still names its target; the warning below says which.
    session = plan.session;
    pages = plan.pages;
  }
  const secrets = config.nomad.token ? [config.nomad.token] : [];
  const paths = {
    junit: join(outDir, 'junit.xml'),
    json: join(outDir, 'summary.json'),
    index: join(outDir, 'index.html'),
  };
  const index = indexReporter({
    path: paths.index,
    pageFor,
    sourceOf: (name) => sources.get(name) ?? '',
    warnings: [...input.leftOut, ...warnings],
    generatedAt: new Date().toISOString(),
  });
  const written = await writeSessionReports(session, [junitReporter, jsonReporter, index], {
    cwd: deps.cwd,
    reportsDir: outDir,
    outFlag: args.values['out'] === undefined ? '--out, default <reports-dir>/merged' : '--out',
    junitPath: paths.junit,
    jsonPath: paths.json,
    attachments: attachmentBase(config.reports.attachmentPaths, deps.env, deps.cwd),
    pageFile: (runId) => pages.get(runDirName(runId)),
    cli: fileURLToPath(new URL('../../bin/reboot-harness.js', import.meta.url)),
    rawArgs: args.rawArgs,
    secrets,
  });
  for (const w of [...input.leftOut, ...warnings, ...copied.errors]) deps.err(`warning: ${w}\n`);
  // Note: a merged report not written (a FIFO or a folder of that name, a full disk) is an error and exit 3, as for
  // run; it was a warning, its path still listed under "reports:" and the exit the cells' verdict (Q203)
  for (const e of written.errors) deps.err(`error: ${e}\n`);
  const finals = session.suites.flatMap((x) => x.attempts.slice(-1));
  const t = finals.map(suiteCounts).reduce(
    (a, c) => ({
      tests: a.tests + c.tests,
      failures: a.failures + c.failures,
      errors: a.errors + c.errors,
      skipped: a.skipped + c.skipped,
    }),
    { tests: 0, failures: 0, errors: 0, skipped: 0 },
  );
  const noPage = finals.filter((r) => !pageFor(r.runId)).length;
  // Note: a folder inside the working directory is shown relative to it, any other as given (absolute), not ../../
  const shown = (p: string): string => {
    const rel = relative(deps.cwd, p);
    return rel === '' ? '.' : rel.startsWith('..') ? p : rel;
  };
  const lines = [
    `merged ${finals.length} suites from ${found.sessions.length} JSON reports: ${t.tests} tests, ` +
      `${t.failures} failures, ${t.errors} errors, ${t.skipped} skipped`,
    ...(noPage ? [`${noPage} of ${finals.length} cells have no HTML page among the inputs`] : []),
    ...(attachments.unresolved
      ? [`${attachments.unresolved} attachment lines name files not among the inputs (kept as written)`]
      : []),
    ...(args.values['copy-attachments']
      ? [`copied ${copied.files} files (attachments and pages) into ${shown(outDir)}`]
      : []),
    `reports: ${written.written.map((f) => shown(f.path)).join(' ') || 'none written'}`,
  ];
  deps.out(`${lines.join('\n')}\n`);
  return written.session.exitCode;
}
