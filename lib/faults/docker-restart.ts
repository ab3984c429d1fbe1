// Pure: the fault kind `docker-restart`: restart the Docker daemon on the client under its running docker allocs.
import { defineFaultKind, NO_HOLD } from './define.js';

export const DOCKER_RESTART = defineFaultKind({
  name: 'docker-restart',
  doc:
    '`systemctl restart docker` (not waiting on it: the new daemon is awaited) on the client while its docker tasks run (the daemon gets a new PID; without ' +
    'live-restore its containers stop); the host and the Nomad agent keep running. Only with `task.driver` docker',
  nomadExpected:
    'the same allocs, their tasks restarted by the client in place (restart policy), each with its network again ' +
    '(#19962: tasks back without eth0); no replacement, boot_id unchanged',
  rebootsHost: false,
  needs: ['guest-shell'],
  needsNomadAgent: true,
  roles: ['client'],
  options: [],
  holdS: NO_HOLD,
  proves: [
    { what: 'boot-id', changes: false },
    { what: 'mark', label: 'Docker daemon restarted' },
  ],
  outcome: () => ({
    replaced: false,
    restartsTasks: true,
    restoresInPlace: true,
    why: 'docker-restart: the containers stop with the daemon, the client restarts its tasks in the same allocs',
  }),
  refuses: (config) =>
    config.task.driver === 'docker'
      ? []
      : [
          {
            reason: `docker-restart needs docker tasks under the daemon, and task.driver is ${config.task.driver}`,
            fix: 'give --driver docker (a box with Docker)',
          },
        ],
});
