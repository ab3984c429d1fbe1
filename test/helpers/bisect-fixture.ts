// A small fake "nomad" history in a real git repository, for bisect tests: each commit writes `behaviour` (what a
// build of it does to the check: pass, fail, flaky:<n> = fails every n-th try, broken = does not compile) and a
// `main.go` whose text is what a build of it is made of, with `.changelog/` and docs-only commits where asked.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FixtureCommit {
  subject: string;
  behaviour: string;
  /** the code a build is made of; equal code, equal binary (default: a line per commit) */
  code?: string;
  /** extra files (path -> text) */
  files?: Record<string, string>;
  /** only these files change (a docs-only commit): behaviour and code stay as they were */
  only?: Record<string, string>;
}

export interface Fixture {
  dir: string;
  /** the commits in order, oldest first */
  shas: string[];
  git(...args: string[]): string;
}

/** The repositories made in this process, removed when it exits (a file of bisect tests made dozens, kept in /tmp). */
const made: string[] = [];
const removeMade = () => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
};

/**
 * A repository with the given commits on main (tags v0 on the first and v<n> where `tags` says), authored a minute
 * apart so history order is author order.
 */
export function bisectFixture(commits: FixtureCommit[], tags: Record<string, number> = {}): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'nrh-bisect-'));
  if (made.push(dir) === 1) process.once('exit', removeMade);
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, ...args], {
      env: {
        ...env,
        GIT_AUTHOR_NAME: 'dev',
        GIT_AUTHOR_EMAIL: 'dev@example.com',
        GIT_COMMITTER_NAME: 'dev',
        GIT_COMMITTER_EMAIL: 'dev@example.com',
      },
      encoding: 'utf8',
    }).trim();
  git('init', '-q', '-b', 'main');
  // Note: one `git fast-import` writes the whole history in one process (a commit a process is seconds under load)
  const stream: string[] = [];
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  commits.forEach((c, i) => {
    const when = 1782864000 + i * 60;
    const files = c.only ?? {
      behaviour: `${c.behaviour}\n`,
      'main.go': `package main\n// ${c.code ?? `code of commit ${i}`}\n`,
      ...(c.files ?? {}),
    };
    stream.push(
      `commit refs/heads/main\nmark :${i + 1}\nauthor dev <dev@example.com> ${when} +0000\ncommitter dev <dev@example.com> ${when} +0000\n${data(c.subject)}`,
    );
    if (i > 0) stream.push(`from :${i}\n`);
    for (const [path, text] of Object.entries(files)) stream.push(`M 100644 inline ${path}\n${data(text)}`);
    stream.push('\n');
  });
  execFileSync('git', ['-C', dir, 'fast-import', '--quiet'], { input: stream.join(''), env });
  git('checkout', '-q', '-f', 'main');
  const shas = git('rev-list', '--reverse', 'main').split('\n');
  for (const [tag, i] of Object.entries(tags)) git('tag', tag, shas[i]!);
  return { dir, shas, git };
}

/** `n` commits where the check's verdict changes at `flipAt` (the first commit with `after`'s behaviour). */
export function linearHistory(n: number, flipAt: number, before: string, after: string): FixtureCommit[] {
  return Array.from({ length: n }, (_, i) => ({
    subject:
      i === flipAt ? `client: the planted change (#${28000 + i})` : `commit ${i}: unrelated change (#${27000 + i})`,
    behaviour: i >= flipAt ? after : before,
  }));
}
