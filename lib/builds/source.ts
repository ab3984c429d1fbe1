// A source tree (`git:<dir>[@<ref>]`) built the way upstream builds a release binary, cached by commit.
import { appendFile, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError, EXIT, HarnessError, type ConfigProblem } from '../errors.js';
import { deadlineIn } from '../run/deadline.js';
import { tailLines } from '../exec/escape.js';
import { cachedBinary, commitBinary, readRecord, sha256File, sha256Of, workDir, writeRecord } from './cache.js';
import type { BuildContext } from './context.js';
import { checkoutTree, commitDate, findRepo, readTreeFile, resolveCommit, similarTags, snapshotWorkTree, treeHas,
  type GitOptions } from './git.js';
import { buildTool, go, goVersion, type GoOptions } from './go.js';
import { goAtLeast, parseGoMod } from './parse-tools.js';
import { preflightBuild } from './preflight.js';
import { phases } from './progress.js';
import { NOMAD_PROFILE, type SourceProfile } from './source-profile.js';
import type { ResolvedBuild } from './types.js';

/** Git queries while planning (reads, a private index): seconds even on a large tree. */
const PLAN_MS = 120_000;
/** A whole source build: measured 13m42s cold on 2 busy cores; 60 min leaves room for a slower host. */
const BUILD_MS = 60 * 60_000;
/** Lines of compiler output quoted in the error of a failed build. */
const FAIL_LINES = 15;

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

/**
 * Check a `git:` spec without building: a repository, the ref, a tree of the profile's kind (go.mod's module), and a
 * Go on PATH at least as new as go.mod's `go` line. Returns the plan or the problems (exit 2), all at once.
 */
export async function planSource(spec: string, field: string, dirIn: string, ref: string | undefined, ctx: BuildContext,
  profile: SourceProfile = NOMAD_PROFILE): Promise<{ plan: SourcePlan } | { problems: ConfigProblem[] }> {
  const dir = resolve(ctx.cwd, dirIn);
  const bad = (message: string, fix: string) => ({ problems: [{ field, value: spec, message, fix }] });
  const o: GitOptions = { deadline: deadlineIn(PLAN_MS, ctx.deadline), ...(ctx.run ? { run: ctx.run } : {}) };
  if (!(await stat(dir).then((s) => s.isDirectory(), () => false))) {
    return bad(`${dir} is not a directory`, `give the directory of a ${profile.name} clone: git:<dir>[@<ref>]`);
  }
  const repo = await findRepo(dir, o);
  if ('error' in repo) return bad(`${dir} is not a git repository (${repo.error})`, `clone ${profile.name} there, or name its clone`);
  let commit: string;
  let treeish: string;
  let dirty = false;
  if (ref !== undefined || !repo.workTree) {
    const c = await resolveCommit(repo.gitDir, ref ?? 'HEAD', o);
    if (!c) {
      const near = ref ? await similarTags(repo.gitDir, ref, o) : [];
      return bad(`${ref ?? 'HEAD'} names no commit in ${dir}`, near.length ? `use an existing ref, e.g. ${near.join(', ')}`
        : 'give a tag, branch or commit that exists there (git -C <dir> tag --list)');
    }
    commit = c;
    treeish = c;
  } else {
    const work = await workDir(ctx.cacheRoot, 'snapshot');
    try {
      const snap = await snapshotWorkTree({ gitDir: repo.gitDir, workTree: repo.workTree }, join(work, 'index'), o);
      if ('error' in snap) return bad(`${dir}: ${snap.error}`, 'commit something first, or name a ref: git:<dir>@<ref>');
      ({ head: commit, tree: treeish, dirty } = snap);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  const goMod = await readTreeFile(repo.gitDir, treeish, 'go.mod', o);
  const parsed = goMod === undefined ? { error: 'it has no go.mod' } : parseGoMod(goMod);
  const notTree = `is not a ${profile.name} source tree`;
  const fixTree = `name a clone of ${profile.module} (git:<dir>[@<ref>])`;
  if ('error' in parsed) return bad(`${dir}@${ref ?? 'HEAD'} ${notTree}: ${parsed.error}`, fixTree);
  if (parsed.module !== profile.module) return bad(`${dir} ${notTree}: go.mod's module is ${parsed.module}`, fixTree);
  for (const m of profile.markers) {
    if (!(await treeHas(repo.gitDir, treeish, m, o))) return bad(`${dir}@${ref ?? 'HEAD'} ${notTree}: it has no ${m}`, fixTree);
  }
  const need = parsed.go ?? '1.21';
  const have = await goVersion({ deadline: o.deadline, env: goEnv(ctx), ...(ctx.run ? { run: ctx.run } : {}) });
  if (!have) return bad(`building it needs Go >= ${need} (go.mod), and there is no go on PATH`, `install Go ${need} or newer (https://go.dev/dl/)`);
  if (!goAtLeast(have, need)) return bad(`building it needs Go >= ${need} (go.mod); this host has ${have}`, `install Go ${need} or newer`);
  const recipe = sha256Of(JSON.stringify({ ...profile, optional: undefined, name: undefined })).slice(0, 8);
  const key = `${commit}${dirty ? `+${treeish.slice(0, 12)}` : ''}-${recipe}`;
  return { plan: { spec, field, dir, gitDir: repo.gitDir, commit, treeish, dirty, goVersion: have, profile, key } };
}

/** What the cache remembers about a source build. */
interface SourceRecord { key: string; sha256: string; commit: string; dirty: boolean; builtAt: string; goVersion: string }

/** Build a planned tree (or take it from the cache): checkout, tools, generate, compile, check. */
export async function buildSource(plan: SourcePlan, ctx: BuildContext): Promise<ResolvedBuild> {
  const { cacheRoot: root, logger } = ctx;
  const { profile, spec, field } = plan;
  const recordName = `git/${plan.key}.json`;
  const done = (path: string, sha256: string, v: { version: string; revision: string }): ResolvedBuild => ({
    spec, path, sha256, version: v.version, revision: v.revision,
    origin: { kind: 'git', dir: plan.dir, commit: plan.commit, dirty: plan.dirty } });
  const run = ctx.run ? { run: ctx.run } : {};
  const rec = await readRecord<SourceRecord>(root, recordName);
  const hit = rec ? await cachedBinary(root, rec.sha256) : undefined;
  if (rec && hit) {
    const v = await preflightBuild(hit, { field, spec, logger, ...run });
    logger({ kind: 'info', t: 0, message: `${spec}: ${profile.name} ${v.version} (${v.revision}) from the cache (${hit})` });
    return done(hit, rec.sha256, v);
  }

  const deadline = deadlineIn(BUILD_MS, ctx.deadline);
  const logPath = join(root, 'logs', `${plan.key}.log`);
  await mkdir(join(root, 'logs'), { recursive: true });
  await writeFile(logPath, `# ${spec}: ${plan.commit}${plan.dirty ? ' (dirty)' : ''}, ${plan.goVersion}\n\n`);
  const log = (text: string) => appendFile(logPath, text);
  const work = await workDir(root, `source-${plan.commit.slice(0, 12)}`);
  const src = join(work, 'src');
  const steps = phases(logger, `build ${spec}`, 5);
  const gitO: GitOptions = { deadline, ...run };
  try {
    await steps.run('check out a clean tree', async (note) => {
      const co = await checkoutTree(plan.gitDir, plan.treeish, src, join(work, 'index'), (p) => profile.optional.some((r) => r.test(p)), gitO);
      if ('missing' in co) {
        throw new ConfigError([{ field, value: spec, message: `the repository lacks the contents of ${co.missing.length} file(s) the `
          + `build needs: ${co.missing.slice(0, 5).join(', ')}${co.missing.length > 5 ? ', …' : ''}`,
          fix: 'fetch them (git fetch --refetch, or a fresh clone)' }]);
      }
      if (co.skipped.length) {
        logger({ kind: 'warn', t: 0, message: `${spec}: ${co.skipped.length} file(s) missing from the object store were left out; `
          + `a non-UI build does not need them: ${co.skipped.join(', ')}` });
      }
      note(`${co.files} files`);
    });
    const goO: GoOptions = { deadline, env: goEnv(ctx), log, ...run };
    const toolBins = await steps.run(`build ${profile.tools.map((t) => t.bin).join(', ') || 'no tools'}`, async () => {
      const bins: string[] = [];
      for (const t of profile.tools) {
        try {
          bins.push(await buildTool(t, join(root, 'tools'), plan.goVersion, goO));
        } catch (err) {
          throw failed(`${spec}: ${(err as Error).message}`, logPath);
        }
      }
      return bins;
    });
    const path = [...toolBins, goO.env['PATH'] ?? ''].join(':');
    const buildO: GoOptions = { ...goO, env: { ...goO.env, PATH: path, GOFLAGS: profile.goFlags.join(' ') } };
    await steps.run(`go generate ${profile.generate.join(' ')}`, async () => {
      for (const g of profile.generate) {
        const r = await go(['generate', g], src, buildO);
        if (r.code !== 0) throw failed(`${spec}: go generate ${g} failed (exit ${r.code})`, logPath, r.stderr || r.stdout);
      }
    });
    const out = join(work, 'nomad');
    await steps.run('go build', async (note) => {
      const date = await commitDate(plan.gitDir, plan.commit, gitO);
      const commit = `${plan.commit}${plan.dirty ? '+CHANGES' : ''}`;
      const ldflags = `-X ${profile.versionPackage}.GitCommit=${commit} -X ${profile.versionPackage}.BuildDate=${date}`;
      let packages = 0;
      // Note: -buildvcs=false: the checkout has no .git, and a parent repository (a cache under a dotfiles home) is not it.
      const r = await go(['build', '-v', '-trimpath', '-buildvcs=false', '-ldflags', ldflags, '-tags', profile.tags.join(' '), '-o', out, profile.main],
        src, { ...buildO, onLine: () => note(`${++packages} packages`) });
      if (r.code !== 0) throw failed(`${spec}: go build failed (exit ${r.code})`, logPath, r.stderr);
    });
    const v = await steps.run('check `nomad version`', () => preflightBuild(out, { field, spec, logger, ...run }));
    const sha256 = await sha256File(out);
    const final = await commitBinary(root, out, sha256, { spec, commit: plan.commit, dirty: plan.dirty, version: v.version, revision: v.revision });
    await writeRecord(root, recordName, { key: plan.key, sha256, commit: plan.commit, dirty: plan.dirty,
      builtAt: new Date().toISOString(), goVersion: plan.goVersion } satisfies SourceRecord);
    logger({ kind: 'info', t: 0, message: `${spec}: ${profile.name} ${v.version} (${v.revision}) built in ${steps.elapsed()}, cached at ${final}` });
    return done(final, sha256, v);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The environment of every go command: a reproducible linux/amd64 cgo build with the local toolchain only. */
function goEnv(ctx: BuildContext): Record<string, string | undefined> {
  const env = ctx.env ?? process.env;
  // Note: the user's GOFLAGS (-mod=vendor, …) are not the recipe's; the profile sets its own for generate and build.
  return { PATH: env['PATH'] ?? process.env['PATH'], GOTOOLCHAIN: 'local', CGO_ENABLED: '1', GOOS: 'linux', GOARCH: 'amd64',
    GOWORK: 'off', GOFLAGS: '' };
}

/** A failed generate or compile: exit 3, with the compiler's last lines and the log's path. */
function failed(what: string, logPath: string, output = ''): HarnessError {
  const tail = tailLines(output, FAIL_LINES);
  return new HarnessError(`${what}${tail ? `; last lines:\n${tail.replace(/^/gm, '    ')}` : ''}\nfull log: ${logPath}`,
    { exitCode: EXIT.INFRA, hint: `read ${logPath}; a tree that does not compile is not a build the harness can test` });
}
