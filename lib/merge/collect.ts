// Find what `merge` reads: the sessions' JSON reports (summary.json, given or found under report folders; a JUnit file
// given brings the summary.json beside it), the JUnit files (whose suites must be runs some JSON report holds) and the
// cells' HTML pages (<run id>/report.html). Reads only; every unreadable or malformed input is a problem, all reported
// at once.
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import type { ConfigProblem } from '../errors.js';
import { readInputFile } from '../input/read.js';
import type { JUnitSuites, MergeSource } from '../report/merge.js';
import { looksLikeJUnit, parseJUnit } from '../report/parse-junit.js';
import { parseSessionJson } from '../report/parse-session.js';
import { runDirName } from '../report/reporters.js';

/** How deep a report folder is searched (a downloaded CI artifact nests a few levels). */
const MAX_DEPTH = 8;
/** Folders never searched. */
const SKIP_DIRS = new Set(['node_modules', '.git', '.vagrant', '.tap']);
/** The largest report file read (a JUnit file or summary.json of 256 cells with their logs is far smaller). */
export const MAX_REPORT_BYTES = 256 * 1024 * 1024;
/** Enough of an `*.xml` found under a folder to tell a JUnit file (its root after a declaration and comments). */
const JUNIT_HEAD_BYTES = 64 * 1024;

type Text = { ok: true; text: string } | { ok: false; message: string; fix: string };

/**
 * A report file's text through the one guarded read: bounded (a 1 GiB dump named .xml is not read whole), never
 * waiting on a FIFO given as an input. With `head`, only its start (a found `*.xml` is read whole only if JUnit).
 */
async function readReport(path: string, head?: number): Promise<Text> {
  const r = await readInputFile(path, head === undefined ? { maxBytes: MAX_REPORT_BYTES } : { head });
  if (!r.ok) return { ok: false, message: r.message, fix: r.fix };
  return { ok: true, text: r.bytes.toString('utf8') };
}

interface Collected {
  /** the suites each JUnit file names */
  junit: JUnitSuites[];
  /** the sessions, read back from their JSON reports */
  sessions: MergeSource[];
  /** a page's folder name (the run id as a path segment) -> absolute path of its report.html */
  pages: Map<string, string>;
  /** every file seen under the inputs (where a run's attachments may now be) */
  files: string[];
  problems: ConfigProblem[];
}

interface Found {
  xml: string[];
  summaries: string[];
  pages: string[];
  files: string[];
}

async function walk(dir: string, skip: string, depth: number, found: Found): Promise<void> {
  if (depth > MAX_DEPTH) return;
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const e of entries) {
    const path = join(dir, e.name);
    // Note: symlinks are not followed (no loops); the merge's own output folder is never read back.
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name) && path !== skip) await walk(path, skip, depth + 1, found);
      continue;
    }
    if (!e.isFile()) continue;
    found.files.push(path);
    if (e.name.endsWith('.xml')) found.xml.push(path);
    else if (e.name === 'summary.json') found.summaries.push(path);
    else if (e.name === 'report.html') found.pages.push(path);
  }
}

/** Read the inputs (JUnit files or report folders, relative to `cwd`), skipping the output folder `outDir`. */
export async function collectInputs(
  inputs: readonly string[],
  o: { cwd: string; outDir: string; reportsDir?: string },
): Promise<Collected> {
  const problems: ConfigProblem[] = [];
  const found: Found = { xml: [], summaries: [], pages: [], files: [] };
  const given = new Set<string>();
  /** JUnit files given with no summary.json beside them: their runs' summaries are looked up by run id */
  const alone: string[] = [];
  const outDir = resolve(o.cwd, o.outDir);
  for (const input of inputs) {
    const path = resolve(o.cwd, input);
    const st = await stat(path).catch((err: NodeJS.ErrnoException) => err);
    if (st instanceof Error) {
      problems.push({
        field: 'merge input',
        value: input,
        message: `cannot be read (${st.code ?? st.message})`,
        fix: 'give a report folder or a JUnit file that exists',
      });
    } else if (st.isDirectory()) {
      await walk(path, outDir, 0, found);
    } else {
      given.add(path);
      // a summary written under the name --report-json gave (a.json) is a summary too
      if (basename(path) === 'summary.json' || extname(path) === '.json') found.summaries.push(path);
      else {
        found.xml.push(path);
        // Note: a JUnit file's runs are read from the JSON report a session writes beside it.
        const beside = join(dirname(path), 'summary.json');
        if ((await stat(beside).catch(() => undefined))?.isFile()) found.summaries.push(beside);
        else alone.push(path);
      }
      // The pages of a JUnit file's runs sit next to it or one folder up (<reports-dir>/<run id>/report.html).
      for (const d of [dirname(path), dirname(dirname(path))]) {
        const sub = await readdir(d, { withFileTypes: true }).catch(() => []);
        for (const e of sub) {
          if (!e.isDirectory()) continue;
          const inRun = await filesIn(join(d, e.name));
          found.files.push(...inRun);
          found.pages.push(...inRun.filter((f) => basename(f) === 'report.html'));
        }
      }
    }
  }
  const out: Collected = { junit: [], sessions: [], pages: new Map(), files: [], problems };
  const seen = new Set<string>();
  // Paths in messages and on the index page as the person sees them: relative to the working directory.
  const shown = (p: string): string => (relative(o.cwd, p).startsWith('..') ? p : relative(o.cwd, p));
  for (const path of found.xml) {
    const real = await realpath(path).catch(() => path);
    if (seen.has(real)) continue;
    seen.add(real);
    const start = given.has(path) ? undefined : await readReport(path, JUNIT_HEAD_BYTES);
    if (start?.ok && !looksLikeJUnit(start.text)) continue;
    const whole = start?.ok === false ? start : await readReport(path);
    if (!whole.ok) {
      problems.push({ field: 'merge input', value: shown(path), message: whole.message, fix: whole.fix });
      continue;
    }
    const text = whole.text;
    if (!looksLikeJUnit(text)) {
      if (given.has(path))
        problems.push({
          field: 'merge input',
          value: shown(path),
          message: 'is not a JUnit file (its root is not <testsuites> or <testsuite>)',
          fix: 'give JUnit XML files or report folders',
        });
      continue;
    }
    const parsed = parseJUnit(text);
    const attr = (a: Record<string, unknown> | undefined, k: string) =>
      a?.[k] === undefined ? undefined : String(a[k]);
    if (parsed.ok)
      out.junit.push({
        path: shown(path),
        suites: parsed.doc.suites.map((x) => ({ name: attr(x.attrs, 'name') ?? '', id: attr(x.attrs, 'id') })),
      });
    else
      problems.push({
        field: 'merge input',
        value: shown(path),
        message: parsed.message,
        fix: 'regenerate the report, or leave this file out',
      });
  }
  const lookedUp: { path: string; ids: string[]; roots: string[] }[] = [];
  // Note: `run --junit <file> --reports-dir <dir>` writes the run's summary.json to <dir>/<folder named by the run id>;
  // it is looked for under the JUnit file's folder and under the reports dir.
  for (const path of alone) {
    const ids = out.junit.find((j) => j.path === shown(path))?.suites.flatMap((x) => (x.id ? [runDirName(x.id)] : []));
    if (!ids?.length) continue;
    const roots = [dirname(path), ...(o.reportsDir ? [resolve(o.cwd, o.reportsDir)] : [])];
    const runDirs = (await Promise.all(roots.map((r) => foldersNamed(r, ids, 0)))).flat();
    for (const d of runDirs) {
      const inRun = await filesIn(d);
      found.files.push(...inRun);
      found.pages.push(...inRun.filter((f) => basename(f) === 'report.html'));
      found.summaries.push(...inRun.filter((f) => basename(f) === 'summary.json'));
    }
    lookedUp.push({ path, ids, roots });
  }
  out.files = [...new Set(found.files)];
  const read = new Set<string>();
  for (const path of found.summaries) {
    const real = await realpath(path).catch(() => path);
    if (read.has(real)) continue;
    read.add(real);
    const file = await readReport(path);
    if (!file.ok) {
      problems.push({ field: 'merge input', value: shown(path), message: file.message, fix: file.fix });
      continue;
    }
    const text = file.text;
    const parsed = parseSessionJson(text);
    if (parsed.ok) out.sessions.push({ path: shown(path), session: parsed.session });
    else if (given.has(path))
      problems.push({
        field: 'merge input',
        value: shown(path),
        message: parsed.message,
        fix: 'give the summary.json a harness run wrote',
      });
    // Note: one found under a folder that does not parse is a run's report cut or changed (a runner killed in the
    // write, an upload cut): skipping it would drop that cell's verdict without a word. Another tool's file is left.
    else if (!foreignJson(text)) {
      // a summary of another schema version was written whole, by another version of the harness: not cut
      const other = /"schema"\s*:\s*"nomad-reboot-harness\/summary@(\d+)"/.exec(text)?.[1];
      problems.push({
        field: 'merge input',
        value: shown(path),
        message: parsed.message,
        fix:
          other !== undefined && other !== '1'
            ? `written by another version of the harness (summary@${other}): merge it with that version`
            : "a run's summary.json that something cut or changed: run that cell again (or remove the folder if it is not a run's)",
      });
    }
  }
  const held = new Set(
    out.sessions.flatMap((x) => x.session.suites.flatMap((u) => u.attempts.map((a) => runDirName(a.runId)))),
  );
  for (const { path, ids, roots } of lookedUp)
    if (!ids.some((id) => held.has(id)))
      problems.push({
        field: 'merge input',
        value: shown(path),
        message: `is a JUnit file whose run's summary.json (run ${ids.join(', ')}) is neither beside it nor under ${roots.map(shown).join(' or ')}`,
        fix: 'give the report folder that run wrote (its --reports-dir) as well, or pass --reports-dir <that folder>',
      });
  for (const page of found.pages)
    if (!out.pages.has(basename(dirname(page)))) out.pages.set(basename(dirname(page)), page);
  // A run's folder renamed on the way (a CI artifact unpacked under another name): its page is the one beside the
  // summary.json of that run, whatever the folder is called now.
  const pageSet = new Set(found.pages);
  for (const { path, session } of out.sessions) {
    const runs = session.suites.flatMap((u) => u.attempts);
    const page = join(dirname(resolve(o.cwd, path)), 'report.html');
    if (runs.length === 1 && pageSet.has(page) && !out.pages.has(runDirName(runs[0]!.runId)))
      out.pages.set(runDirName(runs[0]!.runId), page);
  }
  if (!inputs.length)
    problems.push({
      field: 'merge input',
      value: inputs,
      message: 'is required',
      fix: 'reboot-harness merge <report folder or JUnit file>... [--out dir]',
    });
  else if (!out.sessions.length && !problems.length)
    problems.push({
      field: 'merge input',
      value: inputs,
      message: 'holds no report of a run (summary.json)',
      fix: "give the folders the runs wrote their reports to (--reports-dir); a JUnit file is read with its run's summary.json, found beside it or under --reports-dir",
    });
  return out;
}

/** Folders at most 3 levels under `dir` whose name ends with one of `names` (a run's folder: <prefix><run id>). */
async function foldersNamed(dir: string, names: readonly string[], depth: number): Promise<string[]> {
  if (depth > 3) return [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    if (!e.isDirectory() || SKIP_DIRS.has(e.name)) continue;
    const path = join(dir, e.name);
    if (names.some((n) => e.name.endsWith(n))) out.push(path);
    else out.push(...(await foldersNamed(path, names, depth + 1)));
  }
  return out;
}

/** The files directly inside a folder (a run's folder holds its page and artifacts). */
async function filesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(dir, e.name));
}

/** JSON whose `schema` names another tool (not this harness's): a summary.json the harness never wrote. */
function foreignJson(text: string): boolean {
  try {
    const doc: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return false;
    const schema = (doc as Record<string, unknown>)['schema'];
    return typeof schema === 'string' && !schema.startsWith('nomad-reboot-harness/');
  } catch {
    return false;
  }
}
