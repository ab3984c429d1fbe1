// Pure: the fault kind `graceful`: `systemctl reboot` in the guest.
import { defineFaultKind, NO_HOLD, REBOOT_OUTCOME } from './define.js';

export const GRACEFUL = defineFaultKind({
  name: 'graceful',
  doc: '`systemctl reboot` in the guest (services stop in order)',
  nomadExpected:
    'the client restores its allocs in place at boot (new tasks, same alloc IDs); ' +
    'the node stays ready within heartbeat_grace',
  rebootsHost: true,
  needs: ['guest-shell'],
  needsNomadAgent: false,
  roles: ['client', 'server'],
  options: [],
  holdS: NO_HOLD,
  proves: [{ what: 'boot-id', changes: true }],
  outcome: REBOOT_OUTCOME,
});
