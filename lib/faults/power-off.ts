// Pure: the fault kind `power-off`: power off, stay off for `reboot.off_for`, power on.
import { timeoutSeconds } from '../config/durations.js';
import { defineFaultKind, REBOOT_OUTCOME } from './define.js';

export const POWER_OFF = defineFaultKind({
  name: 'power-off',
  doc:
    'power off (`virsh destroy`, `VBoxManage controlvm poweroff`), wait `reboot.off_for`, ' +
    'power on (`virsh start`, `VBoxManage startvm`)',
  nomadExpected:
    'as hard; if the host stays off longer than heartbeat_grace the node is marked down ' +
    "and its allocs are replaced, unless the group's disconnect { lost_after } outlasts it: then they go " +
    'unknown and are restored in place',
  rebootsHost: true,
  needs: ['power-off'],
  needsNomadAgent: false,
  roles: ['client', 'server'],
  options: [
    {
      yaml: 'reboot.off_for',
      flag: 'off-for',
      path: ['reboot', 'offForS'],
      doc: 'how long --reboot power-off keeps the client off (Go duration or seconds)',
      parse: timeoutSeconds(0, 3600),
    },
  ],
  holdS: (reboot) => reboot.offForS,
  proves: [
    { what: 'boot-id', changes: true },
    { what: 'mark', label: 'powered off' },
    { what: 'node-status', becomes: 'down', when: 'past-heartbeat-grace' },
  ],
  outcome: REBOOT_OUTCOME,
});
