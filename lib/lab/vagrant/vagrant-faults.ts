// How the Vagrant providers (libvirt, virtualbox) perform each fault kind: the guest's own kinds, and the hypervisor's
// power controls for hard and power-off. Every kind of the registry: the type says so.
import { GUEST_PERFORMERS, rebootWith, type Performers } from '../perform.js';

export const VAGRANT_PERFORMERS: Performers = {
  ...GUEST_PERFORMERS,
  hard: rebootWith('hard'),
  'power-off': rebootWith('power-off'),
};
