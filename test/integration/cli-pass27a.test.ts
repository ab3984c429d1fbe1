// The CLI's twenty-seventh adversarial pass, part A (docs/cli-defects.md, rows Q500 on): a user scenario that ends
// the process through Node's process.reallyExit, a hang-up (SIGHUP) while a run or a matrix runs, and a bisect log
// replayed beside a bisect-inputs.json that cannot be read.
import t from 'tap';
import '../helpers/ts-loader.js';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bisectFixture, linearHistory } from '../helpers/bisect-fixture.js';
import { noLabLines } from '../helpers/cli-no-lab.js';
import { CLI_TS, privateEnv, runCliTsIn } from '../helpers/cli-tsx.js';
import { lablessScenarioSource, writeScenarioWithBody } from '../helpers/labless-scenario.js';

t.setTimeout(3 * 60_000);

/**
 * The CLI as a person runs it (`CLI_TS`: tsx registered for the user scenarios, as bin/reboot-harness.js does): what
 * these lines judge is the process (its exit code, its own output past a scenario's), so each is a process of its
 * own; a test's runs go side by side.
 */
function harness(dir: string, argv: string[]) {
  return runCliTsIn(dir, argv);
}

const reportFolders = (dir: string) => (existsSync(join(dir, 'reports')) ? readdirSync(join(dir, 'reports')) : []);

t.test(
  "a user scenario that calls process.reallyExit (Node's exit underneath process.exit) cannot end the command: the verdict's code, the reports written (Q500)",
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    // fails at once; its timer calls the exit underneath the guarded process.exit after the command ended
    writeScenarioWithBody(
      usc,
      'treally',
      'setTimeout(() => (process as any).reallyExit(0), 800); return judgeAll(CHECKS, {});',
      'failed',
    );
    writeScenarioWithBody(usc, 'slow3', 'await new Promise((r) => setTimeout(r, 3000)); return judgeAll(CHECKS, {});');
    // in run() itself, as process.exit(0) there: the run's error
    writeScenarioWithBody(usc, 'really', '(process as any).reallyExit(0); return judgeAll(CHECKS, {});');

    writeFileSync(join(dir, 'm.yaml'), 'scenario: [treally, slow3]\naxes:\n  clients: [1]\nparallel: 2\n');
    const [one, m, inRun] = await Promise.all([
      harness(dir, ['run', 'treally', '--scenarios', usc]),
      harness(dir, ['matrix', 'm.yaml', '--scenarios', usc]),
      harness(dir, ['run', 'really', '--scenarios', usc]),
    ]);
    t.equal(one.status, 1, `run: exit 1, the FAIL's, not 0 (${one.stderr.slice(-300)})`);

    t.equal(m.status, 1, `matrix: exit 1 while the other cell ran, not 0 (${m.stderr.slice(-300)})`);
    t.match(m.stdout, /FAIL treally\/clients=1/, "the cell's verdict is printed");
    t.match(m.stdout, /PASS slow3\/clients=1/, 'and the other cell ran to its end');
    t.match(m.stderr, /warning: process\.exit\(0\) called while the command ran .*: ignored/);
    t.ok(
      reportFolders(dir).some((d) => d.startsWith('matrix-')),
      'the matrix reports are written',
    );

    t.equal(inRun.status, 3, `in run(): the run's error, exit 3, not a silent 0 (${inRun.stderr.slice(-300)})`);
    t.match(inRun.stdout, /ERROR scenario really .*run\(\) called process\.exit\(0\)/);
  },
);

/** Start the CLI, wait for `ready` on stderr, send `signals` 0.5 s apart, and collect what it wrote and its code. */
async function signalled(dir: string, argv: string[], ready: RegExp, signals: NodeJS.Signals[]) {
  const child = spawn(process.execPath, [CLI_TS, ...argv, '--reports-dir', join(dir, 'reports'), '--netns', ''], {
    cwd: dir,
    env: privateEnv(dir),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + 45_000;
  while (!ready.test(stderr) && Date.now() < deadline) await sleep(50);
  await sleep(300);
  for (const [i, sig] of signals.entries()) {
    if (i > 0) await sleep(500);
    child.kill(sig);
  }
  return { ...(await done), stdout: () => stdout, stderr: () => stderr };
}

t.test(
  'a hang-up (SIGHUP: the terminal closed, an SSH session dropped) is an interrupt: the run is torn down and reported, not ended at once (Q501)',
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    writeScenarioWithBody(usc, 'slow3', 'await new Promise((r) => setTimeout(r, 3000)); return judgeAll(CHECKS, {});');
    const r = await signalled(dir, ['run', 'slow3', '--scenarios', usc], /slow3: run /, ['SIGHUP']);
    t.equal(r.signal, null, `not killed by the signal (${r.stderr().slice(-300)})`);
    t.equal(r.code, 130, 'exit 130, as for SIGTERM');
    t.match(r.stderr(), /SIGHUP received: cleaning up/);
    t.match(r.stderr(), /ok teardown/, 'the teardown ran');
    t.match(r.stdout(), /reports: .*summary\.json/, 'and the reports are written');

    // a matrix, hung up twice: the second is not a Ctrl-C either (as SIGTERM twice)
    writeFileSync(join(dir, 'm.yaml'), 'scenario: [slow3]\naxes:\n  clients: [1, 2]\nparallel: 2\n');
    const m = await signalled(dir, ['matrix', 'm.yaml', '--scenarios', usc], /slow3\/clients=2: run /, [
      'SIGHUP',
      'SIGHUP',
    ]);
    t.equal(m.signal, null, `the matrix is not killed by the signal (${m.stderr().slice(-300)})`);
    t.equal(m.code, 130);
    t.match(m.stdout(), /ERROR slow3\/clients=1 /, "each cell's verdict is printed");
    t.ok(
      reportFolders(dir).some((d) => d.startsWith('matrix-')),
      'the matrix reports are written',
    );
  },
);

t.test(
  '--replay of a log whose bisect-inputs.json is cut or of another schema is refused: the check its tries judged cannot be told (Q502)',
  async (t) => {
    const fx = bisectFixture(linearHistory(4, 2, 'pass', 'fail'));
    const cwd = t.testdir({});
    const line = noLabLines(cwd, { HOME: cwd, HARNESS_WORK_DIR: join(cwd, 'work'), XDG_CACHE_HOME: join(cwd, 'xdg') });
    const sha = fx.shas[0]!;
    const inputs = (check: string) =>
      JSON.stringify({
        schema: 'nomad-reboot-harness/bisect-log@1',
        values: { source: `git:${fx.dir}`, good: sha, bad: fx.shas[3], check },
        scenario: 'bridge-exec-reboot',
        source: `git:${fx.dir}`,
        good: { ref: sha, sha },
        bad: { ref: fx.shas[3], sha: fx.shas[3] },
        check,
        tries: 3,
        cwd,
      });
    const log = `${JSON.stringify({ e: 'try', commit: sha, label: `${sha.slice(0, 10)}-try1`, try: { ms: 1, exitCode: 0, runId: 'r1', verdict: 'passed', message: 'ok' } })}\n`;
    // three folders of a bisect of task-dirs: its inputs whole, cut, and of a newer schema
    const folder = (name: string, text: string) => {
      mkdirSync(join(cwd, name));
      writeFileSync(join(cwd, name, 'bisect-log.jsonl'), log);
      writeFileSync(join(cwd, name, 'bisect-inputs.json'), text);
      return join(name, 'bisect-log.jsonl');
    };
    const whole = folder('whole', inputs('task-dirs'));
    const cut = folder('cut', inputs('task-dirs').slice(0, 120));
    const newer = folder('newer', inputs('task-dirs').replace('bisect-log@1', 'bisect-log@2'));
    const bisect = (replay: string) =>
      line(
        'bisect',
        '--source',
        `git:${fx.dir}`,
        '--good',
        sha,
        '--bad',
        fx.shas[3]!,
        '--check',
        'no-leaks',
        '--netns',
        '',
        '--replay',
        replay,
      );

    const w = await bisect(whole);
    t.equal(w.status, 2);
    t.match(w.stderr, /--replay: is the log of a bisect of task-dirs on bridge-exec-reboot/, 'the whole file: Q48');
    const cutR = await bisect(cut);
    t.equal(cutR.status, 2, 'cut: exit 2');
    t.match(
      cutR.stderr,
      /--replay: the bisect-inputs\.json beside it is not one reboot-harness bisect wrote \(cut, not JSON, or another schema\), so the check its tries judged cannot be told/,
      "cut: told, not replayed as no-leaks's verdicts",
    );
    const newerR = await bisect(newer);
    t.equal(newerR.status, 2, 'of a newer schema: exit 2');
    t.match(
      newerR.stderr,
      /--replay: the bisect-inputs\.json beside it is of nomad-reboot-harness\/bisect-log@2, which this reboot-harness does not read \(it reads nomad-reboot-harness\/bisect-log@1\): another version wrote it, so the check its tries judged cannot be told/,
      'of a newer schema: told as such (Q505)',
    );
    // --resume of that folder: what it is, and what to do (not "give the folder a bisect printed")
    const resumed = await line('bisect', '--resume', 'newer');
    t.equal(resumed.status, 2);
    t.match(
      resumed.stderr,
      /--resume: holds a bisect-inputs\.json that is of nomad-reboot-harness\/bisect-log@2, .*fix: resume it with the version of reboot-harness that started it, or start the bisect again/,
      '--resume of a newer schema: told as such (Q505)',
    );
  },
);

t.test(
  'an unknown key in a section is never offered its own section ("nomad.t: did you mean nomad?"), and expect: is fixed in its own words (Q503, Q504)',
  async (t) => {
    const cwd = t.testdir({
      usc: { 'package.json': '{ "type": "module" }\n', 'bad.ts': lablessScenarioSource('bad', 'failed') },
      'sect.yaml': 'nomad: { t: x }\nreboot: { k: hard }\nlab: { cp: 2 }\n',
      'exp.yaml': 'expect: { c: fail }\n',
      'list.yaml': 'expect: [c=fail]\n',
    });
    const line = noLabLines(cwd);
    const plan = (file: string) => line('run', 'bad', '--scenarios', 'usc', '-c', file, '--plan', '--netns', '');
    const s = await plan('sect.yaml');
    t.equal(s.status, 2);
    t.notMatch(s.stderr, /did you mean "(nomad|reboot)"/, 'no key is offered the section it is in');
    t.match(s.stderr, /nomad\.t: is not a known key \(got "nomad\.t"; fix: remove it/);
    t.match(s.stderr, /lab\.cp: is not a known key .*did you mean "lab\.cpus"/, 'a near key of the section still is');
    const e = await plan('exp.yaml');
    t.equal(e.status, 2);
    t.match(
      e.stderr,
      /expect\.c: is not a known key .*fix: expect: takes scenario: pass\|fail and checks: \{<check>: pass\|fail\}/,
      "expect's own keys named",
    );
    const l = await plan('list.yaml');
    t.equal(l.status, 2);
    t.match(
      l.stderr,
      /expect: must be "pass", "fail" or "<check>=pass\|fail" \(one value\) \(got \["c=fail"\]; fix: write expect: fail, or expect: \{checks: \{<check>: fail\|pass\}\}/,
      "a file's expect: fixed in the file's words, with the form it takes",
    );
  },
);

t.test(
  "a user scenario that replaces process.stdout.write (to quiet a library) does not silence the harness's own lines (Q507)",
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    writeScenarioWithBody(
      usc,
      'quiet',
      'process.stdout.write = (() => true) as any; process.stderr.write = (() => true) as any; return judgeAll(CHECKS, {});',
      'failed',
    );
    writeScenarioWithBody(usc, 'slow3', 'await new Promise((r) => setTimeout(r, 1500)); return judgeAll(CHECKS, {});');
    writeFileSync(join(dir, 'm.yaml'), 'scenario: [quiet, slow3]\naxes:\n  clients: [1]\nparallel: 2\n');
    const m = await harness(dir, ['matrix', 'm.yaml', '--scenarios', usc]);
    t.equal(m.status, 1);
    t.match(m.stdout, /FAIL quiet\/clients=1/, "the quieting cell's verdict is printed");
    t.match(m.stdout, /PASS slow3\/clients=1/, "and the other cell's");
    t.match(m.stdout, /reports: .*summary\.json/, 'and where the reports are');
    t.match(m.stderr, /slow3\/clients=1: run .*\n[^]*ok teardown/, 'the progress lines too');
  },
);
