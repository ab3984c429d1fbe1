// Pure: the fault kind `partition`: iptables cuts the client off the servers for `reboot.partition_for`, then heals.
import { timeoutSeconds } from '../config/durations.js';
import { defineFaultKind, type FaultDurations } from './define.js';

export const PARTITION = defineFaultKind({
  name: 'partition',
  doc:
    "iptables on the client drops traffic to and from the server's private IP on ports 4646/4647 " +
    'for `reboot.partition_for` (rules tagged `nrh-partition`, a systemd timer on the client heals them if the ' +
    'harness dies), then heals; the host keeps running',
  nomadExpected:
    'shorter than heartbeat_grace: nothing changes (tasks keep running); ' +
    'longer: the node is marked down, its allocs lost and replaced once it is back; ' +
    "within the group's disconnect { lost_after } (max_client_disconnect before 1.10): the node is " +
    'disconnected, its allocs unknown, then running again in place (tasks not restarted)',
  rebootsHost: false,
  needs: ['guest-shell'],
  needsNomadAgent: true,
  roles: ['client'],
  options: [
    {
      yaml: 'reboot.partition_for',
      flag: 'partition-for',
      path: ['reboot', 'partitionForS'],
      doc: 'how long --reboot partition cuts the client off the server (Go duration or seconds; longer than heartbeat_grace: replacement expected)',
      parse: timeoutSeconds(1, 3600),
    },
  ],
  holdS: (reboot) => reboot.partitionForS,
  proves: [
    { what: 'boot-id', changes: false },
    { what: 'mark', label: 'partition healed' },
    { what: 'node-status', becomes: 'down', when: 'past-heartbeat-grace' },
  ],
  outcome: (d) => {
    const replaced = pastGrace(d);
    const lost = d.lostAfterS ? ` + lost_after ${d.lostAfterS}s` : '';
    const why = `partition of ${d.partitionForS}s ${replaced ? '>' : '<='} heartbeat_grace ${d.heartbeatGraceS}s${lost}`;
    return { replaced, restartsTasks: replaced, restoresInPlace: false, why };
  },
});

/**
 * Longer than heartbeat_grace, plus the job's lost_after when it keeps its allocs through a disconnect (then shorter
 * ones reconnect in place): the watched alloc is replaced rather than restored.
 */
function pastGrace(d: FaultDurations): boolean {
  return (d.partitionForS ?? 0) > (d.heartbeatGraceS ?? Infinity) + (d.lostAfterS ?? 0);
}
