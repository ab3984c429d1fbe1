// `reboot-harness build` end to end through main(): a release from a loopback mirror, a path, bad specs, --json; a
// source tree laid out as hashicorp/nomad, built with the recipe its GNUmakefile states (Nomad 2.0.5's, excerpted).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';
import type { CliDeps } from '../../lib/cli/deps.js';
import { main } from '../../lib/cli/main.js';
import { BUILD_JSON_SCHEMA } from '../../lib/cli/build.js';
import { mirrorPrereqs, publish, startMirror, testKey, testNomad } from '../helpers/release-mirror.js';
import { makeZip } from '../helpers/zip-writer.js';
import { TEST_GOCACHE } from '../helpers/go-cache.js';

const skip = mirrorPrereqs();

function cli(env: Record<string, string>, cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const deps: CliDeps = {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    cwd,
    isTTY: false,
    out: (s) => void out.push(s),
    err: (s) => void err.push(s),
    makeEnv: () => {
      throw new Error('build must not make a lab');
    },
    prepareHost: async () => {
      throw new Error('build must not prepare the host');
    },
  };
  return { run: (...argv: string[]) => main(argv, deps), out: () => out.join(''), err: () => err.join('') };
}

t.test('reboot-harness build', { skip: skip ?? false }, async (t) => {
  t.setTimeout(120_000);
  const dir = t.testdir();
  const key = testKey(join(dir, 'key'));
  t.teardown(() => key.stop());
  const local = testNomad(join(dir, 'bin'), '1.9.5', '5555555555555555555555555555555555555555');
  const b193 = readFileSync(testNomad(join(dir, 'bin'), '1.9.3', 'd92bf10'));
  const mirror = await startMirror({ '1.9.3': publish('1.9.3', b193, key) }, ['1.9.2', '1.9.4']);
  t.teardown(mirror.stop);
  const env = {
    HOME: dir,
    XDG_CACHE_HOME: join(dir, 'xdg'),
    NOMAD_RELEASES_URL: mirror.url,
    NOMAD_RELEASES_KEY: key.pubFile,
  };

  await t.test('a release version and a path: path, sha256, version, revision, origin of each', async (t) => {
    const c = cli(env, dir);
    t.equal(await c.run('build', '1.9.3', './bin/nomad-1.9.5'), 0, c.err());
    const cached = join(dir, 'xdg', 'nomad-reboot-harness', 'builds');
    const zip = `${mirror.url}/nomad/1\\.9\\.3/nomad_1\\.9\\.3_linux_amd64\\.zip`;
    t.match(
      c.out(),
      new RegExp(
        `^1\\.9\\.3\\n  path      ${cached}/[0-9a-f]{64}/nomad\\n  sha256    [0-9a-f]{64}\\n` +
          `  version   1\\.9\\.3\\n  revision  d92bf10\\n` +
          `  origin    release ${zip} \\(checksum and signature verified\\)\\n`,
      ),
    );
    t.match(c.out(), `./bin/nomad-1.9.5\n  path      ${local}\n`);
    t.match(c.out(), `  origin    path ${local}\n`);
    t.match(c.err(), /1\.9\.3: downloading Nomad 1\.9\.3 from http:\/\/127\.0\.0\.1/, 'progress on stderr');
  });

  await t.test('--json: every build with its report properties', async (t) => {
    const c = cli(env, dir);
    t.equal(await c.run('build', '1.9.3', '--json'), 0, c.err());
    const doc = JSON.parse(c.out()) as { schema: string; builds: Record<string, unknown>[] };
    t.equal(doc.schema, BUILD_JSON_SCHEMA);
    t.match(doc.builds, [
      {
        ok: true,
        spec: '1.9.3',
        version: '1.9.3',
        revision: 'd92bf10',
        origin: { kind: 'release' },
        properties: { 'nomad.build.origin': /checksum and signature verified/, 'nomad.build.sha256': /^[0-9a-f]{64}$/ },
      },
    ]);
    t.equal(mirror.count('.zip'), 1, 'the second resolve of 1.9.3 came from the cache');
  });

  await t.test('bad specs are all reported: plan problems at once (exit 2), nothing resolved', async (t) => {
    // Note: outside any repository (the test dir sits inside this repository's work tree).
    const plain = mkdtempSync(join(tmpdir(), 'nrh-not-git-'));
    t.teardown(() => rmSync(plain, { recursive: true, force: true }));
    const c = cli(env, dir);
    t.equal(await c.run('build', '1.9', './nope', `git:${plain}`, '1.9.3'), 2);
    t.match(c.err(), /invalid configuration \(3 problems\)/);
    t.match(c.err(), /build spec 1: looks like a release version but is not a full one/);
    t.match(c.err(), /build spec 2: no file at .*\/nope/);
    t.match(c.err(), /build spec 3: .* is not a git repository/);
    t.equal(c.out(), '');
  });

  await t.test('failures while resolving: each named, the good ones printed, exit 2', async (t) => {
    const c = cli(env, dir);
    t.equal(await c.run('build', '/bin/true', '1.9.3', '1.9.99'), 2);
    t.match(c.out(), /\/bin\/true\n {2}FAILED {4}.*`version` printed nothing/);
    t.match(c.out(), /1\.9\.3\n {2}path /);
    t.match(c.err(), /build spec 1: \/bin\/true: `version` printed nothing, not "Nomad v<version>"/);
    t.match(c.err(), /build spec 3: no release 1\.9\.99 at .*nearest published versions: 1\.9\.4, 1\.9\.3, 1\.9\.2/);
  });

  await t.test('the releases site unreachable: exit 3 naming --releases-url and local builds', async (t) => {
    const down = await startMirror({});
    await down.stop();
    const c = cli({ ...env, XDG_CACHE_HOME: join(dir, 'xdg-empty') }, dir);
    t.equal(await c.run('build', '1.9.3', '--releases-url', down.url), 3);
    t.match(c.err(), /cannot reach the releases site .*ECONNREFUSED/);
    t.match(c.err(), /hint: point --releases-url \(NOMAD_RELEASES_URL\) at a reachable mirror/);
  });

  await t.test('a source tree that is not Nomad, no spec, bad URL, help', async (t) => {
    const repo = join(dir, 'repo');
    execFileSync('git', ['init', '-q', repo]);
    writeFileSync(join(repo, 'go.mod'), 'module example.test/x\n\ngo 1.21\n');
    execFileSync('git', ['-C', repo, 'add', 'go.mod']);
    execFileSync('git', ['-C', repo, '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'x']);
    const c = cli(env, dir);
    t.equal(await c.run('build', 'git:repo'), 2);
    t.match(c.err(), /is not a Nomad source tree: go\.mod's module is example\.test\/x/);
    const none = cli(env, dir);
    t.equal(await none.run('build'), 2);
    t.match(none.err(), /build spec: is required/);
    const url = cli(env, dir);
    t.equal(await url.run('build', '1.9.3', '--releases-url', 'ftp://mirror'), 2);
    t.match(url.err(), /--releases-url: must be an http\(s\) URL/);
    const help = cli(env, dir);
    t.equal(await help.run('build', '--help'), 0);
    t.match(help.out(), /Usage: reboot-harness build <spec>\.\.\./);
    t.match(help.out(), /--releases-key <value>.*\[env NOMAD_RELEASES_KEY\]/);
  });
});

const FIXTURES = resolve('test/fixtures/builds');
const CODECGEN_MODULE = 'github.com/hashicorp/go-msgpack/v2';

/** A file GOPROXY serving the stand-in codecgen (test/fixtures/builds/fakecodecgen) as CODECGEN_MODULE@version. */
function codecgenProxy(dir: string, version: string): string {
  const src = join(FIXTURES, 'fakecodecgen');
  const at = join(dir, CODECGEN_MODULE, '@v');
  mkdirSync(at, { recursive: true });
  const files = ['go.mod', 'codec/codecgen/main.go'];
  writeFileSync(join(at, 'list'), `${version}\n`);
  writeFileSync(join(at, `${version}.info`), JSON.stringify({ Version: version, Time: '2026-08-12T00:00:00Z' }));
  writeFileSync(join(at, `${version}.mod`), readFileSync(join(src, 'go.mod')));
  writeFileSync(
    join(at, `${version}.zip`),
    makeZip(files.map((f) => ({ name: `${CODECGEN_MODULE}@${version}/${f}`, data: readFileSync(join(src, f)) }))),
  );
  return `file://${dir}`;
}

function sourcePrereqs(): string | undefined {
  for (const [cmd, arg] of [
    ['go', 'version'],
    ['cc', '--version'],
    ['git', '--version'],
  ] as const) {
    try {
      execFileSync(cmd, [arg], { stdio: 'ignore' });
    } catch {
      return `${cmd} is not installed`;
    }
  }
  return undefined;
}

t.test(
  'reboot-harness build git:<a tree laid out as hashicorp/nomad>',
  { skip: sourcePrereqs() ?? false },
  async (t) => {
    t.setTimeout(300_000);
    const dir = t.testdir();
    const tree = join(dir, 'nomad');
    cpSync(join(FIXTURES, 'upstream-shaped'), tree, { recursive: true });
    cpSync(join(FIXTURES, 'makefiles', 'v2.0.5.GNUmakefile'), join(tree, 'GNUmakefile'));
    const git = (...args: string[]) =>
      execFileSync('git', [
        '-c',
        'user.name=T',
        '-c',
        'user.email=t@example.invalid',
        '-c',
        'init.defaultBranch=main',
        '-C',
        tree,
        ...args,
      ])
        .toString()
        .trim();
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'nomad-shaped 2.0.5');
    git('tag', 'v2.0.5');
    const commit = git('rev-parse', 'HEAD');
    const makefile = join(tree, 'GNUmakefile');
    writeFileSync(
      makefile,
      readFileSync(makefile, 'utf8')
        .replace(/^GO_TAGS :=.*$/gm, '')
        .replace(/^.*codecgen@.*$/m, ''),
    );
    git('commit', '-qam', 'a GNUmakefile without the recipe');
    git('tag', 'no-recipe');
    // Note: the stand-in codecgen lands in a module cache of its own, never the user's (its path is the real module's).
    const modcache = join(dir, 'gomod');
    const goEnv = { GOPROXY: codecgenProxy(join(dir, 'proxy'), 'v2.1.5'), GOSUMDB: 'off', GOMODCACHE: modcache };
    t.teardown(() => execFileSync('go', ['clean', '-modcache'], { env: { ...process.env, ...goEnv } }));
    // Note: and the tests' own Go build cache (test/helpers/go-cache.ts), not the user's
    const env = { HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg'), GOCACHE: TEST_GOCACHE, ...goEnv };
    const CODECGEN = `${CODECGEN_MODULE}/codec/codecgen`;

    await t.test("--json: the tags and codecgen version the tree's GNUmakefile states, as properties", async (t) => {
      const c = cli(env, dir);
      t.equal(await c.run('build', 'git:nomad@v2.0.5', '--json'), 0, c.err());
      const doc = JSON.parse(c.out()) as { builds: { path: string; properties: Record<string, string> }[] };
      t.match(doc.builds, [
        {
          ok: true,
          version: '2.0.5',
          revision: commit,
          origin: {
            kind: 'git',
            commit,
            dirty: false,
            recipe: {
              tags: ['codegen_generated', 'hashicorpmetrics', 'release'],
              generators: [{ bin: 'codecgen', pkg: CODECGEN, version: 'v2.1.5', deps: {} }],
            },
          },
        },
      ]);
      t.match(doc.builds[0]!.properties, {
        'nomad.build.tags': 'codegen_generated hashicorpmetrics release',
        'nomad.build.generator.codecgen': `${CODECGEN}@v2.1.5`,
        'nomad.build.go': /^go1\.\d+/,
      });
      t.equal(
        execFileSync(doc.builds[0]!.path).toString(),
        'codecgen v2.1.5\nclient codecgen v2.1.5\n',
        "both packages' code generated by the pinned codecgen",
      );
      t.match(c.err(), /\[2\/5\] build codecgen v2\.1\.5: done/);
    });

    await t.test('text: the same build from the cache, with its tags and generator', async (t) => {
      const c = cli(env, dir);
      t.equal(await c.run('build', 'git:nomad@v2.0.5'), 0, c.err());
      t.match(
        c.out(),
        `  origin    git ${tree} ${commit}\n  tags      codegen_generated hashicorpmetrics release\n` +
          `  generator codecgen ${CODECGEN}@v2.1.5\n  go        go1.`,
      );
      t.match(c.err(), /from the cache/);
    });

    await t.test('a tree whose recipe cannot be read: each missing part named, nothing built (exit 2)', async (t) => {
      const c = cli({ ...env, XDG_CACHE_HOME: join(dir, 'xdg-refused') }, dir);
      t.equal(await c.run('build', 'git:nomad@no-recipe', 'git:nomad@v2.0.5'), 2);
      t.match(c.err(), /invalid configuration \(2 problems\)/);
      t.match(
        c.err(),
        /build spec 1: .*nomad@no-recipe: cannot read the build recipe: its GNUmakefile sets no GO_TAGS/,
      );
      t.match(
        c.err(),
        new RegExp(
          "build spec 1: .*: its GNUmakefile's deps target installs no codecgen " +
            '\\(go install <package>/codecgen@<version>\\) \\(got "git:nomad@no-recipe"; fix: build a Nomad ref whose ' +
            'GNUmakefile states its build tags \\(GO_TAGS\\) and pins its generators in the deps target',
        ),
      );
      t.equal(c.out(), '');
    });
  },
);
