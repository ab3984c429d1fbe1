// The CLI's twenty-second adversarial pass, part B (docs/cli-defects.md, rows Q270 on), through the real CLI: merge's
// check of a matrix's missing shards when two matrix files share a name.
// Each line runs main() in this process (test/helpers/cli-no-lab.ts: the real CLI's checks, the user scenarios under
// tsx, no lab).
import t from 'tap';
import '../helpers/ts-loader.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { noLabLines } from '../helpers/cli-no-lab.js';
import { lablessScenarioSource } from '../helpers/labless-scenario.js';

t.setTimeout(6 * 60_000); // a deadline, not a speed goal: beside the other tiers on 2 cores

/** The CLI's main() in `dir` (its working directory too), a line at a time; labless scenarios run, no lab is made. */
const cliAt = (dir: string) => noLabLines(dir, undefined, { labless: true, realChecks: true, chdir: true });

const scenario = lablessScenarioSource;

t.test('merge: two matrix files of one name, one of them with a shard missing (Q270)', async (t) => {
  const dir = t.testdir({
    usc: {
      'package.json': '{ "type": "module" }\n',
      'ok.ts': scenario('ok', 'passed'),
      'ok2.ts': scenario('ok2', 'passed'),
      'ok3.ts': scenario('ok3', 'passed'),
      'bad.ts': scenario('bad', 'failed'),
    },
    // 4 cells, both shards run
    a: { 'm.yaml': 'scenario: [ok, ok2]\naxes:\n  reboot: [graceful, hard]\ndefaults:\n  scenarios_dir: usc\n' },
    // 2 cells: shard 1/2 runs ok3 (passes), shard 2/2 the failing bad, whose runner's artifact is missing
    b: { 'm.yaml': 'scenario: [ok3, bad]\naxes:\n  reboot: [graceful]\ndefaults:\n  scenarios_dir: usc\n' },
  });
  const cli = cliAt(dir);
  const run = async (file: string, ...a: string[]) => (await cli('matrix', file, '--netns', '', ...a)).status;
  t.equal(await run('a/m.yaml', '--shard', '1/2', '--reports-dir', 'reports/a-1'), 0);
  t.equal(await run('a/m.yaml', '--shard', '2/2', '--reports-dir', 'reports/a-2'), 0);
  t.equal(await run('b/m.yaml', '--shard', '1/2', '--reports-dir', 'reports/b-1'), 0);
  const rel = await cli('merge', 'reports', '--out', 'merged');
  t.equal(rel.status, 2, "b/m.yaml's failing shard missing: not PASS and exit 0");
  t.match(rel.stderr, /the reports of b\/m\.yaml hold shard 1\/2, not 2\/2: 1 of its 2 cells would be left out/);
  t.notMatch(rel.stdout, /merged 5 suites/);

  // the same, each matrix given by its absolute path (the name alone tells them apart no more)
  mkdirSync(join(dir, 'abs'));
  t.equal(await run(join(dir, 'a', 'm.yaml'), '--shard', '1/2', '--reports-dir', 'abs/a-1'), 0);
  t.equal(await run(join(dir, 'a', 'm.yaml'), '--shard', '2/2', '--reports-dir', 'abs/a-2'), 0);
  t.equal(await run(join(dir, 'b', 'm.yaml'), '--shard', '1/2', '--reports-dir', 'abs/b-1'), 0);
  const abs = await cli('merge', 'abs', '--out', 'merged-abs');
  t.equal(abs.status, 2, 'two matrices of one name by absolute paths: told, not merged as one');
  t.match(abs.stderr, /hold 5 cells, more than the 4 of the matrix: they are of two matrix files of that name/);

  // each matrix merged on its own: a complete, the other told its missing shard
  t.equal((await cli('merge', 'reports/a-1', 'reports/a-2', '--out', 'm-a')).status, 0, 'a/m.yaml complete');
});
