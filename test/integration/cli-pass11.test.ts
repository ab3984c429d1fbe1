// The CLI's eleventh adversarial pass (docs/cli-defects.md, rows Q112 on), through the real main() with the stand-ins:
// a fault schedule given to a run that injects no fault.
import t from 'tap';
import '../helpers/ts-loader.js';
import { main } from '../../lib/cli/main.js';
import { redact } from '../../lib/log/redact.js';
import { EventEmitter } from 'node:events';
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { writeLablessScenario, writeScenarioWithBody } from '../helpers/labless-scenario.js';
import { join } from 'node:path';
import { standInPerRun } from '../helpers/stand-in-env.js';

t.setTimeout(2 * 60_000);

t.test(
  'upgrade-in-place without a reboot refuses a fault schedule and its seed, as it refuses --reboot, instead of ignoring them (Q112)',
  async (t) => {
    const dir = t.testdir({
      'nomad-2.0.5': 'a build on disk',
      'nomad-1.9.7': 'a build on disk',
      'f.yaml': 'faults:\n  - { fault: graceful, target: any-client }\n',
      'h.yaml': 'reboot:\n  faults: f.yaml\n',
    });
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const upgrade = ['run', 'upgrade-in-place', '--nomad', './nomad-2.0.5', '--upgrade-to', './nomad-1.9.7'];
    t.equal(await main([...upgrade, '--faults', 'f.yaml', '--seed', '3', '--plan', '--netns', ''], s.deps), 2);
    let err = s.err.join('');
    t.match(
      err,
      /--faults: is not read: upgrade-in-place reboots the client only with --upgrade-mode upgrade-then-reboot/,
    );
    t.match(err, /--seed: is not read: upgrade-in-place/);
    t.match(err, /fix: drop --faults \(a fault schedule is run by rolling-reboot and server-reboot\)/);
    t.equal(s.out.join(''), '', 'no plan printed');
    s.err.length = 0;
    // harness.yaml's schedule, which no flag names
    t.equal(await main([...upgrade, '-c', 'h.yaml', '--plan', '--netns', ''], s.deps), 2);
    err = s.err.join('');
    t.match(err, /reboot\.faults: upgrade-in-place runs no fault schedule, so it would be ignored \(got "f\.yaml"/);
    s.err.length = 0;
    // upgrade-then-reboot refuses it as the other one-fault scenarios do (unchanged)
    t.equal(
      await main(
        [...upgrade, '--upgrade-mode', 'upgrade-then-reboot', '--faults', 'f.yaml', '--plan', '--netns', ''],
        s.deps,
      ),
      2,
    );
    t.match(s.err.join(''), /upgrade-in-place runs one fault; a schedule of several is run by the cluster scenarios/);
  },
);

t.test(
  'a fault flag upgrade-in-place does not read is told with a missing --upgrade-to, not once it is given (Q113)',
  async (t) => {
    const dir = t.testdir({ 'nomad-2.0.5': 'a build on disk', 'f.yaml': 'faults:\n  - { fault: graceful }\n' });
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const argv = ['upgrade-in-place', '--reboot', 'hard', '--faults', 'f.yaml', '--plan', '--netns', ''];
    t.equal(await main(['run', '--nomad', './nomad-2.0.5', ...argv], s.deps), 2);
    let err = s.err.join('');
    t.match(err, /--upgrade-to: is required by scenario upgrade-in-place/);
    t.match(
      err,
      /--reboot: is not read: upgrade-in-place reboots the client only with --upgrade-mode upgrade-then-reboot/,
    );
    t.match(err, /--faults: is not read: upgrade-in-place/);
    s.err.length = 0;
    t.equal(await main(['compare', '--before', './nomad-2.0.5', '--after', './nomad-2.0.5', ...argv], s.deps), 2);
    err = s.err.join('');
    t.match(err, /--upgrade-to: is required/);
    t.match(err, /--reboot: is not read: upgrade-in-place/, 'compare too');
  },
);

t.test(
  "a matrix's reboot axis, or a reboot.kind, beside a fault schedule is refused: each cell would run the schedule under a kind it never injected (Q114)",
  async (t) => {
    const dir = t.testdir({
      'nomad-2.0.5': 'a build on disk',
      'f.yaml': 'faults:\n  - { fault: graceful, target: any-client }\n',
      'm2.yaml':
        'scenario: rolling-reboot\naxes:\n  nomad:\n    - { name: a, binary: nomad-2.0.5 }\n  reboot: [hard]\n',
    });
    // the schedule by its absolute path: the scenario reads it from the process's working directory
    const f = join(dir, 'f.yaml');
    writeFileSync(
      join(dir, 'm.yaml'),
      `scenario: rolling-reboot\naxes:\n  nomad:\n    - { name: a, binary: nomad-2.0.5 }\n  reboot: [graceful, hard]\ndefaults:\n  reboot: { faults: ${f} }\n`,
    );
    writeFileSync(join(dir, 'h.yaml'), `reboot:\n  kind: hard\n  faults: ${f}\n`);
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    t.equal(await main(['matrix', 'm.yaml', '--plan', '--netns', ''], s.deps), 2);
    t.match(
      s.err.join(''),
      /m\.yaml: axes\.reboot: names each cell's fault, and its cells run the fault schedule .*f\.yaml .*the cells reboot=graceful, reboot=hard would each run that schedule/,
    );
    t.equal(s.out.join(''), '', 'no plan printed');
    s.err.length = 0;
    t.equal(await main(['matrix', 'm2.yaml', '--faults', f, '--plan', '--netns', ''], s.deps), 2, '--faults');
    t.match(s.err.join(''), /m2\.yaml: axes\.reboot: names each cell's fault/);
    s.err.length = 0;
    t.equal(
      await main(
        ['run', 'rolling-reboot', '--nomad', './nomad-2.0.5', '-c', 'h.yaml', '--plan', '--netns', ''],
        s.deps,
      ),
      2,
    );
    t.match(s.err.join(''), /h\.yaml: reboot\.kind: is not read with the fault schedule beside it \(reboot\.faults\)/);
    s.err.length = 0;
    t.equal(await main(['matrix', 'm2.yaml', '--plan', '--netns', ''], s.deps), 0, 'the axis alone is taken');
  },
);

t.test(
  "a user scenario's result of the wrong shape fails that check with its reports, instead of exit 70 with no JUnit (Q115)",
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    writeScenarioWithBody(usc, 'bogus', "return judgeAll(CHECKS, {}).map((c) => ({ ...c, status: 'bogus' })) as any;");
    writeScenarioWithBody(
      usc,
      'undeclared',
      "return [{ id: 'other', title: 'o', status: 'passed', message: 'x' }] as any;",
    );
    writeScenarioWithBody(usc, 'nolist', 'return null as any;');
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const cases: [string, number, RegExp][] = [
      ['bogus', 1, /FAIL {2}bogus \(bogus\): the scenario returned status "bogus" \(passed, failed or skipped\): ok/],
      ['undeclared', 1, /FAIL {2}o \(other\): not declared in the scenario's checks \(was passed: x\)/],
      ['nolist', 3, /run\(\) returned null, not the list of its check results/],
    ];
    for (const [name, code, said] of cases) {
      s.err.length = 0;
      s.out.length = 0;
      const reports = join(dir, `r-${name}`);
      t.equal(
        await main(['run', name, '--scenarios', usc, '--reports-dir', reports, '--netns', ''], s.deps),
        code,
        name,
      );
      t.match(s.err.join('') + s.out.join(''), said, `${name}: said`);
      t.notMatch(s.err.join(''), /internal error/, `${name}: no internal error`);
      const run = readdirSync(reports)[0]!;
      t.ok(existsSync(join(reports, run, 'junit.xml')), `${name}: its JUnit is written`);
    }
  },
);

t.test(
  'a rejection nothing awaited (or a throw in a callback) during a run is told redacted, the run ends with its reports and exit 3 (Q116)',
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    const token = 'stray-t0ken-1234567890abcdef';
    writeScenarioWithBody(
      usc,
      'stray',
      `(globalThis as any).strayEvents.emit('unhandledRejection', new Error('bg NOMAD_TOKEN=${token}')); return judgeAll(CHECKS, {});`,
    );
    const events = new EventEmitter();
    (globalThis as { strayEvents?: EventEmitter }).strayEvents = events;
    t.teardown(() => delete (globalThis as { strayEvents?: EventEmitter }).strayEvents);
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const deps = { ...s.deps, env: { ...s.deps.env, NOMAD_TOKEN: token }, rejectionSource: events };
    const reports = join(dir, 'reports');
    t.equal(await main(['run', 'stray', '--scenarios', usc, '--reports-dir', reports, '--netns', ''], deps), 3);
    const err = s.err.join('');
    t.match(
      err,
      /error: a promise was rejected and nothing awaited it \(at .*stray\.ts.*\); the command goes on to its teardown and reports, then exits 3: bg NOMAD_TOKEN=\[REDACTED\]/,
    );
    t.notMatch(err + s.out.join(''), token, 'the token is not printed');
    t.ok(existsSync(join(reports, readdirSync(reports)[0]!, 'junit.xml')), 'its reports are written');
    t.equal(events.listenerCount('unhandledRejection') + events.listenerCount('uncaughtException'), 0, 'let go after');
  },
);

t.test(
  'an input that is a device other than /dev/null is refused at once: /dev/zero was read whole (-c: 18 s and 680 MB; --faults: 16 GB, then std::bad_alloc) (Q117)',
  async (t) => {
    const dir = t.testdir({ 'nomad-2.0.5': 'a build on disk' });
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const device = /is a character device, not a file: reading it would not end/;
    const cases: [string[], RegExp][] = [
      [
        ['run', 'rolling-reboot', '--nomad', './nomad-2.0.5', '-c', '/dev/zero', '--plan'],
        /--config: is a character device/,
      ],
      [
        ['run', 'rolling-reboot', '--nomad', './nomad-2.0.5', '--faults', '/dev/zero', '--plan'],
        /reboot\.faults \(--faults\): is a character device/,
      ],
      [
        ['run', '--nomad', './nomad-2.0.5', '--job', '/dev/urandom', '--plan'],
        /job\.file \(--job\): is a character device/,
      ],
      [['run', '--nomad', '/dev/zero', '--plan'], /--nomad: is a character device/],
      [['matrix', '/dev/zero', '--plan'], /matrix file: is a character device/],
    ];
    for (const [argv, said] of cases) {
      s.err.length = 0;
      const started = Date.now();
      t.equal(await main([...argv, '--netns', ''], s.deps), 2, argv.join(' '));
      t.match(s.err.join(''), said, `${argv.join(' ')}: named`);
      t.match(s.err.join(''), device);
      t.ok(Date.now() - started < 15_000, `${argv.join(' ')}: refused before it is read`);
    }
    s.err.length = 0;
    t.equal(await main(['merge', '/dev/zero', '--out', join(dir, 'out')], s.deps), 2, 'merge');
    t.match(s.err.join(''), /merge input: is a character device/);
    s.err.length = 0;
    t.equal(await main(['build', '/dev/zero'], s.deps), 2, 'build');
    t.match(s.err.join(''), /build spec 1: is a character device/);
    s.err.length = 0;
    t.equal(
      await main(
        ['run', 'rolling-reboot', '--nomad', './nomad-2.0.5', '-c', '/dev/null', '--plan', '--netns', ''],
        s.deps,
      ),
      0,
      '/dev/null is still an empty harness.yaml',
    );
  },
);

t.test(
  'a report named by a hard link to a file the run reads is refused as a symlink is: it is the same file (Q118)',
  async (t) => {
    const dir = t.testdir({ 'h.yaml': 'lab:\n  cpus: 1\n', 'nomad-2.0.5': 'a build on disk' });
    writeLablessScenario(join(dir, 'usc'), 'pure');
    linkSync(join(dir, 'h.yaml'), join(dir, 'latest.xml'));
    linkSync(join(dir, 'nomad-2.0.5'), join(dir, 'nomad-copy'));
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const argv = ['run', 'pure', '--scenarios', 'usc', '-c', 'h.yaml', '--netns', ''];
    t.equal(await main([...argv, '--junit', join(dir, 'latest.xml')], s.deps), 2);
    t.match(s.err.join(''), /--junit: is a file this command reads \(--config\): the report would be written over it/);
    t.equal(readFileSync(join(dir, 'h.yaml'), 'utf8'), 'lab:\n  cpus: 1\n', 'harness.yaml is as it was');
    s.err.length = 0;
    const run = ['run', '--nomad', './nomad-2.0.5', '--plan', '--netns', ''];
    t.equal(await main([...run, '--report-json', 'nomad-copy'], s.deps), 2);
    t.match(s.err.join(''), /--report-json: is a file this command reads \(--nomad\)/);
    s.err.length = 0;
    t.equal(
      await main([...argv, '--junit', join(dir, 'j.xml'), '--reports-dir', join(dir, 'reports')], s.deps),
      0,
      'a path of its own is taken',
    );
  },
);

t.test("a bisect's JUnit suite name is not taken for user:password@host (Q119)", async (t) => {
  t.equal(
    redact('testsuite "bisect:alloc-restored@v9..v10": is in no JSON report', []),
    'testsuite "bisect:alloc-restored@v9..v10": is in no JSON report',
  );
  t.equal(
    redact('ProxyJump bob:hunter22@jump.example.com', []),
    'ProxyJump bob:[REDACTED]@jump.example.com',
    'a jump host still is',
  );
});

t.test(
  'a matrix whose upgrade-in-place cells read no fault schedule says so when its other cells run one (Q125)',
  async (t) => {
    const dir = t.testdir({
      'nomad-2.0.5': 'a build on disk',
      'nomad-1.9.7': 'a build on disk',
      'm.yaml':
        'scenario: [rolling-reboot, upgrade-in-place]\naxes:\n  nomad:\n    - { name: a, binary: nomad-2.0.5, upgrade_to: nomad-1.9.7 }\n',
    });
    writeFileSync(join(dir, 'f.yaml'), 'faults:\n  - { fault: graceful, target: any-client }\n');
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    t.equal(await main(['matrix', 'm.yaml', '--faults', join(dir, 'f.yaml'), '--plan', '--netns', ''], s.deps), 2);
    t.match(
      s.err.join(''),
      /reboot\.faults \(--faults\): is not read by cell upgrade-in-place\/nomad=a: upgrade-in-place runs no fault schedule/,
    );
    s.err.length = 0;
    t.equal(await main(['matrix', 'm.yaml', '--plan', '--netns', ''], s.deps), 0, 'without the schedule it plans');
  },
);

t.test("a switch's wrong word is told with every word it takes (Q126)", async (t) => {
  const s = standInPerRun({}, { cwd: t.testdir({}) });
  t.equal(await main(['run', '--plan', '--json=on', '--netns', ''], s.deps), 2);
  t.match(
    s.err.join(''),
    /--json: is a switch and takes no value but true, false, yes, no, 1, 0 \(got "on"; fix: write --json alone \(or --json=true\|false\|yes\|no\)\)/,
  );
});

t.test('login of a lab whose spec cannot be read says so, not that no such lab exists (Q107)', async (t) => {
  const work = t.testdir({ 'r-broken': { 'lab-spec.json': '{"machines": [' } });
  const s = standInPerRun({}, { cwd: work });
  const deps = { ...s.deps, env: { ...s.deps.env, HARNESS_WORK_DIR: work } };
  t.equal(await main(['login', 'r-broken', '--netns', ''], deps), 2);
  const err = s.err.join('');
  t.match(err, /login: lab r-broken \(.*r-broken\): its lab-spec\.json cannot be read/);
  t.notMatch(err, /no lab for run id/);
  t.notMatch(err, /run with --keep/, 'no hint to keep a lab that is there');
});

t.test(
  "a stale variable of run's (HARNESS_TIMEOUT, HARNESS_REPEAT) does not hold back login, list-labs or destroy (Q109)",
  async (t) => {
    const work = t.testdir({ 'r-broken': { 'lab-spec.json': '{"machines": [' } });
    const s = standInPerRun({}, { cwd: work });
    const env = { ...s.deps.env, HARNESS_WORK_DIR: work, HARNESS_TIMEOUT: 'abc', HARNESS_REPEAT: '0' };
    t.equal(await main(['login', 'r-broken', '--netns', ''], { ...s.deps, env }), 2);
    const err = s.err.join('');
    t.match(err, /its lab-spec\.json cannot be read/, 'login looked for the lab');
    t.notMatch(err, /env HARNESS_(TIMEOUT|REPEAT)/);
    s.err.length = 0;
    // a lab key is still judged
    t.equal(
      await main(['login', 'r-broken', '--netns', ''], { ...s.deps, env: { ...env, HARNESS_PROVIDER: 'bogus' } }),
      2,
    );
    t.match(s.err.join(''), /env HARNESS_PROVIDER: must be one of/);
  },
);

t.test(
  'bisect --replay of a named pipe or a device, and --resume of a folder whose log is a pipe, are refused instead of read for ever (Q122)',
  async (t) => {
    const dir = t.testdir({ resumed: { 'bisect-inputs.json': '{}' } });
    execFileSync('mkfifo', [join(dir, 'pipe'), join(dir, 'resumed', 'bisect-log.jsonl')]);
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const line = ['bisect', '--good', 'v1', '--bad', 'v2', '--check', 'task-dirs', '--source', `git:${dir}`];
    const cases: [string[], RegExp][] = [
      [[...line, '--replay', 'pipe'], /--replay: is a named pipe \(FIFO\), not a file/],
      [[...line, '--replay', '/dev/zero'], /--replay: is a character device, not a file: reading it would not end/],
      [['bisect', '--resume', 'resumed'], /--resume: is a named pipe \(FIFO\), not a file/],
    ];
    for (const [argv, said] of cases) {
      s.err.length = 0;
      t.equal(await main(argv, s.deps), 2, argv.slice(-2).join(' '));
      t.match(s.err.join(''), said, `${argv.slice(-2).join(' ')}: named`);
    }
  },
);

t.test(
  "a report named over the package.json that makes the user's scenarios load as ES modules is refused (Q110)",
  async (t) => {
    const dir = t.testdir({});
    writeLablessScenario(join(dir, 'usc'), 'pure');
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const code = await main(
      ['run', 'pure', '--scenarios', 'usc', '--junit', join(dir, 'usc', 'package.json'), '--netns', ''],
      s.deps,
    );
    t.equal(code, 2, s.err.join(''));
    t.match(
      s.err.join(''),
      /--junit: is a file this command reads \(--scenarios\): the report would be written over it/,
    );
    t.equal(readFileSync(join(dir, 'usc', 'package.json'), 'utf8'), '{ "type": "module" }\n', 'left as it was');
  },
);

t.test(
  'a harness.yaml that is not UTF-8 is refused naming the line, not read with a replacement character (Q92)',
  async (t) => {
    const dir = t.testdir({});
    writeFileSync(
      join(dir, 'h.yaml'),
      Buffer.concat([Buffer.from('lab:\n  box: "caf'), Buffer.from([0xe9]), Buffer.from('"\n')]),
    );
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    t.equal(await main(['run', '-c', 'h.yaml', '--plan', '--netns', ''], s.deps), 2);
    const err = s.err.join('');
    t.match(err, /is not UTF-8 text \(line 2: byte 0xe9 is no UTF-8; a Latin-1 or Windows-1252 file\?\)/);
    t.match(err, /iconv -f latin1 -t utf-8/);
    t.notMatch(err, /caf\uFFFD/, 'no replacement character shown as a value');
    s.err.length = 0;
    writeFileSync(join(dir, 'u.yaml'), 'lab:\n  box: "café"\n');
    t.equal(await main(['run', '-c', 'u.yaml', '--plan', '--netns', ''], s.deps), 2);
    t.notMatch(s.err.join(''), /not UTF-8/, 'the same value in UTF-8 is read (and judged as a box name)');
  },
);

t.test('list-labs of a work dir that does not exist says so instead of "no labs" alone (Q69)', async (t) => {
  const dir = t.testdir({});
  const s = standInPerRun({}, { cwd: dir });
  t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
  const code = await main(['list-labs', '--work-dir', join(dir, 'none'), '--provider', 'virtualbox'], s.deps);
  t.equal(code, 0, s.err.join(''));
  t.match(s.out.join(''), /no labs under \S+none \(it does not exist: no run made a lab there;/);
});

t.test(
  'bisect --resume of a path that is not there, a file, or a folder whose inputs are cut says which (Q124, Q68)',
  async (t) => {
    const dir = t.testdir({
      empty: {},
      cut: { 'bisect-inputs.json': '{"schema": "nomad-reboot-har' },
      'bisect.json': '{}',
    });
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const cases: [string, RegExp][] = [
      ['none', /--resume: does not exist/],
      ['bisect.json', /--resume: is a file, not the folder of a bisect/],
      ['empty', /--resume: holds no bisect \(no bisect-inputs\.json/],
      ['cut', /--resume: holds a bisect-inputs\.json that is not one reboot-harness bisect wrote/],
    ];
    for (const [path, said] of cases) {
      s.err.length = 0;
      t.equal(await main(['bisect', '--resume', path], s.deps), 2, path);
      t.match(s.err.join(''), said, path);
    }
  },
);
