// Every row of the known-issue table held to hashicorp/nomad itself: its fix commits exist on the branches it names,
// the first fixed release of each line has the fix and the release before it does not, a line said to have no public
// fix has none in any tag, the CHANGELOG line it cites is in the CHANGELOG of that release, and the methods its
// signature names are in the code its fix changed. Needs a clone of the
// repository (env NOMAD_SOURCE, else /work/.mirror/hashicorp+nomad/repo); CI runners usually have none, and then the
// test says it skipped and why.
import { existsSync } from 'node:fs';
import t from 'tap';
import { ANY_EXIT_CODE, runCommand } from '../../lib/exec/run.js';
import { KNOWN_ISSUES } from '../../lib/known-issues/table.js';
import { ancestryIn } from '../../lib/builds/ancestry.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { compareVersions } from '../../lib/parse/versions.js';
import { signaturesOf } from '../../lib/known-issues/label.js';

const REPO = process.env['NOMAD_SOURCE'] || '/work/.mirror/hashicorp+nomad/repo';
const present = existsSync(REPO);

// Note: the rows ask the same questions again (a fix on the tag its CHANGELOG line cites and on the line's first fixed
// release, the same CHANGELOG of a tag): each is asked of git once (170 ancestry questions were 142, 84 reads 70).
const once = <T>(memo: Map<string, Promise<T>>, key: string, ask: () => Promise<T>): Promise<T> => {
  const asked = memo.get(key);
  if (asked) return asked;
  const p = ask();
  memo.set(key, p);
  return p;
};
const reads = new Map<string, Promise<{ code: number; out: string }>>();
const git = (...args: string[]) =>
  once(reads, args.join('\0'), async () => {
    const r = await runCommand('git', [`--git-dir=${gitDir}`, ...args], {
      deadline: deadlineIn(60_000),
      allowedCodes: ANY_EXIT_CODE,
    });
    return { code: r.code, out: r.stdout };
  });
let gitDir = REPO;
const ancestry = new Map<string, Promise<boolean | undefined>>();
const has = (commit: string, ref: string) =>
  once(
    ancestry,
    `${commit} ${ref}`,
    async () => (await ancestryIn(REPO, ref, [commit], { deadline: deadlineIn(60_000) }))[commit],
  );
const tagExists = async (tag: string) => (await git('rev-parse', '--verify', '--quiet', `${tag}^{commit}`)).code === 0;
/** The CHANGELOG section of `version` in `ref`'s CHANGELOG.md ("## 2.0.5 (…)" up to the next heading). */
const section = async (ref: string, version: string) => {
  const text = (await git('show', `${ref}:CHANGELOG.md`)).out;
  const start = text.search(new RegExp(`^## ${version.replace(/\./g, '\\.')}[ (]`, 'm'));
  if (start < 0) return '';
  const rest = text.slice(start + 3);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
};

t.test(
  'the table against hashicorp/nomad',
  { skip: present ? false : `no clone of hashicorp/nomad at ${REPO} (set NOMAD_SOURCE to one; CI usually has none)` },
  async (t) => {
    const found = await runCommand('git', ['-C', REPO, 'rev-parse', '--absolute-git-dir'], {
      deadline: deadlineIn(10_000),
    });
    gitDir = found.stdout.trim();
    const tags = (await git('tag', '--list', 'v*')).out.split('\n').filter((x) => /^v\d+\.\d+\.\d+$/.test(x));
    for (const r of KNOWN_ISSUES) {
      const gh = /\[\[GH-(\d+)\]\]/.exec(r.source.changelog)?.[1];
      t.ok(gh, `${r.id}: the CHANGELOG line names its GH number`);
      const text = r.source.changelog.replace(/\s*\[\[GH-\d+\]\]$/, '');
      for (const f of r.fixes) {
        t.equal((await git('cat-file', '-e', `${f.commit}^{commit}`)).code, 0, `${r.id}: ${f.commit} exists`);
        t.equal(await has(f.commit, f.branch), true, `${r.id}: ${f.commit.slice(0, 10)} is on ${f.branch}`);
      }
      if (r.source.tag) {
        const cl = (await git('show', `${r.source.tag}:CHANGELOG.md`)).out;
        const line = cl.split('\n').find((l) => l.includes(`[GH-${gh}](`));
        t.ok(line?.includes(text), `${r.id}: CHANGELOG.md at ${r.source.tag} has "${text.slice(0, 60)}…"`);
        t.ok(
          (await Promise.all(r.fixes.map((f) => has(f.commit, r.source.tag!)))).some((x) => x === true),
          `${r.id}: ${r.source.tag} has a fix commit`,
        );
      }
      const anyFix = async (ref: string) =>
        (await Promise.all(r.fixes.map((f) => has(f.commit, ref)))).some((x) => x === true);
      for (const [line, l] of Object.entries(r.lines)) {
        const oss = !line.includes('+');
        const ofLine = tags
          .filter((x) => x.startsWith(`v${line}.`))
          .sort((a, b) => compareVersions(a.slice(1), b.slice(1)));
        if (oss && l.fixedIn === null) {
          // the newest public release of the line stands for all of it (a fix is not taken back)
          const newest = ofLine.at(-1);
          if (newest) t.equal(await anyFix(newest), false, `${r.id}: ${newest} lacks the fix (line ${line}: none)`);
          continue;
        }
        if (!l.fixedIn) continue;
        const tag = `v${l.fixedIn}`;
        if (oss && (await tagExists(tag))) {
          t.equal(await anyFix(tag), true, `${r.id}: ${tag} has the fix`);
          const before = ofLine.filter((x) => compareVersions(x.slice(1), l.fixedIn!) < 0).at(-1);
          if (before) t.equal(await anyFix(before), false, `${r.id}: ${before}, the release before, lacks it`);
        } else {
          // an Enterprise release, or one with no public tag: the line's branch CHANGELOG says it
          const branch = `release/${line.replace(/\+ent$/, '')}.x`;
          const s = await section(branch, l.fixedIn);
          t.ok(s.includes(`[GH-${gh}](`), `${r.id}: ${branch} CHANGELOG lists GH-${gh} under ${l.fixedIn}`);
        }
      }
      // a method a signature names, `\(\*Encrypter\)\.loadKeyFromStore\(`, is in the code the fix changed (its parent),
      // or, qualified by a dependency's package (`aead\.\(\*Wrapper\)`), that package is imported by a file it changed
      const fix = r.fixes.find((f) => f.branch === 'main') ?? r.fixes[0];
      for (const pattern of fix ? signaturesOf(r) : []) {
        for (const m of pattern.matchAll(/(?:(\w+)\\\.)?\\\(\\\*(\w+)\\\)\\\.(\w+)/g)) {
          const [, pkg, type, method] = m;
          const def = `func \\([A-Za-z_]+ \\*${type}\\) ${method}\\(`;
          const inNomad = (await git('grep', '-q', '-E', def, `${fix!.commit}^`, '--', '*.go')).code === 0;
          let imported = false;
          if (!inNomad && pkg) {
            const changed = (await git('show', '--name-only', '--format=', fix!.commit)).out.split('\n');
            for (const f of changed.filter((x) => x.endsWith('.go')))
              imported ||= (await git('show', `${fix!.commit}^:${f}`)).out.includes(`/${pkg}"`);
          }
          t.ok(
            inNomad || imported,
            `${r.id}: (*${type}).${method} of its signature is ${pkg && !inNomad ? `in ${pkg}, imported by the fix's files` : `in ${fix!.commit.slice(0, 10)}^`}`,
          );
        }
      }
      if (r.sinceRelease) {
        const main = r.fixes.find((f) => f.branch === 'main');
        t.ok(main, `${r.id}: since_release needs the main commit`);
        if (main) t.equal(await has(main.commit, `v${r.sinceRelease}`), true, `${r.id}: v${r.sinceRelease} has it`);
      }
    }
  },
);
