// parseCli and helpText: commands, flags from the config table, usage errors that name what was wrong.
import t from 'tap';
import { COMMANDS, helpText, parseCli } from '../../lib/cli/args.js';
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
  const r = parseCli(['run', 'bridge-exec-reboot', '--nomad-binary', './nomad', '--keep', '--expect', 'fail', '--expect', 'no-duplicate-ip=fail', '--timeout=45m', '-c', 'h.yaml']);
  t.equal(r.command, 'run');
  t.same(r.rawArgs, ['bridge-exec-reboot', '--nomad-binary', './nomad', '--keep', '--expect', 'fail', '--expect', 'no-duplicate-ip=fail', '--timeout=45m', '-c', 'h.yaml'], 'the arguments after the command, as given');
  t.same(r.positionals, ['bridge-exec-reboot']);
  t.match(r.values, { 'nomad-binary': './nomad', keep: true, expect: ['fail', 'no-duplicate-ip=fail'], timeout: '45m', config: 'h.yaml' });
  t.same(parseCli(['destroy', 'r1', 'r2', '--all']).positionals, ['r1', 'r2']);
  t.equal(parseCli(['list', '--json']).values['json'], true);
});

t.test('every config flag is accepted, booleans without a value', async (t) => {
  const bools = new Set(['keep', 'json', 'verbose', 'quiet']);
  for (const f of FIELDS) {
    if (!f.flag) continue;
    const argv = bools.has(f.flag) ? ['run', `--${f.flag}`] : ['run', `--${f.flag}`, 'v'];
    t.equal(parseCli(argv).values[f.flag], bools.has(f.flag) ? true : 'v', `--${f.flag}`);
  }
});

t.test('an unknown command is a usage error naming it', async (t) => {
  const e = usageError(['rnu', '--keep']);
  t.equal(e.exitCode, 2);
  t.match(e.problems, [{ field: 'command', value: 'rnu', fix: /run, list, doctor/ }]);
  t.match(e.message, /"rnu"/);
  t.match(usageError(['--keep']).problems, [{ value: '--keep' }], 'a flag before any command');
});

t.test('an unknown flag is a usage error naming the flag', async (t) => {
  for (const [argv, flag] of [[['run', '--bogus'], '--bogus'], [['run', '-x'], '-x'], [['list', '--nomad_binary=x'], '--nomad_binary'], [['run', '--keep=yes'], '--keep'], [['run', '--timeout'], '--timeout']] as const) {
    const e = usageError([...argv]);
    t.equal(e.exitCode, 2, argv.join(' '));
    t.equal(e.problems.length, 1);
    t.equal(e.problems[0]!.field, flag, `names ${flag}`);
    t.match(e.problems[0]!.fix, `reboot-harness ${argv[0]} --help`);
    t.notMatch(e.message, /To specify a positional/, 'node\'s advice about "--" is cut');
  }
});

t.test('help lists every command, and run --help every flag of the table with its env var', async (t) => {
  const top = helpText();
  for (const c of Object.keys(COMMANDS)) t.match(top, new RegExp(`^  ${c} `, 'm'), `lists ${c}`);
  t.match(top, /Exit codes: 0 .*1 .*2 .*3 /);
  const run = helpText('run');
  for (const f of FIELDS) {
    if (f.flag) t.match(run, `--${f.flag}`, `run --help lists --${f.flag}`);
    if (f.flag && f.env) t.match(run, `[env ${f.env}]`, `and its env ${f.env}`);
  }
  for (const extra of ['--config', '--expect', '--all', '--help']) t.match(run, extra);
  for (const c of Object.keys(COMMANDS) as (keyof typeof COMMANDS)[]) t.match(helpText(c), COMMANDS[c], `${c} --help has its summary`);
  t.match(helpText('destroy'), /--host/);
});
