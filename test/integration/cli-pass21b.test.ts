// The CLI's twenty-first adversarial pass, part B (docs/cli-defects.md, rows Q230 on), through the real CLI: merge's
// check of a matrix's missing shards across CI runners (each its own checkout path), in the per-cell fan-out and with
// a re-run standing in for a runner; problems told at once; a huge file among the inputs; a file's text in a message.
// Each line runs main() in this process (test/helpers/cli-no-lab.ts: the real CLI's checks, the user scenarios under
// tsx, no lab).
import t from 'tap';
import '../helpers/ts-loader.js';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { noLabLines } from '../helpers/cli-no-lab.js';
import { lablessScenarioSource } from '../helpers/labless-scenario.js';

t.setTimeout(6 * 60_000); // a deadline, not a speed goal: beside the other tiers on 2 cores

/** The CLI's main() in `dir` (its working directory too), a line at a time; labless scenarios run, no lab is made. */
const cliAt = (dir: string) => noLabLines(dir, undefined, { labless: true, realChecks: true, chdir: true });

const scenario = lablessScenarioSource;

t.test('merge of a matrix: shards from other checkouts, one job per cell, re-runs in place of a shard', async (t) => {
  const dir = t.testdir({
    usc: {
      'package.json': '{ "type": "module" }\n',
      'ok.ts': scenario('ok', 'passed'),
      'bad.ts': scenario('bad', 'failed'),
    },
    // 4 cells; --shard 1/2 runs ok/reboot=graceful and bad/reboot=graceful, 2/2 the two reboot=hard cells
    'm.yaml': 'scenario: [ok, bad]\naxes:\n  reboot: [graceful, hard]\ndefaults:\n  scenarios_dir: usc\n',
    'token.json': 'ghp_16C7e42F292c6912E7710c838347Ae178B4a\n',
  });
  const cli = cliAt(dir);
  const run = async (...a: string[]) => (await cli('matrix', 'm.yaml', '--netns', '', ...a)).status;
  t.equal(await run('--shard', '1/2', '--reports-dir', 'r/s1'), 1);
  t.equal(await run('--shard', '2/2', '--reports-dir', 'r/s2'), 1);
  t.equal(await run('--cell', 'ok/reboot=graceful', '--reports-dir', 'cells/c1'), 0);
  t.equal(await run('--cell', 'ok/reboot=hard', '--reports-dir', 'cells/c2'), 0);
  t.equal(await run('--cell', 'bad/reboot=hard', '--reports-dir', 'redo/c3'), 1);

  // Q230: each runner checked the project out in a folder of its own (GitLab: builds/<runner>/<n>/<group>/<project>)
  const s2 = join(dir, 'r', 's2', readdirSync(join(dir, 'r', 's2')).find((d) => d.startsWith('matrix-'))!);
  const summary = join(s2, 'summary.json');
  const text = readFileSync(summary, 'utf8');
  writeFileSync(summary, text.split(JSON.stringify(join(dir, 'm.yaml'))).join('"/builds/x1y2/1/grp/proj/m.yaml"'));
  t.not(readFileSync(summary, 'utf8'), text, "the second shard's matrix path is another checkout's");
  const across = await cli('merge', 'r', '--out', 'merged');
  t.equal(across.status, 1, 'every shard given: the failed cells counted, not refused as missing shards (Q230)');
  t.match(across.stdout, /merged 4 suites from 2 JSON reports/);
  t.notMatch(across.stderr, /would be left out/);

  // Q231: one job per cell (docs/ci.md), two of the four cells' artifacts present: not PASS and exit 0
  const half = await cli('merge', 'cells', '--out', 'm-cells');
  t.equal(half.status, 2, 'two of four --cell jobs: refused');
  t.match(
    half.stderr,
    /the reports of m\.yaml are 2 --cell runs, not one per cell: 2 of its 4 cells would be left out/,
  );
  t.equal(
    (await cli('merge', 'cells/c1', '--out', 'm-one')).status,
    0,
    'one --cell re-run merged alone asks for no other cell',
  );
  // shard 2/2's runner died; its two cells re-run with --cell stand in for it
  const stand = await cli('merge', 'r/s1', 'cells/c2', 'redo/c3', '--out', 'm-redo');
  t.equal(stand.status, 1, 'every cell among the inputs: merged, the failed cells counted (Q231)');
  t.match(stand.stdout, /merged 4 suites from 3 JSON reports/);

  // Q232: an input that does not exist and a missing shard, told in one exit 2
  const both = await cli('merge', 'r/s1', 'nosuch', '--out', 'm-typo');
  t.equal(both.status, 2);
  t.match(both.stderr, /nosuch.*cannot be read \(ENOENT\)|cannot be read \(ENOENT\).*nosuch/);
  t.match(
    both.stderr,
    /hold shard 1\/2, not 2\/2: 2 of its 4 cells would be left out/,
    'the missing shard at once (Q232)',
  );

  // Q233: a 1 GiB file named .xml among a runner's artifacts (sparse: no disk used)
  const huge = join(dir, 'r', 's1', 'libvirt-dump.xml');
  writeFileSync(huge, '');
  truncateSync(huge, 1024 ** 3);
  const big = await cli('merge', 'r', '--out', 'm-big');
  t.equal(big.status, 2, 'told as an input problem, not exit 70 (Q233)');
  t.notMatch(big.stderr, /internal error|RangeError/);
  t.match(
    big.stderr,
    /r\/s1\/libvirt-dump\.xml.*is larger than 256 MiB|is larger than 256 MiB.*r\/s1\/libvirt-dump\.xml/,
  );

  // Q234: a token file given by mistake: its first characters are not quoted from JSON.parse's message
  const tok = await cli('merge', 'token.json', '--out', 'm-tok');
  t.equal(tok.status, 2);
  t.match(tok.stderr, /token\.json/);
  t.notMatch(tok.stderr, /ghp_16C7/, "no part of the file's text in the message");
});

t.test("merge --out whose junit.xml is a link to an input's: refused, the input kept (Q235)", async (t) => {
  const dir = t.testdir({
    usc: { 'package.json': '{ "type": "module" }\n', 'bad.ts': scenario('bad', 'failed') },
  });
  const cli = cliAt(dir);
  t.equal(
    (await cli('run', 'bad', '--scenarios', 'usc', '--reports-dir', 'rep', '--junit', 'rep/junit.xml', '--netns', ''))
      .status,
    1,
  );
  t.equal((await cli('merge', 'rep', '--out', 'out')).status, 1, "a merge's own folder");
  const input = join(dir, 'rep', 'junit.xml');
  const before = readFileSync(input, 'utf8');
  rmSync(join(dir, 'out', 'junit.xml'));
  symlinkSync(join('..', 'rep', 'junit.xml'), join(dir, 'out', 'junit.xml'));
  const again = await cli('merge', 'rep', '--out', 'out');
  t.equal(again.status, 2, 'not written through the link');
  t.match(again.stderr, /--out: holds junit\.xml, a link to the input rep\/junit\.xml/);
  t.equal(readFileSync(input, 'utf8'), before, "the run's JUnit report kept");
});

t.test("merge --copy-attachments where <out>/<run id> is a link to another run's folder: refused (Q236)", async (t) => {
  const dir = t.testdir({
    usc: {
      'package.json': '{ "type": "module" }\n',
      'ok.ts': scenario('ok', 'passed'),
      'bad.ts': scenario('bad', 'failed'),
    },
    elsewhere: {},
  });
  const cli = cliAt(dir);
  t.equal((await cli('run', 'ok', '--scenarios', 'usc', '--reports-dir', 'rep', '--netns', '')).status, 0);
  t.equal((await cli('run', 'bad', '--scenarios', 'usc', '--reports-dir', 'rep', '--netns', '')).status, 1);
  const [a, b] = readdirSync(join(dir, 'rep')).sort();
  const page = join(dir, 'rep', a!, 'report.html');
  const before = readFileSync(page, 'utf8');
  mkdirSync(join(dir, 'out'));
  symlinkSync(join('..', 'rep', a!), join(dir, 'out', b!));
  const into = await cli('merge', 'rep', '--out', 'out', '--copy-attachments');
  t.equal(into.status, 2, 'not copied through the link');
  t.match(into.stderr, new RegExp(`--out: holds out/${b}, a link to rep/${a}`));
  t.equal(readFileSync(page, 'utf8'), before, "the other run's page kept");
  mkdirSync(join(dir, 'out2'));
  symlinkSync(join('..', 'elsewhere'), join(dir, 'out2', a!));
  t.equal((await cli('merge', 'rep', '--out', 'out2', '--copy-attachments')).status, 2);
  t.same(readdirSync(join(dir, 'elsewhere')), [], 'nothing copied outside --out');
  t.equal((await cli('merge', 'rep', '--out', 'out3', '--copy-attachments')).status, 1, 'a folder of its own: copied');
});

t.test(
  'merge --out that cannot be written names --out (Q237); a dangling link as --out is exit 2 (Q238)',
  async (t) => {
    const dir = t.testdir({
      usc: { 'package.json': '{ "type": "module" }\n', 'ok.ts': scenario('ok', 'passed') },
    });
    const cli = cliAt(dir);
    t.equal((await cli('run', 'ok', '--scenarios', 'usc', '--reports-dir', 'rep', '--netns', '')).status, 0);
    mkdirSync(join(dir, 'out', 'index.html'), { recursive: true });
    const blocked = await cli('merge', 'rep', '--out', 'out');
    t.equal(blocked.status, 3);
    t.match(blocked.stderr, /could not write the html file .*out\/index\.html \(under --out\)/);
    t.notMatch(blocked.stderr, /--reports-dir/, 'not the flag that does not choose where a merge writes');
    symlinkSync(join(dir, 'gone', 'deeper'), join(dir, 'dangling'));
    const link = await cli('merge', 'rep', '--out', 'dangling');
    t.equal(link.status, 2, 'told before anything is merged, not exit 3 after three failed writes');
    t.match(link.stderr, /--out: is a symbolic link to .*gone\/deeper, which does not exist/);
    t.notMatch(link.stdout, /reports: \n/);
  },
);
