// The recipe read from a tree's GNUmakefile (pure): excerpts of hashicorp/nomad's own at four tags, broken ones, the
// generator raise rule, the cache key over the recipe, and the recipe as report properties.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { readRecipe, type MakefileRules } from '../../lib/parse/makefile.js';
import { needsRaise } from '../../lib/builds/go.js';
import { sourceKey, type PlannedRecipe } from '../../lib/builds/source-plan.js';
import { NOMAD_PROFILE } from '../../lib/builds/source-profile.js';
import { buildProperties, describeGenerator, recipeOf, type SourceOrigin } from '../../lib/builds/provenance.js';
import type { ResolvedBuild } from '../../lib/model/build.js';

const RULES = NOMAD_PROFILE.recipe;
const BINS = ['codecgen'];
const excerpt = (tag: string) => readFileSync(join('test/fixtures/builds/makefiles', `${tag}.GNUmakefile`), 'utf8');
const CODECGEN = 'github.com/hashicorp/go-msgpack/v2/codec/codecgen';

t.test('hashicorp/nomad at four tags: tags as the release build computes them, codecgen from deps', async (t) => {
  const codecgen = (version: string) => [{ bin: 'codecgen', pkg: CODECGEN, version }];
  t.same(readRecipe(excerpt('v1.9.3'), RULES, BINS), {
    recipe: { tags: ['codegen_generated', 'release'], tools: codecgen('v2.1.2') },
  });
  t.same(
    readRecipe(excerpt('v1.10.5'), RULES, BINS),
    { recipe: { tags: ['codegen_generated', 'hashicorpmetrics', 'release'], tools: codecgen('v2.1.2') } },
    '1.10 adds hashicorpmetrics',
  );
  t.same(
    readRecipe(excerpt('v1.11.3'), RULES, BINS),
    { recipe: { tags: ['codegen_generated', 'hashicorpmetrics', 'release'], tools: codecgen('v2.1.5') } },
    '1.11 moves codecgen to v2.1.5',
  );
  t.same(readRecipe(excerpt('v2.0.5'), RULES, BINS), {
    recipe: { tags: ['codegen_generated', 'hashicorpmetrics', 'release'], tools: codecgen('v2.1.5') },
  });
});

t.test('the release environment: CI and NOMAD_NO_UI decide the conditionals; ui is never built', async (t) => {
  const noEnv: MakefileRules = { ...RULES, env: {} };
  t.same(
    readRecipe(excerpt('v2.0.5'), noEnv, BINS),
    {
      recipe: {
        tags: ['hashicorpmetrics', 'codegen_generated', 'release'],
        tools: [{ bin: 'codecgen', pkg: CODECGEN, version: 'v2.1.5' }],
      },
    },
    'no CI: codegen_generated and release only from addTags; ui dropped',
  );
  const mk =
    'GO_TAGS := a $(GO_TAGS)\nifeq ($(CI),true)\nGO_TAGS += b\nelse ifeq ($(CI),yes)\nGO_TAGS += c\n' +
    'else\nGO_TAGS += d\nendif\nGO_TAGS ?= ignored\nGO_TAGS += ui\ndeps:\n\tgo install x.test/codecgen@v1\n';
  t.match(readRecipe(mk, RULES, BINS), { recipe: { tags: ['a', 'release', 'b', 'codegen_generated'] } });
  t.match(
    readRecipe(mk, { ...RULES, env: { CI: 'yes' } }, BINS),
    { recipe: { tags: ['a', 'c', 'codegen_generated', 'release'] } },
    'else ifeq',
  );
  t.match(readRecipe(mk, { ...RULES, env: {} }, BINS), {
    recipe: { tags: ['a', 'd', 'codegen_generated', 'release'] },
  });
});

t.test('generators: prerequisites, continuation lines, go get, other tools left alone', async (t) => {
  const mk =
    'GO_TAGS := $(GO_TAGS)\n.PHONY: deps\ndeps: tools lint ## all\n\t@echo deps\n' +
    '# a comment inside the recipe\n\tgo install golang.org/x/tools/cmd/stringer@v0.30.0\n' +
    'tools:\n\tcd tools && go install -trimpath \\\n\t  example.test/x/codecgen@v9.9.9\n' +
    'lint:\n\t(GO111MODULE=on go get example.test/y/fakegen@v0.0.1);\n';
  t.same(readRecipe(mk, RULES, ['codecgen', 'fakegen']), {
    recipe: {
      tags: ['release', 'codegen_generated'],
      tools: [
        { bin: 'codecgen', pkg: 'example.test/x/codecgen', version: 'v9.9.9' },
        { bin: 'fakegen', pkg: 'example.test/y/fakegen', version: 'v0.0.1' },
      ],
    },
  });
  t.same(
    readRecipe('GO_TAGS := x\n', RULES, []),
    { recipe: { tags: ['x', 'codegen_generated', 'release'], tools: [] } },
    'no generators asked: no deps target needed',
  );
});

t.test('a recipe that cannot be read: each missing part named', async (t) => {
  t.same(readRecipe(undefined, RULES, BINS), { missing: ['it has no GNUmakefile'] });
  const v205 = excerpt('v2.0.5');
  const noTags = v205.replace(/^GO_TAGS :=.*$/gm, '');
  const neither = noTags.replace(/^.*codecgen@.*$/m, '');
  t.same(
    readRecipe(neither, RULES, BINS),
    {
      missing: [
        'its GNUmakefile sets no GO_TAGS (the build tags)',
        "its GNUmakefile's deps target installs no codecgen (go install <package>/codecgen@<version>)",
      ],
    },
    "target-specific GO_TAGS (release:, pkg/windows_%) are not the build's",
  );
  t.same(readRecipe(v205.replace(/^deps:/m, 'tools:'), RULES, BINS), {
    missing: ['its GNUmakefile has no deps target (where it installs codecgen)'],
  });
  t.same(
    readRecipe(v205.replace(/^ifeq \(\$\(CI\),true\)$/m, 'ifeq ($(THIS_OS),Linux)'), RULES, BINS),
    {
      missing: [
        'its GNUmakefile: GO_TAGS at line 31 (GO_TAGS := codegen_generated $(GO_TAGS)) depends on a condition this ' +
          'reader cannot evaluate (ifeq ($(THIS_OS),Linux))',
      ],
    },
    'THIS_OS comes from $(shell uname)',
  );
  t.same(
    readRecipe('GO_TAGS := $(EXTRA) $(GO_TAGS)\nGO_TAGS != echo x\ndeps:\n\tgo install a/codecgen@v1\n', RULES, BINS),
    {
      missing: [
        'its GNUmakefile: GO_TAGS at line 1 (GO_TAGS := $(EXTRA) $(GO_TAGS)) uses $(EXTRA), which this reader does not evaluate',
        'its GNUmakefile: GO_TAGS at line 2 (GO_TAGS != echo x) uses a shell command, which this reader does not evaluate',
      ],
    },
  );
  const twice =
    'GO_TAGS := x\ndeps:\n\tgo install a/codecgen@v1\n\tgo install b/codecgen@v2\n\tgo install a/codecgen@v1\n';
  t.same(readRecipe(twice, RULES, BINS), {
    missing: ["its GNUmakefile's deps target installs codecgen more than once: a/codecgen@v1, b/codecgen@v2"],
  });
  t.same(readRecipe('GO_TAGS := x\ndeps:\n\tgo install a/codecgen@$(CODECGEN_VERSION)\n', RULES, BINS), {
    missing: [
      "its GNUmakefile's deps target installs codecgen as a/codecgen@$(CODECGEN_VERSION) (line 3), through a make " +
        'variable this reader does not evaluate',
    ],
  });
});

t.test('golang.org/x/tools is raised only as far as the Go here needs', async (t) => {
  const raise = NOMAD_PROFILE.tools[0]!.raise![0]!;
  t.equal(needsRaise('v0.14.0', raise, 'go1.26.8'), true, 'codecgen v2.1.2 asks for v0.14.0: raised to v0.30.0');
  t.equal(needsRaise('v0.37.0', raise, 'go1.26.8'), false, 'codecgen v2.1.5 asks for v0.37.0: left as it is');
  t.equal(needsRaise('v0.30.0', raise, 'go1.25.0'), false);
  t.equal(needsRaise('v0.14.0', raise, 'go1.24.7'), false, 'an older Go compiles v0.14.0');
  t.equal(needsRaise(undefined, raise, 'go1.26.8'), false, "not in the tool's build list");
});

t.test('the cache key covers the recipe read from the tree', async (t) => {
  const tool = { bin: 'codecgen', pkg: CODECGEN, version: 'v2.1.5' };
  const a: PlannedRecipe = { tags: ['codegen_generated', 'hashicorpmetrics', 'release'], tools: [tool] };
  const commit = 'c'.repeat(40);
  const key = sourceKey(commit, undefined, NOMAD_PROFILE, a);
  t.match(key, new RegExp(`^${commit}-[0-9a-f]{8}$`));
  t.equal(sourceKey(commit, undefined, NOMAD_PROFILE, { ...a }), key, 'stable');
  t.not(sourceKey(commit, undefined, NOMAD_PROFILE, { ...a, tags: ['codegen_generated', 'release'] }), key, 'tags');
  t.not(
    sourceKey(commit, undefined, NOMAD_PROFILE, { ...a, tools: [{ ...tool, version: 'v2.1.2' }] }),
    key,
    'a generator version',
  );
  t.match(sourceKey(commit, 'f'.repeat(40), NOMAD_PROFILE, a), new RegExp(`^${commit}\\+f{12}-`), 'a dirty tree');
});

t.test('the recipe as report properties', async (t) => {
  const origin: SourceOrigin = {
    kind: 'git',
    dir: '/s',
    commit: 'c0ffee',
    dirty: false,
    recipe: {
      go: 'go1.26.8',
      tags: ['codegen_generated', 'hashicorpmetrics', 'release'],
      generators: [{ bin: 'codecgen', pkg: CODECGEN, version: 'v2.1.2', deps: { 'golang.org/x/tools': 'v0.30.0' } }],
    },
  };
  const b: ResolvedBuild = {
    spec: 'git:/s@v1.10.5',
    path: '/c/n',
    sha256: 'abc',
    version: '1.10.5',
    revision: 'c0ffee',
    origin,
  };
  t.match(buildProperties(b), {
    'nomad.build.origin': 'git /s c0ffee',
    'nomad.build.go': 'go1.26.8',
    'nomad.build.tags': 'codegen_generated hashicorpmetrics release',
    'nomad.build.generator.codecgen': `${CODECGEN}@v2.1.2`,
    'nomad.build.generator.codecgen.dep.golang.org/x/tools': 'v0.30.0',
  });
  t.equal(describeGenerator(origin.recipe.generators[0]!), `${CODECGEN}@v2.1.2 (golang.org/x/tools v0.30.0)`);
  t.equal(recipeOf({ kind: 'git', dir: '/s', commit: 'c0ffee', dirty: false }), undefined);
  const plain = buildProperties({ ...b, origin: { kind: 'git', dir: '/s', commit: 'c0ffee', dirty: false } });
  t.notOk(
    Object.keys(plain).some((k) => /\.(tags|go|generator\.)/.test(k)),
    'no recipe, no recipe properties',
  );
});

t.test('the Nomad profile regenerates the msgpack code of every package that runs codecgen', async (t) => {
  // `git grep '^//go:generate'` in hashicorp/nomad at v1.9.3, v1.10.5 and v2.0.5 (the same two codecgen packages at
  // each; the others' outputs are committed at every commit). Release tags commit both structs.generated.go files and
  // the commits between them neither: a package left out builds with reflection codecs, and a build of a commit
  // between tags failed `nomad alloc exec` ("must provide a valid alloc id") where the tags' passed.
  const directives = [
    'client/fingerprint/storage_windows.go://go:generate go run golang.org/x/sys/windows/mkwinsyscall -output zstorage_windows.go storage_windows.go',
    'client/structs/structs.go://go:generate codecgen -c github.com/hashicorp/go-msgpack/v2/codec -st codec -d 102 -t codegen_generated -o structs.generated.go structs.go',
    'helper/raftutil/generate.go://go:generate ./generate_msgtypes.sh',
    'helper/winsvc/event.go://go:generate stringer -trimprefix=Event -output strings_eventid.go -linecomment -type=WindowsEventId',
    'nomad/structs/structs_codegen.go://go:generate ./generate.sh',
    'nomad/worker.go://go:generate stringer -trimprefix=Worker -output worker_string_workerstatus.go -linecomment -type=WorkerStatus',
  ];
  // nomad/structs/generate.sh is the script that calls codecgen there
  const codecgenDirs = directives
    .filter((d) => / codecgen | \.\/generate\.sh$/.test(d) && !d.includes('raftutil'))
    .map((d) => `./${d.slice(0, d.lastIndexOf('/', d.indexOf(':')))}/`);
  t.same(codecgenDirs, ['./client/structs/', './nomad/structs/']);
  for (const dir of codecgenDirs) t.ok(NOMAD_PROFILE.generate.includes(dir), `${dir} is generated`);
  t.ok(
    NOMAD_PROFILE.optional.some((r) => r.test('client/structs/structs.generated.go')),
    'a partial clone without the committed file still builds',
  );
});
