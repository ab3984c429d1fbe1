// Pure: the fault kind `hard`: the machine's reset button.
import { defineFaultKind, NO_HOLD, REBOOT_OUTCOME } from './define.js';

export const HARD = defineFaultKind({
  name: 'hard',
  doc:
    "the hypervisor's reset button (`virsh reset`, `VBoxManage controlvm reset`; existing hosts: " +
    '`lab.hard_reset_command`): no shutdown, unflushed writes lost',
  nomadExpected: 'as graceful; state the agent had not written to disk is gone',
  rebootsHost: true,
  needs: ['power-reset'],
  needsNomadAgent: false,
  roles: ['client', 'server'],
  options: [],
  holdS: NO_HOLD,
  proves: [{ what: 'boot-id', changes: true }],
  outcome: REBOOT_OUTCOME,
});
