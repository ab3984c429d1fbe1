// Git, read-only for the user's tree: find the repository, resolve a ref, snapshot a dirty work tree, check a tree out.
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ANY_EXIT_CODE, runCommand, type RunCommand } from '../exec/run.js';
import type { ExecResult } from '../model/lab.js';
import type { Deadline } from '../time/deadlines.js';
import type { Logger } from '../log/events.js';

export interface GitOptions {
  deadline: Deadline;
  run?: RunCommand;
  logger?: Logger;
}

/** A repository as found from a directory: a work tree (top level) or a bare git dir. */
interface Repo {
  gitDir: string;
  workTree: string | undefined;
}

type Extra = { env?: Record<string, string>; input?: string; cwd?: string };
const git = (gitDir: string, args: string[], o: GitOptions, extra: Extra = {}) =>
  (o.run ?? runCommand)('git', [`--git-dir=${gitDir}`, ...args], {
    deadline: o.deadline,
    allowedCodes: ANY_EXIT_CODE,
    killGroup: true,
    ...(o.logger ? { logger: o.logger } : {}),
    ...extra,
  });

const ok = (r: ExecResult) => r.code === 0;

/** The repository at `dir`, or why it is not one (git's own words). */
export async function findRepo(dir: string, o: GitOptions): Promise<Repo | { error: string }> {
  const r = await (o.run ?? runCommand)('git', ['-C', dir, 'rev-parse', '--absolute-git-dir', '--is-bare-repository'], {
    deadline: o.deadline,
    allowedCodes: ANY_EXIT_CODE,
    killGroup: true,
    ...(o.logger ? { logger: o.logger } : {}),
  });
  if (!ok(r)) return { error: r.stderr.trim().split('\n').at(-1) ?? `git exited ${r.code}` };
  const [gitDir, bare] = r.stdout.trim().split('\n');
  if (bare === 'true') return { gitDir: gitDir!, workTree: undefined };
  const top = await (o.run ?? runCommand)('git', ['-C', dir, 'rev-parse', '--show-toplevel'], {
    deadline: o.deadline,
    allowedCodes: ANY_EXIT_CODE,
    killGroup: true,
  });
  return { gitDir: gitDir!, workTree: ok(top) ? top.stdout.trim() : undefined };
}

/** The commit a ref names, or undefined. */
export async function resolveCommit(gitDir: string, ref: string, o: GitOptions): Promise<string | undefined> {
  const r = await git(gitDir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], o);
  return ok(r) ? r.stdout.trim() : undefined;
}

/** Up to `n` tags starting like `ref` (v1.9.3 -> v1.9.*), newest version first: suggestions for an unknown ref. */
export async function similarTags(gitDir: string, ref: string, o: GitOptions, n = 3): Promise<string[]> {
  const prefix = ref.replace(/[^.]*$/, '');
  const r = await git(gitDir, ['tag', '--list', '--sort=-version:refname', `${prefix || ref.slice(0, 2)}*`], o);
  return ok(r) ? r.stdout.split('\n').filter(Boolean).slice(0, n) : [];
}

/**
 * The work tree as it is (tracked changes and untracked files that are not ignored) as a tree object, via a private
 * index seeded from the real one: the user's index and files are not touched; the blobs land in the object store as
 * with `git stash`. `dirty` when that tree differs from HEAD's.
 */
export async function snapshotWorkTree(
  repo: Repo & { workTree: string },
  indexFile: string,
  o: GitOptions,
): Promise<{ tree: string; head: string; dirty: boolean } | { error: string }> {
  const head = await resolveCommit(repo.gitDir, 'HEAD', o);
  if (!head) return { error: 'HEAD names no commit (an empty repository?)' };
  await copyFile(join(repo.gitDir, 'index'), indexFile).catch(() => undefined);
  const env = { GIT_INDEX_FILE: indexFile };
  const wt = [`--work-tree=${repo.workTree}`];
  const read = await git(repo.gitDir, [...wt, 'read-tree', head], o, { env });
  if (!ok(read)) return { error: 'git read-tree HEAD failed' };
  const add = await git(repo.gitDir, [...wt, 'add', '-A'], o, { env, cwd: repo.workTree });
  if (!ok(add)) return { error: `git add -A (into a private index) failed: ${add.stderr.trim()}` };
  const tree = await git(repo.gitDir, ['write-tree'], o, { env });
  const headTree = await git(repo.gitDir, ['rev-parse', `${head}^{tree}`], o);
  if (!ok(tree) || !ok(headTree)) return { error: 'git write-tree failed' };
  return { tree: tree.stdout.trim(), head, dirty: tree.stdout.trim() !== headTree.stdout.trim() };
}

/** The text of `path` in a commit or tree, or undefined when absent (or its blob is missing). */
export async function readTreeFile(
  gitDir: string,
  treeish: string,
  path: string,
  o: GitOptions,
): Promise<string | undefined> {
  const r = await git(gitDir, ['cat-file', 'blob', `${treeish}:${path}`], o);
  return ok(r) ? r.stdout : undefined;
}

/** Does `path` exist in the tree (its blob may still be missing from the object store)? */
export async function treeHas(gitDir: string, treeish: string, path: string, o: GitOptions): Promise<boolean> {
  const r = await git(gitDir, ['ls-tree', '--name-only', treeish, '--', path], o);
  return ok(r) && r.stdout.trim() !== '';
}

/**
 * Check `treeish` out into the empty directory `dest` through a private index. Blobs missing from the object store
 * (a partial snapshot) are left out when `skippable(path)`; otherwise nothing is written and `missing` lists them.
 */
export async function checkoutTree(
  gitDir: string,
  treeish: string,
  dest: string,
  indexFile: string,
  skippable: (path: string) => boolean,
  o: GitOptions,
): Promise<{ files: number; skipped: string[] } | { missing: string[] }> {
  const env = { GIT_INDEX_FILE: indexFile };
  const wt = [`--work-tree=${dest}`];
  await mkdir(dest, { recursive: true });
  const read = await git(gitDir, [...wt, 'read-tree', treeish], o, { env });
  if (!ok(read)) throw new Error(`git read-tree ${treeish} failed: ${read.stderr.trim()}`);
  const ls = await git(gitDir, [...wt, 'ls-files', '--stage', '-z'], o, { env, cwd: dest });
  const entries = ls.stdout
    .split('\0')
    .filter(Boolean)
    .map((l) => {
      const [meta, path] = l.split('\t') as [string, string];
      const [mode, oid] = meta.split(' ') as [string, string];
      return { mode, oid, path };
    })
    .filter((e) => e.mode !== '160000');
  const oids = entries.map((e) => e.oid).join('\n') + '\n';
  const check = await git(gitDir, ['cat-file', '--batch-check'], o, { input: oids });
  const absent = new Set(
    check.stdout
      .split('\n')
      .filter((l) => l.endsWith(' missing'))
      .map((l) => l.split(' ')[0]),
  );
  const missing = entries.filter((e) => absent.has(e.oid)).map((e) => e.path);
  const required = missing.filter((p) => !skippable(p));
  if (required.length) return { missing: required };
  if (missing.length) {
    const rm = await git(gitDir, [...wt, 'update-index', '--force-remove', '-z', '--stdin'], o, {
      env,
      input: missing.join('\0') + '\0',
    });
    if (!ok(rm)) throw new Error(`git update-index --force-remove failed: ${rm.stderr.trim()}`);
  }
  const co = await git(gitDir, [...wt, 'checkout-index', '-a', '-f'], o, { env });
  if (!ok(co)) throw new Error(`git checkout-index failed: ${co.stderr.trim().split('\n').slice(-3).join(' ')}`);
  return { files: entries.length - missing.length, skipped: missing };
}

/** The commit's date in UTC as the linker's BuildDate wants it (2024-11-11T16:35:41Z). */
export async function commitDate(gitDir: string, commit: string, o: GitOptions): Promise<string> {
  const r = await git(gitDir, ['show', '-s', '--format=%cd', '--date=format-local:%Y-%m-%dT%H:%M:%SZ', commit], o, {
    env: { TZ: 'UTC0' },
  });
  return r.stdout.trim();
}
