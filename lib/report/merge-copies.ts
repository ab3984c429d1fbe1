// `merge --copy-attachments`: where each run's attachments and page go inside the merged folder, so the folder stands
// alone (uploaded as one CI artifact, or kept after the runners' folders are gone). Each run gets <out>/<run dir>/ with
// its files under the same relative names they had in the run's own folder, so a page's relative links still resolve.
// Pure: the copies to make and the session pointing at them.
import { basename, join } from 'node:path';
import type { ArtifactRef } from '../model/run.js';
import type { SessionReport } from '../model/session.js';
import { runDirName } from './reporters.js';

interface FileCopy {
  from: string;
  to: string;
}

const segments = (p: string): string[] => p.split(/[\\/]+/).filter((s) => s !== '' && s !== '.' && s !== '..');

/** A file's name inside its run's folder: what follows the last segment naming the run, else its base name. Pure. */
export function nameInRun(path: string, runDir: string): string {
  const segs = segments(path);
  const at = segs.lastIndexOf(runDir);
  return at === -1 || at === segs.length - 1 ? basename(path) : segs.slice(at + 1).join('/');
}

/**
 * The copies that make `outDir` self-contained and the session whose artifacts name them. `exists` says whether an
 * artifact's file was found among the inputs (one not found is left as it was: there is nothing to copy);
 * `pageOf` is a run's page among the inputs.
 */
export function attachmentCopies(
  session: SessionReport,
  o: { outDir: string; exists: (path: string) => boolean; pageOf: (runId: string) => string | undefined },
): { session: SessionReport; copies: FileCopy[]; pages: Map<string, string> } {
  const copies = new Map<string, string>();
  const pages = new Map<string, string>();
  const taken = new Map<string, string>();
  // Note: two different files may not land on one name (a run given twice under two folders is kept once by merge,
  // but its files could still differ); the second keeps its place among the inputs.
  const place = (from: string, to: string): string => {
    const had = taken.get(to);
    if (had !== undefined && had !== from) return from;
    taken.set(to, from);
    copies.set(from, to);
    return to;
  };
  const suites = session.suites.map((suite) => ({
    ...suite,
    attempts: suite.attempts.map((run) => {
      const dir = runDirName(run.runId);
      const page = o.pageOf(run.runId);
      if (page !== undefined) pages.set(dir, place(page, join(o.outDir, dir, 'report.html')));
      const artifacts = run.artifacts.map((a): ArtifactRef => {
        if (!o.exists(a.path)) return a;
        return { ...a, path: copies.get(a.path) ?? place(a.path, join(o.outDir, dir, nameInRun(a.path, dir))) };
      });
      return { ...run, artifacts };
    }),
  }));
  return {
    session: { ...session, suites },
    copies: [...copies].map(([from, to]) => ({ from, to })).filter((c) => c.from !== c.to),
    pages,
  };
}
