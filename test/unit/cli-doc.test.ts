// What the README and docs say about the command line is what it does: docs/cli.md is written from the option table
// `--help` prints, the help's options are exactly what the parser takes, a default reads the same in the help and in
// docs/config.md, and the README's command table names only options its commands take.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { commandNamed, helpText, parseCliCollecting } from '../../lib/cli/args.js';
import { optionRows as rowsOf, optionsOf as optionsOfCommand } from '../../lib/cli/command.js';
import { COMMANDS } from '../../lib/cli/commands/index.js';
import { renderCliReference } from '../../lib/cli/cli-doc.js';
import { needsOf, SCENARIOS } from '../../lib/cli/scenarios.js';
import { FIELDS } from '../../lib/config/table.js';
import { DEFAULTS } from '../../lib/config/schema.js';
import { FAULTS } from '../../lib/faults/registry.js';
import { suiteName } from '../../lib/plan/names.js';

const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8');
const COMMAND_NAMES = COMMANDS.map((c) => c.name);
const optionsOf = (name: string) => optionsOfCommand(commandNamed(name)!);
const optionRows = (name: string) => rowsOf(commandNamed(name)!);
/** `--name` words of a text, without the value part. */
const flagsIn = (text: string) => [...new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]!))];

t.test('docs/cli.md is what `npm run docs` writes from the option table now', async (t) => {
  t.equal(read('docs/cli.md'), renderCliReference(), 'run npm run docs');
});

t.test("each command's help, its docs/cli.md section and the parser name the same options", async (t) => {
  const doc = read('docs/cli.md');
  for (const c of COMMAND_NAMES) {
    const help = helpText(c).split('\nOptions:\n')[1]!.split('\n\nExit codes:')[0]!;
    const helpFlags = [...help.matchAll(/^ {2}--([a-z-]+)/gm)].map((m) => m[1]!).sort();
    t.same(helpFlags, [...optionsOf(c).keys()].sort(), `${c}: --help lists what the parser takes`);
    const section = doc.split(`\n## ${c}\n`)[1]!.split('\n## ')[0]!;
    const docFlags = [...section.matchAll(/^\| `--([a-z-]+)/gm)].map((m) => m[1]!).sort();
    t.same(docFlags, helpFlags, `${c}: docs/cli.md lists the same`);
    t.equal(optionRows(c).length, helpFlags.length);
    for (const f of flagsIn(commandNamed(c)!.usage.join('\n')))
      t.ok(optionsOf(c).has(f), `${c}: its usage's --${f} is an option of ${c}`);
  }
});

t.test('a default reads the same in --help and docs/config.md (one writer: 1m, not 60 and 60s)', async (t) => {
  const config = read('docs/config.md');
  const run = helpText('run');
  for (const f of FIELDS) {
    if (!f.flag || f.secret) continue;
    const row = config.split('\n').find((l) => l.startsWith(`| \`${f.yaml}\` |`))!;
    const docDefault = row.split(' | ')[3]!;
    const helpLine = run
      .split('\n  --')
      .find((l) => l.startsWith(`${f.flag} `) || l === f.flag || l.startsWith(`${f.flag}\n`));
    const helpDefault = /default ([^;\]]+)[;\]]/.exec(helpLine ?? '')?.[1];
    t.equal(docDefault, helpDefault === undefined ? 'none' : `\`${helpDefault}\``, `--${f.flag}`);
  }
  t.match(run, /--nomad-retry-for <value>[^\n]*default 1m\]/, 'seconds as a Go duration');
  t.match(run, /--timeout <value>[^\n]*default 30m;/);
  t.match(run, /--boot-timeout <value>[^\n]*default 600\]/, 'a key named in seconds takes a number');
  t.match(run, /--verbose\s+also print every local command, every SSH command with its output/);
  t.match(config, /\| `timeout` \| `--timeout` \| `HARNESS_TIMEOUT` \| `30m` \|/);
});

t.test("the README's command table names only options its commands take", async (t) => {
  const readme = read('README.md');
  const table = readme.split('\n## Commands\n')[1]!.split('\nExamples:')[0]!;
  const rows = table.split('\n').filter((l) => /^\| `/.test(l));
  t.ok(rows.length >= 10, `${rows.length} rows`);
  for (const row of rows) {
    const [, synopsis, what] = row.split(/(?<!\\)\| /);
    const c = /^`([a-z]+)/.exec(synopsis!)?.[1] as string | undefined;
    if (!c || !commandNamed(c)) continue;
    const takes = optionsOf(c);
    for (const f of flagsIn(synopsis!)) t.ok(takes.has(f), `${c}: the synopsis's --${f} is an option of ${c}`);
    for (const f of flagsIn(what!))
      t.ok(
        COMMAND_NAMES.some((x) => optionsOf(x).has(f)),
        `${c}: --${f} in its description is an option of some command`,
      );
  }
  const everywhere = flagsIn(readme).filter((f) => !['help', 'version'].includes(f));
  t.same(
    everywhere.filter((f) => !COMMAND_NAMES.some((x) => optionsOf(x).has(f))),
    [],
    'every --flag the README names is taken by some command',
  );
  t.match(readme, /\[docs\/cli\.md\]\(docs\/cli\.md\)/, 'the README points at the full reference');
  // a few synopses, parsed as the CLI parses them: nothing refused
  for (const argv of [
    ['doctor', '--nomad', '1.9.7', '--json'],
    ['matrix', 'm.yaml', '--list-cells', '--json', '--shards', '3'],
    ['merge', 'reports', '--out', 'merged', '--attachment-paths', 'project'],
  ])
    t.same(parseCliCollecting(argv).problems, [], argv.join(' '));
});

t.test('docs/matrix.md: every fault kind is an axis value; the suite name as the CLI makes it', async (t) => {
  const doc = read('docs/matrix.md');
  const row = doc.split('\n').find((l) => l.startsWith('| `axes.reboot` |'))!;
  for (const k of FAULTS.names) t.match(row, `\`${k}\``, `axes.reboot names ${k}`);
  t.ok(doc.includes(suiteName('bridge-exec-reboot', '1.9.3', ['reboot=graceful'])), 'the suite name example');
  t.notMatch(doc, /The name is the JUnit `<testsuite name>`/, 'the cell name is not the suite name');
});

t.test('`list` names every flag a shipped scenario cannot run without', async (t) => {
  const config = { ...structuredClone(DEFAULTS), nomadBinary: '/b/nomad' };
  for (const s of SCENARIOS) {
    const required = (s.validate?.(config) ?? [])
      .filter((p) => /is required/.test(p.message))
      .flatMap((p) => flagsIn(p.field));
    for (const f of required)
      t.ok(
        needsOf(s).some((n) => n.startsWith(`--${f}`)),
        `${s.name} needs --${f}: ${needsOf(s).join(', ')}`,
      );
  }
  t.same(needsOf(SCENARIOS.find((s) => s.name === 'upgrade-in-place')!), [
    '--nomad <build>',
    '--upgrade-to <build> (or --upgrade-mode restart-only)',
  ]);
});
