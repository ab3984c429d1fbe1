// What the test build (tools/build-tests.ts) is made from, as one hash: when .test-build/ was made from the same, the
// build is skipped. `npm run test:unit` then `npm run test:integration` (the bench, a developer's reruns) rebuilt the
// same tree each time: 8-10 s of esbuild for nothing.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * The hash of the tree under `root` as the build reads it: every entry's path and kind (outside `skip`), the text of
 * every TypeScript file (compiled) and of the files the build reads whole (`wholeFiles`: package.json, tsconfig.json,
 * package-lock.json for the packages it bundles), and `extra` (the Node version, the build's environment). Other files
 * are linked into the build, so their names are enough.
 */
export async function buildKey(
  root: string,
  o: { skip: ReadonlySet<string>; wholeFiles: readonly string[]; extra: readonly string[] },
): Promise<string> {
  const h = createHash('sha256');
  for (const x of o.extra) h.update(`extra ${x}\n`);
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      if (o.skip.has(e.name)) continue;
      const path = join(dir, e.name);
      const rel = relative(root, path);
      const kind = e.isDirectory() ? 'dir' : e.isSymbolicLink() ? 'link' : e.isFile() ? 'file' : 'other';
      h.update(`${kind} ${rel}\n`);
      if (e.isDirectory()) await walk(path);
      else if (e.isFile() && (isTsSource(e.name) || o.wholeFiles.includes(rel))) h.update(await readFile(path));
    }
  };
  await walk(root);
  return h.digest('hex');
}

/** A TypeScript source the build compiles (declarations are not). */
export function isTsSource(name: string): boolean {
  return name.endsWith('.ts') && !name.endsWith('.d.ts');
}
