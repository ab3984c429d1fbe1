// The one file writer: every report and every evidence file goes through `writeFiles`, which redacts its text
// (lib/log/redact.ts) as it writes; a session's data is redacted too before it is rendered, since a renderer's escaping
// could hide a secret from the text pass.
import { constants } from 'node:fs';
import { chmod, copyFile, mkdir, open, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { EXIT } from '../errors.js';
import { redact, redactDeep, redactKnown } from '../log/redact.js';
import type { SessionReport } from '../model/session.js';
import { renderReports, type OutputFile, type ReportContext, type Reporter } from './reporters.js';

/** The session with every secret scrubbed from its data, so no renderer can leak one through escaping. */
export function redactSession(s: SessionReport, secrets: readonly string[]): SessionReport {
  return redactDeep(s, secrets);
}

/** Write the files, each text redacted (known secrets and secret-shaped text); returns the files written, in order. */
export async function writeFiles(files: readonly OutputFile[], secrets: readonly string[]): Promise<OutputFile[]> {
  for (const f of files) {
    await makeDirs(dirname(f.path));
    const pipe = await pipeWriteEnd(f.path);
    try {
      // Note: a rendered report's data was redacted before rendering (redactSession: escaping could hide a secret from
      // a text pass), and a secret-shaped pattern could run across its markup; so its text is matched for the known
      // secrets only. Evidence is raw text: both.
      await writeFile(f.path, f.raw ? redact(f.text, secrets) : redactKnown(f.text, secrets), 'utf8');
    } finally {
      await pipe?.close();
    }
    if (f.mode !== undefined) await chmod(f.path, f.mode);
  }
  return [...files];
}

/**
 * A report path that is a named pipe (--junit <fifo>): its write end opened without waiting, and held while the file is
 * written, so that a pipe nothing reads is said (ENXIO) instead of an open that waits for a reader for ever, after the
 * run's verdict; a pipe something reads (process substitution, a `cat <fifo>`) is written as a file.
 */
async function pipeWriteEnd(path: string): Promise<{ close(): Promise<void> } | undefined> {
  if (!(await stat(path).catch(() => undefined))?.isFIFO()) return undefined;
  return open(path, constants.O_WRONLY | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENXIO') throw err;
    throw new Error('it is a named pipe (FIFO) that nothing reads: writing to it would wait for a reader for ever');
  });
}

/**
 * Copy files byte for byte (merge --copy-attachments: attachments a run already wrote through writeFiles, redacted
 * then); returns the copies that failed, with why, never throws.
 */
export async function copyFiles(copies: readonly { from: string; to: string }[]): Promise<string[]> {
  const errors: string[] = [];
  for (const c of copies) {
    try {
      await makeDirs(dirname(c.to));
      await copyFile(c.from, c.to);
    } catch (err) {
      errors.push(`could not copy ${c.from} to ${c.to}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return errors;
}

/**
 * mkdir -p that fails where it cannot make a folder: Node's recursive mkdir loops for ever at 100 % CPU under /proc,
 * which answers ENOENT to every mkdir.
 */
export async function makeDirs(dir: string): Promise<void> {
  if ((await stat(dir).catch(() => undefined))?.isDirectory()) return;
  if (dirname(dir) !== dir) await makeDirs(dirname(dir));
  await mkdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
}

/** Redact, render and write a session's reports; reporter failures are returned, never thrown. */
export async function writeSessionReports(
  s: SessionReport,
  reporters: readonly Reporter[],
  c: ReportContext,
): Promise<{ session: SessionReport; written: OutputFile[]; errors: string[] }> {
  const redacted = redactSession(s, c.secrets);
  const { files, errors } = renderReports(reporters, redacted, c);
  // Note: each file on its own: one that cannot be written (a full disk, a path taken) leaves the others and the
  // verdict; the session then ends as an infrastructure error (3) unless it was interrupted.
  const written: OutputFile[] = [];
  for (const f of files) {
    try {
      written.push(...(await writeFiles([f], c.secrets)));
    } catch (err) {
      errors.push(`could not write ${describeOutput(f, c)}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const failed = written.length < files.length;
  const session = failed && redacted.exitCode < EXIT.INFRA ? { ...redacted, exitCode: EXIT.INFRA } : redacted;
  return { session, written, errors };
}

/** A report file with the flags that choose its path (given, or the default under the reports dir). */
function describeOutput(f: OutputFile, c: ReportContext): string {
  // Note: merge writes every file under --out; "--reports-dir", a flag merge also takes, sent the user the wrong way
  if (c.outFlag !== undefined)
    return `the ${f.kind === 'junit' ? 'JUnit report' : f.kind === 'json' ? 'JSON summary' : `${f.kind} file`} ${f.path} (under ${c.outFlag})`;
  if (f.kind === 'junit' && f.path === c.junitPath)
    return `the JUnit report ${f.path} (--junit, or under --reports-dir)`;
  if (f.kind === 'json' && f.path === c.jsonPath)
    return `the JSON summary ${f.path} (--report-json, or under --reports-dir)`;
  return `the ${f.kind} file ${f.path} (under --reports-dir)`;
}
