// The CLI's thirtieth adversarial pass, part B (docs/cli-defects.md, rows Q650 on): the lines merge and doctor print
// for a person to paste. Each line is pasted into `bash -c` with a recording `reboot-harness` first on PATH: its argv
// must be the one printed about, and followed it must do what the message says. merge runs main() in this process
// over the reports of labless runs and matrices; doctor's probes are answered by a stand-in.
import t from 'tap';
import '../helpers/ts-loader.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULTS } from '../../lib/config/schema.js';
import { runDoctor } from '../../lib/cli/doctor.js';
import type { RunCommand } from '../../lib/exec/run.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { noLabLines } from '../helpers/cli-no-lab.js';
import { lablessScenarioSource } from '../helpers/labless-scenario.js';
import { paster } from '../helpers/fabricated-lab.js';

t.setTimeout(2 * 60_000);

/** A folder name with a space, a quote and `$(...)`: printed bare, pasted, it splits and runs `touch`. */
const HOSTILE = `rep d'q $(touch PWN) x`;

const usc = {
  'package.json': '{ "type": "module" }\n',
  'bad.ts': lablessScenarioSource('bad', 'failed'),
  'ok.ts': lablessScenarioSource('ok', 'passed'),
};

/** The CLI's lines in `dir` (main() in this process, labless), its home, cache and work dir there. */
const linesIn = (dir: string) =>
  noLabLines(dir, { HOME: dir, XDG_CACHE_HOME: join(dir, 'xdg'), HARNESS_WORK_DIR: join(dir, 'w') }, { labless: true });

/** The two-cell matrix of `<dir>/ci/m.yaml` over the labless scenarios, its reports under `rep` (one cell fails). */
const runMatrix = (cli: ReturnType<typeof linesIn>, dir: string, rep: string) =>
  cli('matrix', join(dir, 'ci/m.yaml'), '--scenarios', join(dir, 'usc'), '--netns', '', '--reports-dir', rep);

t.test(
  "merge --out an input folder or a run's folder under a path with a space, a quote and $(...): the fix's --out is one word, and pasted the merge passes (Q650)",
  async (t) => {
    const dir = t.testdir({ usc, ci: { 'm.yaml': 'scenario: [ok, bad]\naxes:\n  reboot: [graceful]\n' } });
    const paste = paster(dir);
    const cli = linesIn(dir);
    const rep = join(dir, HOSTILE);
    const m = await runMatrix(cli, dir, rep);
    t.equal(m.status, 1, m.stderr);
    const matrix = readdirSync(rep).find((f) => f.startsWith('matrix-'))!;
    for (const out of [HOSTILE, join(HOSTILE, matrix)]) {
      const r = await cli('merge', HOSTILE, '--out', out);
      t.equal(r.status, 2, out);
      const fix = /e\.g\. (--out .*)\)$/m.exec(r.stderr)?.[1] ?? '';
      t.same(paste(`reboot-harness ${fix}`), ['--out', join(HOSTILE, 'merged')], fix);
      // followed: the merge passes over both cells
      const again = await cli('merge', HOSTILE, ...paste(`reboot-harness ${fix}`));
      t.equal(again.status, 1, again.stderr);
      t.match(again.stdout, /merged 2 suites/);
    }
    t.notOk(existsSync(join(dir, 'PWN')), 'nothing ran');
  },
);

t.test(
  "two runs of one suite merged: each printed merge names an --out of its own; pasted one after the other, the first's merged report is still there (Q651)",
  async (t) => {
    const dir = t.testdir({ usc });
    const paste = paster(dir);
    const cli = linesIn(dir);
    for (const d of ['a', 'b']) {
      const r = await cli(
        'run',
        'bad',
        '--scenarios',
        join(dir, 'usc'),
        '--netns',
        '',
        '--reports-dir',
        join(dir, 'reports', d),
      );
      t.equal(r.status, 1, r.stderr);
    }
    const m = await cli('merge', 'reports');
    t.equal(m.status, 2);
    const lines = /each: (reboot-harness merge .*) and (reboot-harness merge .*)\), or leave one/.exec(m.stderr);
    t.ok(lines, m.stderr);
    const outs: string[] = [];
    for (const line of [lines?.[1] ?? '', lines?.[2] ?? '']) {
      const argv = paste(line);
      t.equal(argv[0], 'merge', line);
      const out = argv[argv.indexOf('--out') + 1] ?? '';
      t.match(out, /^merged-r\w+$/, line);
      outs.push(out);
      t.equal((await cli(...argv)).status, 1, line);
    }
    t.not(outs[0], outs[1], 'two folders');
    for (const out of outs) {
      const runs = JSON.parse(readFileSync(join(dir, out, 'summary.json'), 'utf8')).runs as { runId: string }[];
      t.same(
        runs.map((r) => r.runId),
        [out.slice('merged-'.length)],
        `${out} holds its run`,
      );
    }
  },
);

t.test(
  "merge --out a matrix cell's own folder (its report.html, its reports in the matrix's folder) is refused: the merged files landed in that run's folder and the cell's page was left out of the index (Q652)",
  async (t) => {
    const dir = t.testdir({ usc, ci: { 'm.yaml': 'scenario: [ok, bad]\naxes:\n  reboot: [graceful]\n' } });
    const cli = linesIn(dir);
    const rep = join(dir, 'rep');
    const m = await runMatrix(cli, dir, rep);
    t.equal(m.status, 1, m.stderr);
    const cells = readdirSync(rep).filter((f) => !f.startsWith('matrix-'));
    t.equal(cells.length, 2);
    for (const cell of cells) {
      const r = await cli('merge', 'rep', '--out', join('rep', cell));
      t.equal(r.status, 2, cell);
      t.match(r.stderr, `holds rep/${cell}/report.html, a run's page`);
      t.match(r.stderr, 'e.g. --out rep/merged');
      t.notOk(existsSync(join(rep, cell, 'index.html')), 'nothing written');
    }
    // the same cell's folder outside the inputs is refused as well; a merge's own earlier output is written over
    const r = await cli(
      'merge',
      join('rep', readdirSync(rep).find((f) => f.startsWith('matrix-'))!),
      '--out',
      join('rep', cells[0]!),
    );
    t.equal(r.status, 2);
    t.equal((await cli('merge', 'rep', '--out', 'merged')).status, 1);
    t.equal((await cli('merge', 'rep', '--out', 'merged')).status, 1, 'written over');
  },
);

/** doctor's tools: vagrant answers (with `boxes` in its box list), everything else fails. */
const doctorRun =
  (boxes: string): RunCommand =>
  async (file, args) => {
    const ok = (stdout: string) => ({ code: 0, stdout, stderr: '', durationMs: 1 });
    if (file === 'vagrant' && args[0] === '--version') return ok('Vagrant 2.3.4\n');
    if (file === 'vagrant' && args[0] === 'plugin') return ok('vagrant-libvirt (0.11.2, global)\n');
    if (file === 'vagrant' && args[0] === 'box') return ok(boxes);
    return { code: 1, stdout: '', stderr: 'error\n', durationMs: 1 };
  };

t.test(
  "doctor --netns <name>: every fix that names reboot-harness setup names the namespace; the box's fix builds that box: setup --docker for the Docker box, vagrant box add for any other (Q653, Q654)",
  async (t) => {
    const dir = t.testdir({});
    const paste = paster(dir);
    const fixOf = (items: Awaited<ReturnType<typeof runDoctor>>, name: string) =>
      items.find((i) => i.name === name)?.fix ?? '';
    const setupLine = (fix: string) => /^(reboot-harness setup.*?) {3}\(/.exec(fix)?.[1] ?? '';
    for (const [netns, words] of [
      ['mylab', ['--netns', 'mylab']],
      [DEFAULTS.lab.netns, []],
    ] as const) {
      for (const [box, boxWords] of [
        ['nomad-reboot-harness/bookworm', []],
        ['nomad-reboot-harness/bookworm-docker', ['--docker']],
      ] as const) {
        const items = await runDoctor({ deadline: deadlineIn(10_000), workDir: dir, netns, box, run: doctorRun('') });
        t.same(paste(setupLine(fixOf(items, 'qemu'))), ['setup', ...words], `qemu, ${netns}`);
        t.same(paste(setupLine(fixOf(items, 'box'))), ['setup', ...boxWords, ...words], `${box}, ${netns}`);
      }
      // vagrant and its plugin missing: their fix is setup too
      const none: RunCommand = async () => ({ code: 1, stdout: '', stderr: '', durationMs: 1 });
      const missing: RunCommand = async (file, args) =>
        file === 'vagrant' && args[0] === '--version'
          ? Promise.reject(new Error('spawn vagrant ENOENT'))
          : none(file, args, {} as never);
      const bare = await runDoctor({ deadline: deadlineIn(10_000), workDir: dir, netns, run: missing });
      t.same(paste(setupLine(fixOf(bare, 'vagrant'))), ['setup', ...words], `vagrant, ${netns}`);
    }
    // a box that is not the harness's own: setup builds none of it
    const items = await runDoctor({
      deadline: deadlineIn(10_000),
      workDir: dir,
      box: 'generic/debian12',
      run: doctorRun('nomad-reboot-harness/bookworm (libvirt, 0)\n'),
    });
    t.match(fixOf(items, 'box'), /^vagrant box add generic\/debian12 --provider libvirt /);
    t.notMatch(fixOf(items, 'box'), /reboot-harness setup/);
  },
);
