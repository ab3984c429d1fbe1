// Every e2e file has a row in docs/findings.md's last-run table, and every row names a file that exists: a check or
// scenario change is done only when the e2e files it can affect have run on it, and this table is where that shows.
// A row is out of date when a commit after the run it names changed the e2e file or what it exercises (e2e-covers.ts);
// every such row is listed at once, with the first commit since its run that changed those paths. Needs the full history (skips, saying why, in a
// shallow clone).
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { E2E_COVERS } from './e2e-covers.js';

const ROOT = new URL('../../', import.meta.url);
const doc = readFileSync(new URL('docs/findings.md', ROOT), 'utf8');
const table = /<!-- e2e-last-run:begin -->([^]*?)<!-- e2e-last-run:end -->/.exec(doc)?.[1] ?? '';
const rows = table.split('\n').filter((l) => /^\| `[^`]+\.test\.ts` \|/.test(l));
const named = rows.map((l) => /^\| `([^`]+)`/.exec(l)![1]!);
const files = readdirSync(new URL('test/e2e/', ROOT))
  .filter((f) => f.endsWith('.test.ts'))
  .sort();

t.test('docs/findings.md has the table', async (t) => {
  t.ok(rows.length > 0, 'rows between the markers');
  for (const l of rows) t.equal(l.split('|').length - 2, 5, `five columns: ${l.slice(0, 60)}`);
});

t.test('every e2e file has exactly one row, and every row names an e2e file', async (t) => {
  t.same(
    files.filter((f) => !named.includes(f)),
    [],
    'files without a row',
  );
  t.same(
    named.filter((f) => !files.includes(f)),
    [],
    'rows without a file',
  );
  t.same(
    named.filter((f, i) => named.indexOf(f) !== i),
    [],
    'files with two rows',
  );
});

/** `git <args>` in `cwd`: its exit code and trimmed stdout (code -1 when git cannot run). */
function git(args: string[], cwd: string): { code: number; out: string } {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', timeout: 30_000 });
  return { code: r.error ? -1 : (r.status ?? -1), out: (r.stdout ?? '').trim() };
}

/** The repository's top directory, or why the history cannot be read (no git, no repository, a shallow clone). */
function history(): { top: string } | { skip: string } {
  const top = git(['rev-parse', '--show-toplevel'], fileURLToPath(ROOT));
  if (top.code !== 0) return { skip: 'not in a git repository (or git is missing): the run history cannot be read' };
  if (git(['rev-parse', '--is-shallow-repository'], top.out).out === 'true')
    return {
      skip: 'a shallow clone (CI fetches a few commits): the commits the last-run table names may be missing; fetch the full history (git fetch --unshallow) to check it',
    };
  return { top: top.out };
}

/** The first commit named in a row's commit column: the latest run (later runs are listed first). */
export const recordedCommit = (row: string): string | undefined =>
  /`([0-9a-f]{7,40})`/.exec(row.split('|')[3] ?? '')?.[1];

t.test('every e2e file has what it exercises listed (e2e-covers.ts), and every listed path exists', async (t) => {
  t.same(Object.keys(E2E_COVERS).sort(), files, 'one entry per e2e file');
  const missing = Object.values(E2E_COVERS)
    .flat()
    .map((p) => p.replace(/^:!/, ''))
    .filter((p, i, all) => all.indexOf(p) === i && !existsSync(new URL(p, ROOT)));
  t.same(missing, [], 'paths that do not exist');
});

const h = history();
t.test(
  "no e2e file's last recorded run is older than a commit that changed what it exercises",
  { skip: 'skip' in h ? h.skip : false },
  async (t) => {
    const top = (h as { top: string }).top;
    const stale: string[] = [];
    for (const row of rows) {
      const file = /^\| `([^`]+)`/.exec(row)![1]!;
      const paths = [`test/e2e/${file}`, ...(E2E_COVERS[file] ?? [])];
      const sha = recordedCommit(row);
      const when = row.split('|')[2]?.trim();
      const ran = sha ? git(['rev-parse', '--verify', '--quiet', `${sha}^{commit}`], top) : undefined;
      if (!sha || ran?.code !== 0) {
        stale.push(`${file}: its row names no commit of this repository (${sha ?? 'none'}, run ${when})`);
        continue;
      }
      const changed = git(['log', '-1', '--format=%H', '--', ...paths], top).out;
      if (!changed) continue;
      const a = git(['merge-base', '--is-ancestor', changed, ran.out], top).code;
      if (a === 0) continue;
      // the commits since the run that touched what the file exercises: the first made the row stale
      const since = git(['log', '--reverse', '--format=%H', `${ran.out}..${changed}`, '--', ...paths], top).out.split(
        '\n',
      );
      const first = since[0] || changed;
      const subject = git(['log', '-1', '--format=%h %s', first], top).out.slice(0, 100);
      const touched = git(['show', '--name-only', '--format=', first, '--', ...paths], top).out.split('\n');
      stale.push(
        `${file}: last run on ${sha} (${when}); ${a === 1 ? 'stale since' : 'cannot compare with'} ${subject} [${touched.slice(0, 4).join(', ')}${touched.length > 4 ? ', …' : ''}]; ${since.length} commit${since.length === 1 ? '' : 's'} since, the latest ${changed.slice(0, 7)}`,
      );
    }
    // A row that says so (**stale** in its result) is a debt on record, listed as a todo; one that does not is a
    // failure: the table would claim a run the code has moved past.
    const owned = (line: string) =>
      rows.find((r) => r.startsWith(`| \`${line.split(':')[0]}\``))?.includes('**stale**');
    const told = stale.filter(owned);
    const untold = stale.filter((x) => !owned(x));
    if (told.length)
      t.test(
        `${told.length} e2e files marked **stale** in docs/findings.md`,
        { todo: 'run them on real builds' },
        async (t) => {
          t.comment(told.join('\n'));
        },
      );
    if (untold.length) t.comment(`out of date:\n${untold.join('\n')}`);
    t.same(
      untold,
      [],
      `${untold.length} e2e files to run again on real builds and record in docs/findings.md (each with the first commit since its run that changed what it exercises), or to mark **stale** in their row`,
    );
  },
);
