// Pure: the fault kind `power-loss-all`: every machine of the lab loses power at once, then comes back in an order.
import { oneOf } from '../config/fields.js';
import { POWER_ORDERS } from '../model/kinds.js';
import { defineFaultKind, REBOOT_OUTCOME } from './define.js';

export const POWER_LOSS_ALL = defineFaultKind({
  name: 'power-loss-all',
  doc:
    'every machine (servers and clients) powered off at the same moment (`virsh destroy`), off for ' +
    '`reboot.off_for`, then powered on in `reboot.power_order`: servers-first or clients-first (the second group ' +
    'once the first answers SSH with a new boot id) or together; then a leader is awaited',
  nomadExpected:
    'the servers lose quorum and regain it (a leader again); every client restores its allocs in place after its ' +
    'boot (new tasks, same alloc IDs)',
  rebootsHost: true,
  needs: ['power-off-all'],
  needsNomadAgent: false,
  roles: ['client', 'server'],
  options: [
    {
      yaml: 'reboot.power_order',
      flag: 'power-order',
      path: ['reboot', 'powerOrder'],
      doc: 'the order --reboot power-loss-all powers the machines on: servers-first, clients-first or together',
      parse: oneOf(POWER_ORDERS),
    },
  ],
  // the second group starts only once the first is back: its wait is part of the hold
  reads: ['reboot.off_for'],
  holdS: (r) => r.offForS + (r.powerOrder === 'together' ? 0 : r.deadlineS),
  proves: [
    { what: 'boot-id', changes: true },
    { what: 'mark', label: 'every machine powered off' },
  ],
  outcome: REBOOT_OUTCOME,
  wholeLab: true,
});
