// The ground floor: where the harness looks for the data a task keeps across a fault. The lab's clients declare one
// static host volume; a task that follows the convention writes a marker (the ID of the first alloc of its place, once)
// to its alloc's data dir (kept by ephemeral_disk sticky or migrate), to that volume or to a dynamic host volume the
// harness created. Imports nothing.

/** The static host volume every lab client declares (vms/templates/client.hcl), and its directory on the client. */
export const LAB_HOST_VOLUME = { name: 'reboot-harness', path: '/srv/reboot-harness' } as const;

/** A dynamic host volume the harness created on one client (Nomad 1.10+, mkdir plugin): its name, node, ID, directory. */
export interface DynamicVolume {
  name: string;
  nodeId: string;
  id: string;
  path: string;
}

/** The marker in the alloc's directory (Nomad's client fs API path), for a kept ephemeral disk. */
export const DISK_MARKER = 'alloc/data/reboot-harness-marker';

/**
 * The marker's file name in the host volume for an alloc name ("web.api[1]" -> "web.api-1.marker"): one file per place,
 * so replacements on the same node find it. The task writes `<mount>/${NOMAD_JOB_NAME}.${NOMAD_GROUP_NAME}-${NOMAD_ALLOC_INDEX}.marker`.
 */
export function hostVolumeMarker(allocName: string): string {
  const m = /^(.*)\[(\d+)\]$/.exec(allocName);
  return m ? `${m[1]}-${m[2]}.marker` : `${allocName}.marker`;
}
