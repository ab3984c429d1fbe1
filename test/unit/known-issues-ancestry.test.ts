// Git ancestry of fix commits in a source build's tree (lib/builds/ancestry.ts), on a small repository made here:
// an ancestor, a commit on another branch, and a commit the repository does not have.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCommand } from '../../lib/exec/run.js';
import { ancestryIn, buildAncestry } from '../../lib/builds/ancestry.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { VERIFIED } from '../../lib/model/build.js';

const deadline = () => deadlineIn(30_000);

t.test('an ancestor, a commit of another branch, an unknown commit', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ancestry-'));
  const git = async (...args: string[]) =>
    (
      await runCommand('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        deadline: deadline(),
      })
    ).stdout.trim();
  await git('init', '-q', '-b', 'main');
  const commit = async (name: string) => {
    writeFileSync(join(dir, name), name);
    await git('add', name);
    await git('commit', '-q', '-m', name);
    return git('rev-parse', 'HEAD');
  };
  const fix = await commit('fix');
  await git('checkout', '-q', '-b', 'other');
  const elsewhere = await commit('elsewhere');
  await git('checkout', '-q', 'main');
  const head = await commit('head');
  const unknown = 'f'.repeat(40);
  t.same(await ancestryIn(dir, head, [fix, elsewhere, unknown], { deadline: deadline() }), {
    [fix]: true,
    [elsewhere]: false,
    [unknown]: undefined,
  });
  t.same(await ancestryIn(join(dir, 'nowhere'), head, [fix], { deadline: deadline() }), { [fix]: undefined });
  // the answers of `git merge-base --is-ancestor`, in two git calls whatever the number of fixes
  const calls: string[][] = [];
  const counted: typeof runCommand = (file, args, opts) => {
    calls.push([...args]);
    return runCommand(file, args, opts);
  };
  const many = [fix, elsewhere, unknown, head, fix.slice(0, 12)];
  const answers = await ancestryIn(dir, head, many, { deadline: deadline(), run: counted });
  t.same(answers, { [fix]: true, [elsewhere]: false, [unknown]: undefined, [head]: true, [fix.slice(0, 12)]: true });
  t.equal(calls.filter((a) => a.some((x) => x === 'cat-file' || x === 'rev-list')).length, 2, 'two git calls');
  for (const f of many) {
    const r = await runCommand('git', ['-C', dir, 'merge-base', '--is-ancestor', f, head], {
      deadline: deadline(),
      allowedCodes: [0, 1, 128],
    });
    t.equal(answers[f], r.code === 0 ? true : r.code === 1 ? false : undefined, `${f}: as merge-base --is-ancestor`);
  }
  t.same(
    await ancestryIn(dir, 'e'.repeat(40), many, { deadline: deadline() }),
    Object.fromEntries(many.map((f) => [f, undefined])),
    'a commit the repository does not have: nothing known',
  );
  const build = { spec: 'x', path: '/x', sha256: '', version: '2.0.4', revision: '' };
  t.same(
    await buildAncestry({ ...build, origin: { kind: 'git', dir, commit: head, dirty: false } }, [fix]),
    { [fix]: true },
    'a source build asks its own tree',
  );
  t.equal(
    await buildAncestry({ ...build, origin: { kind: 'release', url: 'u', verified: VERIFIED } }, [fix]),
    undefined,
    'a release has no tree: its version decides',
  );
});
