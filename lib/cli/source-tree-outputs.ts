// A report file inside the source tree of a `git:<dir>` build: the tree is an input the build reads, so a report
// written there replaces a file of the user's Nomad tree (or of its .git) and changes what its next build snapshots.
import { homedir } from 'node:os';
import { relative, resolve, sep } from 'node:path';
import type { ConfigProblem } from '../errors.js';
import { parseBuildSpec } from '../builds/spec.js';
import { canonicalPath, type OutputPath } from './paths.js';

/** A build as given: its spec (a source tree is `git:<dir>[@<ref>]`), where, and the field that named it. */
interface GivenBuild {
  field: string;
  spec: string;
  /** the folder a relative `<dir>` is taken from */
  cwd: string;
}

/**
 * The report files (--junit, --report-json) that lie inside a source tree of the builds (Q200): `--nomad
 * git:~/src/nomad --junit ~/src/nomad/main.go` planned and ran, and the JUnit report was written over main.go at the
 * end; `bisect --junit <tree>/go.mod` likewise. Compared where the paths lead through symlinks. Pure but for realpath.
 */
export async function reportsInSourceTrees(
  outs: readonly OutputPath[],
  builds: readonly GivenBuild[],
  cwd: string,
  home: string = process.env['HOME'] || homedir(),
): Promise<ConfigProblem[]> {
  const trees = new Map<string, GivenBuild>();
  for (const b of builds) {
    const parsed = parseBuildSpec(b.spec, b.field, { home });
    if (!('spec' in parsed) || parsed.spec.kind !== 'git') continue;
    const dir = await canonicalPath(resolve(b.cwd, parsed.spec.dir), b.cwd);
    if (!trees.has(dir)) trees.set(dir, b);
  }
  if (trees.size === 0) return [];
  const problems: ConfigProblem[] = [];
  for (const o of outs.filter((x) => x.kind === 'file')) {
    const at = await canonicalPath(o.value, cwd);
    const hit = [...trees].find(([dir]) => at === dir || at.startsWith(dir + sep));
    if (!hit) continue;
    const [dir, b] = hit;
    problems.push({
      field: o.field,
      value: o.value,
      message: `lies in the source tree ${b.spec} (${b.field}) at ${relative(dir, at) || '.'}: the report would be written into the tree the build reads, over its file if it has one`,
      fix: `give ${o.field} a path outside ${dir} (e.g. reports/${o.field.includes('junit') ? 'junit.xml' : 'summary.json'})`,
    });
  }
  return problems;
}
