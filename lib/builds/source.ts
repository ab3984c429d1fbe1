// Build a planned source tree the way upstream builds a release binary (no web UI), cached by commit.
import { appendFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, EXIT, HarnessError } from '../errors.js';
import { deadlineIn } from '../time/deadlines.js';
import { tailLines } from '../exec/escape.js';
import { redact } from '../log/redact.js';
import { cachedBinary, commitBinary, readRecord, sha256File, workDir, writeRecord } from './cache.js';
import { elapsedMs, info, warn, type BuildContext } from './context.js';
import { checkoutTree, commitDate, type GitOptions } from './git.js';
import { buildTool, go, goBuildEnv, type BuiltTool, type GoOptions } from './go.js';
import type { NomadVersion } from '../parse/go-tools.js';
import { preflightBuild } from './preflight.js';
import type { SourceOrigin, SourceRecipe } from './provenance.js';
import { phases } from './progress.js';
import type { SourcePlan } from './source-plan.js';
import type { ResolvedBuild } from '../model/build.js';

/** A whole source build: measured 13m42s cold on 2 busy cores; 60 min leaves room for a slower host. */
const BUILD_MS = 60 * 60_000;
/** Lines of compiler output quoted in the error of a failed build. */
const FAIL_LINES = 15;

/** What the cache remembers about a source build. */
interface SourceRecord {
  key: string;
  sha256: string;
  commit: string;
  dirty: boolean;
  builtAt: string;
  goVersion: string;
  /** the build tags and generators as built */
  recipe: SourceRecipe;
}

/** Build a planned tree (or take it from the cache): checkout, tools, generate, compile, check. */
export async function buildSource(plan: SourcePlan, ctx: BuildContext): Promise<ResolvedBuild> {
  const { cacheRoot: root, logger } = ctx;
  const { profile, spec, field } = plan;
  const recordName = `git/${plan.key}.json`;
  const run = ctx.run ? { run: ctx.run } : {};
  const check = (path: string) => preflightBuild(path, { field, spec, logger, ...run });
  const done = (path: string, sha256: string, v: NomadVersion, recipe: SourceRecipe): ResolvedBuild => {
    const origin: SourceOrigin = { kind: 'git', dir: plan.dir, commit: plan.commit, dirty: plan.dirty, recipe };
    return { spec, path, sha256, version: v.version, revision: v.revision, origin };
  };
  const rec = await readRecord<SourceRecord>(root, recordName);
  // Note: a record without the recipe it was built with cannot give the build's provenance: built again.
  const hit = rec?.recipe ? await cachedBinary(root, rec.sha256) : undefined;
  if (rec && hit) {
    const v = await check(hit);
    const message = `${spec}: ${profile.name} ${v.version} (${v.revision}) from the cache (${hit})`;
    info(ctx, message);
    return done(hit, rec.sha256, v, rec.recipe);
  }

  const deadline = deadlineIn(BUILD_MS, ctx.deadline);
  const logPath = join(root, 'logs', `${plan.key}.log`);
  await mkdir(join(root, 'logs'), { recursive: true });
  await writeFile(logPath, `# ${spec}: ${plan.commit}${plan.dirty ? ' (dirty)' : ''}, ${plan.goVersion}\n\n`);
  const work = await workDir(root, `source-${plan.commit.slice(0, 12)}`);
  const steps = phases(logger, `build ${spec}`, 5, { t: () => elapsedMs(ctx), signal: deadline.signal });
  const env = { deadline, ...run, logPath, work, src: join(work, 'src') };
  try {
    await steps.run('check out a clean tree', (note) => checkout(plan, ctx, env, note));
    const toolNames = plan.recipe.tools.map((t) => `${t.bin} ${t.version}`).join(', ') || 'no tools';
    const built = await steps.run(`build ${toolNames}`, () => tools(plan, ctx, env));
    const recipe: SourceRecipe = {
      go: plan.goVersion,
      tags: plan.recipe.tags,
      generators: built.map(({ bin, pkg, version, deps }) => ({ bin, pkg, version, deps })),
    };
    const goO: GoOptions = {
      deadline,
      ...run,
      log: logTo(logPath),
      env: { ...goBuildEnv(ctx.env), GOFLAGS: profile.goFlags.join(' ') },
    };
    goO.env['PATH'] = [...built.map((b) => b.dir), goO.env['PATH'] ?? ''].join(':');
    await steps.run(`go generate ${profile.generate.join(' ')}`, async () => {
      for (const g of profile.generate) {
        const r = await go(['generate', g], env.src, goO);
        if (r.code !== 0) {
          throw failed(`${spec}: go generate ${g} failed (exit ${r.code})`, logPath, r.stderr || r.stdout);
        }
      }
    });
    const out = join(work, 'nomad');
    await steps.run('go build', (note) => compile(plan, env, goO, out, note));
    const v = await steps.run('check `nomad version`', () => check(out));
    const sha256 = await sha256File(out);
    const meta = { spec, commit: plan.commit, dirty: plan.dirty, version: v.version, revision: v.revision, recipe };
    const final = await commitBinary(root, out, sha256, meta);
    const record: SourceRecord = {
      key: plan.key,
      sha256,
      commit: plan.commit,
      dirty: plan.dirty,
      builtAt: new Date().toISOString(),
      goVersion: plan.goVersion,
      recipe,
    };
    await writeRecord(root, recordName, record);
    const message =
      `${spec}: ${profile.name} ${v.version} (${v.revision}) built in ${steps.elapsed()}, ` + `cached at ${final}`;
    info(ctx, message);
    return done(final, sha256, v, recipe);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

type Env = GitOptions & { logPath: string; work: string; src: string };

/** Phase 1: the tree into `src` through a private index; blobs absent from the store left out when optional. */
async function checkout(plan: SourcePlan, ctx: BuildContext, env: Env, note: (s: string) => void): Promise<void> {
  const { profile, spec, field } = plan;
  const optional = (p: string) => profile.optional.some((r) => r.test(p));
  const co = await checkoutTree(plan.gitDir, plan.treeish, env.src, join(env.work, 'index'), optional, env);
  if ('missing' in co) {
    const some = `${co.missing.slice(0, 5).join(', ')}${co.missing.length > 5 ? ', …' : ''}`;
    throw new ConfigError([
      {
        field,
        value: spec,
        fix: 'fetch them (git fetch --refetch, or a fresh clone)',
        message: `the repository lacks the contents of ${co.missing.length} file(s) the build needs: ${some}`,
      },
    ]);
  }
  if (co.skipped.length) {
    warn(
      ctx,
      `${spec}: ${co.skipped.length} file(s) missing from the object store were left out; ` +
        `a non-UI build does not need them: ${co.skipped.join(', ')}`,
    );
  }
  note(`${co.files} files`);
}

/** Phase 2: each generator at the version the tree pins (cached per Go version), with its PATH directory. */
async function tools(plan: SourcePlan, ctx: BuildContext, env: Env): Promise<BuiltTool[]> {
  const bins: BuiltTool[] = [];
  const o: GoOptions = {
    deadline: env.deadline,
    env: goBuildEnv(ctx.env),
    log: logTo(env.logPath),
    ...(env.run ? { run: env.run } : {}),
  };
  for (const t of plan.recipe.tools) {
    try {
      bins.push(await buildTool(t, join(ctx.cacheRoot, 'tools'), plan.goVersion, o));
    } catch (err) {
      throw failed(`${plan.spec}: ${(err as Error).message}`, env.logPath);
    }
  }
  return bins;
}

/** Phase 4: go build with the tree's release tags; the commit (+CHANGES when dirty) and date go into the binary. */
async function compile(plan: SourcePlan, env: Env, goO: GoOptions, out: string, note: (s: string) => void) {
  const { profile } = plan;
  const date = await commitDate(plan.gitDir, plan.commit, env);
  const commit = `${plan.commit}${plan.dirty ? '+CHANGES' : ''}`;
  const ldflags = `-X ${profile.versionPackage}.GitCommit=${commit} -X ${profile.versionPackage}.BuildDate=${date}`;
  let packages = 0;
  // Note: -buildvcs=false: the checkout has no .git, and a parent repository (a cache in a dotfiles home) is not it.
  const args = [
    'build',
    '-v',
    '-trimpath',
    '-buildvcs=false',
    '-ldflags',
    ldflags,
    '-tags',
    plan.recipe.tags.join(' '),
    '-o',
    out,
    profile.main,
  ];
  const r = await go(args, env.src, { ...goO, onLine: () => note(`${++packages} packages`) });
  if (r.code !== 0) throw failed(`${plan.spec}: go build failed (exit ${r.code})`, env.logPath, r.stderr);
}

/** A failed generate or compile: exit 3, with the compiler's last lines and the log's path. */
function failed(what: string, logPath: string, output = ''): HarnessError {
  const tail = tailLines(output, FAIL_LINES);
  return new HarnessError(
    `${what}${tail ? `; last lines:\n${tail.replace(/^/gm, '    ')}` : ''}\nfull log: ${logPath}`,
    { exitCode: EXIT.INFRA, hint: `read ${logPath}; a tree that does not compile is no build the harness can test` },
  );
}

/**
 * The build log's writer: go's output with every credential-shaped fragment redacted. The log is named in messages
 * and kept in a cache CI jobs share, and go prints a private GOPROXY's URL with its user:password (`reading
 * https://u:<pw>@proxy/...: 404`).
 */
function logTo(path: string): (text: string) => Promise<void> {
  return (text) => appendFile(path, redact(text, []));
}
