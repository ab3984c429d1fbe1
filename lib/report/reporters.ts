// Reporters: pure functions of one SessionReport behind one interface, and a multiplexer that keeps one reporter's
// failure from costing the others (Playwright's reporter multiplexer). lib/report/write.ts writes what they return.
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { ArtifactRef, RunRecord } from '../model/run.js';
import type { SessionReport, SuiteReport } from '../model/session.js';
import { attachmentPath, type AttachmentBase } from './attachment-paths.js';
import { renderHtml } from './html.js';
import { indexOf, renderIndexHtml } from './html-index.js';
import { flakeOf } from './flaky.js';
import { renderJUnit } from './junit.js';
import { renderSessionJson } from './json.js';
import { reproCommand, type ReproBuild } from './repro.js';

/** One file a reporter wants written. */
export interface OutputFile {
  path: string;
  text: string;
  /** file mode (repro.sh is executable) */
  mode?: number;
  /** what it is, for the console ("junit", "json", "html", "repro", "evidence") */
  kind: string;
  /** raw text (evidence), not a rendering of redacted data: secret-shaped text is redacted too when it is written */
  raw?: boolean;
}

/** Where things go and what a repro needs; decided by the CLI after the session ran. */
export interface ReportContext {
  cwd: string;
  reportsDir: string;
  junitPath: string;
  jsonPath: string;
  /** how `[[ATTACHMENT|...]]` paths are written: from the JUnit file's folder, the project directory, or absolute */
  attachments: AttachmentBase;
  /** the CLI entry a person runs (bin/reboot-harness.js) */
  cli: string;
  /** argv after the command, for repro commands */
  rawArgs: readonly string[];
  /** secret values: a repro refers to $NOMAD_TOKEN instead */
  secrets: readonly string[];
  /** environment variables that shaped the run (no secret among them), for repro commands */
  env?: readonly (readonly [string, string])[];
  /** the command's flags that take a value, so a repro keeps each flag with its own value */
  valueFlags?: ReadonlySet<string>;
  /** per suite, the session's flags a re-run of it alone must not pass (see ReproInput.drop) */
  dropFor?: (suite: Pick<SuiteReport, 'key' | 'scenario'>) => ((flag: string, value?: string) => boolean) | undefined;
  /** the flag that chose every path, named in a write error (merge: --out); default the run's --junit/--reports-dir */
  outFlag?: string;
  /** where a run's HTML page is (a merge's pages stay where the inputs had them); default <reportsDir>/<run>/report.html */
  pageFile?: (runId: string) => string | undefined;
}

export interface Reporter {
  name: string;
  files(s: SessionReport, c: ReportContext): OutputFile[];
}

/** Run every reporter; a reporter that throws is named in `errors` and the others still report. */
export function renderReports(
  reporters: readonly Reporter[],
  s: SessionReport,
  c: ReportContext,
): { files: OutputFile[]; errors: string[] } {
  const files: OutputFile[] = [];
  const errors: string[] = [];
  for (const r of reporters) {
    try {
      files.push(...r.files(s, c));
    } catch (err) {
      errors.push(`reporter ${r.name} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { files, errors };
}

/** A path as seen from a folder, with forward slashes. */
function relativeTo(dir: string, path: string): string {
  return relative(resolve(dir), resolve(path)).split(sep).join('/');
}

export const junitReporter: Reporter = {
  name: 'junit',
  files(s, c) {
    const path = (a: ArtifactRef) => attachmentPath(c.attachments, c.junitPath, a.path);
    const pagePath = (run: RunRecord) => {
      const page = c.pageFile ? c.pageFile(run.runId) : join(c.reportsDir, runDirName(run.runId), 'report.html');
      return page === undefined ? undefined : attachmentPath(c.attachments, c.junitPath, page);
    };
    const suites = s.suites.map((x) => ({ ...x, flake: flakeOf(s, x) }));
    return [{ kind: 'junit', path: c.junitPath, text: renderJUnit(suites, { attachmentPath: path, pagePath }) }];
  },
};

export const jsonReporter: Reporter = {
  name: 'json',
  files: (s, c) => [{ kind: 'json', path: c.jsonPath, text: renderSessionJson(s) }],
};

/** A run ID as one safe path segment (no separators, no `..`), so a page can never be written outside `dir`. */
export function runDirName(runId: string): string {
  const name = runId.replace(/[^A-Za-z0-9._-]/g, '_');
  return name === '' || /^\.+$/.test(name) ? `run${name.length}` : name;
}

/** One self-contained page per attempt at <reports>/<runId>/report.html; artifact links relative to the page. */
export const htmlReporter: Reporter = {
  name: 'html',
  files(s, c) {
    return s.suites.flatMap((suite) =>
      suite.attempts.map((run) => {
        const path = join(c.reportsDir, runDirName(run.runId), 'report.html');
        const hrefFor = (a: ArtifactRef) => relativeTo(dirname(path), a.path);
        const r = suite.repeat;
        const repeat = r ? { repeat: { attempt: r.attempt, of: r.of, flake: flakeOf(s, suite) } } : {};
        return { kind: 'html', path, text: renderHtml(run, { hrefFor, ...repeat }) };
      }),
    );
  },
};

/** A suite that did not meet its expectations and was not interrupted: worth a repro. */
const needsRepro = (x: SuiteReport) => {
  const last = x.attempts.at(-1);
  return x.counts && !!last && last.outcome !== 'passed' && !last.interrupted;
};

/** The builds a run installed, for its repro: a path as its absolute path, a release or source tree as its spec. */
function buildsOf(s: SessionReport, x: SuiteReport, run: RunRecord, cli: string): ReproBuild[] {
  return x.rerun.builds.flatMap(({ property, flag }) => {
    const path = run.properties[property];
    if (!path) return [];
    const b = s.builds.find((y) => y.path === path);
    const spec = b && b.origin.kind !== 'path' ? { spec: b.spec, cli } : {};
    return [{ ...(flag ? { flag } : {}), path, ...(b?.sha256 ? { sha256: b.sha256 } : {}), ...spec }];
  });
}

/** `s` on one line: control characters written as escapes (`\n`, `\u001b`, `\u0085`). */
const oneLine = (s: string): string =>
  s.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => {
    const json = JSON.stringify(c).slice(1, -1);
    return json.length > 1 ? json : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });

/** One repro file: the command that re-runs `suites` together (one suite, or every suite of a comparison). */
function reproFile(s: SessionReport, suites: readonly SuiteReport[], c: ReportContext): OutputFile {
  const runs = suites.flatMap((x) => x.attempts.slice(-1).map((run) => ({ x, run })));
  const { rerun } = suites[0]!;
  const drop = c.dropFor?.(suites[0]!);
  const command = reproCommand({
    argv: rerun.argv,
    args: rerun.keepArgs ? c.rawArgs : [],
    cwd: c.cwd,
    cli: c.cli,
    builds: runs.flatMap(({ x, run }) => buildsOf(s, x, run, c.cli)),
    secrets: c.secrets,
    ...(c.env ? { env: c.env } : {}),
    ...(c.valueFlags ? { valueFlags: c.valueFlags } : {}),
    ...(drop ? { drop } : {}),
  });
  const first = runs[0]!.run;
  // Note: one line: a name is the user's text (a matrix axis value may hold a newline), and a comment it broke would
  // leave the rest of the name a command of repro.sh
  const what = oneLine(rerun.title ?? `${suites[0]!.name} (run ${first.runId})`);
  const token = c.secrets.length ? '; the ACL token is read from $NOMAD_TOKEN' : '';
  return {
    kind: 'repro',
    path: join(c.reportsDir, first.runId, 'repro.sh'),
    text: `#!/bin/sh\n# re-runs ${what} with the same inputs${token}\n${command}\n`,
    mode: 0o755,
  };
}

/**
 * repro.sh for every suite that did not meet its expectations: the command that re-runs exactly it, as the suite's
 * `rerun` says; suites re-run together (a comparison) get one file when any of them missed.
 */
export const reproReporter: Reporter = {
  name: 'repro',
  files(s, c) {
    const together = s.suites.filter((x) => x.rerun.scope === 'session' && x.attempts.length);
    const alone = s.suites.filter((x) => x.rerun.scope === 'suite' && needsRepro(x));
    const out = alone.map((x) => reproFile(s, [x], c));
    if (together.some(needsRepro)) out.unshift(reproFile(s, together, c));
    return out;
  },
};

/** The index page of a merge: a row per suite, linking its page where one was found (lib/report/html-index.ts). */
export function indexReporter(o: {
  path: string;
  pageFor: (runId: string) => string | undefined;
  sourceOf: (suite: string) => string;
  warnings: string[];
  generatedAt?: string;
}): Reporter {
  const when = o.generatedAt ? { generatedAt: o.generatedAt } : {};
  return {
    name: 'index',
    files: (s) => [{ kind: 'html', path: o.path, text: renderIndexHtml(indexOf(s, o), when) }],
  };
}

/** Every reporter a session writes. */
export const REPORTERS: readonly Reporter[] = [junitReporter, jsonReporter, htmlReporter, reproReporter];
