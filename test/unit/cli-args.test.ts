// parseCli and helpText: commands, flags from the config table, usage errors that name what was wrong.
import t from 'tap';
import { commandNamed, helpText } from '../../lib/cli/args.js';
import { parseCli } from '../helpers/cli-parse.js';
import { optionsOf as optionsOfCommand } from '../../lib/cli/command.js';
import { COMMANDS } from '../../lib/cli/commands/index.js';

const optionsOf = (name: string) => optionsOfCommand(commandNamed(name)!);
import { FIELDS } from '../../lib/config/table.js';
import { ConfigError } from '../../lib/errors.js';

function usageError(argv: string[]): ConfigError {
  try {
    parseCli(argv);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

t.test('commands and flags', async (t) => {
  t.same(parseCli([]), { command: 'help', rawArgs: [], positionals: [], values: {} }, 'no arguments: help');
  t.equal(parseCli(['-h']).command, 'help');
  t.same(parseCli(['--version']), { command: 'help', rawArgs: [], positionals: ['--version'], values: {} });
  const r = parseCli([
    'run',
    'bridge-exec-reboot',
    '--nomad-binary',
    './nomad',
    '--keep',
    '--expect',
    'fail',
    '--expect',
    'no-duplicate-ip=fail',
    '--timeout=45m',
    '-c',
    'h.yaml',
  ]);
  t.equal(r.command, 'run');
  t.same(
    r.rawArgs,
    [
      'bridge-exec-reboot',
      '--nomad-binary',
      './nomad',
      '--keep',
      '--expect',
      'fail',
      '--expect',
      'no-duplicate-ip=fail',
      '--timeout=45m',
      '-c',
      'h.yaml',
    ],
    'the arguments after the command, as given',
  );
  t.same(r.positionals, ['bridge-exec-reboot']);
  t.match(r.values, {
    'nomad-binary': './nomad',
    keep: true,
    expect: ['fail', 'no-duplicate-ip=fail'],
    timeout: '45m',
    config: 'h.yaml',
  });
  t.same(parseCli(['destroy', 'r1', 'r2', '--all']).positionals, ['r1', 'r2']);
  t.equal(parseCli(['list', '--json']).values['json'], true);
});

t.test(
  '--scenarios <dir> (issue 13) is an option of run, compare, bisect, matrix and list, and of no other command',
  async (t) => {
    for (const c of ['run', 'compare', 'bisect', 'matrix', 'list'] as const) {
      t.equal(optionsOf(c).get('scenarios')?.type, 'string', `${c} takes --scenarios`);
      t.equal(parseCli([c, '--scenarios', './mine']).values['scenarios'], './mine', `${c} --scenarios ./mine`);
    }
    t.equal(
      parseCli(['list', '-c', 'h.yaml']).values['config'],
      'h.yaml',
      'list reads harness.yaml (its scenarios_dir)',
    );
    for (const c of ['doctor', 'setup', 'destroy', 'merge', 'build'] as const)
      t.notOk(optionsOf(c).has('scenarios'), `not ${c}`);
    t.match(usageError(['doctor', '--scenarios', 'x']).problems, [
      { field: '--scenarios', message: /option of `run`, `compare`, `bisect`, `matrix`, `list`, not of `doctor`/ },
    ]);
    t.match(helpText('list'), /--scenarios <value>\s+directory of your own scenario files/);
  },
);

t.test('every config flag is accepted, booleans without a value', async (t) => {
  const bools = new Set(['keep', 'json', 'verbose', 'quiet', 'rolling', 'drain']);
  for (const f of FIELDS) {
    if (!f.flag) continue;
    const argv = bools.has(f.flag) ? ['run', `--${f.flag}`] : ['run', `--${f.flag}`, 'v'];
    t.same(parseCli(argv).values[f.flag], bools.has(f.flag) ? true : f.multiple ? ['v'] : 'v', `--${f.flag}`);
  }
});

t.test('a switch takes the words a boolean key of harness.yaml takes: true/false, yes/no, 1/0 (Q35)', async (t) => {
  for (const [word, v] of [
    ['true', true],
    ['yes', true],
    ['1', true],
    ['false', false],
    ['no', false],
    ['0', false],
    ['True', true],
    ['NO', false],
  ] as const) {
    t.equal(parseCli(['run', `--drain=${word}`]).values['drain'], v, `--drain=${word}`);
    t.equal(parseCli(['run', `--fresh=${word}`]).values['fresh'], v, `--fresh=${word}`);
  }
  t.throws(() => parseCli(['run', '--fresh=maybe']), /--fresh: is a switch and takes no value/);
  t.throws(() => parseCli(['run', '--drain=Y']), /--drain: is a switch and takes no value/);
});

t.test('an unknown command is a usage error naming it, with the nearest command', async (t) => {
  const e = usageError(['rnu', '--keep']);
  t.equal(e.exitCode, 2);
  t.match(e.problems, [
    { field: 'command', value: 'rnu', fix: /did you mean "run"\? use one of: run, compare, bisect, matrix, list/ },
  ]);
  t.match(e.message, /"rnu"/);
  t.match(usageError(['--keep']).problems, [{ value: '--keep' }], 'a flag before any command');
});

t.test('every option problem of the command line at once, each naming the flag and the fix', async (t) => {
  for (const [argv, flag, fix] of [
    [['run', '--bogus'], '--bogus', /reboot-harness run --help/],
    [['run', '-x'], '-x', /reboot-harness run --help/],
    [['list', '--nomad_binary=x'], '--nomad_binary', /did you mean --nomad-binary\?/],
    [['run', '--keep=maybe'], '--keep', /--keep alone/],
    [['run', '--timeout'], '--timeout', /--timeout <value>/],
  ] as const) {
    const e = usageError([...argv]);
    t.equal(e.exitCode, 2, argv.join(' '));
    t.equal(e.problems.length, 1);
    t.equal(e.problems[0]!.field, flag, `names ${flag}`);
    t.match(e.problems[0]!.fix, fix);
  }
  const two = usageError(['run', '--nomad-binray', 'x', '--tiemout', '5m', 'bridge-exec-reboot']);
  t.same(
    two.problems.map((p) => p.field),
    ['--nomad-binray', '--tiemout'],
    'two unknown flags: both reported',
  );
  t.match(
    two.problems.map((p) => p.fix),
    [/did you mean --nomad-binary\?/, /did you mean --timeout\?/],
  );
  const other = usageError(['run', '--shard', '9/2', '--cell', 'x', '--before', 'y']);
  t.same(
    other.problems.map((p) => p.field),
    ['--shard', '--cell', '--before'],
    'flags of another command are refused, not ignored',
  );
  t.match(other.problems[0]!.message, 'is an option of `matrix`, not of `run`');
  t.match(other.problems[2]!.message, 'is an option of `compare`, not of `run`');
  t.match(usageError(['list', '--nomad-binary', '/nope']).problems, [
    { field: '--nomad-binary', message: /not of `list`/ },
  ]);
  t.same(
    parseCli(['run', '--reboots', '-1']).values['reboots'],
    '-1',
    'a value may start with a dash: the config check judges it (no raw parser text)',
  );
});

t.test(
  "help: every command, each command's own options with allowed values, defaults and env vars, and its exit codes",
  async (t) => {
    const top = helpText();
    for (const { name: c } of COMMANDS) t.match(top, new RegExp(`^  ${c} `, 'm'), `lists ${c}`);
    const run = helpText('run');
    for (const f of FIELDS) {
      if (f.flag) t.match(run, `--${f.flag}`, `run --help lists --${f.flag}`);
      if (f.flag && f.env) t.match(run, `env ${f.env}`, `and its env ${f.env}`);
    }
    t.match(
      run,
      /--reboot <value>\s+.*\[one of graceful\|hard\|panic\|power-off\|power-loss-all\|agent-kill\|executor-kill\|docker-restart\|partition\|leader-partition\|link-flap\|link-loss; default graceful\]/,
      'allowed values and the default',
    );
    t.match(run, /--memory <value>\s+.*default 768/);
    t.match(run, /Exit codes: 0 .*1 .*2 .*3 .*70 .*130/);
    for (const extra of ['--config', '--expect', '--all', '--help']) t.match(run, extra);
    for (const c of COMMANDS) t.match(helpText(c.name), c.summary, `${c.name} --help has its summary`);
    t.match(helpText('destroy'), /--host/);
    t.notMatch(
      helpText('list'),
      /1 a check|3 infrastructure/,
      "list does not claim run's exit codes (130, a Ctrl-C, every command has: Q527)",
    );
    t.notMatch(helpText('list'), /--nomad-binary/, "nor run's options");
    t.match(helpText('doctor'), /3 something is missing/);
    t.equal(parseCli(['help', 'run']).command, 'help');
    t.equal(helpText(parseCli(['help', 'run']).positionals[0]), helpText('run'), '"help run" prints run\'s help');
  },
);
