// merge's --out folder judged against what it already holds: the merged junit.xml, summary.json and index.html are
// written into it, and the scan of the inputs never reads it, so a folder that holds a run's own reports loses them.
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { commandLine } from '../shell/command-line.js';
import { canonicalPath } from './paths.js';
import type { ConfigProblem } from '../errors.js';
import { MAX_REPORT_BYTES } from '../merge/collect.js';

/** How deep a folder under --out is searched for a run's summary.json (the scan of the inputs goes as deep). */
const MAX_DEPTH = 8;
/** Folders the scan of the inputs passes over (lib/merge/collect.ts), passed over here too. */
const SKIP_DIRS = new Set(['node_modules', '.git', '.vagrant', '.tap']);

/** The run ids of a summary.json a run, a compare, a matrix or a bisect wrote; undefined for a merge's own. */
async function runReport(path: string): Promise<string[] | undefined> {
  // Note: one too large to read whole is no merge's own (Q233): a file the merge would write over, read no further
  if (((await stat(path).catch(() => undefined))?.size ?? 0) > MAX_REPORT_BYTES) return [];
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const doc = JSON.parse(text) as { command?: unknown; runs?: { runId?: unknown }[] };
    if (doc.command === 'merge') return undefined;
    return Array.isArray(doc.runs) ? doc.runs.flatMap((r) => (typeof r?.runId === 'string' ? [r.runId] : [])) : [];
  } catch {
    // not JSON (cut, another tool's): still a file the merge would write over
    return [];
  }
}

/** Every summary.json under `dir` that is not a merge's own, with its run ids. */
async function runReportsUnder(dir: string, depth = 0): Promise<{ path: string; ids: string[] }[]> {
  if (depth > MAX_DEPTH) return [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found: { path: string; ids: string[] }[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, e.name);
    if (e.isDirectory() && !SKIP_DIRS.has(e.name)) found.push(...(await runReportsUnder(path, depth + 1)));
    else if (e.isFile() && e.name === 'summary.json') {
      const ids = await runReport(path);
      if (ids !== undefined) found.push({ path, ids });
    }
  }
  return found;
}

/**
 * --out a folder that already holds the reports of a run (Q198): `merge rep --out rep/<run id>` wrote the merged
 * junit.xml and summary.json over that run's own, and the scan, which never reads the output folder, left the run out
 * of the merge: a failed run's folder as --out gave exit 0. Refused: its own junit.xml or summary.json that no merge
 * wrote, or, when --out lies inside an input folder, any run's summary.json under it. A merge's earlier output is
 * written over as before (a CI job run again).
 */
export async function outFolderProblems(o: {
  field: string;
  value: string;
  /** --out, symlinks resolved */
  realOut: string;
  /** the input folders given, symlinks resolved */
  inputDirs: readonly string[];
  cwd: string;
}): Promise<ConfigProblem[]> {
  if (!(await stat(o.realOut).catch(() => undefined))?.isDirectory()) return [];
  const shown = (p: string) => (relative(o.cwd, p).startsWith('..') ? p : relative(o.cwd, p));
  const input = o.inputDirs.find((d) => o.realOut.startsWith(d + sep));
  const top = join(o.realOut, 'summary.json');
  const ownJUnit = (await stat(join(o.realOut, 'junit.xml')).catch(() => undefined))?.isFile() ?? false;
  // Note: a regular file only: a FIFO named summary.json would hold the read for ever
  const topExists = (await stat(top).catch(() => undefined))?.isFile() ?? false;
  const ownIds = topExists ? await runReport(top) : undefined;
  // its summary.json, unless a merge wrote it; its junit.xml with no summary.json beside it (a matrix shard's)
  const jUnitAlone = ownJUnit && !topExists ? join(o.realOut, 'junit.xml') : undefined;
  const over = ownIds !== undefined && topExists ? top : jUnitAlone;
  const under = input === undefined ? [] : await runReportsUnder(o.realOut);
  // Note: a folder a merge suggests instead: a folder of its own beside the run's, or the input's merged/ (GitLab's
  // reports/merged), quoted as one word: printed bare, a path with a space or `$(...)` pasted did something else (Q650)
  const instead = () => {
    const there = input === undefined ? join(dirname(o.value), 'merged') : join(shown(input), 'merged');
    return commandLine(['--out', resolve(o.cwd, there) === o.realOut ? `${there}-2` : there]);
  };
  // a run's own page at its top (a matrix cell's folder holds its report.html and repro.sh, its reports in the
  // matrix's folder): the merged files landed in that run's folder, and, inside an input, the scan skipped the
  // folder, so the cell's page was "(no page)" in the index (Q652). A merge writes index.html there, never report.html
  const page = join(o.realOut, 'report.html');
  if (over === undefined && under.length === 0 && (await stat(page).catch(() => undefined))?.isFile())
    return [
      {
        field: o.field,
        value: o.value,
        message: `holds ${shown(page)}, a run's page: the merged junit.xml, summary.json and index.html would be written into that run's folder${input === undefined ? '' : `, and it lies inside the input folder ${shown(input)}, whose scan skips it, so the run's page would be left out of the index`}`,
        fix: `give --out a folder of its own, e.g. ${instead()}`,
      },
    ];
  if (over === undefined && under.length === 0) return [];
  const reports = [...new Set([...(over ? [over] : []), ...under.map((r) => r.path)])];
  const ids = [...new Set([...(ownIds ?? []), ...under.flatMap((r) => r.ids)])];
  const what = ids.length ? `the reports of run ${ids.join(', ')}` : 'reports no merge wrote';
  const harm = [
    ...(over ? ['the merged junit.xml and summary.json would be written over them'] : []),
    ...(input !== undefined && under.length
      ? [`it lies inside the input folder ${shown(input)}, whose scan skips it, so those runs would be left out`]
      : []),
  ];
  return [
    {
      field: o.field,
      value: o.value,
      message: `holds ${what} (${reports.map(shown).join(', ')}): ${harm.join('; ')}`,
      fix: `give --out a folder of its own, e.g. ${instead()}`,
    },
  ];
}

/**
 * --copy-attachments' targets that lie outside --out once symlinks are followed (Q236): `<out>/<run id>` a link to
 * another run's folder among the inputs had that run's page written over by this run's; a link elsewhere had the
 * copies made outside --out. Each such folder or file named once, with where it leads.
 */
export async function copyTargetProblems(o: {
  field: string;
  value: string;
  outDir: string;
  /** --out, symlinks resolved */
  realOut: string;
  targets: readonly string[];
  cwd: string;
}): Promise<ConfigProblem[]> {
  const shown = (p: string) => (relative(o.cwd, p).startsWith('..') ? p : relative(o.cwd, p));
  const told = new Map<string, string>();
  for (const to of o.targets) {
    const rel = relative(o.outDir, to);
    if (rel.startsWith('..')) continue;
    // the first name under --out that leads elsewhere: the link to name
    const names = rel.split(sep);
    for (let i = 1; i <= names.length; i++) {
      const here = join(o.outDir, ...names.slice(0, i));
      const real = await canonicalPath(here, o.cwd);
      if (real !== join(o.realOut, ...names.slice(0, i))) {
        if (!told.has(here)) told.set(here, real);
        break;
      }
    }
  }
  return [...told].map(([here, real]) => ({
    field: o.field,
    value: o.value,
    message: `holds ${shown(here)}, a link to ${shown(real)}: --copy-attachments would copy there, outside --out (over what is there)`,
    fix: `remove the link ${shown(here)}, or give --out a folder of its own`,
  }));
}
