// `merge --copy-attachments` through the real CLI: two runners' report folders (a two-cell matrix run as two shards,
// stand-in labs and Nomad) merged into a folder elsewhere with every attachment and page copied into it; then the
// runners' folders are deleted and everything the merged JUnit and index name must still be there.
import t from 'tap';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { main } from '../../lib/cli/main.js';
import { standInPerRun } from '../helpers/stand-in-env.js';

const MATRIX = `scenario: bridge-exec-reboot
axes:
  nomad:
    - {name: "1.9.3", binary: ./nomad-1.9.3}
  reboot: [graceful, hard]
`;

const attachmentsOf = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/\[\[ATTACHMENT\|([^\]]+)\]\]/g)].map((m) => m[1]!);

t.test('merge --copy-attachments: the merged folder stands alone', async (t) => {
  const root = t.testdir({ 'm.yaml': MATRIX });
  const builds = { [join(root, 'nomad-1.9.3')]: { timeline: 'duplicate-ip' as const, version: '1.9.3' } };
  for (const i of [1, 2]) {
    const s = standInPerRun(builds, { cwd: root });
    const argv = ['matrix', 'm.yaml', '--shard', `${i}/2`, '--reports-dir', join(root, `runners/r${i}`), '--netns', ''];
    t.equal(await main(argv, s.deps), 1, `shard ${i}/2 ran (its cell failed) ${s.err.join('')}`);
  }
  const merge = async (argv: string[]) => {
    const io = { out: '', err: '' };
    const standIn = standInPerRun({}, { cwd: root }).deps;
    const write = (k: 'out' | 'err') => (s: string) => {
      io[k] += s;
    };
    const code = await main(['merge', ...argv], { ...standIn, out: write('out'), err: write('err') });
    return { code, ...io };
  };

  // Without the flag the attachments point back into the runners' folders.
  const plain = await merge(['runners', '--out', 'plain']);
  t.equal(plain.code, 1, plain.err);
  const plainPaths = attachmentsOf(join(root, 'plain', 'junit.xml'));
  t.ok(plainPaths.length >= 4, `${plainPaths.length} attachment lines`);
  t.ok(
    plainPaths.every((p) => p.startsWith('../runners/')),
    'without --copy-attachments: pointing into the inputs',
  );

  const copied = await merge(['runners', '--out', 'out/merged', '--copy-attachments']);
  t.equal(copied.code, 1, copied.err);
  t.equal(copied.err, '', 'no warning');
  t.match(copied.out, /copied \d+ files \(attachments and pages\) into out\/merged/);
  const outDir = join(root, 'out', 'merged');
  const junit = join(outDir, 'junit.xml');
  const paths = attachmentsOf(junit);
  t.equal(paths.length, plainPaths.length, 'the same attachment lines');
  t.same(
    paths.filter((p) => p.startsWith('..') || p.startsWith('/')),
    [],
    'every attachment names a file inside the merged folder',
  );
  // The copies are the runs' files, byte for byte.
  for (const [k, p] of paths.entries())
    t.equal(
      readFileSync(resolve(outDir, p), 'utf8'),
      readFileSync(resolve(root, 'plain', plainPaths[k]!), 'utf8'),
      `${p} is a copy of ${plainPaths[k]}`,
    );

  rmSync(join(root, 'runners'), { recursive: true });
  t.same(
    paths.filter((p) => !existsSync(resolve(outDir, p))),
    [],
    "with the runners' folders gone, every attachment still resolves",
  );
  const index = join(outDir, 'index.html');
  // every local link is a cell's page; the known/new column links public issues on GitHub
  const hrefs = [...readFileSync(index, 'utf8').matchAll(/<a href="([^"]+)">/g)]
    .map((m) => m[1]!)
    .filter((h) => !/^[a-z]+:/.test(h));
  t.equal(hrefs.length, 2, 'a link per cell');
  for (const h of hrefs) {
    const page = resolve(dirname(index), decodeURIComponent(h));
    t.ok(page.startsWith(`${outDir}/`) && existsSync(page), `${h}: a page copied into the merged folder`);
    // A page's own links to its run's files (relative to the page) resolve among the copies.
    const links = [...readFileSync(page, 'utf8').matchAll(/<a href="([^"#][^"]*)"/g)].map((m) => m[1]!);
    const local = links.filter((l) => !/^[a-z]+:/.test(l));
    t.ok(local.length > 0, `${h} links its files`);
    t.same(
      local.filter((l) => !existsSync(resolve(dirname(page), decodeURIComponent(l)))),
      [],
      `${h}: every link resolves`,
    );
  }
  t.ok(readdirSync(outDir).length > 3, 'a folder per run beside the merged reports');
});
