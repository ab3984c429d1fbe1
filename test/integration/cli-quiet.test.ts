// --quiet through the real CLI against STAND-INS: a run prints its verdict line and the checks that did not meet their
// expectation, nothing else (no progress, no summary, no report paths, no repro command).
import t, { type Test } from 'tap';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import type { Timeline } from '../helpers/fake-nomad/index.js';

async function quietRun(t: Test, timeline: Timeline) {
  const dir = t.testdir({});
  const s = standInPerRun({ '/stand-in/nomad-1.9.7': { timeline, version: '1.9.7' } }, { cwd: dir });
  t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
  const code = await main(
    [
      'run',
      'bridge-exec-reboot',
      '--nomad',
      '/stand-in/nomad-1.9.7',
      '--quiet',
      '--reports-dir',
      join(dir, 'reports'),
      '--netns',
      '',
    ],
    s.deps,
  );
  return { code, out: s.out.join(''), err: s.err.join('') };
}

t.test('run --quiet: a failed run is its verdict line and the names of the checks not met', async (t) => {
  const r = await quietRun(t, 'duplicate-ip');
  t.equal(r.code, 1);
  const lines = r.out.trimEnd().split('\n');
  t.equal(lines.length, 2, r.out);
  t.match(
    lines[0],
    /^FAIL bridge-exec-reboot@1\.9\.7 — \d+ checks: \d+ passed, 0 expected failures, [1-9]\d* failed, \d+ skipped \(/,
  );
  t.match(lines[1], /^ {2}not met: .*no-duplicate-ip/);
  t.equal(r.err, '', 'no progress on stderr');
});

t.test('run --quiet: a passed run is one line', async (t) => {
  const r = await quietRun(t, 'restored');
  t.equal(r.code, 0);
  t.match(r.out, /^PASS bridge-exec-reboot@1\.9\.7 — \d+ checks: .*\n$/);
  t.equal(r.out.split('\n').length, 2, r.out);
});
