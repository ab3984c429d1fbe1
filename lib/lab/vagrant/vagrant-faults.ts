// How the Vagrant providers (libvirt, virtualbox) perform each fault kind: the guest's own kinds, and the hypervisor's
// power controls for hard, power-off and power-loss-all (libvirt only: the provider's lacks says why). Every kind of the registry: the type says so.
import { GUEST_PERFORMERS, powerLossAllPerformer, rebootWith, type Performers } from '../perform.js';

export const VAGRANT_PERFORMERS: Performers = {
  ...GUEST_PERFORMERS,
  hard: rebootWith('hard'),
  'power-off': rebootWith('power-off'),
  'power-loss-all': powerLossAllPerformer,
};
