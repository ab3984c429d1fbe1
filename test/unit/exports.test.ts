// One rule, one name: no two lib/ files export the same name (a homonym makes a reader guess which one a file means),
// and every name lib/ exports is imported by some file outside the tests (an export nothing imports is dead code or a
// private helper dressed as an interface). One exception: a name its own file uses and a test imports is exported so
// that its test can reach it; that is neither dead nor a second interface. A name only tests use is dead code with tests. Read from the source text, like the layering test: `export` declarations
// (types included) and the import specifiers of lib/ and of the scripts that use it (tools/, bench/, vms/, .ci/,
// scenarios/, examples/, bin/). Re-exports count as importers of the original. The public scenario API
// (lib/scenario-api/api.ts, the package's `./scenario` export) counts as used: its importers live outside this repository.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const walk = (dir: string): string[] =>
  !existsSync(dir)
    ? []
    : readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.name === 'node_modules'
          ? []
          : e.isDirectory()
            ? walk(join(dir, e.name))
            : /\.(ts|mts|js)$/.test(e.name) && !e.name.endsWith('.d.ts')
              ? [join(dir, e.name)]
              : [],
      );
const rel = (abs: string) => relative(ROOT, abs);

/** lib/'s TypeScript files: the ones whose exports are held to the rules. */
const LIB = walk(join(ROOT, 'lib'))
  .map(rel)
  .filter((f) => f.endsWith('.ts'))
  .sort();
/** Files whose imports count as uses: lib/ and the scripts and scenarios around it; not the tests. */
const USERS = [
  ...LIB,
  ...['tools', 'bench', 'vms', '.ci', 'scenarios', 'examples', 'bin']
    .flatMap((d) => walk(join(ROOT, d)).map(rel))
    .filter((f) => f.endsWith('.ts') || f.startsWith('bin/')),
];

/** The tests: they do not make a name used, but a test may reach a helper its own file uses. */
const TESTS = walk(join(ROOT, 'test'))
  .map(rel)
  .filter((f) => f.endsWith('.ts'));

/** The public scenario API: what it exports is used by scenario files elsewhere. */
const PUBLIC_API = 'lib/scenario-api/api.ts';
const PACKAGE_SPECIFIERS: Record<string, string> = { 'nomad-reboot-harness/scenario': PUBLIC_API };

/**
 * Exports kept without an importer, each with why. Keep it short: an entry here is a name a reader must take on trust.
 * Key: `file:name`.
 */
const ALLOWED_UNUSED: Record<string, string> = {};
/** Names exported by more than one lib/ file on purpose, each with why. */
const ALLOWED_HOMONYMS: Record<string, string> = {};

/** Known breaches still to fix, shown as TODO on every run (not allowed: each is to go, and the list only shrinks). */
const KNOWN_HOMONYMS: string[] = [];
/** Exports only their tests use and their own file does not: dead code kept alive by a test, shown as TODO. */
const KNOWN_DEAD: string[] = [
  // the checks' reading of the event stream (a failure the alloc recovered from); pinned by its unit and e2e tests, and
  // no check judges with it yet: a check that does, or its deletion with those tests, takes it off
  'lib/checks/transitions.ts:transientFailures',
];

const stripComments = (text: string) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/([;,{}()\s])\/\/ .*$/gm, '$1');

/** What a file exports: declared names and `export { a as b }` lists (local), and re-exports (`export { a } from`, `export *`). */
type Exports = {
  declared: string[];
  reexports: { name: string; as: string; spec: string }[];
  star: string[];
};
type Import = { spec: string; names: string[] | '*'; locals: [string, string][] };

/** Names in a `{ a, type B, c as d }` list: [imported-or-local name, name on the other side]. */
const specifierList = (list: string): [string, string][] =>
  list
    .split(',')
    .map((s) => s.trim().replace(/^type\s+/, ''))
    .filter(Boolean)
    .map((s) => {
      const m = /^([\w$]+)(?:\s+as\s+([\w$]+))?$/.exec(s);
      if (!m) throw new Error(`cannot read the specifier "${s}"`);
      return [m[1]!, m[2] ?? m[1]!];
    });

function exportsOf(text: string): Exports {
  const src = stripComments(text);
  const declared: string[] = [];
  const reexports: Exports['reexports'] = [];
  const star: string[] = [];
  const DECL =
    /^\s*export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(function\s*\*?|class|const|let|var|type|interface|enum|namespace)\s+([\w$]+)/gm;
  for (const m of src.matchAll(DECL)) declared.push(m[2]!);
  if (/^\s*export\s+default\b/m.test(src)) declared.push('default');
  // `import { a } from './x.js'; export { a };` passes x's name on: a re-export, not a second definition.
  const importedFrom = new Map<string, { name: string; spec: string }>();
  for (const i of importsOf(text))
    if (i.names !== '*') for (const [name, local] of i.locals) importedFrom.set(local, { name, spec: i.spec });
  for (const m of src.matchAll(/^\s*export\s+(?:type\s+)?\{([^}]*)\}\s*(?:from\s*'([^']+)')?/gm)) {
    for (const [name, as] of specifierList(m[1]!)) {
      const passed = importedFrom.get(name);
      if (m[2]) reexports.push({ name, as, spec: m[2] });
      else if (passed) reexports.push({ name: passed.name, as, spec: passed.spec });
      else declared.push(as);
    }
  }
  for (const m of src.matchAll(/^\s*export\s+\*\s+from\s*'([^']+)'/gm)) star.push(m[1]!);
  for (const m of src.matchAll(/^\s*export\s+\*\s+as\s+([\w$]+)\s+from\s*'([^']+)'/gm))
    reexports.push({ name: '*', as: m[1]!, spec: m[2]! });
  return { declared, reexports, star };
}

function importsOf(text: string): Import[] {
  const src = stripComments(text);
  const out: Import[] = [];
  for (const m of src.matchAll(/^\s*import\s+(?:type\s+)?([^'";]*?)\s*from\s*'([^']+)'/gm)) {
    const clause = m[1]!;
    const names: string[] = [];
    if (/\*\s+as\s+[\w$]+/.test(clause)) {
      out.push({ spec: m[2]!, names: '*', locals: [] });
      continue;
    }
    const braces = /\{([^}]*)\}/.exec(clause);
    const locals = braces ? specifierList(braces[1]!) : [];
    names.push(...locals.map(([name]) => name));
    if (/^[\w$]+\s*(,|$)/.test(clause.trim())) names.push('default');
    out.push({ spec: m[2]!, names, locals });
  }
  // `const { a, b } = await import('./x.js')` and `import('./x.js').then((m) => m.a)`: whatever it names, or all.
  for (const m of src.matchAll(/(?:\{([\w$\s,:]*)\}\s*=\s*await\s+)?\bimport\(\s*'([^']+)'\s*\)/g))
    out.push({
      spec: m[2]!,
      names: m[1] ? specifierList(m[1].replace(/:\s*[\w$]+/g, '')).map(([n]) => n) : '*',
      locals: [],
    });
  return out;
}

/** The repo-relative file a specifier names, or undefined for a package outside the repository. */
function resolveSpec(from: string, spec: string): string | undefined {
  if (PACKAGE_SPECIFIERS[spec]) return PACKAGE_SPECIFIERS[spec];
  if (!spec.startsWith('.')) return undefined;
  return rel(resolve(ROOT, dirname(from), spec.replace(/\.js$/, '.ts')));
}

const text = new Map([...USERS, ...TESTS].map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
const exportsByFile = new Map(LIB.map((f) => [f, exportsOf(text.get(f)!)]));

/** Every name `file` exports, with the file that defines it (following re-exports and `export *`). */
function exported(file: string, seen = new Set<string>()): Map<string, string> {
  const out = new Map<string, string>();
  const e = exportsByFile.get(file);
  if (!e || seen.has(file)) return out;
  seen.add(file);
  for (const n of e.declared) out.set(n, file);
  for (const r of e.reexports) out.set(r.as, file);
  for (const s of e.star) {
    const target = resolveSpec(file, s);
    if (target) for (const [n, def] of exported(target, seen)) if (n !== 'default' && !out.has(n)) out.set(n, def);
  }
  return out;
}

/** `file:name` for each export the files' imports (and re-exports) use; a re-export marks the original used too. */
function used(users = USERS): Set<string> {
  const out = new Set<string>();
  const mark = (file: string, name: string, seen = new Set<string>()) => {
    const key = `${file}:${name}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.add(key);
    const e = exportsByFile.get(file);
    if (!e) return;
    for (const r of e.reexports)
      if (r.as === name) {
        const target = resolveSpec(file, r.spec);
        if (target)
          if (r.name === '*') for (const n of exported(target).keys()) mark(target, n, seen);
          else mark(target, r.name, seen);
      }
    if (!e.declared.includes(name))
      for (const s of e.star) {
        const target = resolveSpec(file, s);
        if (target && exported(target).has(name)) mark(target, name, seen);
      }
  };
  for (const f of users) {
    for (const i of importsOf(text.get(f)!)) {
      const target = resolveSpec(f, i.spec);
      if (!target || !exportsByFile.has(target)) continue;
      for (const n of i.names === '*' ? [...exported(target).keys()] : i.names) mark(target, n);
    }
    const e = exportsByFile.get(f);
    if (e) {
      for (const r of e.reexports) {
        const target = resolveSpec(f, r.spec);
        if (!target) continue;
        if (r.name === '*') for (const n of exported(target).keys()) mark(target, n);
        else mark(target, r.name);
      }
      for (const s of e.star) {
        const target = resolveSpec(f, s);
        if (target) for (const n of exported(target).keys()) mark(target, n);
      }
    }
  }
  for (const n of exported(PUBLIC_API).keys()) mark(PUBLIC_API, n);
  return out;
}

/**
 * True when `name` occurs in `file`'s code (comments aside, a property `x.name` is not it, a spread `...name` is) besides its
 * own declaration. Strings are kept: a template
 * can use a name (`'${NAME}'`), and a quote inside a template would throw a string-stripper off.
 */
function usedInOwnFile(file: string, name: string): boolean {
  const code = stripComments(text.get(file)!);
  const escaped = name.replace(/\$/g, '\\$');
  return (code.match(new RegExp(`(?<![\\w$])(?<![^.]\\.)${escaped}(?![\\w$])`, 'g')) ?? []).length > 1;
}

t.test('the readers see what they look for', async (t) => {
  const e = exportsOf(
    [
      'export const a = 1;',
      'export async function b() {}',
      'export function* c() {}',
      'export type D = string;',
      'export interface E {}',
      'export class F {}',
      'export abstract class G {}',
      'export enum H {}',
      'const i = 1, j = 2;',
      'export { i, j as k };',
      "import type { S } from './s.js';",
      'export type { S };',
      "export { l, m as n } from './o.js';",
      "export type { P } from './q.js';",
      "export * from './r.js';",
      'export default 5;',
      '// export const commented = 1;',
      '/* export function hidden() {} */',
    ].join('\n'),
  );
  t.same(e.declared.sort(), ['D', 'E', 'F', 'G', 'H', 'a', 'b', 'c', 'default', 'i', 'k'].sort());
  t.same(e.reexports, [
    { name: 'S', as: 'S', spec: './s.js' },
    { name: 'l', as: 'l', spec: './o.js' },
    { name: 'm', as: 'n', spec: './o.js' },
    { name: 'P', as: 'P', spec: './q.js' },
  ]);
  t.same(e.star, ['./r.js']);
  const expect = new Map<string, [string, string][]>([
    [
      './x.js',
      [
        ['a', 'a'],
        ['B', 'B'],
        ['c', 'd'],
      ],
    ],
    ['./e.js', [['E', 'E']]],
    [
      './f.js',
      [
        ['f', 'f'],
        ['g', 'g'],
      ],
    ],
  ]);
  t.same(
    importsOf(
      [
        "import x, { a, type B, c as d } from './x.js';",
        "import type { E } from './e.js';",
        "import {\n  f,\n  g,\n} from './f.js';",
        "import * as ns from './ns.js';",
        "const { h, i: j } = await import('./h.js');",
        "const k = import('./k.js');",
        "// import { z } from './z.js';",
      ].join('\n'),
    ),
    [
      { spec: './x.js', names: ['a', 'B', 'c', 'default'] },
      { spec: './e.js', names: ['E'] },
      { spec: './f.js', names: ['f', 'g'] },
      { spec: './ns.js', names: '*' },
      { spec: './h.js', names: ['h', 'i'] },
      { spec: './k.js', names: '*' },
    ].map((i) => ({ ...i, locals: expect.get(i.spec) ?? [] })),
  );
});

t.test('the file lists are real', async (t) => {
  t.ok(
    TESTS.includes('test/unit/exports.test.ts') && used(TESTS).size > 50,
    'the tests are read (to see what they reach)',
  );
  t.ok(LIB.length > 100, `${LIB.length} files under lib/`);
  t.ok(USERS.includes('tools/docs.ts') && USERS.includes('scenarios/server-reboot.ts'), 'scripts and scenarios read');
  t.notOk(
    USERS.some((f) => f.startsWith('test/')),
    'tests are not users',
  );
  t.ok(exported(PUBLIC_API).size > 5, 'the public API exports names');
  t.ok(used().has('lib/cli/main.ts:main') || used().size > 100, 'uses are found');
});

t.test('no two lib/ files export the same name', async (t) => {
  const byName = new Map<string, string[]>();
  for (const f of LIB) for (const n of exportsByFile.get(f)!.declared) byName.set(n, [...(byName.get(n) ?? []), f]);
  const homonyms = [...byName].filter(([n, files]) => files.length > 1 && n !== 'default' && !(n in ALLOWED_HOMONYMS));
  t.same(
    homonyms.filter(([n]) => !KNOWN_HOMONYMS.includes(n)).map(([n, files]) => `${n}: ${files.join(', ')}`),
    [],
    'give each rule one name (merge the two, or rename the one that means something else)',
  );
  t.same(
    KNOWN_HOMONYMS.filter((n) => !homonyms.some(([h]) => h === n)),
    [],
    'known homonyms that are gone: take them off KNOWN_HOMONYMS',
  );
  for (const [n, files] of homonyms.filter(([h]) => KNOWN_HOMONYMS.includes(h)))
    t.test(`${n} is exported by ${files.join(', ')}`, { todo: 'one rule, one name' }, async (t) => t.fail(n));
  t.same(
    Object.keys(ALLOWED_HOMONYMS).filter((n) => (byName.get(n)?.length ?? 0) < 2),
    [],
    'allow-list entries that are no longer homonyms',
  );
});

t.test('every export of lib/ has an importer outside the tests', async (t) => {
  const u = used();
  const byTests = used(TESTS);
  const unused = LIB.flatMap((f) =>
    [...exportsByFile.get(f)!.declared, ...exportsByFile.get(f)!.reexports.map((r) => r.as)]
      .filter((n) => !u.has(`${f}:${n}`) && !(`${f}:${n}` in ALLOWED_UNUSED))
      .map((n) => ({ f, n, own: usedInOwnFile(f, n), tested: byTests.has(`${f}:${n}`) })),
  );
  t.same(
    unused.filter((x) => x.own && !x.tested).map((x) => `${x.f}:${x.n}`),
    [],
    'used only in its own file: drop `export`',
  );
  const dead = unused.filter((x) => !x.own);
  t.same(
    dead
      .filter((x) => !KNOWN_DEAD.includes(`${x.f}:${x.n}`))
      .map((x) => `${x.f}:${x.n}${x.tested ? ' (only its tests use it)' : ''}`),
    [],
    'dead code: delete it (and its tests)',
  );
  t.same(
    KNOWN_DEAD.filter((k) => !dead.some((x) => `${x.f}:${x.n}` === k)),
    [],
    'known dead exports that are gone: take them off KNOWN_DEAD',
  );
  for (const k of KNOWN_DEAD.filter((k) => dead.some((x) => `${x.f}:${x.n}` === k)))
    t.test(`${k} is used by its tests only`, { todo: 'delete it and its tests' }, async (t) => t.fail(k));
  t.same(
    Object.keys(ALLOWED_UNUSED).filter((k) => u.has(k)),
    [],
    'allow-list entries that have an importer now',
  );
  t.ok(Object.keys(ALLOWED_UNUSED).length + Object.keys(ALLOWED_HOMONYMS).length < 10, 'the allow-lists stay short');
});
