// What adding a fault kind, a lab provider or a command costs, measured: in a copy of the repository (its tracked
// files as they are now), a stub of each is added the way docs/architecture.md's recipes say (its own file, and its
// line in the registry and in the list of names the config accepts), and git's diff stat of that change is asserted and
// printed. Then the copy's own registries are imported (tsx) and must hold the stub: the lines counted are all it took.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { TSX_LOADER } from '../../lib/exec/tsx.js';

/** The checkout (a compiled copy of this file under .test-build/ still copies the tracked sources). */
const ROOT = execFileSync('git', ['rev-parse', '--show-toplevel'], {
  cwd: dirname(fileURLToPath(import.meta.url)),
  encoding: 'utf8',
}).trim();

/** A copy of the tracked files (working-tree versions) with node_modules linked, committed in a git of its own. */
function copyOfRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nrh-extension-'));
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    // Note: a tracked file deleted in the working tree is not copied (the copy is the tree as it is now)
    try {
      cpSync(join(ROOT, f), join(dir, f));
    } catch {}
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base');
  return dir;
}

/** Replace `before` (which must be there once) with `after` in the copy's `file`. */
function edit(dir: string, file: string, before: string, after: string): void {
  const text = readFileSync(join(dir, file), 'utf8');
  if (text.split(before).length !== 2) throw new Error(`${file}: "${before}" is not there exactly once`);
  writeFileSync(join(dir, file), text.replace(before, after));
}

/** The change as git counts it, new files included: `file +added -removed` per file, and git's own --stat text. */
function diffStat(dir: string): { files: string[]; text: string } {
  execFileSync('git', ['add', '-N', '.'], { cwd: dir });
  const numstat = execFileSync('git', ['diff', '--numstat'], { cwd: dir, encoding: 'utf8' });
  const files = numstat
    .trim()
    .split('\n')
    .map((l) => l.split('\t'))
    .map(([a, d, f]) => `${f} +${a} -${d}`);
  return { files, text: execFileSync('git', ['diff', '--stat'], { cwd: dir, encoding: 'utf8' }) };
}

/** Run a TypeScript snippet in the copy (tsx); its stdout. */
function runIn(dir: string, code: string): string {
  writeFileSync(join(dir, 'probe.ts'), code);
  return execFileSync(process.execPath, ['--import', TSX_LOADER, 'probe.ts'], { cwd: dir, encoding: 'utf8' });
}

const dir = copyOfRepo();
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('a fault kind: its file, its registry line (and import), its name in the kinds', async (t) => {
  execFileSync('git', ['reset', '-q', '--hard'], { cwd: dir });
  execFileSync('git', ['clean', '-qfd'], { cwd: dir });
  writeFileSync(
    join(dir, 'lib/faults/brownout.ts'),
    [
      '// A stub fault kind: the power supply dropped to half for a while.',
      "import { timeoutSeconds } from '../config/durations.js';",
      "import { defineFaultKind, REBOOT_OUTCOME } from './define.js';",
      '',
      'export const BROWNOUT = defineFaultKind({',
      "  name: 'brownout',",
      "  doc: 'drop the power supply to half for `reboot.brownout_for`',",
      "  nomadExpected: 'as hard',",
      '  rebootsHost: true,',
      "  needs: ['power-off'],",
      '  needsNomadAgent: false,',
      "  roles: ['client'],",
      '  options: [',
      "    { yaml: 'reboot.brownout_for', flag: 'brownout-for', path: ['reboot', 'brownoutForS'], doc: 'how long', parse: timeoutSeconds(1, 60) },",
      '  ],',
      '  holdS: () => 5,',
      "  proves: [{ what: 'boot-id', changes: true }],",
      '  outcome: REBOOT_OUTCOME,',
      '});',
      '',
    ].join('\n'),
  );
  edit(
    dir,
    'lib/faults/registry.ts',
    "import { HARD } from './hard.js';",
    "import { HARD } from './hard.js';\nimport { BROWNOUT } from './brownout.js';",
  );
  edit(dir, 'lib/faults/registry.ts', '  hard: HARD,\n', '  hard: HARD,\n  brownout: BROWNOUT,\n');
  edit(dir, 'lib/model/kinds.ts', "'hard',", "'hard',\n  'brownout',");
  const stat = diffStat(dir);
  t.comment(`adding a fault kind:\n${stat.text}`);
  t.same(stat.files.sort(), [
    'lib/faults/brownout.ts +19 -0',
    'lib/faults/registry.ts +2 -0',
    'lib/model/kinds.ts +1 -0',
  ]);
  const out = runIn(
    dir,
    "import { FAULTS } from './lib/faults/registry.js';\nimport { FIELDS } from './lib/config/table.js';\n" +
      "console.log(JSON.stringify({ kinds: FAULTS.names, flag: FIELDS.some((f) => f.flag === 'brownout-for') }));\n",
  );
  const got = JSON.parse(out) as { kinds: string[]; flag: boolean };
  t.ok(got.kinds.includes('brownout'), 'the registry has it');
  t.ok(got.flag, 'and its option is a key of the config (--brownout-for)');
});

t.test('a lab provider: its folder, its registry line (and import), its name in the providers', async (t) => {
  execFileSync('git', ['reset', '-q', '--hard'], { cwd: dir });
  execFileSync('git', ['clean', '-qfd'], { cwd: dir });
  mkdirSync(join(dir, 'lib/lab/stub'));
  writeFileSync(
    join(dir, 'lib/lab/stub/stub-provider.ts'),
    [
      '// A stub lab provider: performs graceful reboots only and brings nothing up.',
      "import { performedKinds, type Performers } from '../perform.js';",
      "import type { LabProvider } from '../provider.js';",
      '',
      "const PERFORMERS: Performers<'graceful'> = {",
      "  graceful: async (ft) => ({ machine: ft.machine.name, kind: 'graceful', bootIdBefore: 'a', bootIdAfter: 'b', requestedAt: 1, backAt: 2 }),",
      '};',
      '',
      "export const STUB: LabProvider<'stub'> = {",
      "  name: 'stub',",
      '  capabilities: { faults: performedKinds(PERFORMERS), lacks: () => ({}), concurrentUp: true },',
      '  host: {',
      '    workDir: false,',
      "    netns: 'hosts',",
      '    orphanDomains: false,',
      '    libvirtDriver: false,',
      "    doctor: { checks: false, fix: 'nothing to check' },",
      '    machinesFromConfig: true,',
      '  },',
      '  validateConfig: () => [],',
      '  validate: () => [],',
      '  up: async () => {',
      "    throw new Error('a stub brings nothing up');",
      '  },',
      '};',
      '',
    ].join('\n'),
  );
  edit(
    dir,
    'lib/lab/providers.ts',
    "import { SSH } from './ssh/ssh-provider.js';",
    "import { SSH } from './ssh/ssh-provider.js';\nimport { STUB } from './stub/stub-provider.js';",
  );
  edit(dir, 'lib/lab/providers.ts', '  ssh: SSH,\n', '  ssh: SSH,\n  stub: STUB,\n');
  edit(
    dir,
    'lib/config/schema.ts',
    "export const PROVIDER_NAMES = ['libvirt', 'virtualbox', 'ssh'] as const;",
    "export const PROVIDER_NAMES = ['libvirt', 'virtualbox', 'ssh', 'stub'] as const;",
  );
  const stat = diffStat(dir);
  t.comment(`adding a lab provider:\n${stat.text}`);
  t.same(stat.files.sort(), [
    'lib/config/schema.ts +1 -1',
    'lib/lab/providers.ts +2 -0',
    'lib/lab/stub/stub-provider.ts +25 -0',
  ]);
  const out = runIn(
    dir,
    "import { PROVIDERS } from './lib/lab/providers.js';\nimport { resolveConfig } from './lib/config/validate.js';\n" +
      "import { labConfigRules } from './lib/lab/providers.js';\n" +
      "const r = resolveConfig({ file: undefined, env: {}, flags: { provider: 'stub', reboot: 'graceful' }, knownChecks: [], labRules: labConfigRules });\n" +
      'console.log(JSON.stringify({ names: PROVIDERS.providers.map((p) => p.name), ok: r.ok }));\n',
  );
  t.same(JSON.parse(out), { names: ['libvirt', 'virtualbox', 'ssh', 'stub'], ok: true }, '--provider stub is taken');
});

t.test('a command: its module, its registry line (and import)', async (t) => {
  execFileSync('git', ['reset', '-q', '--hard'], { cwd: dir });
  execFileSync('git', ['clean', '-qfd'], { cwd: dir });
  writeFileSync(
    join(dir, 'lib/cli/commands/hello.ts'),
    [
      '// A stub command: says hello.',
      "import { EXIT } from '../../errors.js';",
      "import type { CliCommand } from '../command.js';",
      '',
      'export const hello: CliCommand = {',
      "  name: 'hello',",
      "  summary: 'say hello',",
      "  usage: ['reboot-harness hello [name]'],",
      "  exits: '0 said; 2 usage error',",
      '  options: [],',
      '  configFlags: [],',
      "  positionals: { what: 'name', max: 1 },",
      '  async run(args, deps) {',
      "    deps.out(`hello ${args.positionals[0] ?? 'world'}\\n`);",
      '    return EXIT.OK;',
      '  },',
      '};',
      '',
    ].join('\n'),
  );
  edit(
    dir,
    'lib/cli/commands/index.ts',
    "import { listLabs } from './list-labs.js';",
    "import { listLabs } from './list-labs.js';\nimport { hello } from './hello.js';",
  );
  edit(dir, 'lib/cli/commands/index.ts', '  listLabs,\n', '  listLabs,\n  hello,\n');
  const stat = diffStat(dir);
  t.comment(`adding a command:\n${stat.text}`);
  t.same(stat.files.sort(), ['lib/cli/commands/hello.ts +17 -0', 'lib/cli/commands/index.ts +2 -0']);
  const out = runIn(
    dir,
    "import { main } from './lib/cli/main.js';\nimport { helpText } from './lib/cli/args.js';\n" +
      "import { probe } from './test/helpers/cli-probe.js';\n" +
      "const p = probe(process.cwd());\nconst code = await main(['hello', 'nomad'], p.deps);\n" +
      'console.log(JSON.stringify({ code, said: p.out(), listed: /\\bhello\\b/.test(helpText()) }));\n',
  );
  t.same(JSON.parse(out), { code: 0, said: 'hello nomad\n', listed: true }, 'dispatched and listed in --help');
});
