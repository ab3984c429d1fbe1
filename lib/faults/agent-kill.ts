// Pure: the fault kind `agent-kill`: SIGKILL the Nomad agent, systemd restarts it; the host keeps running.
import { defineFaultKind, NO_HOLD } from './define.js';

export const AGENT_KILL = defineFaultKind({
  name: 'agent-kill',
  doc:
    '`systemctl kill -s SIGKILL --kill-whom=main nomad`: the agent dies, ' +
    'systemd restarts it (Restart=on-failure); no host reboot',
  nomadExpected:
    'the control case: the agent re-attaches to the running tasks; same allocs, tasks NOT restarted, ' +
    'boot_id unchanged (must pass on every build from 1.9.4)',
  rebootsHost: false,
  needs: ['guest-shell'],
  needsNomadAgent: true,
  roles: ['client'],
  options: [],
  holdS: NO_HOLD,
  proves: [{ what: 'boot-id', changes: false }, { what: 'agent-restarted' }],
  outcome: () => ({
    replaced: false,
    restartsTasks: false,
    restoresInPlace: true,
    why: 'agent-kill: the agent restarts, the host does not',
  }),
});
