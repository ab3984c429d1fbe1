// Adding a fault kind is one file and one registry line: a stub kind defined here, put in a registry with the shipped
// ones, is picked up by the option keys (--reboot and its own option, validated), the docs table, and the capability
// check (a provider lacking what it needs is refused with the fix; one that has it is not).
import t from 'tap';
import { timeoutSeconds } from '../../lib/config/durations.js';
import { faultFields } from '../../lib/config/table-run.js';
import { defineFaultKind, REBOOT_OUTCOME } from '../../lib/faults/define.js';
import { renderFaultTable } from '../../lib/faults/doc-table.js';
import { FAULTS, faultKindProblems, faultRegistry, type LabOffer } from '../../lib/faults/registry.js';

// ---- the stub: what lib/faults/<kind>.ts would hold ----
const BROWNOUT = defineFaultKind({
  name: 'brownout',
  doc: 'drop the power supply to half for `reboot.brownout_for`',
  nomadExpected: 'as hard',
  rebootsHost: true,
  needs: ['power-off'],
  needsNomadAgent: false,
  roles: ['client'],
  options: [
    {
      yaml: 'reboot.brownout_for',
      flag: 'brownout-for',
      path: ['reboot', 'brownoutForS'],
      doc: 'how long --reboot brownout holds',
      parse: timeoutSeconds(1, 60),
    },
  ],
  holdS: () => 5,
  proves: [{ what: 'boot-id', changes: true }],
  outcome: REBOOT_OUTCOME,
});
// ---- and the one registry line (lib/faults/registry.ts SHIPPED) ----
const REGISTRY = faultRegistry([...FAULTS.kinds, BROWNOUT]);

t.test('the registry has it, once, after the shipped kinds', async (t) => {
  t.same(REGISTRY.names, [...FAULTS.names, 'brownout']);
  t.equal(REGISTRY.get('brownout'), BROWNOUT);
  t.throws(() => faultRegistry([...REGISTRY.kinds, BROWNOUT]), /brownout is registered twice/);
  t.throws(() => REGISTRY.get('meteor' as never), /no fault kind "meteor"/);
});

t.test('its options are keys of the table: --reboot takes it, its option is validated', async (t) => {
  const fields = faultFields(REGISTRY);
  const kind = fields.find((f) => f.yaml === 'reboot.kind')!;
  t.same(kind.parse('brownout'), { ok: true, value: 'brownout' });
  t.match(kind.parse('meteor'), { ok: false, message: /must be one of .*link-loss, brownout/ });
  t.match(kind.doc, /, brownout \(docs\/faults\.md\)$/);
  const own = fields.find((f) => f.yaml === 'reboot.brownout_for')!;
  t.equal(own.flag, 'brownout-for');
  t.same(own.parse('30s'), { ok: true, value: 30 });
  t.match(own.parse('2m'), { ok: false, message: /1s/ });
  t.same(
    faultFields(FAULTS).map((f) => f.yaml),
    [
      'reboot.kind',
      'reboot.off_for',
      'reboot.power_order',
      'reboot.partition_for',
      'reboot.flap_count',
      'reboot.flap_down_for',
      'reboot.flap_up_for',
      'reboot.loss_percent',
      'reboot.loss_delay_ms',
      'reboot.loss_for',
    ],
    'the shipped kinds make exactly the keys the table had',
  );
  const twice = defineFaultKind({ ...BROWNOUT, name: 'brownout-two' });
  t.throws(() => faultRegistry([BROWNOUT, twice]), /reboot.brownout_for is declared by two kinds/);
});

t.test('docs/faults.md gets its row', async (t) => {
  const table = renderFaultTable(REGISTRY);
  t.match(
    table,
    '| `brownout` | drop the power supply to half for `reboot.brownout_for` | as hard | yes | power-off | client | `reboot.brownout_for` |',
  );
  t.notMatch(renderFaultTable(FAULTS), 'brownout');
});

t.test(
  'the capability check: refused where a capability it needs is lacking, with the fix; done where it is not',
  async (t) => {
    const scenario = { name: 'bridge-exec-reboot', hasNomadAgent: true };
    const hypervisor: LabOffer = { provider: 'libvirt', performs: [...FAULTS.names, 'brownout'], lacks: {} };
    t.same(faultKindProblems('brownout', scenario, hypervisor, REGISTRY), []);
    const hosts: LabOffer = {
      provider: 'ssh',
      performs: ['graceful', 'panic'],
      lacks: { 'power-off': { reason: 'no lab.power_command', fix: 'set lab.power_command' } },
    };
    t.same(faultKindProblems('brownout', scenario, hosts, REGISTRY), [
      {
        field: '--reboot (reboot.kind)',
        value: 'brownout',
        message: 'cannot be done here: lab.provider ssh cannot do brownout: no lab.power_command',
        fix: 'set lab.power_command, or use one of: graceful, panic',
      },
    ]);
    const noPerformer: LabOffer = { ...hypervisor, performs: FAULTS.names };
    t.match(faultKindProblems('brownout', scenario, noPerformer, REGISTRY), [
      { message: 'cannot be done here: lab.provider libvirt cannot do brownout: it has no performer for it' },
    ]);
  },
);
