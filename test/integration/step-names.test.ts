// A step's JUnit case keeps one name whatever the run gave it: two runs that differ only in the job's name, its
// count and the settle times produce the same case names; the values are in each case's output and the properties.
// Each step that reports and bench/ look for carries its stable id in the JSON summary, in a pair and in a cluster
// scenario. Through the real CLI main() against the stand-ins (no VMs).
import t, { type Test } from 'tap';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { main } from '../../lib/cli/main.js';
import { standIn } from '../helpers/stand-in-env.js';
import { runOnPair } from '../helpers/stand-in-run.js';

const COUNT3 = fileURLToPath(new URL('../../examples/jobs/count-3.nomad.hcl', import.meta.url));

interface Case {
  name: string;
  classname: string;
  'system-out'?: string;
}

async function junitOf(t: Test, dir: string, job: string, extra: string[]) {
  mkdirSync(dir, { recursive: true });
  const s = await standIn('restored', { cwd: dir });
  t.teardown(() => s.nomad.close());
  const out = ['--reports-dir', join(dir, 'reports'), '--junit', join(dir, 'junit.xml')];
  const build = ['--nomad-binary', '/stand-in/nomad', '--netns', ''];
  const argv = ['run', 'bridge-exec-reboot', ...build, '--job', job, ...out, ...extra];
  const code = await main(argv, s.deps);
  t.equal(code, 0, `the run passed: ${s.err.join('\n').slice(-2000)}`);
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
    readFileSync(join(dir, 'junit.xml'), 'utf8'),
  );
  const suite = xml.testsuites.testsuite;
  const cases = [suite.testcase].flat() as Case[];
  const props = Object.fromEntries(
    ([suite.properties.property].flat() as { name: string; value: string }[]).map((p) => [p.name, p.value]),
  );
  return { steps: cases.filter((c) => c.classname.endsWith('.steps')), props, console: s.err.join('\n') };
}

t.test('another job name, count and settle times: the same step case names', async (t) => {
  const dir = t.testdir({});
  const other = join(dir, 'other.nomad.hcl');
  writeFileSync(
    other,
    readFileSync(COUNT3, 'utf8').replace('default = 3', 'default = 2').replace('"bridge-count-3"', '"review-mixed"'),
  );
  // Note: the stand-in caps the settle times at its own (0.5 s, 0.2 s); the flags still differ, as a user's would
  const a = await junitOf(t, join(dir, 'a'), COUNT3, ['--settle-quiet', '20s', '--settle-confirm', '3s']);
  const b = await junitOf(t, join(dir, 'b'), other, ['--settle-quiet', '30s', '--settle-confirm', '4s']);
  t.ok(a.steps.length > 8, `${a.steps.length} step cases`);
  t.same(
    b.steps.map((c) => c.name),
    a.steps.map((c) => c.name),
    'identical step case names',
  );
  for (const c of [...a.steps, ...b.steps])
    t.notMatch(
      c.name,
      /review-mixed|bridge-count-3|\(\d\)|s unchanged|count-3\.nomad|0\.[25]/,
      `no value in "${c.name}"`,
    );
  // the values are in the case's output, the properties and the console
  const register = (r: typeof a) => r.steps.find((c) => c.name === 'register the job')?.['system-out'] ?? '';
  t.match(register(a), /job\.id: bridge-count-3/);
  t.match(register(b), /job\.id: review-mixed/);
  const healthy = (r: typeof a) =>
    r.steps.find((c) => c.name.startsWith('wait until every alloc of the job runs'))?.['system-out'] ?? '';
  t.match(healthy(a), /job\.expected_allocs: 3/);
  t.match(healthy(b), /job\.expected_allocs: 2/);
  const settle = (r: typeof a) =>
    r.steps.find((c) => c.name.startsWith('wait until the job has settled'))?.['system-out'];
  t.match(settle(b), /reboot\.settle_quiet_s: 0\.5\nreboot\.settle_confirm_s: 0\.2/);
  t.equal(b.props['reboot.settle_confirm_s'], '0.2');
  t.equal(b.props['job.expected_allocs'], '2');
  t.match(b.console, /register the job \[job\.id review-mixed\]/, 'the console shows the value beside the name');
});

t.test('the JSON summary gives each step reports and bench/ look for its stable id', async (t) => {
  const idsOf = (dir: string) => {
    const doc = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as {
      runs: { steps: { name: string; id: string | null }[] }[];
    };
    return doc.runs[0]!.steps;
  };
  const pair = await runOnPair(t, 'bridge-exec-reboot', 'restored', [], { artifacts: false });
  t.equal(pair.code, 0, 'bridge-exec-reboot passed');
  const steps = idsOf(pair.dir);
  const named = (id: string) => steps.filter((s) => s.id === id).map((s) => s.name);
  t.same(named('lab-up'), ['bring up the server and client VMs']);
  t.same(named('install'), ['install Nomad and start the agents']);
  t.match(named('fault'), [/^reboot the client/]);
  t.match(named('settle'), [/^wait until the job has settled/]);
  t.match(named('job-running'), [/^wait until every alloc of the job runs/]);
  t.same(named('teardown'), ['teardown']);
  for (const id of ['connect', 'nomad-ready', 'job-parse', 'job-register', 'observe-before', 'node-back'])
    t.ok(named(id).length > 0, `a step with id ${id}`);
  t.ok(
    steps.some((s) => s.id === null),
    'a step no reader looks for has id null',
  );

  const roll = await runOnPair(t, 'rolling-reboot', 'restored', [], { artifacts: false });
  t.equal(roll.code, 0, 'rolling-reboot passed');
  const cluster = idsOf(roll.dir);
  const ids = new Set(cluster.map((s) => s.id));
  for (const id of ['lab-up', 'install', 'nomad-ready', 'job-register', 'job-running', 'fault', 'node-back'])
    t.ok(ids.has(id), `rolling-reboot: a step with id ${id}`);
  t.notMatch(
    cluster.find((s) => s.id === 'fault')?.name,
    /^(reboot|disrupt) the client/,
    "the cluster's fault step has a name no old pattern knew; its id finds it",
  );
});
