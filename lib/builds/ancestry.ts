// Git ancestry of fix commits in a source build's tree: whether the build has a known issue's fix, asked of the
// repository the build was made from (exact for branches, backports and main). The labeller gets the answers as data.
import { ANY_EXIT_CODE, runCommand } from '../exec/run.js';
import type { ResolvedBuild } from '../model/build.js';
import { deadlineIn } from '../time/deadlines.js';
import { findRepo, type GitOptions } from './git.js';

/** Per fix commit: an ancestor of (or equal to) `commit` in the repository at `dir`; undefined where git cannot tell. */
export async function ancestryIn(
  dir: string,
  commit: string,
  fixes: readonly string[],
  o: GitOptions,
): Promise<Record<string, boolean | undefined>> {
  const out: Record<string, boolean | undefined> = {};
  const repo = await findRepo(dir, o);
  if ('error' in repo) return Object.fromEntries(fixes.map((f) => [f, undefined]));
  for (const fix of new Set(fixes)) {
    // exit 0: an ancestor; 1: not one; anything else (128: a commit this repository does not have): unknown
    const r = await (o.run ?? runCommand)(
      'git',
      [`--git-dir=${repo.gitDir}`, 'merge-base', '--is-ancestor', '--end-of-options', fix, commit],
      { deadline: o.deadline, allowedCodes: ANY_EXIT_CODE, ...(o.logger ? { logger: o.logger } : {}) },
    );
    out[fix] = r.code === 0 ? true : r.code === 1 ? false : undefined;
  }
  return out;
}

/** The ancestry answers for a resolved build: a source build's tree, or nothing for a release or a path. */
export async function buildAncestry(
  build: ResolvedBuild,
  fixes: readonly string[],
  o: Partial<GitOptions> = {},
): Promise<Record<string, boolean | undefined> | undefined> {
  if (build.origin.kind !== 'git' || !fixes.length) return undefined;
  return ancestryIn(build.origin.dir, build.origin.commit, fixes, { deadline: o.deadline ?? deadlineIn(60_000), ...o });
}
