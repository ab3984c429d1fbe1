// Pure: the fault kind `link-loss`: packet loss and delay (tc netem) on the client's traffic to the servers for a while.
import { int } from '../config/fields.js';
import { timeoutSeconds } from '../config/durations.js';
import { defineFaultKind } from './define.js';

export const LINK_LOSS = defineFaultKind({
  name: 'link-loss',
  doc:
    "`tc qdisc ... netem loss reboot.loss_percent% delay reboot.loss_delay_ms` on the client's interface toward the " +
    "servers, only for the servers' addresses (a prio band and u32 filters), for `reboot.loss_for`, then removed; " +
    'a systemd timer removes it if the harness dies; the host keeps running',
  nomadExpected:
    'a slow, lossy link is not a partition: the node stays ready (RPCs retried), same allocs, tasks NOT restarted',
  rebootsHost: false,
  needs: ['guest-shell'],
  needsNomadAgent: true,
  roles: ['client'],
  options: [
    {
      yaml: 'reboot.loss_percent',
      flag: 'loss-percent',
      path: ['reboot', 'lossPercent'],
      doc: 'the share of packets --reboot link-loss drops toward the servers, in percent (100: use partition)',
      parse: int(1, 99, ' %'),
    },
    {
      yaml: 'reboot.loss_delay_ms',
      flag: 'loss-delay-ms',
      path: ['reboot', 'lossDelayMs'],
      doc: 'the delay --reboot link-loss adds to every packet toward the servers, in milliseconds',
      parse: int(0, 10_000, ' ms'),
    },
    {
      yaml: 'reboot.loss_for',
      flag: 'loss-for',
      path: ['reboot', 'lossForS'],
      doc: 'how long --reboot link-loss holds (Go duration or seconds)',
      parse: timeoutSeconds(1, 3600),
    },
  ],
  holdS: (r) => r.lossForS,
  proves: [
    { what: 'boot-id', changes: false },
    { what: 'mark', label: 'link loss removed' },
  ],
  outcome: () => ({
    replaced: false,
    restartsTasks: false,
    restoresInPlace: false,
    why: 'link-loss: a lossy, slow link; the client keeps its allocs',
  }),
});
