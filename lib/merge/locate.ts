// Where a run's attachment is after its reports travelled (a CI artifact downloaded elsewhere). First where the report
// it came from says (a relative path resolves from that report's folder, as the run wrote it), then by the path's
// last segments (`<run id>/<file>` at least) among the files merge found. Pure.
import { basename, isAbsolute, resolve } from 'node:path';

/** The most trailing segments compared; the fewest that still name a run's folder and a file. */
const MAX_SEGMENTS = 4;
const MIN_SEGMENTS = 2;

const segments = (p: string): string[] => p.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');

/**
 * A function from an attachment path as a run wrote it (and the absolute folder of the report it was read from) to
 * the absolute path of that file among `files`, or undefined.
 */
export function attachmentLocator(files: readonly string[]): (path: string, reportDir?: string) => string | undefined {
  const all = new Set(files.map((f) => resolve(f)));
  const bySuffix = new Map<string, string>();
  for (const f of all) {
    const segs = segments(f);
    for (let k = MIN_SEGMENTS; k <= Math.min(MAX_SEGMENTS, segs.length); k++) {
      const key = segs.slice(-k).join('/');
      // Note: the same suffix in two places is ambiguous; longer suffixes still tell them apart.
      bySuffix.set(key, bySuffix.has(key) && bySuffix.get(key) !== f ? '' : f);
    }
  }
  return (path, reportDir) => {
    // A relative path is what the run wrote next to its report (`alloc-after.json` when the report sits in the
    // run's folder): the report's folder decides, and no suffix of another run's folder can shadow it.
    if (reportDir !== undefined && !isAbsolute(path)) {
      const here = resolve(reportDir, path);
      if (all.has(here)) return here;
    }
    if (isAbsolute(path) && all.has(resolve(path))) return resolve(path);
    const segs = segments(path).filter((s) => s !== '..');
    for (let k = Math.min(MAX_SEGMENTS, segs.length); k >= MIN_SEGMENTS; k--) {
      const hit = bySuffix.get(segs.slice(-k).join('/'));
      if (hit) return hit;
    }
    // Note: a run's folder renamed on the way (`<run id>/` no longer in any path): its files are beside its report
    if (reportDir !== undefined) {
      const beside = resolve(reportDir, basename(path));
      if (all.has(beside)) return beside;
    }
    return undefined;
  };
}
