// The CLI's twenty-third adversarial pass, part B (docs/cli-defects.md, rows Q310 on), through the real CLI: a merged
// report of two matrices merged again, and a shard run twice.
// Each line runs main() in this process (test/helpers/cli-no-lab.ts: the real CLI's checks, the user scenarios under
// tsx, no lab).
import t from 'tap';
import '../helpers/ts-loader.js';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { noLabLines } from '../helpers/cli-no-lab.js';
import { lablessScenarioSource } from '../helpers/labless-scenario.js';

t.setTimeout(6 * 60_000); // a deadline, not a speed goal: beside the other tiers on 2 cores

/** The CLI's main() in `dir` (its working directory too), a line at a time; labless scenarios run, no lab is made. */
const cliAt = (dir: string) => noLabLines(dir, undefined, { labless: true, realChecks: true, chdir: true });

const scenario = lablessScenarioSource;

const project = {
  usc: {
    'package.json': '{ "type": "module" }\n',
    'ok.ts': scenario('ok', 'passed'),
    'ok2.ts': scenario('ok2', 'passed'),
    'bad.ts': scenario('bad', 'failed'),
  },
  ci: {
    // 2 cells in 2 shards; 1 cell in 1 shard (ok2)
    'm.yaml': 'scenario: [ok, bad]\naxes:\n  reboot: [graceful]\ndefaults:\n  scenarios_dir: usc\n',
    'n.yaml': 'scenario: [ok2, ok]\naxes:\n  reboot: [hard]\ndefaults:\n  scenarios_dir: usc\n',
  },
};

t.test(
  'merge of a merged report of two matrices: merged again, not refused as two files of one name (Q310)',
  async (t) => {
    const dir = t.testdir(project);
    const cli = cliAt(dir);
    const shard = async (file: string, spec: string, out: string) =>
      (await cli('matrix', file, '--shard', spec, '--reports-dir', out, '--junit', `${out}/junit.xml`, '--netns', ''))
        .status;
    t.equal(await shard('ci/m.yaml', '1/2', 'reports/m-1'), 0);
    t.equal(await shard('ci/m.yaml', '2/2', 'reports/m-2'), 1);
    t.equal(await shard('ci/n.yaml', '1/2', 'reports/n-1'), 0);
    t.equal(await shard('ci/n.yaml', '2/2', 'reports/n-2'), 0);
    const first = await cli('merge', 'reports', '--out', 'all');
    t.equal(first.status, 1, 'both matrices complete: the failed cell is the verdict');
    const again = await cli('merge', 'all', '--out', 'all2');
    t.equal(again.status, 1, 'the merged report merged again: the same verdict, not exit 2');
    t.notMatch(again.stderr, /two matrix files of that name/);
    t.match(again.stdout, /merged 4 suites from 1 JSON reports/);
    // a merged report of one complete matrix beside the other's shard 1/2 alone: still told the missing shard
    t.equal((await cli('merge', 'reports/m-1', 'reports/m-2', '--out', 'm-only')).status, 1);
    const part = await cli('merge', 'm-only', 'reports/n-1', '--out', 'part');
    t.equal(part.status, 2, "n.yaml's shard 2/2 missing beside a merged report");
    t.match(part.stderr, /the reports of ci\/n\.yaml hold shard 1\/2, not 2\/2/);
  },
);

t.test('merge where one shard ran twice (a retried job): the shard and the earlier run named (Q311)', async (t) => {
  const dir = t.testdir(project);
  const cli = cliAt(dir);
  const shard = async (spec: string, out: string) => {
    const where = ['--reports-dir', out, '--junit', `${out}/junit.xml`, '--netns', ''];
    return (await cli('matrix', 'ci/m.yaml', '--shard', spec, ...where)).status;
  };
  t.equal(await shard('1/2', 'reports/shard-1'), 0);
  t.equal(await shard('2/2', 'reports/shard-2'), 1);
  const earlier = await cli('merge', 'reports', '--out', 'merged');
  t.equal(earlier.status, 1);
  t.equal(await shard('2/2', 'reports/shard-2'), 1, 'the retry, into the same folder');
  const twice = await cli('merge', 'reports', '--out', 'merged');
  t.equal(twice.status, 2, 'a cell counted twice: refused');
  t.match(twice.stderr, /shard 2\/2 of ci\/m\.yaml ran twice \(a retried job/);
  t.notMatch(twice.stderr, /one cell ran on two runners/);
  t.notMatch(twice.stderr, /check the shard split/);
  const old = /move (reports\/shard-2\/matrix-\w+) out of the inputs/.exec(twice.stderr)?.[1];
  t.ok(old, "names the earlier run's folder");
  renameSync(join(dir, old!), join(dir, 'earlier'));
  t.equal((await cli('merge', 'reports', '--out', 'merged')).status, 1, 'with the earlier run moved away: merged');
});
