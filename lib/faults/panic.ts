// Pure: the fault kind `panic`: a kernel panic through the sysrq trigger; the guest reboots itself.
import { defineFaultKind, NO_HOLD, REBOOT_OUTCOME } from './define.js';

export const PANIC = defineFaultKind({
  name: 'panic',
  doc:
    '`sysctl kernel.panic=5 kernel.sysrq=1`, then `echo c > /proc/sysrq-trigger`: ' +
    'a kernel panic, the guest reboots itself 5 s later',
  nomadExpected: 'as hard: restore in place after the boot',
  rebootsHost: true,
  needs: ['guest-shell'],
  needsNomadAgent: false,
  roles: ['client', 'server'],
  options: [],
  holdS: NO_HOLD,
  proves: [
    { what: 'boot-id', changes: true },
    { what: 'mark', label: 'kernel panic (sysrq c)' },
  ],
  outcome: REBOOT_OUTCOME,
});
