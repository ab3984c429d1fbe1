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
