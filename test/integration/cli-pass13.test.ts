// The CLI's thirteenth adversarial pass (docs/cli-defects.md, rows Q144 on, and the twelfth pass's open L rows it
// fixed), through the real main() with the stand-ins: a reboot kind in a file that upgrade-in-place never reads, a
// rejection or a check message that is an object, merge of a folder whose summary.json is a pipe, a `--` before the
// command, symlink loops as bisect's and list-labs' paths.
import t from 'tap';
import '../helpers/ts-loader.js';
import { main } from '../../lib/cli/main.js';
import { reconcileResults } from '../../lib/scenario-api/checks.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import { EventEmitter } from 'node:events';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

t.setTimeout(2 * 60_000);

t.test(
  "harness.yaml's or a matrix's reboot.kind is refused where upgrade-in-place reboots nothing (Q138)",
  async (t) => {
    const dir = t.testdir({
      'nomad-2.0.5': 'a build on disk',
      'nomad-1.9.7': 'a build on disk',
      'h.yaml': 'reboot: { kind: hard }\n',
      'm.yaml':
        'scenario: upgrade-in-place\naxes:\n  nomad:\n    - { name: a, binary: ./nomad-2.0.5, upgrade_to: ./nomad-1.9.7 }\ndefaults:\n  reboot: { kind: hard }\n',
    });
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const line = [
      'run',
      'upgrade-in-place',
      '--nomad',
      './nomad-2.0.5',
      '--upgrade-to',
      './nomad-1.9.7',
      '-c',
      'h.yaml',
    ];
    t.equal(await main([...line, '--plan', '--netns', ''], s.deps), 2);
    t.match(
      s.err.join(''),
      /h\.yaml: reboot\.kind: is not read: upgrade-in-place reboots the client only with upgrade\.mode upgrade-then-reboot \(this run: upgrade\), so it would be ignored \(got "hard"; fix: drop reboot\.kind, or give --upgrade-mode upgrade-then-reboot\)/,
    );
    t.equal(s.out.join(''), '', 'no plan printed');
    s.err.length = 0;
    t.equal(await main(['matrix', 'm.yaml', '--plan', '--netns', ''], s.deps), 2);
    t.match(
      s.err.join(''),
      /m\.yaml: defaults\.reboot\.kind: is not read: .*fix: drop defaults\.reboot\.kind, or give defaults\.upgrade\.mode: upgrade-then-reboot/,
    );
    s.err.length = 0;
    // the mode that reboots reads the kind; another scenario reads it too
    t.equal(
      await main([...line, '--upgrade-mode', 'upgrade-then-reboot', '--plan', '--netns', ''], s.deps),
      0,
      s.err.join(''),
    );
    t.equal(
      await main(
        ['run', 'rolling-reboot', '--nomad', './nomad-2.0.5', '-c', 'h.yaml', '--plan', '--netns', ''],
        s.deps,
      ),
      0,
      s.err.join(''),
    );
  },
);

t.test(
  'a rejection with an object, or a check message that is an object, is named by its shape: not [object Object], not its contents (Q139)',
  async (t) => {
    const events = new EventEmitter();
    const s = standInPerRun({}, { cwd: t.testdir({}) });
    const deps = { ...s.deps, rejectionSource: events, lateStrayExit: () => {} };
    t.equal(await main(['list', '--json'], deps), 0);
    events.emit('unhandledRejection', { token: 'x', password: 'hunter2-zz' });
    const err = s.err.join('');
    t.match(err, /exiting with 3: an object with keys token, password\n/);
    t.notMatch(err, /\[object Object\]|hunter2/);
    const [r] = reconcileResults(
      [{ id: 'c', title: 'c', passesWhen: 'always' }],
      [{ id: 'c', status: 'passed', message: { a: 1, secret: 'hunter2-zz' } }],
    );
    t.equal(r!.status, 'failed');
    t.equal(r!.message, 'the scenario returned a message that is no text (an object with keys a, secret)');
    // a number is text enough
    const [n] = reconcileResults(
      [{ id: 'c', title: 'c', passesWhen: 'always' }],
      [{ id: 'c', status: 'passed', message: 42 }],
    );
    t.equal(n!.status, 'passed');
    t.equal(n!.message, '42');
  },
);

t.test('merge of a folder whose summary.json is a named pipe says so, not "holds no report" (Q140)', async (t) => {
  const dir = t.testdir({ mp: {} });
  execFileSync('mkfifo', [join(dir, 'mp', 'summary.json')]);
  const s = standInPerRun({}, { cwd: dir });
  t.equal(await main(['merge', 'mp', '--out', 'merged'], s.deps), 2);
  const err = s.err.join('');
  t.match(
    err,
    /merge input: is a named pipe \(FIFO\), not a file: reading it would wait for a writer.*\(got "mp\/summary\.json"/,
  );
  t.notMatch(err, /holds no report of a run/);
});

t.test('a `--` before the command is left out of the line the fix offers (Q142)', async (t) => {
  const s = standInPerRun({}, { cwd: t.testdir({}) });
  t.equal(await main(['--', 'list', '--json'], s.deps), 2);
  t.match(s.err.join(''), /fix: put the command first: reboot-harness list --json\)/);
});

t.test(
  "a symlink loop (or a path that is not there, or a folder) as bisect's --resume or --replay, or as list-labs' work dir, is said as what it is (Q143)",
  async (t) => {
    const dir = t.testdir({});
    symlinkSync('loop-b', join(dir, 'loop-a'));
    symlinkSync('loop-a', join(dir, 'loop-b'));
    mkdirSync(join(dir, 'folder'));
    const s = standInPerRun({}, { cwd: dir });
    t.equal(await main(['bisect', '--resume', 'loop-a'], s.deps), 2);
    t.match(s.err.join(''), /--resume: cannot be read \(ELOOP\)/);
    const bisect = ['bisect', '--source', 'git:/nonexistent', '--good', 'v1', '--bad', 'v2', '--check', 'task-dirs'];
    for (const [replay, said] of [
      ['loop-a', /--replay: cannot be read \(ELOOP\)/],
      ['nope.jsonl', /--replay: does not exist/],
      ['folder', /--replay: is a folder, not a bisect log/],
    ] as const) {
      s.err.length = 0;
      t.equal(await main([...bisect, '--replay', replay, '--netns', ''], s.deps), 2, replay);
      t.match(s.err.join(''), said);
      t.notMatch(s.err.join(''), /no event in it/);
    }
    s.err.length = 0;
    s.out.length = 0;
    const deps = { ...s.deps, env: { ...s.deps.env, HARNESS_WORK_DIR: join(dir, 'loop-a') } };
    await main(['list-labs', '--netns', ''], deps);
    t.match(
      s.out.join(''),
      /no labs under .*loop-a \(it cannot be read \(ELOOP\); --work-dir or lab\.work_dir names the work dir\)/,
    );
  },
);
