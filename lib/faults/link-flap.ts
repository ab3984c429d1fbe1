// Pure: the fault kind `link-flap`: the client's link to the servers cut and healed `reboot.flap_count` times.
import { int } from '../config/fields.js';
import { durationSeconds, timeoutSeconds } from '../config/durations.js';
import { defineFaultKind } from './define.js';

export const LINK_FLAP = defineFaultKind({
  name: 'link-flap',
  doc:
    "partition's iptables cut (the servers' addresses, ports 4646/4647) `reboot.flap_count` times: down for " +
    '`reboot.flap_down_for`, up for `reboot.flap_up_for`; a systemd timer heals if the harness dies; the host keeps running',
  nomadExpected:
    'each cut shorter than heartbeat_grace: the node stays ready (at most briefly disconnected), same allocs, tasks ' +
    'NOT restarted; the client reconnects after every cut',
  rebootsHost: false,
  needs: ['guest-shell'],
  needsNomadAgent: true,
  roles: ['client'],
  options: [
    {
      yaml: 'reboot.flap_count',
      flag: 'flap-count',
      path: ['reboot', 'flapCount'],
      doc: 'how many times --reboot link-flap cuts the link',
      parse: int(1, 100),
    },
    {
      yaml: 'reboot.flap_down_for',
      flag: 'flap-down-for',
      path: ['reboot', 'flapDownForS'],
      doc: 'how long each cut of --reboot link-flap lasts (shorter than heartbeat_grace)',
      parse: timeoutSeconds(1, 600),
    },
    {
      yaml: 'reboot.flap_up_for',
      flag: 'flap-up-for',
      path: ['reboot', 'flapUpForS'],
      doc: 'how long the link of --reboot link-flap stays up between two cuts',
      parse: timeoutSeconds(1, 600),
    },
  ],
  holdS: (r) => r.flapCount * (r.flapDownForS + r.flapUpForS),
  proves: [
    { what: 'boot-id', changes: false },
    { what: 'mark', label: 'link flapped' },
  ],
  outcome: () => ({
    replaced: false,
    restartsTasks: false,
    restoresInPlace: false,
    why: 'link-flap: every cut is shorter than heartbeat_grace, nothing is lost',
  }),
  refuses: (config) => {
    const grace = durationSeconds(config.nomad.heartbeatGrace);
    return config.reboot.flapDownForS < grace
      ? []
      : [
          {
            reason: `a cut of reboot.flap_down_for ${config.reboot.flapDownForS}s is not shorter than heartbeat_grace ${config.nomad.heartbeatGrace}: the node would be marked down, which partition tests`,
            fix: `give --flap-down-for under ${grace}s, or --reboot partition for a cut past heartbeat_grace`,
          },
        ];
  },
});
