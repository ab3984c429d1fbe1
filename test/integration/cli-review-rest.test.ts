// The rest of the 2026-12-06 CLI review's rows (docs/cli-defects.md), each through the real main() with the stand-ins
// and --plan: a flag no cell reads is refused (N17), HARNESS_REPEAT is a checked variable of `repeat` (N18).
import t, { type Test } from 'tap';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.js';
import { standInPerRun } from '../helpers/stand-in-env.js';
import type { Plan } from '../../lib/plan/plan.js';

const NOMAD = '/stand-in/nomad-1.9.7';

function cli(t: Test) {
  const dir = t.testdir({});
  const s = standInPerRun({ [NOMAD]: { timeline: 'restored', version: '1.9.7' } }, { cwd: dir });
  t.teardown(() => Promise.all(s.runs.map((r) => r.nomad.close())));
  const deps = {
    ...s.deps,
    makeEnv: () => {
      throw new Error('--plan must not make a lab');
    },
  };
  return {
    s,
    run: async (argv: string[], env: Record<string, string> = {}) => {
      s.out.length = 0;
      s.err.length = 0;
      const code = await main([...argv, '--netns', '', '--reports-dir', join(dir, 'reports')], {
        ...deps,
        env: { ...deps.env, ...env },
      });
      return { code, out: s.out.join(''), err: s.err.join('') };
    },
  };
}

t.test('a fault option or a cluster flag that no cell reads is refused, as --drain is (N17)', async (t) => {
  const c = cli(t);
  const both = await c.run(['run', '--nomad', NOMAD, '--off-for', '30s', '--partition-for', '2m', '--plan']);
  t.equal(both.code, 2, both.err);
  t.match(
    both.err,
    /--off-for: is read only by --reboot power-off and power-loss-all; .* is graceful, so it would be ignored/,
  );
  t.match(
    both.err,
    /--partition-for: is read only by --reboot partition and leader-partition; .*fix: drop --partition-for, or give --reboot partition/,
  );
  const leader = await c.run(['run', '--nomad', NOMAD, '--leader-within', '10s', '--plan']);
  t.equal(leader.code, 2);
  t.match(
    leader.err,
    /--leader-within: is not used by bridge-exec-reboot \(only by rolling-reboot and server-reboot\), so it would be ignored/,
  );
  for (const flag of ['--max-gap', '--probe-interval', '--drain-deadline']) {
    const r = await c.run(['run', '--nomad', NOMAD, flag, '5s', '--plan']);
    t.equal(r.code, 2, `${flag} on bridge-exec-reboot`);
    t.match(r.err, new RegExp(`${flag}: is not used by bridge-exec-reboot`));
  }
  // where they are read, they are taken
  const power = await c.run(['run', '--nomad', NOMAD, '--reboot', 'power-off', '--off-for', '30s', '--plan']);
  t.equal(power.code, 0, power.err);
  t.equal((JSON.parse(power.out) as { plan: Plan }).plan.cells[0]!.config.reboot.offForS, 30);
  const leaderPartition = await c.run([
    'run',
    'server-reboot',
    '--nomad',
    NOMAD,
    '--servers',
    '3',
    '--reboot',
    'leader-partition',
    '--partition-for',
    '40s',
    '--leader-within',
    '10s',
    '--plan',
  ]);
  t.equal(leaderPartition.code, 0, `leader-partition reads partition_for: ${leaderPartition.err}`);
});

t.test('HARNESS_REPEAT is the variable of `repeat`: read, checked and named as itself (N18, H11)', async (t) => {
  const c = cli(t);
  const three = await c.run(['run', '--nomad', NOMAD, '--plan'], { HARNESS_REPEAT: '3' });
  t.equal(three.code, 0, three.err);
  t.equal((JSON.parse(three.out) as { plan: Plan }).plan.cells.length, 3, 'three attempts');
  const bad = await c.run(['run', '--nomad', NOMAD, '--plan'], { HARNESS_REPEAT: 'abc' });
  t.equal(bad.code, 2);
  t.match(bad.err, /env HARNESS_REPEAT: must be a whole number from 1 to 100 \(got "abc"/);
  const compare = await c.run(['compare', '--before', NOMAD, '--after', NOMAD, '--plan'], { HARNESS_REPEAT: '5' });
  t.equal(compare.code, 2);
  t.match(
    compare.err,
    /env HARNESS_REPEAT: applies to run only, not compare \(got "5"; fix: unset HARNESS_REPEAT, or use run\)/,
  );
  t.notMatch(compare.err, /--repeat/, 'no flag that was never given');
});
