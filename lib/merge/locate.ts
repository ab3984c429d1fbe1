// Where a run's attachment is after its reports travelled (a CI artifact downloaded elsewhere): matched by the
// path's last segments (`<run id>/<file>` at least) among the files merge found. Pure.

/** The most trailing segments compared; the fewest that still name a run's folder and a file. */
const MAX_SEGMENTS = 4;
const MIN_SEGMENTS = 2;

const segments = (p: string): string[] => p.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');

/** A function from an attachment path as a run wrote it to the file merge found for it (as listed), or undefined. */
export function attachmentLocator(files: readonly string[]): (path: string) => string | undefined {
  const bySuffix = new Map<string, string>();
  for (const f of files) {
    const segs = segments(f);
    for (let k = MIN_SEGMENTS; k <= Math.min(MAX_SEGMENTS, segs.length); k++) {
      const key = segs.slice(-k).join('/');
      // Note: the same suffix in two places is ambiguous; longer suffixes still tell them apart.
      bySuffix.set(key, bySuffix.has(key) && bySuffix.get(key) !== f ? '' : f);
    }
  }
  return (path) => {
    const segs = segments(path);
    for (let k = Math.min(MAX_SEGMENTS, segs.length); k >= MIN_SEGMENTS; k--) {
      const hit = bySuffix.get(segs.slice(-k).join('/'));
      if (hit) return hit;
    }
    return undefined;
  };
}
