// Pure: the fault kind `leader-partition`: iptables on the leader cuts it alone off every other machine, then heals.
import { defineFaultKind } from './define.js';

export const LEADER_PARTITION = defineFaultKind({
  name: 'leader-partition',
  doc:
    "iptables on the leader (the target `leader`) drops all its traffic to and from every other machine's address " +
    '(servers and clients: Raft, RPC, Serf) for `reboot.partition_for` (a systemd timer heals if the harness dies), ' +
    'then heals; the host keeps running. Only with 3 or 5 servers',
  nomadExpected:
    'the other servers keep a quorum and elect a new leader within leader_within; the old one steps down and rejoins ' +
    'as a Raft voter after the heal; no alloc is touched',
  rebootsHost: false,
  needs: ['guest-shell'],
  needsNomadAgent: true,
  roles: ['server'],
  options: [],
  reads: ['reboot.partition_for'],
  holdS: (r) => r.partitionForS,
  proves: [
    { what: 'boot-id', changes: false },
    { what: 'mark', label: 'leader partition healed' },
  ],
  outcome: () => ({
    replaced: false,
    restartsTasks: false,
    restoresInPlace: false,
    why: 'leader-partition: a new leader is elected, the clients keep their allocs',
  }),
  refuses: (config) =>
    config.lab.servers === 3 || config.lab.servers === 5
      ? []
      : [
          {
            reason: `leader-partition needs the other servers to keep a quorum without the leader; lab.servers is ${config.lab.servers}`,
            fix: 'give --servers 3 (or 5)',
          },
        ],
});
