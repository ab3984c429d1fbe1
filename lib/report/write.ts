// The one report writer: redacts the session once (every string of the data), renders every reporter, and writes
// every file (creating folders). Evidence files are written by the artifact store (lib/run/artifacts.ts), not here.
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { redactDeep, redactKnown } from '../log/redact.js';
import type { SessionReport } from '../model/session.js';
import { renderReports, type OutputFile, type ReportContext, type Reporter } from './reporters.js';

/** The session with every secret scrubbed from its data, so no renderer can leak one through escaping. */
export function redactSession(s: SessionReport, secrets: readonly string[]): SessionReport {
  return redactDeep(s, secrets);
}

/** Write the files (known secrets scrubbed once more from the text); returns the files written, in order. */
export async function writeFiles(files: readonly OutputFile[], secrets: readonly string[]): Promise<OutputFile[]> {
  // A secret with markup characters is escaped in the output and cannot be matched there; the data pass removed it.
  const literal = secrets.filter((s) => !/["&<>'\\]/.test(s));
  for (const f of files) {
    await makeDirs(dirname(f.path));
    await writeFile(f.path, redactKnown(f.text, literal), 'utf8');
    if (f.mode !== undefined) await chmod(f.path, f.mode);
  }
  return [...files];
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
  const session = redactSession(s, c.secrets);
  const { files, errors } = renderReports(reporters, session, c);
  return { session, written: await writeFiles(files, c.secrets), errors };
}
