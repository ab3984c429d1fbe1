// Source builds (`git:<dir>[@<ref>]`) of a small Go module shaped like Nomad (test/fixtures/builds), through the same
// code as a real tree: the recipe read from the tree's GNUmakefile (tags, the generator's version), clean checkout,
// tool on PATH, go generate, tags, ldflags, cgo, cache by commit and recipe, failures.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import t from 'tap';
import type { BuildContext } from '../../lib/builds/context.js';
import { planBuilds } from '../../lib/builds/resolve.js';
import { resolveBuilds } from '../helpers/builds.js';
import { buildProperties } from '../../lib/builds/provenance.js';
import { NOMAD_PROFILE, type SourceProfile } from '../../lib/builds/source-profile.js';
import { ConfigError, EXIT, type HarnessError } from '../../lib/errors.js';
import type { LogEvent } from '../../lib/log/events.js';
import { rejection } from '../helpers/rejection.js';
import { filesUnder } from '../helpers/release-mirror.js';
import { TEST_GOCACHE } from '../helpers/go-cache.js';

const FIXTURES = resolve('test/fixtures/builds');

function prereq(): string | undefined {
  for (const [cmd, args] of [
    ['go', ['version']],
    ['cc', ['--version']],
    ['git', ['--version']],
  ] as const) {
    try {
      execFileSync(cmd, args, { stdio: 'ignore' });
    } catch {
      return `${cmd} is not installed (source builds need it)`;
    }
  }
  return undefined;
}
const skip = prereq();
const goVersion = skip
  ? ''
  : execFileSync('go', ['env', 'GOVERSION'], { env: { ...process.env, GOTOOLCHAIN: 'local' } })
      .toString()
      .trim();

/** The fixture's profile: the same fields NOMAD_PROFILE fills for hashicorp/nomad, and its rules for the GNUmakefile. */
const PROFILE: SourceProfile = {
  name: 'Nomad',
  module: 'example.test/fakenomad',
  markers: ['version/version.go'],
  versionPackage: 'example.test/fakenomad/version',
  generate: ['./gen/'],
  tools: [
    {
      bin: 'fakegen',
      replace: { 'example.test/fakegen': join(FIXTURES, 'fakegen') },
      raise: NOMAD_PROFILE.tools[0]!.raise!,
    },
  ],
  recipe: NOMAD_PROFILE.recipe,
  main: '.',
  goFlags: [],
  optional: [/^gen\/generated\.go$/],
};

const GIT_CONFIG = [
  '-c',
  'user.name=Test',
  '-c',
  'user.email=t@example.invalid',
  '-c',
  'init.defaultBranch=main',
  '-c',
  'advice.detachedHead=false',
];
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', [...GIT_CONFIG, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    .toString()
    .trim();
/** Replace `from` by `to` in a file. */
const edit = (path: string, from: string, to: string) =>
  writeFileSync(path, readFileSync(path, 'utf8').replace(from, to));

// Note: on the file (tap's timeout is the file's, 60 s in package.json; a subtest's own did not lift it): the builds
// are real go and cgo compiles, and the file took over 60 s with a VM lab and a Nomad build on the 2 cores
t.setTimeout(10 * 60_000);

t.test('source builds', { skip: skip ?? false }, async (t) => {
  const dir = t.testdir();
  const work = join(dir, 'work');
  cpSync(join(FIXTURES, 'fakenomad'), work, { recursive: true });
  // a stale committed generated file, as Nomad commits structs.generated.go: regenerated, so optional
  writeFileSync(join(work, 'gen', 'generated.go'), 'package gen\n\nconst Generated = "stale"\n');
  git(dir, 'init', '-q', work);
  git(work, 'add', '-A');
  git(work, 'commit', '-qm', 'fake nomad 0.4.2');
  git(work, 'tag', 'v0.4.2');
  git(work, 'tag', 'v0.4.1');
  const commit = git(work, 'rev-parse', 'HEAD');
  git(work, 'checkout', '-qb', 'broken');
  edit(join(work, 'main.go'), 'func main() {', 'func main() {\n\tundefinedCall()');
  git(work, 'commit', '-qam', 'does not compile');
  git(work, 'tag', 'broken');
  git(work, 'checkout', '-qb', 'newgo', 'v0.4.2');
  writeFileSync(join(work, 'go.mod'), 'module example.test/fakenomad\n\ngo 1.99\n');
  git(work, 'commit', '-qam', 'needs a future go');
  git(work, 'tag', 'needs-go-1.99');
  // recipes: another generator pin; none; one without GO_TAGS nor the generator; no deps target and a future Go
  const makefile = join(work, 'GNUmakefile');
  const recipeRef = (tag: string, change: () => void) => {
    git(work, 'checkout', '-q', '-b', tag, 'v0.4.2');
    change();
    git(work, 'commit', '-qam', tag);
    git(work, 'tag', tag);
  };
  recipeRef('fakegen-v0.2.0', () => edit(makefile, 'example.test/fakegen@v0.1.0', 'example.test/fakegen@v0.2.0'));
  recipeRef('no-makefile', () => rmSync(makefile));
  recipeRef('bad-makefile', () =>
    writeFileSync(
      makefile,
      readFileSync(makefile, 'utf8')
        .replace(/^GO_TAGS :=.*$/gm, '')
        .replace(/^.*fakegen@.*$/m, ''),
    ),
  );
  recipeRef('no-deps', () => {
    edit(makefile, 'deps:  ##', 'tools:  ##');
    writeFileSync(join(work, 'go.mod'), 'module example.test/fakenomad\n\ngo 1.99\n');
  });
  git(work, 'checkout', '-q', 'main');

  const ctxFor = (cache: string, extra: Partial<BuildContext> = {}) => {
    const events: LogEvent[] = [];
    const ctx: BuildContext = {
      cacheRoot: join(dir, cache),
      releasesUrl: 'http://127.0.0.1:1',
      cwd: dir,
      home: dir,
      logger: (e) => void events.push(e),
      // Note: the tests' own Go build cache (test/helpers/go-cache.ts), not the user's
      env: { ...process.env, GOCACHE: TEST_GOCACHE },
      ...extra,
    };
    return { ctx, events, messages: () => events.flatMap((e) => ('message' in e && e.message ? [e.message] : [])) };
  };
  const build = (text: string, ctx: BuildContext) => resolveBuilds([{ text, field: '--nomad' }], ctx, PROFILE);
  const run = (path: string, ...args: string[]) => execFileSync(path, args).toString();

  await t.test('a tag: clean tree, generate, tags, cgo, ldflags; nomad version matches the commit', async (t) => {
    const c = ctxFor('cache');
    const [b] = await build('git:work@v0.4.2', c.ctx);
    t.match(b, {
      spec: 'git:work@v0.4.2',
      version: '0.4.2',
      revision: commit,
      origin: { kind: 'git', dir: work, commit, dirty: false },
    });
    // the GNUmakefile's GO_TAGS as the release build computes them, without ui; its deps target's fakegen pin
    const generator = { bin: 'fakegen', pkg: 'example.test/fakegen', version: 'v0.1.0', deps: {} };
    t.same((b!.origin as { recipe?: unknown }).recipe, {
      go: goVersion,
      tags: ['codegen_generated', 'hashicorpmetrics', 'release'],
      generators: [generator],
    });
    t.equal(run(b!.path, 'generator'), 'fakegen v0.1.0\n', 'generated by the fakegen version the tree pins');
    t.match(buildProperties(b!), {
      'nomad.build.tags': 'codegen_generated hashicorpmetrics release',
      'nomad.build.generator.fakegen': 'example.test/fakegen@v0.1.0',
      'nomad.build.go': goVersion,
    });
    const date = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';
    t.match(run(b!.path, 'version'), new RegExp(`^Nomad v0\\.4\\.2\\nBuildDate ${date}\\nRevision ${commit}\\n$`));
    t.equal(run(b!.path), 'generated 42\n', 'go generate ran with the tool from PATH (not the stale file); cgo is on');
    t.equal(b!.path, join(dir, 'cache', b!.sha256, 'nomad'));
    // Note: a step past 30 s (a cold Go cache under load) also says "running for 30.0s": a heartbeat, not a phase
    const progress = c
      .messages()
      .filter((m) => m.startsWith('build git:work@v0.4.2: [') && !/: running for \d/.test(m));
    t.match(progress, [
      /\[1\/5\] check out a clean tree …/,
      /\[1\/5\] check out a clean tree: done in .*\(\d+ files\)/,
      /\[2\/5\] build fakegen v0\.1\.0 …/,
      /\[2\/5\] build fakegen v0\.1\.0: done in/,
      /\[3\/5\] go generate \.\/gen\/ …/,
      /\[3\/5\] go generate .*: done in/,
      /\[4\/5\] go build …/,
      /\[4\/5\] go build: done in/,
      /\[5\/5\] check `nomad version` …/,
      /\[5\/5\] .*: done in/,
    ]);

    await t.test('the same commit again is a cache hit, also under another ref name', async (t) => {
      const again = ctxFor('cache');
      const [b2] = await build('git:work@v0.4.1', again.ctx);
      t.equal(b2!.sha256, b!.sha256);
      t.notOk(
        again.messages().some((m) => /\[1\/5\]/.test(m)),
        'no build phase ran',
      );
      t.ok(again.messages().some((m) => /from the cache/.test(m)));
      t.same(b2!.origin, b!.origin, 'the recipe comes back from the cache record');
    });

    await t.test('a ref pinning another generator version: built again with that version', async (t) => {
      const c2 = ctxFor('cache');
      const [b2] = await build('git:work@fakegen-v0.2.0', c2.ctx);
      t.ok(
        c2.messages().some((m) => /\[2\/5\] build fakegen v0\.2\.0: done/.test(m)),
        'fakegen v0.2.0 was built',
      );
      t.equal(run(b2!.path, 'generator'), 'fakegen v0.2.0\n');
      t.match(b2!.origin, { recipe: { generators: [{ version: 'v0.2.0' }] } });
      t.not(b2!.sha256, b!.sha256);
    });
  });

  await t.test("HEAD of a dirty work tree: +CHANGES, cached by the diff, the user's index untouched", async (t) => {
    edit(join(work, 'version', 'version.go'), '"0.4.2"', '"0.4.3-dev"');
    writeFileSync(join(work, 'NOTES.txt'), 'untracked but not ignored\n');
    edit(join(work, 'GNUmakefile'), 'example.test/fakegen@v0.1.0', 'example.test/fakegen@v0.3.0');
    const statusBefore = git(work, 'status', '--porcelain');
    const c = ctxFor('cache');
    const [b] = await build('git:work', c.ctx);
    t.match(b, { version: '0.4.3-dev', revision: `${commit}+CHANGES`, origin: { kind: 'git', commit, dirty: true } });
    t.equal(run(b!.path, 'generator'), 'fakegen v0.3.0\n', 'the recipe is read from the work tree as it is');
    t.equal(git(work, 'status', '--porcelain'), statusBefore, 'git status is as before');
    t.equal(git(work, 'diff', '--cached', '--name-only'), '', 'nothing staged');
    const [again] = await build('git:work', ctxFor('cache').ctx);
    t.equal(again!.sha256, b!.sha256, 'the same dirty state: a cache hit');
    writeFileSync(join(work, 'NOTES.txt'), 'changed\n');
    const third = ctxFor('cache');
    await build('git:work', third.ctx);
    t.ok(
      third.messages().some((m) => /\[4\/5\] go build: done/.test(m)),
      'another diff: built again',
    );
    git(work, 'checkout', '-q', '--', '.');
    rmSync(join(work, 'NOTES.txt'));
    const clean = ctxFor('cache');
    const [head] = await build('git:work', clean.ctx);
    t.match(head, { revision: commit, origin: { dirty: false } }, 'a clean HEAD is its commit, from the cache');
  });

  await t.test('a bare git dir with blobs missing from the object store', async (t) => {
    const bare = join(dir, 'bare.git');
    git(dir, 'clone', '-q', '--bare', work, bare);
    const blob = (path: string) => git(bare, 'rev-parse', `v0.4.2:${path}`);
    const drop = (oid: string) => rmSync(join(bare, 'objects', oid.slice(0, 2), oid.slice(2)));
    drop(blob('gen/generated.go'));
    const c = ctxFor('cache-bare');
    const [b] = await build(`git:${bare}@v0.4.2`, c.ctx);
    t.match(b, { revision: commit, origin: { dir: bare, dirty: false } });
    const warning = /1 file\(s\) missing from the object store were left out; .*does not need them: gen\/generated\.go/;
    t.ok(
      c.events.some((e) => e.kind === 'warn' && warning.test(e.message)),
      'a warning names the file left out',
    );
    drop(blob('main.go'));
    const err = await rejection(build(`git:${bare}@v0.4.2`, ctxFor('cache-bare2').ctx));
    t.type(err, ConfigError);
    t.match((err as Error).message, /the repository lacks the contents of 1 file\(s\) the build needs: main\.go/);
    const kept = filesUnder(join(dir, 'cache-bare2')).filter((f) => !/^(tools|logs)\//.test(f));
    t.same(kept, [], 'nothing cached (a log and the tool)');
  });

  await t.test("a compile error: exit 3, the compiler's last lines and the log path; nothing cached", async (t) => {
    const c = ctxFor('cache-broken');
    const err = (await rejection(build('git:work@broken', c.ctx))) as HarnessError;
    t.equal(err.exitCode, EXIT.INFRA);
    t.match(err.message, /git:work@broken: go build failed \(exit 1\); last lines:\n.*undefined: undefinedCall/s);
    const log = /full log: (\S+)/.exec(err.message)?.[1];
    t.ok(log && existsSync(log), `the log exists: ${log}`);
    const cmd = /\$ \(cd .* && go build -v -trimpath -buildvcs=false -ldflags -X [\w./]+\/version\.GitCommit=/;
    t.match(readFileSync(log!, 'utf8'), cmd);
    t.ok(c.messages().some((m) => /\[4\/5\] go build: failed after/.test(m)));
    t.same(
      filesUnder(join(dir, 'cache-broken')).filter((f) => /^[0-9a-f]{64}\//.test(f) || f.startsWith('git/')),
      [],
    );
  });

  await t.test('bad specs: every problem at once, before anything is built (exit 2)', async (t) => {
    const other = join(dir, 'other');
    cpSync(join(FIXTURES, 'fakegen'), other, { recursive: true });
    git(dir, 'init', '-q', other);
    git(other, 'add', '-A');
    git(other, 'commit', '-qm', 'not nomad');
    const c = ctxFor('cache-plan');
    const r = await planBuilds(
      [
        { text: 'git:work@v0.4.9', field: 'a' },
        { text: `git:${join(dir, 'nowhere')}`, field: 'b' },
        { text: 'git:other', field: 'c' },
        { text: 'git:work@needs-go-1.99', field: 'd' },
        { text: `git:${FIXTURES}/..`, field: 'e' },
        { text: 'git:work@no-makefile', field: 'f' },
        { text: 'git:work@bad-makefile', field: 'g' },
        { text: 'git:work@no-deps', field: 'h' },
      ],
      c.ctx,
      PROFILE,
    );
    const fix =
      /build a Nomad ref whose GNUmakefile states its build tags \(GO_TAGS\) and pins its generators in the deps target/;
    if (!('problems' in r)) return t.fail('expected problems');
    t.match(r.problems, [
      { field: 'a', message: 'v0.4.9 names no commit in', fix: /use an existing ref, e\.g\. v0\.4\.2, v0\.4\.1/ },
      { field: 'b', message: /is not a directory/ },
      { field: 'c', message: /is not a Nomad source tree: go\.mod's module is example\.test\/fakegen/ },
      { field: 'd', message: /needs Go >= 1\.99 \(go\.mod\); this host has go1\./, fix: 'install Go 1.99 or newer' },
      { field: 'e', message: /is not a Nomad source tree: it has no go\.mod/ },
      { field: 'f', message: /work@no-makefile: cannot read the build recipe: it has no GNUmakefile$/, fix },
      { field: 'g', message: /work@bad-makefile: cannot read the build recipe: its GNUmakefile sets no GO_TAGS/, fix },
      {
        field: 'g',
        message: /: its GNUmakefile's deps target installs no fakegen \(go install <package>\/fakegen@<version>\)$/,
      },
      { field: 'h', message: /work@no-deps: cannot read the build recipe: its GNUmakefile has no deps target/, fix },
      { field: 'h', message: /needs Go >= 1\.99 \(go\.mod\); this host has go1\./, fix: 'install Go 1.99 or newer' },
    ]);
    t.equal(r.problems.length, 10, 'every problem, none twice');
    t.same(filesUnder(join(dir, 'cache-plan')), [], 'nothing built or cached');
    const noPath = ctxFor('cache-plan', { env: { PATH: '/nonexistent' } }).ctx;
    const noGo = await planBuilds([{ text: 'git:work@v0.4.2', field: '--nomad' }], noPath, PROFILE);
    t.match(noGo, {
      problems: [
        { message: /needs Go >= 1\.21 \(go\.mod\), and there is no go on PATH/, fix: /install Go 1\.21 or newer/ },
      ],
    });
  });
});
