// Git history, read-only: ancestry, merge bases, the bisection order of a range (git's own `rev-list --bisect-all`),
// and what a commit says of itself. Nothing here writes to the repository: a bisect keeps its state in its own log,
// never in the user's refs/bisect or work tree.
import { ANY_EXIT_CODE, runCommand, type RunCommand } from '../exec/run.js';
import { deadlineIn, type Deadline } from '../time/deadlines.js';
import type { CommitInfo } from '../model/bisect.js';
import { changelogIssues, prOf } from '../parse/git-commit.js';

interface HistoryOptions {
  deadline: Deadline;
  run?: RunCommand;
}

async function git(gitDir: string, args: string[], o: HistoryOptions) {
  return (o.run ?? runCommand)('git', [`--git-dir=${gitDir}`, ...args], {
    deadline: o.deadline,
    allowedCodes: ANY_EXIT_CODE,
  });
}

/** Whether `a` is an ancestor of `b` (a commit is its own ancestor). */
async function isAncestor(gitDir: string, a: string, b: string, o: HistoryOptions): Promise<boolean> {
  const r = await git(gitDir, ['merge-base', '--is-ancestor', a, b], o);
  if (r.code > 1) throw new Error(`git merge-base --is-ancestor ${a} ${b} failed: ${r.stderr.trim()}`);
  return r.code === 0;
}

/** The best common ancestor of two commits, or undefined when they share no history. */
async function mergeBase(gitDir: string, a: string, b: string, o: HistoryOptions): Promise<string | undefined> {
  const r = await git(gitDir, ['merge-base', a, b], o);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/**
 * The commits that may be the first new one: reachable from `newest` and from none of `olds`, in git bisect's order
 * (the commit that best halves the range first; `newest` itself last, at distance 0).
 */
async function bisectOrder(
  gitDir: string,
  newest: string,
  olds: readonly string[],
  o: HistoryOptions,
): Promise<string[]> {
  const r = await git(gitDir, ['rev-list', '--bisect-all', newest, '--not', ...olds, '--'], o);
  if (r.code !== 0) throw new Error(`git rev-list --bisect-all failed: ${r.stderr.trim()}`);
  return r.stdout
    .split('\n')
    .map((l) => l.trim().split(' ')[0]!)
    .filter((s) => /^[0-9a-f]{40}$/.test(s));
}

/** What git says of a commit: subject, PR, changelog issues, author date, parents, files against its first parent. */
async function commitInfo(gitDir: string, sha: string, o: HistoryOptions): Promise<CommitInfo> {
  const r = await git(gitDir, ['show', '-s', '--format=%H%x00%P%x00%aI%x00%s%x00%b', sha, '--'], o);
  if (r.code !== 0) throw new Error(`git show ${sha} failed: ${r.stderr.trim()}`);
  const [full, parents, date, subject, body] = r.stdout.split('\0');
  const ps = (parents ?? '').trim().split(' ').filter(Boolean);
  const diff = ps.length
    ? await git(gitDir, ['diff', '--name-only', '--no-renames', ps[0]!, full!.trim(), '--'], o)
    : await git(gitDir, ['diff-tree', '--root', '--no-commit-id', '--name-only', '-r', full!.trim()], o);
  const files = diff.code === 0 ? diff.stdout.split('\n').filter(Boolean) : [];
  const pr = prOf(subject ?? '', body ?? '');
  return {
    sha: full!.trim(),
    subject: (subject ?? '').trim(),
    ...(pr ? { pr } : {}),
    changelog: changelogIssues(files),
    authorDate: (date ?? '').trim(),
    parents: ps,
    files,
  };
}

/** The four questions bound to one repository, each with its own deadline (git answers in milliseconds). */
export function historyOf(gitDir: string, o: { timeoutMs?: number; run?: RunCommand } = {}) {
  const opts = (): HistoryOptions => ({
    deadline: deadlineIn(o.timeoutMs ?? 60_000),
    ...(o.run ? { run: o.run } : {}),
  });
  return {
    isAncestor: (a: string, b: string) => isAncestor(gitDir, a, b, opts()),
    mergeBase: (a: string, b: string) => mergeBase(gitDir, a, b, opts()),
    bisectOrder: (newest: string, olds: readonly string[]) => bisectOrder(gitDir, newest, olds, opts()),
    commitInfo: (sha: string) => commitInfo(gitDir, sha, opts()),
  };
}

/** Tracked files changed in a work tree (a bare repository has none): `git status --porcelain`'s lines. */
export async function trackedChanges(workTree: string, o: HistoryOptions): Promise<string[]> {
  const r = await (o.run ?? runCommand)('git', ['-C', workTree, 'status', '--porcelain', '--untracked-files=no'], {
    deadline: o.deadline,
    allowedCodes: ANY_EXIT_CODE,
  });
  return r.code === 0
    ? r.stdout
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
    : [];
}
