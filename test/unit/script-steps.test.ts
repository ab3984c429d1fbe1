// tools/steps.ts: the named, timed steps of the zx scripts outside lib/ and how their failures read.
import t from 'tap';
import { $ } from 'zx';
import {
  createScript,
  explain,
  parseFlags,
  refuse,
  scriptLog,
  ScriptError,
  stamp,
  StepFailure,
  EXIT_FAILED,
  EXIT_INTERNAL,
  EXIT_USAGE,
} from '../../tools/steps.js';

/** A script on a fake clock the test moves (`clock.ms`), started at 10 s, writing into `out`. */
function fakeScript() {
  const clock = { ms: 10_000 };
  const out: string[] = [];
  const s = createScript('demo', { now: () => clock.ms, write: (l) => void out.push(l), startedAt: 8_500 });
  return { s, out, clock };
}

t.test('a step prints its title with the elapsed time, then ok and its duration', async (t) => {
  const { s, out, clock } = fakeScript();
  t.equal(
    await s.step('debootstrap', () => {
      clock.ms += 3000;
      return 42;
    }),
    42,
  );
  s.say('box current');
  t.same(out, ['== [1.5s] debootstrap\n', '== [4.5s] ok debootstrap (3.0s)\n', 'demo: box current\n']);
  t.equal(s.elapsedMs(), 4500, 'elapsed counts from startedAt (a bootstrap that ran before)');
  t.equal(stamp(125_000), '== [2m05s]');
});

t.test('a failing step says FAIL and its error names the step and its fix', async (t) => {
  const { s, out, clock } = fakeScript();
  const boom = () => {
    clock.ms += 1000;
    return Promise.reject(new Error('boom'));
  };
  const err = await s.step('apt', boom, { fix: 'run apt-get update' }).catch((e) => e);
  t.ok(err instanceof StepFailure);
  t.equal(err.step, 'apt');
  t.equal(err.fix, 'run apt-get update');
  t.equal(out[1], '== [2.5s] FAIL apt (1.0s)\n');
  const nested = await s.step('outer', () => s.step('inner', () => Promise.reject(new Error('x')))).catch((e) => e);
  t.equal(nested.step, 'inner', 'the innermost step is named, not every level');
});

t.test('explain: every problem with its fix; exit 2 for bad input, 1 for a failed step', async (t) => {
  const two = new ScriptError(
    [
      { message: 'must run as root', fix: 'sudo npx tsx vms/setup-host.ts' },
      { message: 'the box build needs Go >= 1.21 (found: none)', fix: 'install Go or pass --no-box' },
    ],
    EXIT_USAGE,
  );
  const r = explain('setup-host', new StepFailure('prerequisites', two, undefined, undefined));
  t.equal(r.exitCode, EXIT_USAGE);
  t.equal(
    r.text,
    [
      'setup-host: prerequisites failed: 2 problems (nothing was changed)',
      '  - must run as root',
      '    fix: sudo npx tsx vms/setup-host.ts',
      '  - the box build needs Go >= 1.21 (found: none)',
      '    fix: install Go or pass --no-box',
    ].join('\n'),
  );
  const one = explain('build-box', new ScriptError([{ message: 'unknown argument: --x', fix: 'see --help' }], 2));
  t.equal(one.text, 'build-box: unknown argument: --x (nothing was changed)\n  fix: see --help');
  const refused = (() => {
    try {
      refuse([{ message: 'm', fix: 'f' }]);
    } catch (e) {
      return e;
    }
  })();
  t.ok(refused instanceof ScriptError && refused.exitCode === EXIT_USAGE, 'refuse throws bad input');
  t.doesNotThrow(() => refuse([]));
});

t.test('explain: a failed command is named with its exit code, its last stderr lines and the step fix', async (t) => {
  const lastFailed: { value?: { cmd: string; exitCode: number | null; signal: string | null } } = {};
  const seen: string[] = [];
  const log = scriptLog(lastFailed, {
    stdout: (b) => void seen.push(`out:${b}`),
    stderr: (b) => void seen.push(`err:${b}`),
  });
  const apt = $({ log, verbose: true })`echo working; echo 'E: Unable to locate package nope' >&2; exit 100`;
  const err = await apt.catch((e) => e);
  t.same(lastFailed.value, {
    cmd: "echo working; echo 'E: Unable to locate package nope' >&2; exit 100",
    exitCode: 100,
    signal: null,
  });
  t.ok(seen.includes('out:working\n'), 'stdout streams through');
  t.ok(seen.includes('err:E: Unable to locate package nope\n'), 'stderr streams through');
  t.match(seen[0], /^err: {2}\$ echo working;/, 'the command is echoed before it runs');
  const r = explain('setup-host', new StepFailure('apt-get install', err, 'check the mirror', lastFailed.value));
  t.equal(r.exitCode, EXIT_FAILED);
  t.equal(
    r.text,
    [
      "setup-host: apt-get install failed: `echo working; echo 'E: Unable to locate package nope' >&2; exit 100` " +
        'exited 100',
      '  | E: Unable to locate package nope',
      '  fix: check the mirror',
    ].join('\n'),
  );
  const quiet: string[] = [];
  const log2 = scriptLog({}, { stdout: (b) => void quiet.push(String(b)), stderr: (b) => void quiet.push(String(b)) });
  await $({ log: log2, verbose: true, quiet: true, nothrow: true })`echo hidden; echo hidden >&2; false`;
  t.same(quiet, [], 'a probe shows nothing');
});

t.test('explain: a system error exits 1 with its message; anything else is a bug (70) with its stack', async (t) => {
  const enoent = Object.assign(new Error("ENOENT: no such file or directory, open '/nope'"), { code: 'ENOENT' });
  t.match(explain('build-box', new StepFailure('package the box', enoent, undefined, undefined)), {
    exitCode: EXIT_FAILED,
    text: /^build-box: package the box failed: ENOENT: no such file or directory, open '\/nope'\n {2}fix: /,
  });
  const bug = explain('build-box', new TypeError('x is undefined'));
  t.equal(bug.exitCode, EXIT_INTERNAL);
  t.match(bug.text, /^build-box: internal error \(please report\): TypeError: x is undefined\n\s+at /);
});

t.test('parseFlags names every unknown argument at once', async (t) => {
  const r = parseFlags('build-box.ts', ['--docker', '--nope', '-x'], ['--docker', '--force']);
  t.same([...r.flags], ['--docker']);
  t.same(
    r.problems.map((p) => p.message),
    ['unknown argument: --nope', 'unknown argument: -x'],
  );
  t.match(r.problems[0]!.fix, /--docker, --force \(see build-box\.ts --help\)/);
});
