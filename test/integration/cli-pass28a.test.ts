// The CLI's twenty-eighth adversarial pass, part A (docs/cli-defects.md, rows Q540 on): SIGUSR1 and SIGUSR2 sent to
// the process, a stdout that cannot be written (a full disk), a bisect folder whose bisect-inputs.json or log was
// edited by hand, and harness.yaml keys in another case, with invisible characters, or expect: values in a key's form.
import t from 'tap';
import '../helpers/ts-loader.js';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bisectFixture, linearHistory } from '../helpers/bisect-fixture.js';
import { noLabLines } from '../helpers/cli-no-lab.js';
import { CLI_TS } from '../helpers/cli-tsx.js';
import { lablessScenarioSource, writeScenarioWithBody } from '../helpers/labless-scenario.js';

t.setTimeout(3 * 60_000);

const envOf = (dir: string): NodeJS.ProcessEnv => ({
  ...process.env,
  HOME: dir,
  HARNESS_WORK_DIR: join(dir, 'work'),
  XDG_CACHE_HOME: join(dir, 'cache'),
  CI: 'true',
});

/**
 * CLI_TS with `argv` in `dir`, stdout to `stdout` ('pipe', or a file descriptor such as /dev/full's); `onStderr` sees
 * stderr as it grows (to send a signal at a chosen moment). Resolves with the code, the signal and both outputs.
 */
function cli(
  dir: string,
  argv: string[],
  o: { stdout?: 'pipe' | number; onStart?: (child: ReturnType<typeof spawn>, stderr: () => string) => void } = {},
) {
  const child = spawn(process.execPath, [CLI_TS, ...argv], {
    cwd: dir,
    env: envOf(dir),
    stdio: ['ignore', o.stdout ?? 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  o.onStart?.(child, () => stderr);
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) =>
      child.on('close', (code, signal) => {
        clearTimeout(killer);
        resolve({ code, signal, stdout, stderr });
      }),
  );
}

const reportFolders = (dir: string) => (existsSync(join(dir, 'reports')) ? readdirSync(join(dir, 'reports')) : []);

t.test(
  "SIGUSR1 and SIGUSR2 during a run are told and ignored: Node's debugger is not opened on 127.0.0.1:9229, and the run is not ended without its teardown (Q540)",
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    writeScenarioWithBody(usc, 'slow3', 'await new Promise((r) => setTimeout(r, 3000)); return judgeAll(CHECKS, {});');
    const r = await cli(
      dir,
      ['run', 'slow3', '--scenarios', usc, '--netns', '', '--reports-dir', join(dir, 'reports')],
      {
        onStart: (child, stderr) =>
          void (async () => {
            const deadline = Date.now() + 45_000;
            while (!/slow3: run /.test(stderr()) && Date.now() < deadline) await sleep(50);
            await sleep(300);
            child.kill('SIGUSR1');
            await sleep(300);
            child.kill('SIGUSR2');
          })(),
      },
    );
    t.equal(r.signal, null, `not ended by SIGUSR2 (${r.stderr.slice(-300)})`);
    t.equal(r.code, 0, "the run's own verdict, a PASS");
    t.notMatch(r.stderr, /Debugger listening/, "Node's inspector was not started");
    t.match(r.stderr, /warning: SIGUSR1 received: ignored/);
    t.match(r.stderr, /warning: SIGUSR2 received: ignored/);
    t.match(r.stderr, /ok teardown/, 'the teardown ran');
    t.match(r.stdout, /PASS slow3/);
  },
);

t.test(
  'a stdout that cannot be written (a full disk: /dev/full) is told and is no success: exit 3 for a lost --list-cells --json; a FAIL stays 1; a reader that went away (EPIPE) changes nothing (Q541)',
  async (t) => {
    const dir = t.testdir({
      usc: { 'package.json': '{ "type": "module" }\n', 'bad.ts': lablessScenarioSource('bad', 'failed') },
      'm.yaml': 'scenario: bad\naxes:\n  clients: [1, 2]\n',
    });
    const full = openSync('/dev/full', 'w');
    t.teardown(() => closeSync(full));
    const listed = await cli(dir, ['matrix', 'm.yaml', '--scenarios', 'usc', '--list-cells', '--json'], {
      stdout: full,
    });
    t.equal(listed.code, 3, `the listing was lost: exit 3, not 0 (${listed.stderr.slice(-300)})`);
    t.match(listed.stderr, /error: stdout could not be written \(ENOSPC: no space left on device/);

    const run = await cli(dir, ['run', 'bad', '--scenarios', 'usc', '--netns', '', '--reports-dir', 'reports'], {
      stdout: full,
    });
    t.equal(run.code, 1, "a FAIL keeps its code: the verdict is the check's");
    t.match(run.stderr, /stdout could not be written .*exiting with 1/);
    t.equal(reportFolders(dir).length, 1, 'and its reports are written');

    // the reader closed at once (`| head -1` that read nothing yet): not an error of the command
    const gone = await cli(dir, ['matrix', 'm.yaml', '--scenarios', 'usc', '--list-cells'], {
      onStart: (child) => child.stdout!.destroy(),
    });
    t.equal(gone.code, 0, `EPIPE: exit 0 (${gone.stderr.slice(-300)})`);
    t.notMatch(gone.stderr, /could not be written/);
  },
);

t.test(
  'bisect --resume of a folder whose bisect-inputs.json values disagree with its record, name no option, or whose log was spoiled by hand, is refused with what is wrong (Q542, Q512, Q543)',
  async (t) => {
    const fx = bisectFixture(linearHistory(4, 2, 'pass', 'fail'));
    const cwd = t.testdir({});
    // HARNESS_PROVIDER=ssh without hosts: a folder that passes is refused at the config, before any build or VM
    const line = noLabLines(cwd, {
      HOME: cwd,
      HARNESS_WORK_DIR: join(cwd, 'work'),
      XDG_CACHE_HOME: join(cwd, 'xdg'),
      HARNESS_PROVIDER: 'ssh',
    });
    const [good, , , bad] = fx.shas as [string, string, string, string];
    const record = {
      schema: 'nomad-reboot-harness/bisect-log@1',
      values: { source: `git:${fx.dir}`, good, bad, check: 'no-leaks', netns: '' },
      scenario: 'bridge-exec-reboot',
      source: `git:${fx.dir}`,
      good: { ref: good, sha: good },
      bad: { ref: bad, sha: bad },
      check: 'no-leaks',
      tries: 3,
      startedAt: '2026-01-01T00:00:00.000Z',
      cwd,
    };
    const tried = (verdict: string) =>
      `${JSON.stringify({ e: 'try', commit: good, label: `${good.slice(0, 10)}-try1`, try: { ms: 1, exitCode: 0, runId: 'r1', verdict, message: 'ok' } })}\n`;
    const folder = (name: string, inputs: object, log = tried('passed')) => {
      mkdirSync(join(cwd, name));
      writeFileSync(join(cwd, name, 'bisect-inputs.json'), JSON.stringify(inputs));
      writeFileSync(join(cwd, name, 'bisect-log.jsonl'), log);
      return name;
    };
    const resume = (name: string) => line('bisect', '--resume', name);

    const whole = await resume(folder('whole', record));
    t.equal(whole.status, 2);
    t.notMatch(whole.stderr, /bisect-inputs\.json|bisect-log\.jsonl/, 'the folder as a bisect wrote it is taken');
    t.match(whole.stderr, /lab\.hosts\.servers: is required/, '(and refused at the config, before any build)');

    const other = await resume(folder('other', { ...record, values: { ...record.values, check: 'task-dirs' } }));
    t.equal(other.status, 2);
    t.match(
      other.stderr,
      /--resume: its bisect-inputs\.json is not one a bisect wrote: values\.check "task-dirs" is not check "no-leaks"/,
      "a line changed to another check: its log's tries are no-leaks's, not taken as task-dirs's (Q542)",
    );
    const top = await resume(folder('top', { ...record, check: 'task-dirs' }));
    t.match(top.stderr, /values\.check "no-leaks" is not check "task-dirs"/, 'the record changed alone: told too');
    const bogus = await resume(folder('bogus', { ...record, values: { ...record.values, bogus: 'x' } }));
    t.match(bogus.stderr, /values\.bogus is no option of bisect/, 'a key that is no option (Q512)');
    const num = await resume(folder('num', { ...record, values: { ...record.values, good: 7 } }));
    t.match(
      num.stderr,
      /values\.good 7 is not good\.ref "/,
      'a ref of another type: told as such, not "--good is required"',
    );
    t.notMatch(num.stderr, /--good: is required/);

    const spoiled = await resume(folder('spoiled', record, `${tried('passed')}GARBAGE\n${tried('passed')}`));
    t.equal(spoiled.status, 2);
    t.match(
      spoiled.stderr,
      /--resume: bisect-log\.jsonl line 2 is not an event \("GARBAGE"\), so the 1 line\(s\) after it would be dropped/,
      'a line spoiled mid-log: told, not every event after it dropped (Q543)',
    );
    const maybe = await resume(folder('maybe', record, tried('maybe')));
    t.match(
      maybe.stderr,
      /bisect-log\.jsonl holds an event a bisect does not write/,
      'a verdict a bisect never writes',
    );
  },
);

t.test(
  'harness.yaml: a key in another case is offered its own, invisible characters in a key are named, and expect.scenario and expect.checks.<check> are told in their own form (Q545, Q546)',
  async (t) => {
    const cwd = t.testdir({
      usc: { 'package.json': '{ "type": "module" }\n', 'bad.ts': lablessScenarioSource('bad', 'failed') },
      'case.yaml': 'lab:\n  Memory_MB: 1024\nEXPECT: fail\n',
      'cyr.yaml': 'l\u0430b:\n  memory_mb: 1024\n',
      'nbsp.yaml': 'lab:\n  memory_mb\u00a0: 1024\n',
      'chk.yaml': 'expect:\n  checks:\n    c: failed\n',
      'scn.yaml': 'expect:\n  scenario: c=fail\n',
      'ok.yaml': 'expect:\n  scenario: fail\n  checks:\n    c: fail\n',
    });
    const line = noLabLines(cwd);
    const plan = (file: string) => line('run', 'bad', '--scenarios', 'usc', '-c', file, '--plan', '--netns', '');
    const c = await plan('case.yaml');
    t.equal(c.status, 2);
    t.match(c.stderr, /lab\.Memory_MB: is not a known key .*did you mean "lab\.memory_mb"/, 'a key in capitals');
    t.match(c.stderr, /EXPECT: is not a known key .*did you mean "expect"/);
    const cyr = await plan('cyr.yaml');
    t.match(cyr.stderr, /is not a known key \(it holds U\+0430, which no key has\) .*did you mean "lab"/);
    const nbsp = await plan('nbsp.yaml');
    t.match(nbsp.stderr, /is not a known key \(it holds U\+00A0, which no key has\) .*did you mean "lab\.memory_mb"/);
    const chk = await plan('chk.yaml');
    t.equal(chk.status, 2);
    t.match(
      chk.stderr,
      /expect\.checks\.c: must be "pass" or "fail" \(got "failed"; fix: write c: fail \(or pass\) under "expect: checks:"\)/,
      "the file's value, and the key's own form (not <check>=pass|fail)",
    );
    const scn = await plan('scn.yaml');
    t.equal(scn.status, 2, 'expect.scenario takes pass or fail only');
    t.match(scn.stderr, /expect\.scenario: must be "pass" or "fail" \(got "c=fail"; fix: write scenario: fail/);
    t.equal((await plan('ok.yaml')).status, 0, 'the forms docs/config.md gives still plan');
  },
);
