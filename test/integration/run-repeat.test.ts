// `run --repeat N` through the real CLI against STAND-INS (a fresh Nomad API stand-in and stand-in lab per attempt, as
// every real attempt gets fresh VMs): each attempt is its own JUnit suite, and the attempts are judged together.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import { standInRunArgs } from '../helpers/stand-in-run.js';
import type { Timeline } from '../helpers/fake-nomad/index.js';

async function repeat(t: Test, timelines: Timeline[]) {
  const dir = t.testdir({});
  let i = 0;
  // Note: each attempt's stand-in reads the timeline when its lab comes up: attempt k gets timelines[k]
  const build = {
    get timeline() {
      return timelines[i++]!;
    },
    version: '1.9.7',
  };
  const s = standInPerRun({ '/stand-in/nomad-1.9.7': build }, { cwd: dir });
  t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
  const argv = [
    ...standInRunArgs(dir, 'bridge-exec-reboot', '/stand-in/nomad-1.9.7'),
    '--repeat',
    String(timelines.length),
  ];
  const code = await main(argv, s.deps);
  return { code, out: s.out.join(''), junit: readFileSync(join(dir, 'junit.xml'), 'utf8'), runs: s.runs };
}

t.test('a failure in one attempt of three is flagged flaky, naming the attempts to compare', async (t) => {
  const r = await repeat(t, ['restored', 'duplicate-ip', 'restored']);
  t.equal(r.code, 1, 'a failed attempt still fails the command');
  t.equal(r.runs.length, 3, 'three attempts, each on fresh stand-ins');
  t.match(
    r.out,
    /bridge-exec-reboot: FLAKY: 1 of 3 attempts did not pass \(flake rate 33%\); compare (r\w+) \(.*no-duplicate-ip=failed.*\) vs (r\w+) \(passed\)/,
  );
  t.match(r.out, /attempt 2: r\w+ failed \(/);
  for (const k of [1, 2, 3])
    t.match(r.junit, new RegExp(`<testsuite name="bridge-exec-reboot@1\\.9\\.7#${k}"`), `suite of attempt ${k}`);
});

t.test('the same failure every attempt is a verdict, not a flake', async (t) => {
  const r = await repeat(t, ['duplicate-ip', 'duplicate-ip']);
  t.equal(r.code, 1);
  t.match(
    r.out,
    /bridge-exec-reboot: failed 2 of 2 attempts the same way \(.*no-duplicate-ip=failed.*\): a verdict, not a flake/,
  );
});

t.test('--repeat applies to run only: compare and matrix refuse it before anything is created', async (t) => {
  const dir = t.testdir({});
  const s = standInPerRun({}, { cwd: dir });
  const code = await main(
    ['compare', 'bridge-exec-reboot', '--before', '/a', '--after', '/b', '--repeat', '2', '--netns', ''],
    s.deps,
  );
  t.equal(code, 2);
  // the parser refuses it now: compare's options do not list --repeat (its help no longer documents it either)
  t.match(s.err.join(''), /--repeat: is an option of `run`, `bisect`, not of `compare` \(got "--repeat"; fix: drop it/);
  t.equal(s.runs.length, 0, 'nothing was created');
});
