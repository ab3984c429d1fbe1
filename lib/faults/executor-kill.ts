// Pure: the fault kind `executor-kill`: SIGKILL the `nomad executor` of one task on the client; agent and host stay.
import { defineFaultKind, NO_HOLD } from './define.js';

export const EXECUTOR_KILL = defineFaultKind({
  name: 'executor-kill',
  doc:
    "SIGKILL the `nomad executor` process of one task on the client (the one whose arguments name an alloc's " +
    'directory, chosen in alloc-ID order); the agent and the host keep running',
  nomadExpected:
    'the client sees the task die and restarts it in the same alloc per its restart policy; the task must not ' +
    'end "complete" with exit code 0 (GH-25453); no replacement, boot_id unchanged',
  rebootsHost: false,
  needs: ['guest-shell'],
  needsNomadAgent: true,
  roles: ['client'],
  options: [],
  holdS: NO_HOLD,
  proves: [
    { what: 'boot-id', changes: false },
    { what: 'mark', label: 'nomad executor SIGKILLed' },
  ],
  outcome: () => ({
    replaced: false,
    restartsTasks: true,
    restoresInPlace: false,
    why: 'executor-kill: the task dies with its executor and is restarted in place; the agent keeps running',
  }),
  refuses: (config) =>
    config.task.driver === 'docker'
      ? [
          {
            reason: 'executor-kill kills the `nomad executor` of an exec task; docker tasks run without one',
            fix: 'give --driver exec',
          },
        ]
      : [],
});
