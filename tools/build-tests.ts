// Compiles the repository's TypeScript to JavaScript once, into .test-build/, so that tap's test processes run plain
// JavaScript instead of each registering tsx's loader: on Node 20 every module a process imports (tap's ~200 own
// modules included) then crosses to the loader's thread, about 0.4 s of CPU per test file before its first assertion.
// Usage: tsx tools/build-tests.ts   (then: tap ".test-build/test/unit/*.test.js"; `npm run test:unit` does both)
// The tree is mirrored: each .ts file becomes a .js file at the same place (with an inline source map naming the
// .ts, so stack traces point at the source), and every other file or directory is a symbolic link to the original,
// so a module's paths relative to itself (fixtures, vms/, schemas/, the .ts scripts lib/ runs with tsx) resolve
// as in the tree. Rebuilt whole each time: a few seconds (the bundling below included).
import { mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, transform, type BuildOptions, type Plugin } from 'esbuild';
import { INTEGRATION_GROUPS, SHARED_INTEGRATION, UNIT_GROUPS } from './test-groups.js';

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

/**
 * A group's own timeout: its files run one after another, each of which alone has tap's 60 s. Unit groups too: the
 * whole unit tier takes 15 s on an idle machine, but one group of 36 files took 80 s at load 13-16 (38 s of it
 * known-issues-mirror's git work on the Nomad clone) and tap timed it out at 60 s; the longest integration group took
 * about 4 minutes at load 25.
 */
const GROUP_TIMEOUT_MS = 8 * 60_000;

/**
 * The unit files in UNIT_GROUPS files of their own (`.test-build/test/unit-groups/group-<k>.test.js`), each importing
 * its share of them, so tap runs 4 processes for them instead of one per file: a test process costs about 0.45 s of
 * CPU before its first assertion (node, tap and its plugins), which over 110 pure, fast files was a third of the
 * tier's CPU. A unit file's tests keep their names; the files are assigned by name, round robin.
 */
async function writeUnitGroups(): Promise<number> {
  const unitDir = join(ROOT, 'test', 'unit');
  const files = (await readdir(unitDir)).filter((f) => f.endsWith('.test.ts')).sort();
  const out = join(BUILD_DIR, 'test', 'unit-groups');
  await mkdir(out, { recursive: true });
  await writeGroupTimeout(out);
  for (let k = 0; k < UNIT_GROUPS; k++) {
    const mine = files.filter((_, i) => i % UNIT_GROUPS === k);
    const lines = [
      '// generated by tools/build-tests.ts',
      "import './group-timeout.js';",
      ...mine.map((f) => `await import('../unit/${f.replace(/\.ts$/, '.js')}');`),
    ];
    await writeFile(join(out, `group-${k + 1}.test.js`), `${lines.join('\n')}\n`);
  }
  return files.length;
}

/**
 * The group's timeout as the only module a group imports statically, its members loaded after it one by one (`await
 * import`): ES imports are evaluated before the importing module's own body, so a `t.setTimeout` written after them ran
 * only once every member was loaded, and a group whose members took longer than tap's 60 s to load (a starved process)
 * was cut with no test run. It stays a module of its own when the entries are bundled (bundleEntries): in a bundle,
 * the chunks a module shares with others are imported, and so evaluated, before it.
 */
async function writeGroupTimeout(dir: string): Promise<void> {
  const body = `// generated by tools/build-tests.ts\nimport t from 'tap';\nt.setTimeout(${GROUP_TIMEOUT_MS});\n`;
  await writeFile(join(dir, 'group-timeout.js'), body);
}

/**
 * The shared integration files in INTEGRATION_GROUPS files (`.test-build/test/integration-groups/group-<k>.test.js`),
 * round robin by name. Each compiled member is renamed from `<name>.test.js` to `<name>.shared.js` (same folder, so
 * its relative paths hold), so the tier's `integration/*.test.js` glob runs it only in its group.
 */
async function writeIntegrationGroups(): Promise<number> {
  const dir = join(BUILD_DIR, 'test', 'integration');
  const present = new Set(await readdir(dir));
  const missing = SHARED_INTEGRATION.filter((n) => !present.has(`${n}.test.js`));
  if (missing.length) throw new Error(`build-tests: SHARED_INTEGRATION names no such file: ${missing.join(', ')}`);
  for (const n of SHARED_INTEGRATION) await rename(join(dir, `${n}.test.js`), join(dir, `${n}.shared.js`));
  const out = join(BUILD_DIR, 'test', 'integration-groups');
  await mkdir(out, { recursive: true });
  await writeGroupTimeout(out);
  for (let k = 0; k < INTEGRATION_GROUPS; k++) {
    const mine = SHARED_INTEGRATION.filter((_, i) => i % INTEGRATION_GROUPS === k);
    const lines = [
      '// generated by tools/build-tests.ts',
      "import './group-timeout.js';",
      ...mine.map((n) => `await import('../integration/${n}.shared.js');`),
    ];
    await writeFile(join(out, `group-${k + 1}.test.js`), `${lines.join('\n')}\n`);
  }
  return SHARED_INTEGRATION.length;
}

/**
 * Each file a test process starts from (the unit and integration groups, the integration files that run alone) as one
 * module plus chunks it shares with the others (esbuild's code splitting: about 100 modules instead of 380 for a file
 * that imports main()). tap starts every test process with module hooks (@tapjs/processinfo, @tapjs/mock) that each
 * imported module crosses to on a thread of theirs: loading an integration group took 2.2 s of CPU, 1.6 s bundled (a
 * file alone 1.7 s, 1.3 s; measured with its tests filtered out, 3 runs each). The source maps are files beside the
 * chunks (`linked`): inline, Node decoded them all at load under `--enable-source-maps`, which ate the gain (2.5 s).
 * Packages stay imports. Each module's `import.meta.url` (and dirname, filename) is its own compiled twin's, so its
 * paths relative to itself resolve as before, and the scenario API with what it imports stays the twins (imported by
 * their file URLs): a user scenario loaded at run time imports those same module instances, its error classes among
 * them. `HARNESS_TEST_BUNDLE=0` leaves the entries as they are (a module per file).
 */
async function bundleEntries(entries: string[]): Promise<void> {
  const api = await build({
    entryPoints: [join(BUILD_DIR, 'lib', 'scenario-api', 'api.js')],
    absWorkingDir: ROOT,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const shared = new Set(Object.keys(api.metafile.inputs).map((f) => resolve(ROOT, f)));
  const twins: Plugin = {
    name: 'twins',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) => {
        if (args.path === './group-timeout.js') return { path: args.path, external: true };
        const abs = resolve(args.resolveDir, args.path);
        return shared.has(abs) ? { path: pathToFileURL(abs).href, external: true } : undefined;
      });
      b.onLoad({ filter: /\.js$/ }, async (args) => {
        const url = JSON.stringify(pathToFileURL(args.path).href);
        const contents = (await readFile(args.path, 'utf8'))
          .replaceAll('import.meta.url', url)
          .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
          .replaceAll('import.meta.filename', JSON.stringify(args.path));
        return { contents, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
  // what both bundles share: ESM for Node 20, packages left to node_modules, linked maps, the twins kept apart
  const common = {
    allowOverwrite: true,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'error',
    plugins: [twins],
  } as const satisfies BuildOptions;
  await build({
    ...common,
    entryPoints: entries,
    outdir: BUILD_DIR,
    outbase: BUILD_DIR,
    splitting: true,
    chunkNames: 'test/chunks/[name]-[hash]',
  });
  // The CLI the tests spawn compiled (CLI_COMPILED in test/helpers/cli-child.ts) as one file of its own, the same way:
  // `--help` took 0.45 s of CPU as 350 modules, 0.24 s as one; the scenario API stays the twins here too.
  await build({
    ...common,
    entryPoints: [join(BUILD_DIR, 'lib', 'cli', 'entry.js')],
    outfile: join(BUILD_DIR, 'lib', 'cli', 'entry.js'),
  });
}

const started = performance.now();
await rm(BUILD_DIR, { recursive: true, force: true });
await mirror(ROOT);
const grouped = await writeUnitGroups();
const shared = await writeIntegrationGroups();
const entries = [
  ...(await readdir(join(BUILD_DIR, 'test', 'unit-groups'))).map((f) => join(BUILD_DIR, 'test', 'unit-groups', f)),
  ...(await readdir(join(BUILD_DIR, 'test', 'integration-groups'))).map((f) =>
    join(BUILD_DIR, 'test', 'integration-groups', f),
  ),
  ...(await readdir(join(BUILD_DIR, 'test', 'integration'))).map((f) => join(BUILD_DIR, 'test', 'integration', f)),
].filter((f) => f.endsWith('.test.js'));
if (process.env['HARNESS_TEST_BUNDLE'] !== '0') await bundleEntries(entries);
const ms = Math.round(performance.now() - started);
console.error(
  `build-tests: ${compiled} TypeScript files compiled into ${relative(ROOT, BUILD_DIR)}/, ${grouped} unit files in ${UNIT_GROUPS} groups, ${shared} integration files in ${INTEGRATION_GROUPS} (${ms} ms)`,
);
