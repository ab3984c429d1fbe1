// Pure: release version numbers as the releases site writes them (1.9.3, 1.10.0-rc.1, 1.9.3+ent), ordered and compared.

interface Parsed {
  nums: [number, number, number];
  pre: string;
  edition: string;
}

/** A release version's numbers, pre-release and edition ("1.9.3-rc.1+ent"); undefined when it is not one. */
export function parseVersion(v: string): Parsed | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.]+))?(?:\+([0-9A-Za-z.]+))?$/.exec(v);
  if (!m) return undefined;
  return { nums: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ?? '', edition: m[5] ?? '' };
}

/**
 * Compare dotted numbers part by part ("0" < "1.2" < "1.10"; a missing part is 0, so "1.21" equals "1.21.0"): the order
 * of a Vagrant box's version directories and of the Go a recipe needs. Not the release order below (no -rc, no +ent).
 */
export function compareDotted(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** Compare two versions (semver order: 1.9.10 > 1.9.9, 1.10.0-rc.1 < 1.10.0); unparsable ones sort first. */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a);
  const y = parseVersion(b);
  if (!x || !y) return (x ? 1 : 0) - (y ? 1 : 0) || a.localeCompare(b);
  for (let i = 0; i < 3; i++) if (x.nums[i] !== y.nums[i]) return x.nums[i]! - y.nums[i]!;
  if (x.pre !== y.pre) {
    if (!x.pre) return 1;
    if (!y.pre) return -1;
    return x.pre.localeCompare(y.pre, 'en', { numeric: true });
  }
  return x.edition.localeCompare(y.edition);
}

/** The highest final community release (no -rc/-beta, no +ent): what `latest` means. */
export function latestVersion(versions: readonly string[]): string | undefined {
  const finals = versions.filter((v) => {
    const p = parseVersion(v);
    return p && !p.pre && !p.edition;
  });
  return finals.sort(compareVersions).at(-1);
}

/** Up to `n` published versions nearest to `wanted` (same edition first, then same minor; newest first on ties). */
export function nearestVersions(wanted: string, versions: readonly string[], n = 3): string[] {
  const w = parseVersion(wanted.replace(/^v/, ''));
  const scored = versions.flatMap((v) => {
    const p = parseVersion(v);
    if (!p) return [];
    if (!w) return [{ v, score: 0 }];
    const edition = p.edition === w.edition ? 0 : 1e9;
    const pre = p.pre && !w.pre ? 1e8 : 0;
    const [a, b, c] = p.nums;
    const distance = Math.abs(a - w.nums[0]) * 1e6 + Math.abs(b - w.nums[1]) * 1e3 + Math.abs(c - w.nums[2]);
    const score = edition + pre + distance;
    return [{ v, score }];
  });
  scored.sort((x, y) => x.score - y.score || compareVersions(y.v, x.v));
  return scored.slice(0, n).map((s) => s.v);
}
