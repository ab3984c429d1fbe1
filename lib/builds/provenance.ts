// Pure: a resolved build as report properties (JUnit <property>, summary.json, the HTML page) and as one line.
import type { BuildOrigin, ResolvedBuild } from '../model/build.js';

/** How a source build was made: what the tree's makefile said, and the Go that compiled it. */
export interface SourceRecipe {
  /** `go env GOVERSION` of the build (go1.26.8) */
  go: string;
  /** the build tags, as upstream's release build (without `ui`) */
  tags: string[];
  /** each generator: the package and version the tree pins, and the watched modules it was built with */
  generators: { bin: string; pkg: string; version: string; deps: Record<string, string> }[];
}

/** A `git` origin with its recipe: what lib/builds makes for a source build (the model's git origin, and more). */
export type SourceOrigin = Extract<BuildOrigin, { kind: 'git' }> & { recipe: SourceRecipe };

/** The recipe of a source build's origin, when it carries one. */
export function recipeOf(o: BuildOrigin): SourceRecipe | undefined {
  return o.kind === 'git' && 'recipe' in o ? (o as SourceOrigin).recipe : undefined;
}

/** A generator in one line: "github.com/…/codecgen@v2.1.5 (golang.org/x/tools v0.37.0)". */
export function describeGenerator(g: SourceRecipe['generators'][number]): string {
  const deps = Object.entries(g.deps)
    .map(([m, v]) => `${m} ${v}`)
    .join(', ');
  return `${g.pkg}@${g.version}${deps ? ` (${deps})` : ''}`;
}

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
 * the second build of upgrade-in-place, `nomad.before.build` in a compare). A source build adds its recipe: `.go`,
 * `.tags` (space-separated), `.generator.<bin>` (pkg@version) and `.generator.<bin>.dep.<module>` (version).
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
    const r = recipeOf(o);
    if (r) {
      p[`${prefix}.go`] = r.go;
      p[`${prefix}.tags`] = r.tags.join(' ');
      for (const g of r.generators) {
        p[`${prefix}.generator.${g.bin}`] = `${g.pkg}@${g.version}`;
        for (const [m, v] of Object.entries(g.deps)) p[`${prefix}.generator.${g.bin}.dep.${m}`] = v;
      }
    }
  }
  return p;
}
