// How lab.provider ssh performs each fault kind on hosts that already exist: the guest's own kinds, and a hard reset
// through lab.hard_reset_command. No power-off nor power-loss-all: nothing of the harness powers an existing host off and on.
import { GUEST_PERFORMERS, rebootWith, type Performers } from '../perform.js';
import type { LabCapability } from '../../faults/define.js';
import type { Lack } from '../../faults/registry.js';
import type { HarnessConfig } from '../../config/schema.js';
import type { RebootKind } from '../../model/kinds.js';

export const SSH_PERFORMERS: Performers<Exclude<RebootKind, 'power-off' | 'power-loss-all'>> = {
  ...GUEST_PERFORMERS,
  hard: rebootWith('hard'),
};

/** What existing hosts lack under this config: a power reset without lab.hard_reset_command, always a power off. */
export function sshLacks(config: HarnessConfig): Partial<Record<LabCapability, Lack>> {
  return {
    ...(config.lab.hardResetCommand
      ? {}
      : {
          'power-reset': {
            reason: 'no lab.hard_reset_command',
            fix: 'set lab.hard_reset_command, e.g. ["ipmitool", "-H", "{address}", "power", "reset"]',
          },
        }),
    'power-off': { reason: 'the harness has no power off/on for existing hosts' },
    'power-off-all': { reason: 'the harness has no power off/on for existing hosts' },
  };
}
