// Reporters: pure functions of one SessionReport behind one interface, and a multiplexer that keeps one reporter's
// failure from costing the others (Playwright's reporter multiplexer). lib/report/write.ts writes what they return.
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { ArtifactRef, RunRecord } from '../model/run.js';
import type { SessionReport, SuiteReport } from '../model/session.js';
import { attachmentPath, type AttachmentBase } from './attachment-paths.js';
import { renderHtml } from './html.js';
import { renderJUnit } from './junit.js';
import { renderSessionJson } from './json.js';
import { reproCommand, reproMatrixCommand, type ReproBuild } from './repro.js';

/** One file a reporter wants written. */
export interface OutputFile {
  path: string;
  text: string;
  /** file mode (repro.sh is executable) */
  mode?: number;
  /** what it is, for the console ("junit", "json", "html", "repro") */
  kind: string;
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

/** The final attempt of every suite that ran. */
export function finals(s: SessionReport): RunRecord[] {
  return s.suites.flatMap((x) => x.attempts.slice(-1));
}

/** A path as seen from a folder, with forward slashes. */
export function relativeTo(dir: string, path: string): string {
  return relative(resolve(dir), resolve(path)).split(sep).join('/');
}

export const junitReporter: Reporter = {
  name: 'junit',
  files(s, c) {
    const path = (a: ArtifactRef) => attachmentPath(c.attachments, c.junitPath, a.path);
    const pagePath = (run: RunRecord) =>
      attachmentPath(c.attachments, c.junitPath, join(c.reportsDir, runDirName(run.runId), 'report.html'));
    return [{ kind: 'junit', path: c.junitPath, text: renderJUnit(s.suites, { attachmentPath: path, pagePath }) }];
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
        return { kind: 'html', path, text: renderHtml(run, { hrefFor: (a) => relativeTo(dirname(path), a.path) }) };
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
function buildsOf(s: SessionReport, run: RunRecord, flags: [string, ReproBuild['flag']][], cli: string): ReproBuild[] {
  return flags.flatMap(([prop, flag]) => {
    const path = run.properties[prop];
    if (!path) return [];
    const b = s.builds.find((x) => x.path === path);
    const spec = b && b.origin.kind !== 'path' ? { spec: b.spec, cli } : {};
    return [{ flag, path, ...(b?.sha256 ? { sha256: b.sha256 } : {}), ...spec }];
  });
}

/** The context's environment and value flags, as a repro command's optional inputs. */
const reproInputs = (c: ReportContext) => ({
  ...(c.env ? { env: c.env } : {}),
  ...(c.valueFlags ? { valueFlags: c.valueFlags } : {}),
});

/** repro.sh for every suite that did not meet its expectations: the command that re-runs exactly it. */
export const reproReporter: Reporter = {
  name: 'repro',
  files(s, c) {
    const header = (what: string) =>
      `#!/bin/sh\n# re-runs ${what} with the same inputs${c.secrets.length ? '; the ACL token is read from $NOMAD_TOKEN' : ''}\n`;
    const out: OutputFile[] = [];
    const failed = s.suites.filter(needsRepro);
    if (s.command === 'compare') {
      if (!failed.length) return out;
      const runs = s.suites.flatMap((x) => x.attempts.slice(-1));
      const builds = runs.flatMap((r) =>
        buildsOf(s, r, [['nomad.binary', r.properties['compare.side'] === 'before' ? '--before' : '--after']], c.cli),
      );
      const command = reproCommand({
        command: 'compare',
        args: c.rawArgs as string[],
        scenario: s.comparison?.scenario ?? runs[0]!.scenario,
        cwd: c.cwd,
        cli: c.cli,
        builds,
        secrets: c.secrets,
        ...reproInputs(c),
      });
      return [
        {
          kind: 'repro',
          path: join(c.reportsDir, runs[0]!.runId, 'repro.sh'),
          text: `${header('this comparison')}${command}\n`,
          mode: 0o755,
        },
      ];
    }
    for (const x of failed) {
      const run = x.attempts.at(-1)!;
      const builds = buildsOf(
        s,
        run,
        [
          ['nomad.binary', '--nomad'],
          ['nomad.upgrade_to', '--upgrade-to'],
        ],
        c.cli,
      );
      let command: string;
      if (s.command === 'matrix' && s.matrix) {
        command = reproMatrixCommand({
          args: c.rawArgs,
          file: s.matrix.path,
          cell: x.key,
          cwd: c.cwd,
          cli: c.cli,
          builds,
          secrets: c.secrets,
          ...reproInputs(c),
        });
      } else {
        command = reproCommand({
          args: c.rawArgs as string[],
          scenario: x.scenario,
          cwd: c.cwd,
          cli: c.cli,
          builds,
          secrets: c.secrets,
          ...reproInputs(c),
        });
      }
      out.push({
        kind: 'repro',
        path: join(c.reportsDir, run.runId, 'repro.sh'),
        text: `${header(`${x.name} (run ${run.runId})`)}${command}\n`,
        mode: 0o755,
      });
    }
    return out;
  },
};

/** Every reporter a session writes. */
export const REPORTERS: readonly Reporter[] = [junitReporter, jsonReporter, htmlReporter, reproReporter];
