// The boundaries of the design ("Boundaries"): pure modules do no I/O (also through what they import), and each
// outside system is reached from one folder only: execa from lib/exec + lib/vagrant, ssh2 from lib/ssh, HTTP from lib/nomad
// (and lib/builds/http.ts, which downloads releases).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LIB = join(ROOT, 'lib');

const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
const rel = (abs: string) => relative(ROOT, abs);
const FILES = walk(LIB).map(rel).sort();
const source = new Map(FILES.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));

/** Comments removed, so a "do not call fetch(" note is not a violation. Strings stay (import specifiers live there). */
const stripComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '').replace(/([;,{}()\s])\/\/ .*$/gm, '$1');
const code = (f: string) => stripComments(source.get(f)!);

/** Runtime imports in a source text: `import x from`, `import {a, type B} from`, `export ... from`, `import('...')`; not `import type`. */
function importsOf(text: string): string[] {
  const src = stripComments(text);
  const out: string[] = [];
  for (const m of src.matchAll(/^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*'([^']+)'/gm)) if (!m[2]) out.push(m[4]!);
  for (const m of src.matchAll(/^\s*import\s+'([^']+)'/gm)) out.push(m[1]!);
  for (const m of src.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) out.push(m[1]!);
  return out;
}
const imports = (f: string) => importsOf(source.get(f)!);

/** A call of fetch (also globalThis.fetch / this.fetch) outside comments and string literals. */
const fetchIn = (text: string) => /\bfetch\s*\(/.test(stripComments(text).replace(/'[^'\n]*'|"[^"\n]*"|`[^`]*`/g, "''"));

/** A relative `.js` specifier resolved to the repo-relative `.ts` file. */
const resolveLocal = (from: string, spec: string) => rel(resolve(ROOT, dirname(from), spec.replace(/\.js$/, '.ts')));

/** Every file `f` pulls in at run time (itself included), following relative imports. */
function closure(f: string, seen = new Set<string>()): Set<string> {
  if (seen.has(f) || !source.has(f)) return seen;
  seen.add(f);
  for (const s of imports(f)) if (s.startsWith('.')) closure(resolveLocal(f, s), seen);
  return seen;
}

const IO_PACKAGES = ['execa', 'zx', 'ssh2', 'node:child_process', 'child_process', 'node:net', 'net', 'node:http', 'http', 'node:https', 'https', 'node:dgram', 'node:tls'];
const FS_PACKAGES = ['node:fs', 'fs', 'node:fs/promises', 'fs/promises'];
const callsFetch = (f: string) => fetchIn(source.get(f)!);
const importers = (pkgs: string[]) => FILES.filter((f) => imports(f).some((s) => pkgs.includes(s)));

/** Pure: parsers, checks, reports (but the writer), config, logging, the settle decision, the lab spec. */
const PURE = FILES.filter((f) =>
  /\/parse-[^/]+\.ts$/.test(f) ||
  /^lib\/(config|checks|log)\//.test(f) ||
  (f.startsWith('lib/report/') && f !== 'lib/report/write.ts') ||
  ['lib/errors.ts', 'lib/scenario/settle.ts', 'lib/lab/spec-for.ts'].includes(f) ||
  ['spec', 'provenance', 'versions', 'zip', 'types', 'source-profile'].some((n) => f === `lib/builds/${n}.ts`));

t.test('the detectors see what they look for', async (t) => {
  t.same(importsOf("import { execa } from 'execa';\nimport type { Client } from 'ssh2';\nimport {\n  a,\n  type B,\n} from 'node:net';\nexport { x } from './x.js';\nimport 'node:http';\nconst h = await import('node:https');\n// import { y } from 'zx';\n"), ['execa', 'node:net', './x.js', 'node:http', 'node:https']);
  t.ok(fetchIn('const r = await fetch(url);'));
  t.ok(fetchIn('await globalThis.fetch(u)'));
  t.notOk(fetchIn('// never call fetch( here\nconst s = "fetch(";'));
});

t.test('the file list is real', async (t) => {
  t.ok(FILES.length > 40, `${FILES.length} files under lib/`);
  for (const f of ['lib/config/validate.ts', 'lib/checks/verdict.ts', 'lib/report/junit.ts', 'lib/vagrant/parse-machine-readable.ts', 'lib/lab/parse-observe.ts', 'lib/log/format.ts']) t.ok(PURE.includes(f), `${f} is held to the pure rules`);
  t.notOk(PURE.includes('lib/report/write.ts'), 'the report writer does I/O on purpose');
  for (const f of ['lib/builds/spec.ts', 'lib/builds/parse-release.ts', 'lib/builds/zip.ts']) t.ok(PURE.includes(f), `${f} is pure`);
  // The detectors themselves must see what they look for.
  t.same(imports('lib/exec/run.ts').filter((s) => s === 'execa'), ['execa'], 'sees a value import');
  t.ok(imports('lib/nomad/transport.ts').includes('node:http'));
  t.notOk(imports('lib/ssh/client.ts').includes('ssh2'), '`import type` from ssh2 is erased and allowed');
});

t.test('pure modules import no process, network or file I/O, directly or through their imports', async (t) => {
  for (const f of PURE) {
    const bad: string[] = [];
    for (const dep of closure(f)) {
      for (const s of imports(dep)) if (IO_PACKAGES.includes(s) || FS_PACKAGES.includes(s)) bad.push(dep === f ? s : `${s} (via ${dep})`);
      if (callsFetch(dep)) bad.push(dep === f ? 'fetch(' : `fetch( (via ${dep})`);
    }
    t.same(bad, [], f);
  }
});

t.test('execa only in lib/exec and lib/vagrant; ssh2 only in lib/ssh; HTTP only in lib/nomad and lib/builds/http.ts', async (t) => {
  t.same(importers(['execa', 'zx']).filter((f) => !/^lib\/(exec|vagrant)\//.test(f)), [], 'execa');
  t.same(importers(['ssh2']).filter((f) => !f.startsWith('lib/ssh/')), [], 'ssh2');
  t.same(importers(['node:http', 'http', 'node:https', 'https']).filter((f) => !f.startsWith('lib/nomad/')), [], 'node:http/https');
  // lib/builds/http.ts downloads releases (index.json, SHA256SUMS, the zip) with fetch: the builds adapter's one HTTP file.
  t.same(FILES.filter(callsFetch).filter((f) => !f.startsWith('lib/nomad/') && f !== 'lib/builds/http.ts'), [], 'fetch(');
  t.same(importers(['node:net', 'net', 'node:tls']).filter((f) => !/^lib\/(ssh|nomad)\//.test(f)), [], 'sockets: the SSH tunnel listener and the Nomad transport');
});

t.test('checks and reports never reach the lab, SSH, Nomad or Vagrant adapters', async (t) => {
  const adapters = /^lib\/(exec|vagrant|ssh|nomad\/(client|transport|wait)|cluster\/provision|lab\/(vagrant-lab|real-env|host|doctor|destroy|observe|setup)|run\/artifacts)\.?/;
  for (const f of FILES.filter((x) => /^lib\/(checks|report)\//.test(x) && x !== 'lib/report/write.ts')) {
    t.same([...closure(f)].filter((d) => adapters.test(d)), [], f);
  }
});

/** Known breaches, shown as TODO on every run until they are moved into lib/vagrant. */
const KNOWN_VAGRANT_OUTSIDE: string[] = [];

t.test('only lib/vagrant runs the Vagrant CLI', async (t) => {
  const runsVagrant = FILES.filter((f) => !f.startsWith('lib/vagrant/') && /\b\w+\(\s*'vagrant'\s*,\s*\[/.test(code(f)));
  t.ok(/\b\w+\(\s*'vagrant'\s*,\s*\[/.test("await sh('vagrant', ['box', 'list'])"), 'the detector sees a vagrant call');
  t.same(runsVagrant.filter((f) => !KNOWN_VAGRANT_OUTSIDE.includes(f)), [], 'no other file runs vagrant');
  for (const f of runsVagrant.filter((x) => KNOWN_VAGRANT_OUTSIDE.includes(x))) {
    t.test(`${f} runs vagrant itself`, { todo: 'move these calls (vagrant --version, plugin list, box list) into lib/vagrant' }, async (t) => t.fail(`${f} runs vagrant outside lib/vagrant`));
  }
});
