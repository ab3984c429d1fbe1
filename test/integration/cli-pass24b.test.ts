// The CLI's twenty-fourth adversarial pass, part B (docs/cli-defects.md, rows Q350 on), through the real CLI: a merged
// report holding a `run` beside a matrix merged again, and a retried shard whose earlier JUnit file stayed behind.
// Each line runs main() in this process (test/helpers/cli-no-lab.ts: the real CLI's checks, the user scenarios under
// tsx, no lab).
import t from 'tap';
import '../helpers/ts-loader.js';
import { readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { runDoctor } from '../../lib/cli/doctor.js';
import type { RunCommand } from '../../lib/exec/run.js';
import { CommandError } from '../../lib/errors.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { noLabLines } from '../helpers/cli-no-lab.js';
import { lablessScenarioSource } from '../helpers/labless-scenario.js';

t.setTimeout(4 * 60_000);

/** The CLI's main() in `dir` (its working directory too), a line at a time; labless scenarios run, no lab is made. */
const cliAt = (dir: string) => noLabLines(dir, undefined, { labless: true, realChecks: true, chdir: true });

const scenario = lablessScenarioSource;

const project = {
  usc: {
    'package.json': '{ "type": "module" }\n',
    'ok.ts': scenario('ok', 'passed'),
    'ok3.ts': scenario('ok3', 'passed'),
    'bad.ts': scenario('bad', 'failed'),
  },
  'cfg.yaml': 'scenarios_dir: usc\n',
  ci: { 'm.yaml': 'scenario: [ok, bad]\naxes:\n  reboot: [graceful]\ndefaults:\n  scenarios_dir: usc\n' },
};

t.test(
  'a merged report of a matrix and a run merged again: not refused as two matrices of one name (Q350)',
  async (t) => {
    const dir = t.testdir(project);
    const cli = cliAt(dir);
    const shard = async (spec: string, out: string) => {
      const where = ['--reports-dir', out, '--junit', `${out}/junit.xml`, '--netns', ''];
      return (await cli('matrix', 'ci/m.yaml', '--shard', spec, ...where)).status;
    };
    t.equal(await shard('1/2', 'reports/m-1'), 0);
    t.equal(await shard('2/2', 'reports/m-2'), 1);
    t.equal((await cli('run', 'ok3', '--config', 'cfg.yaml', '--reports-dir', 'runs/r', '--netns', '')).status, 0);
    const first = await cli('merge', 'reports', 'runs', '--out', 'mixed');
    t.equal(first.status, 1, 'the matrix complete, the run beside it: the failed cell is the verdict');
    const again = await cli('merge', 'mixed', '--out', 'mixed2');
    t.equal(again.status, 1, 'merged again: the same verdict, not exit 2');
    t.notMatch(again.stderr, /two matrix files of that name/);
    t.match(again.stdout, /merged 3 suites from 1 JSON reports/);
    // the run's cell does not stand in for a missing shard: the matrix's shard 1/2 with the run alone is still refused
    const part = await cli('merge', 'reports/m-2', 'runs', '--out', 'part');
    t.equal(part.status, 2);
    t.match(part.stderr, /hold shard 2\/2, not 1\/2/);
  },
);

t.test(
  'a retried shard in another folder: the earlier JUnit file named with its summary, and told when left (Q351)',
  async (t) => {
    const dir = t.testdir(project);
    const cli = cliAt(dir);
    const shard = async (spec: string, out: string) => {
      const where = ['--reports-dir', out, '--junit', `${out}/junit.xml`, '--netns', ''];
      return (await cli('matrix', 'ci/m.yaml', '--shard', spec, ...where)).status;
    };
    t.equal(await shard('1/2', 'all/reports-shard-1'), 0);
    t.equal(await shard('2/2', 'all/reports-shard-2'), 1);
    t.equal(await shard('2/2', 'all/reports-shard-2-retry'), 1, 'the retried job, into an artifact of its own');
    const twice = await cli('merge', 'all', '--out', 'merged');
    t.equal(twice.status, 2);
    const old = /move (all\/reports-shard-2\/matrix-\w+) and all\/reports-shard-2\/junit\.xml out of the inputs/.exec(
      twice.stderr,
    )?.[1];
    t.ok(old, "names the earlier run's summary folder and its JUnit file");
    // only the summary moved (the JUnit file left): told as the earlier run's JUnit file, not as two runners
    // (found on disk, so that what follows is asserted whatever the message said)
    const earlier = readdirSync(join(dir, 'all/reports-shard-2')).find((f) => f.startsWith('matrix-'))!;
    t.equal(old, `all/reports-shard-2/${earlier}`);
    renameSync(join(dir, 'all/reports-shard-2', earlier), join(dir, 'earlier'));
    const left = await cli('merge', 'all', '--out', 'merged');
    t.equal(left.status, 2);
    t.notMatch(left.stderr, /one cell ran on two runners/);
    t.notMatch(left.stderr, /check the shard split/);
    t.match(left.stderr, /whose summary\.json is not among the inputs/);
    t.match(left.stderr, /fix: move all\/reports-shard-2\/junit\.xml out of the inputs/);
    renameSync(join(dir, 'all/reports-shard-2/junit.xml'), join(dir, 'earlier.xml'));
    t.equal((await cli('merge', 'all', '--out', 'merged')).status, 1, 'with both moved: merged');
  },
);

t.test(
  'doctor with a vagrant that hangs: the other tools are still asked, each within its own bound (Q352)',
  async (t) => {
    const asked: string[] = [];
    // as runCommand does: a command whose deadline is reached (or already passed) is a timeout
    const run: RunCommand = (file, args, { deadline }) =>
      new Promise((resolve, reject) => {
        const timedOut = () => reject(new CommandError(`${file} ${args.join(' ')}`, undefined, '', { timedOut: true }));
        if (deadline.signal.aborted) return timedOut();
        asked.push(file);
        if (file === 'vagrant') return deadline.signal.addEventListener('abort', timedOut);
        const out = file === 'virsh' ? 'Running hypervisor: QEMU 8.2.2\n' : `${file} 1.0\n`;
        resolve({ code: 0, stdout: out, stderr: '', durationMs: 1 });
      });
    // the deadlines' timers are unref'd: keep the test's process alive while vagrant hangs
    const alive = setInterval(() => {}, 1_000);
    t.teardown(() => clearInterval(alive));
    const started = Date.now();
    const items = await runDoctor({
      deadline: deadlineIn(3_000),
      toolProbeMs: 300,
      workDir: t.testdir({}),
      run,
      libvirtdPidFile: '/nonexistent/libvirtd.pid',
    });
    const by = Object.fromEntries(items.map((i) => [i.name, i]));
    t.match(by.vagrant, { ok: false, detail: /timed out/ });
    t.match(by.qemu, { ok: true, detail: 'qemu-system-x86_64 1.0' }, 'qemu asked, not failed as timed out');
    t.match(by['libvirtd reachable'], { ok: true, detail: /QEMU 8\.2\.2/ });
    t.same(asked, ['vagrant', 'qemu-system-x86_64', 'virsh']);
    t.ok(Date.now() - started < 2_500, 'the hung vagrant cost its own bound, not the whole deadline');
  },
);
