// A command is one module and one registry line: a stub command defined here, added to the registry, is parsed,
// helped, completed, documented and dispatched with nothing else changed (docs/architecture.md "Recipe: add a command").
import t from 'tap';
import { EXIT } from '../../lib/errors.js';
import { parseCliCollecting, helpText } from '../../lib/cli/args.js';
import { completionScript, completionSpec } from '../../lib/cli/completion.js';
import { renderCliReference } from '../../lib/cli/cli-doc.js';
import { commandConfig } from '../../lib/cli/input.js';
import type { CliCommand } from '../../lib/cli/command.js';
import { COMMANDS } from '../../lib/cli/commands/index.js';
import { main } from '../../lib/cli/main.js';
import { probe } from '../helpers/cli-probe.js';

const stub: CliCommand = {
  name: 'stub',
  summary: 'say hello, loudly when asked',
  usage: ['reboot-harness stub [name] [--shout] [--json]'],
  exits: '0 said; 2 usage error',
  options: [{ name: 'shout', type: 'boolean', doc: 'in capitals' }],
  configFlags: ['json'],
  positionals: { what: 'name', max: 1, complete: ['world', 'nomad'] },
  async run(args, deps) {
    const config = await commandConfig(args, deps);
    const text = `hello ${args.positionals[0] ?? 'world'}`;
    const said = args.values['shout'] ? text.toUpperCase() : text;
    deps.out(config.output.json ? `${JSON.stringify({ said })}\n` : `${said}\n`);
    return EXIT.OK;
  },
};
const registry = [...COMMANDS, stub];

t.test('the tokenizer takes its options, refuses others, counts its words', async (t) => {
  const ok = parseCliCollecting(['stub', 'nomad', '--shout', '--json'], registry);
  t.same(ok.problems, []);
  t.same(ok.args, {
    command: 'stub',
    rawArgs: ['nomad', '--shout', '--json'],
    positionals: ['nomad'],
    values: { shout: true, json: true },
  });
  const bad = parseCliCollecting(['stub', 'a', 'b', '--nomad', '1.9.7', '--shuot'], registry);
  t.match(bad.problems, [
    { field: '--nomad', message: /is an option of `run`, .* not of `stub`/ },
    { field: '--shuot', message: 'is not an option', fix: /did you mean --shout\?/ },
    { field: 'unexpected argument', value: 'b', message: 'stub takes at most 1 name' },
  ]);
  t.match(parseCliCollecting(['run', '--shout'], registry).problems, [
    { message: 'is an option of `stub`, not of `run`' },
  ]);
  t.throws(() => parseCliCollecting(['stub'], COMMANDS), /is not a command/, 'not registered: not a command');
});

t.test('--help, help <topic> and the general help show it', async (t) => {
  t.match(helpText(undefined, registry), /\n {2}stub {8}say hello, loudly when asked\n/);
  const own = helpText('stub', registry);
  t.match(own, /^reboot-harness stub: say hello, loudly when asked\n\nUsage: reboot-harness stub \[name\]/);
  t.match(own, /\n {2}--shout +in capitals\n/);
  t.match(own, /\n {2}--json +print JSON on stdout/);
  t.match(
    own,
    /Exit codes: 0 said; 2 usage error; 70 harness bug; 130 interrupted \(Ctrl-C, SIGTERM or SIGHUP\)\./,
    'with the codes every command has (Q527)',
  );
  const p = probe(t.testdir({}));
  t.equal(await main(['help', 'stub'], p.deps, registry), 0);
  t.equal(p.out(), `${own}\n`);
});

t.test('completion offers it, its options and its words', async (t) => {
  const spec = completionSpec(registry).find((c) => c.name === 'stub')!;
  t.same(
    spec.options.map((o) => o.name),
    ['help', 'shout', 'json'],
  );
  t.same(spec.positional, ['world', 'nomad']);
  const bash = completionScript('bash', { commands: completionSpec(registry), scenarios: [] });
  t.match(bash, "stub) opts='--help -h --shout --json' ;;");
  t.match(bash, /stub\) mapfile -t COMPREPLY < <\(compgen -W 'world nomad'/);
  t.match(completionScript('fish', { commands: completionSpec(registry), scenarios: [] }), /-a stub -d 'say hello/);
});

t.test('docs/cli.md gets its section', async (t) => {
  const doc = renderCliReference(registry);
  t.match(doc, /\n## stub\n\nsay hello, loudly when asked\.\n\n```text\nreboot-harness stub \[name\]/);
  t.match(doc, '| `--shout` | in capitals |');
  t.notMatch(renderCliReference(), '## stub', 'only when registered');
});

t.test('main dispatches it, its problems told with the rest of the input', async (t) => {
  const p = probe(t.testdir({}));
  t.equal(await main(['stub', 'nomad', '--shout'], p.deps, registry), 0);
  t.equal(p.out(), 'HELLO NOMAD\n');
  const j = probe(t.testdir({}));
  t.equal(await main(['stub', '--json'], j.deps, registry), 0);
  t.same(JSON.parse(j.out()), { said: 'hello world' });
  const bad = probe(t.testdir({ 'harness.yaml': 'output: {json: maybe}\n' }));
  t.equal(await main(['stub', 'a', 'b', '--bogus'], bad.deps, registry), 2);
  t.match(bad.err(), /3 problems/);
  t.match(bad.err(), /--bogus: is not an option/);
  t.match(bad.err(), /unexpected argument: stub takes at most 1 name/);
  t.match(bad.err(), /output\.json/);
});

t.test(
  'an option before the command is told as that, with the line in order; --version takes nothing (Q51)',
  async (t) => {
    const thrown = (argv: string[]) => {
      try {
        parseCliCollecting(argv, COMMANDS);
      } catch (err) {
        return err;
      }
      return undefined;
    };
    t.match(
      thrown(['--netns', '', 'run', '--plan']),
      {
        problems: [
          {
            message: 'is an option given before the command: options come after it',
            fix: "put the command first: reboot-harness run --netns '' --plan",
          },
        ],
      },
      'a command after the option: the line with it first',
    );
    t.match(thrown(['--json', 'bogus']), {
      problems: [{ value: '--json', message: 'is an option: the first word is the command, its options after it' }],
    });
    const v = parseCliCollecting(['--version', '--help'], COMMANDS);
    t.match(v.problems, [
      { fix: 'give --version alone (reboot-harness --version), or ask for help without it (reboot-harness --help)' },
    ]);
    t.notMatch(String(v.problems[0]?.fix), /reboot-harness --version --help/, 'the hint is not the failing line');
  },
);
