// The CLI's twenty-third adversarial pass, part A (docs/cli-defects.md, rows Q290 on): run, matrix, compare, bisect,
// list, list-labs, login and destroy as a new user following README.md and docs/*.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { noLabCli } from '../helpers/cli-no-lab.js';

t.setTimeout(6 * 60_000); // a deadline, not a speed goal: every line a CLI child, beside the other tiers on 2 cores

/** main() in-process with a console captured; no lab may be made. */
const cli = (cwd: string) => noLabCli(cwd);

t.test('existing hosts: a host list with one bad entry still has its other problems told at once (Q291)', async (t) => {
  const dir = t.testdir({
    keydir: {},
    'harness.yaml': [
      'lab:',
      '  provider: ssh',
      '  hosts:',
      '    servers:',
      '      - { address: 203.0.113.10, user: admin, key: ./nokey }',
      '    clients:',
      '      - { address: 203.0.113.11, user: admin, key: ./keydir, port: 70000 }',
      '      - { address: 203.0.113.12, key: ./nokey }',
      '    client: { address: 203.0.113.13, user: admin, key: ./nokey }',
      '',
    ].join('\n'),
  });
  const c = cli(dir);
  t.equal(await c.run('run', 'rolling-reboot', '--nomad', '1.9.7', '--plan', '--netns', ''), 2, c.err());
  const err = c.err();
  t.match(err, /lab\.hosts\.clients\[0\]\.port: must be a whole number from 1 to 65535/, 'the bad entry');
  // with the list refused whole, these four came only in the next round, once the port was mended
  t.match(
    err,
    /lab\.hosts\.clients \/ lab\.hosts\.client: give the same hosts twice/,
    'the list beside the one-host form',
  );
  t.match(err, /lab\.hosts\.clients\[1\]\.user: is required with lab\.provider: ssh/, 'the missing user');
  t.match(err, /lab\.hosts\.clients\[0\]\.key: is a directory, not a key file/, 'the key that is a folder');
  t.match(err, /lab\.hosts\.clients\[1\]\.key: cannot be read \(ENOENT\)/, 'the key that is not there');
  t.notMatch(err, /lab\.hosts\.clients\[0\]\.port[^\n]*\n[^\n]*lab\.hosts\.clients\[0\]\.port/, 'the port told once');
});

t.test('existing hosts: a key refused in its entry is not also "required" (Q291)', async (t) => {
  const dir = t.testdir({
    'harness.yaml': [
      'lab:',
      '  provider: ssh',
      '  hosts:',
      '    servers: [{ address: 203.0.113.10, user: admin, key: ./nokey }]',
      '    clients: [just-a-host, { address: "", user: admin, key: ./nokey }]',
      '',
    ].join('\n'),
  });
  const c = cli(dir);
  t.equal(await c.run('run', 'rolling-reboot', '--nomad', '1.9.7', '--plan', '--netns', ''), 2, c.err());
  t.match(c.err(), /lab\.hosts\.clients\[0\]: must be a mapping/);
  t.match(c.err(), /lab\.hosts\.clients\[1\]\.address: must be a non-empty string/);
  t.notMatch(c.err(), /clients\[0\]\.(address|user|key): is required/, 'an entry refused whole is not told again');
  t.notMatch(c.err(), /clients\[1\]\.address: is required/, 'nor a key refused in it');
});

t.test('bisect --resume with other options: an option of another command is told with them (Q290)', async (t) => {
  const dir = t.testdir({ empty: {} });
  const c = cli(dir);
  t.equal(await c.run('bisect', '--resume', 'empty', '--nomad', './nomad', '--check', 'c'), 2, c.err());
  // the parser drops --nomad (not bisect's): --resume's "takes nothing else" could not name it, and it came next
  t.match(c.err(), /--nomad: is an option of `run`, `compare`, `matrix`, `doctor`, not of `bisect`/);
  t.match(c.err(), /--resume: takes nothing else/);
  t.match(c.err(), /--resume: holds no bisect/);
});

t.test(
  'matrix --list-cells: a file whose cells every shard would refuse is refused by the listing too (Q293)',
  async (t) => {
    const dir = t.testdir({
      'fg.yaml': 'faults:\n  - { fault: graceful, target: any-client }\n',
      'm.yaml': [
        'scenario: rolling-reboot',
        'axes:',
        '  clients: [1, 2]',
        '  reboot: [graceful]',
        'defaults:',
        '  nomad_build: 1.9.7',
        '  reboot:',
        '    faults: FG',
        '',
      ].join('\n'),
      'u.yaml': [
        'scenario: upgrade-in-place',
        'axes:',
        '  nomad:',
        '    - { name: a, binary: 1.9.7, upgrade_to: 1.9.8 }',
        '  reboot: [graceful, hard]',
        '',
      ].join('\n'),
    });
    // (absolute: the schedule is read from the process's working directory, and main() runs in-process here)
    const m = join(dir, 'm.yaml');
    writeFileSync(m, readFileSync(m, 'utf8').replace('FG', join(dir, 'fg.yaml')));
    for (const [file, told] of [
      ['m.yaml', /m\.yaml: axes\.reboot: names each cell's fault, and its cells run the fault schedule \S*fg\.yaml/],
      ['u.yaml', /u\.yaml: axes\.reboot: names each cell's fault, and 2 cells .* inject none/],
    ] as const) {
      const c = cli(dir);
      // the listing exited 0 with the cells and their commands, and every CI job made from it exited 2
      t.equal(await c.run('matrix', file, '--list-cells', '--shards', '2'), 2, `${file}: ${c.err()}`);
      t.match(c.err(), told);
      t.equal(c.out(), '', 'no cells listed');
      const plan = cli(dir);
      t.equal(await plan.run('matrix', file, '--plan'), 2, 'as --plan refuses it');
      t.match(plan.err(), told);
    }
  },
);
