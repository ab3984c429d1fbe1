// The CLI's twentieth adversarial pass (docs/cli-defects.md, rows Q198 on), through the real CLI: merge's --out a
// folder that holds a run's own reports (written over, and the run left out of the merge: a failed run's folder gave
// exit 0).
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from '../helpers/cli-child.js';
import { cliIn } from '../helpers/cli-in.js';

t.setTimeout(3 * 60_000);

const scenario = (name: string, status: 'passed' | 'failed') =>
  `import { defineScenario, defineCheck, judgeAll } from 'nomad-reboot-harness/scenario';
const CHECKS = [defineCheck({ id: 'c', title: 'c', passesWhen: 'always', judge: () => ({ status: '${status}', message: '${status}' }) })];
export default defineScenario({ name: '${name}', summary: 'no lab', needsNomad: false, roles: ['client'], checks: CHECKS,
  async run() { return judgeAll(CHECKS, {}); } });
`;
const USC = {
  'package.json': '{ "type": "module" }\n',
  'ok.ts': scenario('ok', 'passed'),
  'bad.ts': scenario('bad', 'failed'),
};

t.test("merge --out a folder holding a run's reports is refused, the run left as it was (Q198)", async (t) => {
  const dir = t.testdir({
    usc: USC,
    'm.yaml': 'scenario: [ok, bad]\naxes:\n  reboot: [graceful]\ndefaults:\n  scenarios_dir: usc\n',
  });
  const cli = cliIn(dir, { entry: CLI, timeoutMs: 0 });
  t.equal(cli('run', 'ok', '--scenarios', 'usc', '--reports-dir', 'rep', '--netns', '').status, 0);
  t.equal(cli('run', 'bad', '--scenarios', 'usc', '--reports-dir', 'rep', '--netns', '').status, 1);
  const failed = readdirSync(join(dir, 'rep')).find(
    (id) => JSON.parse(readFileSync(join(dir, 'rep', id, 'summary.json'), 'utf8')).outcome === 'failed',
  )!;
  const before = readFileSync(join(dir, 'rep', failed, 'summary.json'), 'utf8');
  const into = cli('merge', 'rep', '--out', join('rep', failed));
  t.equal(into.status, 2, 'not a merge of the passing run alone (exit 0)');
  t.match(into.stderr, new RegExp(`--out: holds the reports of run ${failed} \\(rep/${failed}/summary\\.json\\)`));
  t.match(into.stderr, /would be written over them; it lies inside the input folder rep/);
  t.equal(readFileSync(join(dir, 'rep', failed, 'summary.json'), 'utf8'), before, "the run's report kept");
  const elsewhere = cli('merge', join('rep', failed, 'summary.json'), '--out', join('rep', failed));
  t.equal(elsewhere.status, 2, 'a run folder given as --out beside its own summary.json');
  // the GitLab template's layout: reports/shard-<i>/junit.xml with the matrix's summary.json in a folder below
  for (const i of [1, 2])
    cli(
      'matrix',
      'm.yaml',
      '--shard',
      `${i}/2`,
      '--netns',
      '',
      '--reports-dir',
      `gl/shard-${i}`,
      '--junit',
      `gl/shard-${i}/junit.xml`,
    );
  const shard = cli('merge', 'gl', '--out', 'gl/shard-1');
  t.equal(shard.status, 2);
  t.match(shard.stderr, /--out: holds the reports of run .*gl\/shard-1\/junit\.xml.*so those runs would be left out/);
  const merged = cli('merge', 'gl', '--out', 'gl/merged');
  t.equal(merged.status, 1, 'a folder of its own: both shards merged, the failed cell counted');
  t.match(merged.stdout, /merged 2 suites from 2 JSON reports/);
  t.equal(cli('merge', 'gl', '--out', 'gl/merged').status, 1, "a merge's own output is written over when run again");
});
