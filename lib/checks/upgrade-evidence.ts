// What the checks of the in-place upgrade scenario (GH-25093) decide from (nomad-reference §4.4, §4.5, §4.7).
import type { UpgradeMode } from '../model/kinds.js';
import type { AllocSnap, CniStateListing } from '../model/evidence.js';
import type { HostNetns } from '../parse/host-observe.js';

export interface UpgradeEvidence {
  mode: UpgradeMode;
  /** live allocs on the client node before the upgrade */
  before: AllocSnap[];
  /** live allocs on the client node after the restart and the scale-up */
  after: AllocSnap[];
  /** host-local state listings after the scale-up */
  cniAfter: CniStateListing[];
  /** client agent log since the restart */
  clientLog: string[];
  /** every network namespace on the client after the scale-up (host view); absent when not read */
  hostNetns?: HostNetns[];
}

/** The client statuses that hold an address. */
export const LIVE = new Set(['running', 'pending']);
