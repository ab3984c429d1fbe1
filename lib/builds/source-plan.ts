// Check a `git:<dir>[@<ref>]` spec before anything slow: a repository, the ref, the kind of tree, Go new enough.
import { rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ConfigProblem } from '../errors.js';
import { deadlineIn } from '../run/deadline.js';
import { sha256Of, workDir } from './cache.js';
import type { BuildContext } from './context.js';
import { findRepo, readTreeFile, resolveCommit, similarTags, snapshotWorkTree, treeHas } from './git.js';
import type { GitOptions } from './git.js';
import { goBuildEnv, goVersion } from './go.js';
import { goAtLeast, parseGoMod } from './parse-tools.js';
import { NOMAD_PROFILE, type SourceProfile } from './source-profile.js';

/** Git queries while planning (reads, a private index): seconds even on a large tree. */
const PLAN_MS = 120_000;

/** Everything checked about a source spec before anything slow happens. */
export interface SourcePlan {
  spec: string;
  field: string;
  /** the directory as given, absolute */
  dir: string;
  gitDir: string;
  commit: string;
  /** what is checked out: the commit, or the tree object of a dirty work tree */
  treeish: string;
  dirty: boolean;
  goVersion: string;
  profile: SourceProfile;
  /** cache key: commit (+ dirty tree) + recipe */
  key: string;
}

type Planned = { plan: SourcePlan } | { problems: ConfigProblem[] };

/**
 * Check a `git:` spec without building: a repository, the ref, a tree of the profile's kind (go.mod's module), and a
 * Go on PATH at least as new as go.mod's `go` line. Returns the plan or the problem (exit 2).
 */
export async function planSource(spec: string, field: string, dirIn: string, ref: string | undefined,
  ctx: BuildContext, profile: SourceProfile = NOMAD_PROFILE): Promise<Planned> {
  const dir = resolve(ctx.cwd, dirIn);
  const bad = (message: string, fix: string): Planned => ({ problems: [{ field, value: spec, message, fix }] });
  const o: GitOptions = { deadline: deadlineIn(PLAN_MS, ctx.deadline), ...(ctx.run ? { run: ctx.run } : {}) };
  if (!(await stat(dir).then((s) => s.isDirectory(), () => false))) {
    return bad(`${dir} is not a directory`, `give the directory of a ${profile.name} clone: git:<dir>[@<ref>]`);
  }
  const repo = await findRepo(dir, o);
  if ('error' in repo) {
    return bad(`${dir} is not a git repository (${repo.error})`, `clone ${profile.name} there, or name its clone`);
  }
  let commit: string;
  let treeish: string;
  let dirty = false;
  if (ref !== undefined || !repo.workTree) {
    const c = await resolveCommit(repo.gitDir, ref ?? 'HEAD', o);
    if (!c) {
      const near = ref ? await similarTags(repo.gitDir, ref, o) : [];
      const fix = near.length ? `use an existing ref, e.g. ${near.join(', ')}`
        : 'give a tag, branch or commit that exists there (git -C <dir> tag --list)';
      return bad(`${ref ?? 'HEAD'} names no commit in ${dir}`, fix);
    }
    commit = c;
    treeish = c;
  } else {
    const work = await workDir(ctx.cacheRoot, 'snapshot');
    try {
      const snap = await snapshotWorkTree({ gitDir: repo.gitDir, workTree: repo.workTree }, join(work, 'index'), o);
      if ('error' in snap) return bad(`${dir}: ${snap.error}`, 'commit something, or name a ref: git:<dir>@<ref>');
      ({ head: commit, tree: treeish, dirty } = snap);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  const at = `${dir}@${ref ?? 'HEAD'}`;
  const notTree = `is not a ${profile.name} source tree`;
  const fixTree = `name a clone of ${profile.module} (git:<dir>[@<ref>])`;
  const goMod = await readTreeFile(repo.gitDir, treeish, 'go.mod', o);
  const parsed = goMod === undefined ? { error: 'it has no go.mod' } : parseGoMod(goMod);
  if ('error' in parsed) return bad(`${at} ${notTree}: ${parsed.error}`, fixTree);
  if (parsed.module !== profile.module) return bad(`${dir} ${notTree}: go.mod's module is ${parsed.module}`, fixTree);
  for (const m of profile.markers) {
    if (!(await treeHas(repo.gitDir, treeish, m, o))) return bad(`${at} ${notTree}: it has no ${m}`, fixTree);
  }
  const need = parsed.go ?? '1.21';
  const run = ctx.run ? { run: ctx.run } : {};
  const have = await goVersion({ deadline: o.deadline, env: goBuildEnv(ctx.env), ...run });
  const install = `install Go ${need} or newer`;
  if (!have) {
    const message = `building it needs Go >= ${need} (go.mod), and there is no go on PATH`;
    return bad(message, `${install} (https://go.dev/dl/)`);
  }
  if (!goAtLeast(have, need)) return bad(`building it needs Go >= ${need} (go.mod); this host has ${have}`, install);
  const recipe = sha256Of(JSON.stringify({ ...profile, optional: undefined, name: undefined })).slice(0, 8);
  const key = `${commit}${dirty ? `+${treeish.slice(0, 12)}` : ''}-${recipe}`;
  return { plan: { spec, field, dir, gitDir: repo.gitDir, commit, treeish, dirty, goVersion: have, profile, key } };
}
