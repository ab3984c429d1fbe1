// The CLI's twelfth adversarial pass (docs/cli-defects.md, rows Q128 on), through the real main() with the stand-ins:
// a matrix's reboot axis over upgrade-in-place cells that reboot nothing; a user scenario's timer that throws after the
// command ended.
import t from 'tap';
import '../helpers/ts-loader.js';
import { main } from '../../lib/cli/main.js';
import { readLabSpec } from '../../lib/cli/destroy.js';
import { runDoctor } from '../../lib/cli/doctor.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import type { RunCommand } from '../../lib/exec/run.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import { writeScenarioWithBody } from '../helpers/labless-scenario.js';
import { EventEmitter } from 'node:events';
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

t.setTimeout(2 * 60_000);

t.test(
  "a matrix's axes.reboot over upgrade-in-place cells without upgrade-then-reboot is refused naming them (Q128)",
  async (t) => {
    const matrix = (scenario: string, defaults = '') =>
      `scenario: ${scenario}\naxes:\n  nomad:\n    - { name: a, binary: ./nomad-2.0.5, upgrade_to: ./nomad-1.9.7 }\n  reboot: [graceful, hard]\n${defaults}`;
    const dir = t.testdir({
      'nomad-2.0.5': 'a build on disk',
      'nomad-1.9.7': 'a build on disk',
      'm.yaml': matrix('upgrade-in-place'),
      'mixed.yaml': matrix('[rolling-reboot, upgrade-in-place]'),
      'ok.yaml': matrix('upgrade-in-place', 'defaults:\n  upgrade: { mode: upgrade-then-reboot }\n'),
    });
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    t.equal(await main(['matrix', 'm.yaml', '--plan', '--netns', ''], s.deps), 2);
    let err = s.err.join('');
    t.match(
      err,
      /m\.yaml: axes\.reboot: names each cell's fault, and 2 cells upgrade-in-place\/nomad=a\/reboot=graceful, upgrade-in-place\/nomad=a\/reboot=hard inject none: upgrade-in-place reboots the client only with upgrade\.mode upgrade-then-reboot \(these cells: upgrade\)/,
    );
    t.match(err, /fix: give defaults\.upgrade\.mode: upgrade-then-reboot/);
    t.equal(s.out.join(''), '', 'no plan printed');
    s.err.length = 0;
    // the rolling-reboot cells of the same axis inject their kind; only the upgrade-in-place ones are named
    t.equal(await main(['matrix', 'mixed.yaml', '--plan', '--netns', ''], s.deps), 2);
    err = s.err.join('');
    t.match(err, /mixed\.yaml: axes\.reboot: names each cell's fault, and 2 cells upgrade-in-place\//);
    t.notMatch(err, /rolling-reboot\/nomad=a\/reboot=hard inject none/);
    s.err.length = 0;
    s.out.length = 0;
    // upgrade-then-reboot reboots the client with each cell's kind
    t.equal(await main(['matrix', 'ok.yaml', '--plan', '--netns', ''], s.deps), 0, s.err.join(''));
  },
);

t.test(
  "an error of a user scenario's timer that fires after the command ended is told redacted and the exit becomes 3 (Q129)",
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    const token = 'late-t0ken-1234567890abcdef';
    writeScenarioWithBody(usc, 'late', 'return judgeAll(CHECKS, {});');
    const events = new EventEmitter();
    const codes: number[] = [];
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const deps = {
      ...s.deps,
      env: { ...s.deps.env, NOMAD_TOKEN: token },
      rejectionSource: events,
      lateStrayExit: (c: number) => void codes.push(c),
    };
    const argv = ['run', 'late', '--scenarios', usc, '--reports-dir', join(dir, 'reports'), '--netns', ''];
    t.equal(await main(argv, deps), 0, 'the run itself passed');
    // what the scenario's setTimeout throws once run() returned and the command ended (the process lives on for it)
    events.emit('uncaughtException', new Error(`late NOMAD_TOKEN=${token}`));
    events.emit('unhandledRejection', `late-str NOMAD_TOKEN=${token}`);
    const err = s.err.join('');
    t.match(
      err,
      /error: an exception was thrown where nothing catches it \(a timer or event callback\).*; after the command ended \(its teardown ran and its reports are written\); exiting with 3: late NOMAD_TOKEN=\[REDACTED\]/,
    );
    t.match(
      err,
      /error: a promise was rejected and nothing awaited it; after the command ended .*late-str NOMAD_TOKEN=\[REDACTED\]/,
    );
    t.notMatch(err + s.out.join(''), token, 'the token is not printed');
    t.same(codes, [3, 3], 'a verdict of 0 becomes 3');
  },
);

t.test(
  'a report path that is a named pipe nothing reads is an error after the verdict, not a write that waits for ever (Q130)',
  { timeout: 30_000 },
  async (t) => {
    const dir = t.testdir({});
    const usc = join(dir, 'usc');
    writeScenarioWithBody(usc, 'pure', 'return judgeAll(CHECKS, {});');
    const fifo = join(dir, 'junit.pipe');
    execFileSync('mkfifo', [fifo]);
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    const reports = join(dir, 'reports');
    const argv = ['run', 'pure', '--scenarios', usc, '--reports-dir', reports, '--junit', fifo, '--netns', ''];
    t.equal(await main(argv, s.deps), 3);
    const err = s.err.join('') + s.out.join('');
    t.match(
      err,
      /could not write the JUnit report .*junit\.pipe \(--junit, or under --reports-dir\): it is a named pipe \(FIFO\) that nothing reads/,
    );
    t.match(s.out.join(''), /PASS pure/, 'the verdict is printed');
    t.same(readdirSync(join(reports, readdirSync(reports)[0]!)).sort(), ['report.html', 'summary.json']);
  },
);

t.test(
  'a lab whose lab-spec.json is a named pipe is told as unreadable by login, list-labs and destroy, not read for ever (Q131)',
  { timeout: 30_000 },
  async (t) => {
    const work = t.testdir({ 'r-fifo': {} });
    execFileSync('mkfifo', [join(work, 'r-fifo', 'lab-spec.json')]);
    const s = standInPerRun({}, { cwd: work });
    const deps = { ...s.deps, env: { ...s.deps.env, HARNESS_WORK_DIR: work } };
    const unreadable = /lab r-fifo \(.*r-fifo\): its lab-spec\.json cannot be read: it is a named pipe \(FIFO\)/;
    t.equal(await main(['login', 'r-fifo', '--netns', ''], deps), 2);
    t.match(s.err.join(''), unreadable);
    s.err.length = 0;
    t.equal(await main(['list-labs', '--netns', ''], deps), 3);
    t.match(s.err.join('') + s.out.join(''), unreadable);
    // destroy reads the spec through the same function (the stand-in has no destroy of its own): it keeps the lab
    await t.rejects(readLabSpec(join(work, 'r-fifo')), /it is a named pipe \(FIFO\), not a file a run wrote/);
  },
);

t.test(
  'a harness.yaml or matrix file in UTF-16 (Windows PowerShell) is told as UTF-16 with a fix that converts it, not as Latin-1 (Q132)',
  async (t) => {
    const text = 'lab:\n  servers: 1\n';
    const dir = t.testdir({});
    const bom = join(dir, 'bom.yaml');
    const bare = join(dir, 'bare.yaml');
    writeFileSync(bom, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    writeFileSync(bare, Buffer.from(text, 'utf16le'));
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    for (const [argv, field, path] of [
      [['run', 'pure', '-c', bom], '--config', bom],
      [['run', 'pure', '-c', bare], '--config', bare],
      [['matrix', bom], 'matrix file', bom],
    ] as const) {
      s.err.length = 0;
      t.equal(await main([...argv, '--plan', '--netns', ''], s.deps), 2, argv.join(' '));
      const err = s.err.join('');
      t.match(err, `${field}: is UTF-16 text, not UTF-8`);
      t.match(err, `fix: save it as UTF-8, e.g. iconv -f utf-16 -t utf-8 ${path}`);
      t.notMatch(
        err,
        /iconv -f latin1|a Latin-1 or Windows-1252 file/,
        'no Latin-1 fix, which would keep its zero bytes',
      );
    }
  },
);

t.test(
  'an option before the command is told with the problems of the line its fix offers, not in a second exit 2 (Q133)',
  async (t) => {
    const dir = t.testdir({});
    const s = standInPerRun({}, { cwd: dir });
    t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
    t.equal(await main(['--plan', 'run', 'pure', '--bogus', '--json=maybe'], s.deps), 2);
    const err = s.err.join('');
    t.match(err, /invalid configuration \(3 problems\)/);
    t.match(
      err,
      /command: is an option given before the command: options come after it \(got "--plan"; fix: put the command first: reboot-harness run --plan pure --bogus '--json=maybe'\)/,
    );
    t.match(err, /--bogus: is not an option/);
    t.match(err, /--json: is a switch and takes no value but true, false/);
    s.err.length = 0;
    // alone, as before
    t.equal(await main(['--netns', '', 'list-labs'], s.deps), 2);
    t.match(s.err.join(''), /^error: invalid configuration: command: is an option given before the command/);
  },
);

t.test(
  'doctor --nomad <a named pipe> says it is no file, instead of waiting for a writer for ever (Q134)',
  { timeout: 30_000 },
  async (t) => {
    const dir = t.testdir({});
    const fifo = join(dir, 'nomad');
    execFileSync('mkfifo', [fifo]);
    // every tool refused: only the nomad item is looked at
    const run: RunCommand = async (file) => {
      throw new Error(`spawn ${file} ENOENT`);
    };
    const items = await runDoctor({ deadline: deadlineIn(10_000), workDir: dir, nomadBinary: fifo, run });
    t.match(
      items.find((i) => i.name === 'nomad binary'),
      { ok: false, detail: `${fifo}: a named pipe (FIFO), not a regular file` },
    );
  },
);
