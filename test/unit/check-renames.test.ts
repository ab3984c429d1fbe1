// A renamed check keeps its old id working for expectations (--expect, harness.yaml, matrix files), moved to the new id
// with a warning that names it: cni-ipam-reboot's `client-rebooted` is `host-rebooted`, upgrade-in-place's `unique-ips`
// is `unique-ips-after-upgrade`. Where the old id is still another check's own (the reboot scenario's), nothing moves.
import t from 'tap';
import { plannerOver } from '../helpers/planner.js';
import { planSession } from '../../lib/plan/plan.js';
import { configInSlot } from '../../lib/plan/session-plan.js';
import { SCENARIOS } from '../../lib/cli/scenarios.js';
import { expectableIds, formerIds, withCurrentIds } from '../../lib/checks/expect-ids.js';
import { CLIENT_REBOOTED } from '../../lib/checks/client-rebooted.js';
import { HOST_REBOOTED } from '../../lib/checks/host-rebooted.js';
import { UNIQUE_IPS } from '../../lib/checks/unique-ips.js';
import { UNIQUE_IPS_AFTER_UPGRADE } from '../../lib/checks/unique-ips-after-upgrade.js';
import { TMPFS_STATE_CLEAN } from '../../lib/checks/tmpfs-state-clean.js';

const checksOf = (name: string) => SCENARIOS.find((s) => s.name === name)!.checks;
const { input, ok } = plannerOver(SCENARIOS);

t.test('the renames are on the checks themselves', async (t) => {
  t.same(HOST_REBOOTED.formerly, [CLIENT_REBOOTED.id]);
  t.same(UNIQUE_IPS_AFTER_UPGRADE.formerly, [UNIQUE_IPS.id]);
  t.same(formerIds(checksOf('cni-ipam-reboot')), ['client-rebooted']);
  t.same(formerIds(checksOf('upgrade-in-place')), ['unique-ips']);
  t.same(formerIds(checksOf('bridge-exec-reboot')), [], 'the reboot scenario renamed nothing');
  t.same(
    expectableIds(checksOf('cni-ipam-reboot')),
    [...checksOf('cni-ipam-reboot').map((c) => c.id), 'client-rebooted'],
    'the ids first, then the old ones',
  );
});

t.test(
  'withCurrentIds: an old id moves to its check with a warning; the new id given too wins; others stay',
  async (t) => {
    const cni = checksOf('cni-ipam-reboot');
    const moved = withCurrentIds({ 'client-rebooted': 'fail', [TMPFS_STATE_CLEAN.id]: 'pass' }, cni, 'cni-ipam-reboot');
    t.same(moved.perCheck, { 'host-rebooted': 'fail', 'tmpfs-state-clean': 'pass' });
    t.same(moved.warnings, [
      'expectation client-rebooted=fail (scenario cni-ipam-reboot): the check client-rebooted is now host-rebooted; the old id is deprecated, write host-rebooted=fail',
    ]);
    t.same(
      withCurrentIds({ 'client-rebooted': 'fail', 'host-rebooted': 'pass' }, cni, 'cni-ipam-reboot').perCheck,
      { 'host-rebooted': 'pass' },
      'the new id wins',
    );
    t.same(
      withCurrentIds({ 'client-rebooted': 'fail' }, checksOf('bridge-exec-reboot'), 'bridge-exec-reboot'),
      { perCheck: { 'client-rebooted': 'fail' }, warnings: [] },
      "still the reboot scenario's own id",
    );
  },
);

t.test('run: --expect and harness.yaml under an old id reach the renamed check, with one warning each', async (t) => {
  const cni = ok(input('run', ['cni-ipam-reboot'], { expect: ['client-rebooted=fail'] }));
  t.same(cni.cells[0]!.config.expect.perCheck, { 'host-rebooted': 'fail' });
  t.equal(cni.warnings.length, 1);
  t.match(
    cni.warnings[0],
    /the check client-rebooted is now host-rebooted; the old id is deprecated, write host-rebooted=fail/,
  );

  const harness = { name: 'h.yaml', data: { expect: { checks: { 'unique-ips': 'fail' } } } };
  const up = ok(
    input('run', ['upgrade-in-place'], { 'nomad-binary': './a', 'upgrade-mode': 'restart-only' }, { harness }),
  );
  t.same(up.cells[0]!.config.expect.perCheck, { 'unique-ips-after-upgrade': 'fail' });
  t.match(up.warnings, [
    /unique-ips=fail \(scenario upgrade-in-place\): the check unique-ips is now unique-ips-after-upgrade/,
  ]);

  const bridge = ok(
    input('run', ['bridge-exec-reboot'], {
      'nomad-binary': './a',
      expect: ['client-rebooted=fail', 'unique-ips=fail'],
    }),
  );
  t.same(bridge.cells[0]!.config.expect.perCheck, { 'client-rebooted': 'fail', 'unique-ips': 'fail' });
  t.same(bridge.warnings, [], "the reboot scenario's own checks: no warning");
});

t.test('run --all: the old id applies where it did, under the new name where the check was renamed', async (t) => {
  const p = ok(
    input('run', [], { all: true, 'nomad-binary': './a', 'upgrade-to': './b', expect: ['client-rebooted=fail'] }),
  );
  const by = (name: string) => p.cells.find((c) => c.scenario === name)!.config.expect.perCheck;
  t.same(by('bridge-exec-reboot'), { 'client-rebooted': 'fail' });
  t.same(by('cni-ipam-reboot'), { 'host-rebooted': 'fail' });
  t.same(
    by('upgrade-in-place'),
    { 'client-rebooted': 'fail' },
    "its restore checks include the reboot scenario's client-rebooted",
  );
  t.equal(p.warnings.length, 1, 'one warning, for cni-ipam-reboot');
  t.match(p.warnings[0], /scenario cni-ipam-reboot/);
});

t.test('compare and matrix files take the old id too', async (t) => {
  const c = ok(
    input('compare', ['upgrade-in-place'], {
      before: './a',
      after: './b',
      'upgrade-to': './c',
      expect: ['unique-ips=fail'],
    }),
  );
  t.same(
    c.cells.map((x) => x.config.expect.perCheck),
    [{}, { 'unique-ips-after-upgrade': 'fail' }],
    'the after cell; the before cell is shown as it is',
  );
  t.equal(c.warnings.length, 1);

  const matrix = {
    scenario: 'upgrade-in-place',
    axes: {
      nomad: [{ name: '1.9.5', binary: './n5', upgrade_to: './n7', expect: ['unique-ips=fail'] }],
      reboot: ['graceful', 'hard'],
    },
  };
  const m = ok(
    input('matrix', ['m.yaml'], {}, { matrixFile: { data: matrix, name: 'm.yaml', path: '/w/m.yaml', dir: '/w' } }),
  );
  for (const cell of m.cells) {
    t.same(cell.config.expect.perCheck, { 'unique-ips-after-upgrade': 'fail' }, cell.key);
    t.same(
      configInSlot(cell.config, 1).expect.perCheck,
      { 'unique-ips-after-upgrade': 'fail' },
      `${cell.key} in a slot`,
    );
  }
  t.equal(m.warnings.length, 1, 'one warning however many cells');
  t.match(m.warnings[0], /unique-ips is now unique-ips-after-upgrade/);
});

t.test('an id of no check is still a problem, and the fix suggests only the current ids', async (t) => {
  const r = planSession(input('run', ['cni-ipam-reboot'], { expect: ['client-rebootd=fail'] }));
  if (r.ok) return t.fail('expected a problem');
  t.match(r.problems, [{ field: '--expect', message: 'names no check of scenario cni-ipam-reboot' }]);
  t.match(r.problems[0]!.fix, /host-rebooted/);
  t.notMatch(r.problems[0]!.fix, /client-rebooted/, 'the deprecated id is not suggested');
});
