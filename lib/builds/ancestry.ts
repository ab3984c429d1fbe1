// Git ancestry of fix commits in a source build's tree: whether the build has a known issue's fix, asked of the
// repository the build was made from (exact for branches, backports and main). The labeller gets the answers as data.
import { ANY_EXIT_CODE, runCommand } from '../exec/run.js';
import type { ResolvedBuild } from '../model/build.js';
import { deadlineIn } from '../time/deadlines.js';
import { findRepo, type GitOptions } from './git.js';

/**
 * From this many fixes on, two git calls answer them all (which fixes name a commit here, then every ancestor of
 * `commit`): a run of a source build asks for every known issue's fix, once per try in a bisect. Fewer are asked one
 * `git merge-base --is-ancestor` each. Measured on Nomad's history (28k commits): the ancestor list 0.31 s, one
 * merge-base 0.08 s.
 */
const BATCH_FROM = 5;

/** Per fix commit: an ancestor of (or equal to) `commit` in the repository at `dir`; undefined where git cannot tell. */
export async function ancestryIn(
  dir: string,
  commit: string,
  fixes: readonly string[],
  o: GitOptions,
): Promise<Record<string, boolean | undefined>> {
  const unique = [...new Set(fixes)];
  const unknown = () => Object.fromEntries(unique.map((f) => [f, undefined]));
  const repo = await findRepo(dir, o);
  if ('error' in repo || !unique.length) return unknown();
  const git = (args: string[], input?: string) =>
    (o.run ?? runCommand)('git', [`--git-dir=${repo.gitDir}`, ...args], {
      deadline: o.deadline,
      allowedCodes: ANY_EXIT_CODE,
      killGroup: true,
      ...(input === undefined ? {} : { input }),
      ...(o.logger ? { logger: o.logger } : {}),
    });
  if (unique.length < BATCH_FROM) {
    const out: Record<string, boolean | undefined> = {};
    for (const fix of unique) {
      // exit 0: an ancestor; 1: not one; anything else (128: a commit this repository does not have): unknown
      const r = await git(['merge-base', '--is-ancestor', '--end-of-options', fix, commit]);
      out[fix] = r.code === 0 ? true : r.code === 1 ? false : undefined;
    }
    return out;
  }
  // one line per fix, in order: "<sha> commit", or "<fix>^{commit} missing" for a commit this repository does not have
  const named = await git(
    ['cat-file', '--batch-check=%(objectname) %(objecttype)'],
    unique.map((f) => `${f}^{commit}\n`).join(''),
  );
  const ancestors = await git(['rev-list', '--end-of-options', commit]);
  if (named.code !== 0 || ancestors.code !== 0) return unknown();
  const reachable = new Set(ancestors.stdout.split('\n').filter(Boolean));
  const lines = named.stdout.split('\n');
  return Object.fromEntries(
    unique.map((f, i) => {
      const sha = /^([0-9a-f]{40,64}) commit$/.exec(lines[i] ?? '')?.[1];
      return [f, sha === undefined ? undefined : reachable.has(sha)];
    }),
  );
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
