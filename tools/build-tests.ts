// Compiles the repository's TypeScript to JavaScript once, into .test-build/, so that tap's test processes run plain
// JavaScript instead of each registering tsx's loader: on Node 20 every module a process imports (tap's ~200 own
// modules included) then crosses to the loader's thread, about 0.4 s of CPU per test file before its first assertion.
// Usage: tsx tools/build-tests.ts   (then: tap ".test-build/test/unit/*.test.js"; `npm run test:unit` does both)
// The tree is mirrored: each .ts file becomes a .js file at the same place (with an inline source map naming the
// .ts, so stack traces point at the source), and every other file or directory is a symbolic link to the original,
// so a module's paths relative to itself (fixtures, vms/, schemas/, the .ts scripts lib/ runs with tsx) resolve
// as in the tree. Rebuilt whole each time: it takes about a second.
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BUILD_DIR = join(ROOT, '.test-build');
/** Not mirrored: dependencies (resolved from the root's node_modules, a parent of the build), VCS and run output. */
const SKIP = new Set(['node_modules', '.git', '.test-build', '.tap', '.vagrant', 'reports', 'tmp']);

const tsconfig = JSON.parse(await readFile(join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: object };

/** True when `dir` holds a TypeScript file at any depth (such a directory is mirrored, not linked). */
async function hasTs(dir: string): Promise<boolean> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isFile() && isTs(e.name)) return true;
    if (e.isDirectory() && !SKIP.has(e.name) && (await hasTs(join(dir, e.name)))) return true;
  }
  return false;
}

function isTs(name: string): boolean {
  return name.endsWith('.ts') && !name.endsWith('.d.ts');
}

/**
 * package.json with its "exports" pointing at the compiled files: a module importing the package by its own name
 * (the example scenarios import `nomad-reboot-harness/scenario`) gets the compiled API, as tsx gives it the source.
 */
async function writePackageJson(src: string, dest: string): Promise<void> {
  const pkg = JSON.parse(await readFile(src, 'utf8')) as { exports: Record<string, string> };
  for (const [k, v] of Object.entries(pkg.exports)) pkg.exports[k] = v.replace(/\.ts$/, '.js');
  await writeFile(dest, `${JSON.stringify(pkg, null, 2)}\n`);
}

let compiled = 0;
async function mirror(dir: string): Promise<void> {
  const out = join(BUILD_DIR, relative(ROOT, dir));
  await mkdir(out, { recursive: true });
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const src = join(dir, e.name);
    if (e.isDirectory() && (await hasTs(src))) {
      await mirror(src);
      continue;
    }
    if (dir === ROOT && e.name === 'package.json') {
      await writePackageJson(src, join(out, e.name));
      continue;
    }
    await symlink(src, join(out, e.name));
    if (e.isFile() && isTs(e.name)) {
      const r = await transform(await readFile(src, 'utf8'), {
        loader: 'ts',
        format: 'esm',
        target: 'node20',
        sourcemap: 'inline',
        sourcesContent: false,
        sourcefile: src,
        tsconfigRaw: tsconfig,
      });
      await writeFile(join(out, e.name.replace(/\.ts$/, '.js')), r.code);
      compiled++;
    }
  }
}

const started = performance.now();
await rm(BUILD_DIR, { recursive: true, force: true });
await mirror(ROOT);
const ms = Math.round(performance.now() - started);
console.error(`build-tests: ${compiled} TypeScript files compiled into ${relative(ROOT, BUILD_DIR)}/ (${ms} ms)`);
