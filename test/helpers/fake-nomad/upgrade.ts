// Part of the Nomad API stand-in (not Nomad): the client AGENT restarts without a reboot and without a drain, e.g. an
// in-place upgrade (nomad-reference §4.5 "Upgrade without reboot", §4.7 the GH-25093 migration).
//   upgrade-collide:  the old build kept host-local state on disk, the new build (1.9.4-1.9.6) uses the empty tmpfs
//                     dir and migrates nothing. As the real v1.9.3 -> v1.9.5 run showed (r8gf7j3e742de2): the agent
//                     gives each running alloc a NEW namespace and address while its task keeps running in the old
//                     namespace, and the allocs placed after the upgrade get the old addresses. The API shows every
//                     address once; on the host each old address is held twice.
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
  if (version)
    c.commit(['nodes'], (idx) =>
      Object.assign(c.node, { ModifyIndex: idx, Attributes: { ...c.node.Attributes, 'nomad.version': version } }),
    );
  if (timeline === 'upgrade-migrated' && c.cni.has(CNI_OLD_DIR) && !c.cni.has(CNI_NEW_DIR)) {
    c.cni.set(CNI_NEW_DIR, new Map(c.cni.get(CNI_OLD_DIR)));
    c.cni.delete(CNI_OLD_DIR);
    c.log('INFO', 'client', 'migrated CNI state', { src: CNI_OLD_DIR, dest: CNI_NEW_DIR });
  }
  if (timeline === 'upgrade-collide' || timeline === 'upgrade-migrated') c.cniDir = CNI_NEW_DIR;
  if (timeline === 'upgrade-collide') {
    const running = [...c.allocs.values()].filter(
      (a) => a.NodeID === c.node.ID && a.ClientStatus === 'running' && a.NetworkStatus?.Address,
    );
    for (const a of running) {
      c.orphanNetns.push({ allocId: a.ID, address: a.NetworkStatus!.Address, pid: 1000 + c.orphanNetns.length });
      for (const t of Object.keys(a.TaskStates ?? {}))
        c.log('INFO', 'client.alloc_runner.task_runner', 'Task event', {
          alloc_id: a.ID,
          task: t,
          type: 'Received',
          msg: 'Task received by client',
          failed: false,
        });
    }
    c.renetworkLater.push(...running.map((a) => a.ID));
  }
  c.later(1, () => {
    c.setNodeStatus('initializing', undefined, 'NodeRegistration');
    c.log('INFO', 'client', 'node registration complete');
  });
  c.later(2, () => c.setNodeStatus('ready'));
}
