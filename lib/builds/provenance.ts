// Pure: a resolved build as report properties (JUnit <property>, summary.json, the HTML page) and as one line.
import type { BuildOrigin, ResolvedBuild } from '../model/build.js';

/** One line naming the origin: "release <url> (checksum and signature verified)", "git <dir> <commit>", "path <p>". */
export function describeOrigin(o: BuildOrigin): string {
  switch (o.kind) {
    case 'release':
      return `release ${o.url} (${o.verified})`;
    case 'git':
      return `git ${o.dir} ${o.commit}${o.dirty ? ' (dirty: uncommitted changes included)' : ''}`;
    case 'path':
      return `path ${o.path}`;
  }
}

/**
 * Report properties of a build, all strings, under `prefix` (default `nomad.build`; e.g. `nomad.upgrade_to.build` for
 * the second build of upgrade-in-place, `nomad.before.build` in a compare).
 */
export function buildProperties(b: ResolvedBuild, prefix = 'nomad.build'): Record<string, string> {
  const p: Record<string, string> = {
    [`${prefix}.spec`]: b.spec,
    [`${prefix}.origin`]: describeOrigin(b.origin),
    [`${prefix}.origin.kind`]: b.origin.kind,
    [`${prefix}.sha256`]: b.sha256,
    [`${prefix}.version`]: b.version,
    [`${prefix}.revision`]: b.revision,
    [`${prefix}.path`]: b.path,
  };
  const o = b.origin;
  if (o.kind === 'release') {
    p[`${prefix}.origin.url`] = o.url;
    p[`${prefix}.origin.verified`] = o.verified;
  } else if (o.kind === 'git') {
    p[`${prefix}.origin.dir`] = o.dir;
    p[`${prefix}.origin.commit`] = o.commit;
    p[`${prefix}.origin.dirty`] = String(o.dirty);
  }
  return p;
}
