// Part of the Nomad API stand-in (not Nomad): the client AGENT restarts without a reboot and without a drain, e.g. an
// in-place upgrade (nomad-reference §4.5 "Upgrade without reboot", §4.7 the GH-25093 migration).
//   upgrade-collide:  the old build kept host-local state on disk, the new build (1.9.4-1.9.6) uses the empty tmpfs
//                     dir and migrates nothing, so new allocs get addresses running allocs still hold.
//   upgrade-migrated: the new build (1.9.7) copies the old dir to the tmpfs dir, removes the old one and logs it.
// Any other timeline: a plain agent restart (the control case); running allocs are restored in place.
import { CNI_NEW_DIR, CNI_OLD_DIR, type Cluster } from './cluster.js';
import type { Timeline } from './timelines.js';

/** Timelines whose client starts on a build that keeps host-local state on disk (<= 1.9.3). */
export const OLD_STATE_TIMELINES: readonly Timeline[] = ['duplicate-ip', 'upgrade-collide', 'upgrade-migrated'];

/** The agent restarted (optionally as build `version`): new journal, node re-registers, state dir per timeline. */
export function clientRestart(c: Cluster, timeline: Timeline, version?: string): void {
  if (!c.agentUp) throw new Error('fake-nomad: clientRestart() while the client is down');
  c.agentStarted();
  if (version) c.commit(['nodes'], (idx) => Object.assign(c.node, { ModifyIndex: idx, Attributes: { ...c.node.Attributes, 'nomad.version': version } }));
  if (timeline === 'upgrade-migrated' && c.cni.has(CNI_OLD_DIR) && !c.cni.has(CNI_NEW_DIR)) {
    c.cni.set(CNI_NEW_DIR, new Map(c.cni.get(CNI_OLD_DIR)));
    c.cni.delete(CNI_OLD_DIR);
    c.log('INFO', 'client', 'migrated CNI state', { src: CNI_OLD_DIR, dest: CNI_NEW_DIR });
  }
  if (timeline === 'upgrade-collide' || timeline === 'upgrade-migrated') c.cniDir = CNI_NEW_DIR;
  c.later(1, () => {
    c.setNodeStatus('initializing');
    c.log('INFO', 'client', 'node registration complete');
  });
  c.later(2, () => c.setNodeStatus('ready'));
}
