// Check a `git:<dir>[@<ref>]` spec before anything slow: a repository, the ref, the kind of tree, the recipe the tree
// states, Go new enough.
import { rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ConfigProblem } from '../errors.js';
import { deadlineIn } from '../time/deadlines.js';
import { sha256Of, workDir } from './cache.js';
import type { BuildContext } from './context.js';
import { findRepo, readTreeFile, resolveCommit, similarTags, snapshotWorkTree, treeHas } from './git.js';
import type { GitOptions } from './git.js';
import { goBuildEnv, goVersion } from './go.js';
import { goAtLeast, parseGoMod } from '../parse/go-tools.js';
import { readRecipe } from '../parse/makefile.js';
import { NOMAD_PROFILE, type GoTool, type SourceProfile } from './source-profile.js';

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
  /** what the tree's makefile says: the build tags, and each generator with the version the tree pins */
  recipe: PlannedRecipe;
  /** cache key: commit (+ dirty tree) + recipe */
  key: string;
}

/** The recipe of one tree: its release build tags and its generators as pinned there. */
export interface PlannedRecipe {
  tags: string[];
  tools: GoTool[];
}

type Planned = { plan: SourcePlan } | { problems: ConfigProblem[] };

/**
 * Check a `git:` spec without building: a repository, the ref, a tree of the profile's kind (go.mod's module), its
 * recipe (build tags, generator versions) read from its makefile, and a Go on PATH at least as new as go.mod's `go`
 * line. Returns the plan or the problems (exit 2).
 */
export async function planSource(
  spec: string,
  field: string,
  dirIn: string,
  ref: string | undefined,
  ctx: BuildContext,
  profile: SourceProfile = NOMAD_PROFILE,
): Promise<Planned> {
  const dir = resolve(ctx.cwd, dirIn);
  const bad = (message: string, fix: string): Planned => ({ problems: [{ field, value: spec, message, fix }] });
  const o: GitOptions = { deadline: deadlineIn(PLAN_MS, ctx.deadline), ...(ctx.run ? { run: ctx.run } : {}) };
  if (
    !(await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
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
      const fix = near.length
        ? `use an existing ref, e.g. ${near.join(', ')}`
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
  // Note: the recipe and Go are both checked before returning, so a tree with both wrong is reported once.
  const problems: ConfigProblem[] = [];
  const makefile = await readTreeFile(repo.gitDir, treeish, profile.recipe.file, o);
  const read = readRecipe(
    makefile,
    profile.recipe,
    profile.tools.map((t) => t.bin),
  );
  if ('missing' in read) {
    const { file, tagsVar, toolsTarget } = profile.recipe;
    const fix =
      `build a ${profile.name} ref whose ${file} states its build tags (${tagsVar}) and pins its generators ` +
      `in the ${toolsTarget} target, or build it yourself and give the binary's path`;
    for (const m of read.missing) {
      problems.push({ field, value: spec, fix, message: `${at}: cannot read the build recipe: ${m}` });
    }
  }
  const need = parsed.go ?? '1.21';
  const run = ctx.run ? { run: ctx.run } : {};
  const have = await goVersion({ deadline: o.deadline, env: goBuildEnv(ctx.env), ...run });
  const install = `install Go ${need} or newer`;
  if (!have) {
    const message = `building it needs Go >= ${need} (go.mod), and there is no go on PATH`;
    problems.push({ field, value: spec, message, fix: `${install} (https://go.dev/dl/)` });
  } else if (!goAtLeast(have, need)) {
    problems.push({
      field,
      value: spec,
      message: `building it needs Go >= ${need} (go.mod); this host has ${have}`,
      fix: install,
    });
  }
  if (problems.length || !have || 'missing' in read) return { problems };
  const tools: GoTool[] = profile.tools.map((t) => ({ ...t, ...read.recipe.tools.find((p) => p.bin === t.bin)! }));
  const recipe: PlannedRecipe = { tags: read.recipe.tags, tools };
  const key = sourceKey(commit, dirty ? treeish : undefined, profile, recipe);
  return {
    plan: { spec, field, dir, gitDir: repo.gitDir, commit, treeish, dirty, goVersion: have, profile, recipe, key },
  };
}

/**
 * The cache key of a source build: the commit (+ the snapshot tree of a dirty work tree), then a hash of the profile
 * and of the recipe as read from the tree. Note: the recipe is in the key, not only the commit: a reader that reads
 * the same tree differently (or a profile raising another dependency) makes another binary.
 */
export function sourceKey(
  commit: string,
  dirtyTree: string | undefined,
  profile: SourceProfile,
  recipe: PlannedRecipe,
): string {
  const hash = sha256Of(JSON.stringify({ profile: { ...profile, optional: undefined, name: undefined }, recipe }));
  return `${commit}${dirtyTree ? `+${dirtyTree.slice(0, 12)}` : ''}-${hash.slice(0, 8)}`;
}
