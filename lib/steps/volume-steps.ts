// The data a task keeps across a fault, read before the first fault and after the last: the marker in a kept
// ephemeral disk through Nomad's client fs API, the marker in the lab's host volume on the client the alloc runs on
// (lib/model/volumes.ts says where; lib/checks/volume-data.ts judges them); and the host volume itself as Nomad
// reports it after the fault (the node's HostVolumes; a dynamic one's own State and the allocs using it), for
// volume-state. A dynamic host volume (1.10+) is created here on every client with the mkdir plugin before the job
// is registered, and deleted at teardown.
import type { AllocSnap } from '../model/evidence.js';
import type { Lab } from '../model/lab.js';
import type { MarkerRead, VolumeStateRead } from '../model/cluster-evidence.js';
import type { Nomad } from '../nomad/client.js';
import type { ApiHostVolume, ApiNode } from '../nomad/api-types.js';
import type { RunContext } from '../run/context.js';
import { DISK_MARKER, hostVolumeMarker, LAB_HOST_VOLUME, type DynamicVolume } from '../model/volumes.js';
import { waitFor } from '../time/wait-for.js';
import { quote } from '../shell/quote.js';
import { deadlineIn, sleep, type Deadline } from '../time/deadlines.js';

/** How long a task may take to write its disk marker once it runs. */
const MARKER_WAIT_MS = 30_000;

/**
 * Each alloc's disk marker (DISK_MARKER) through Nomad's client fs API; `wait`: until the task has written it (it
 * writes it as it starts), at most MARKER_WAIT_MS. A marker not read is recorded with why, never thrown.
 */
export async function readMarkers(
  nomad: Nomad,
  allocs: readonly AllocSnap[],
  d: Deadline,
  wait: boolean,
): Promise<Record<string, MarkerRead>> {
  const out: Record<string, MarkerRead> = {};
  for (const a of allocs) {
    const until = Date.now() + (wait ? MARKER_WAIT_MS : 0);
    for (;;) {
      try {
        out[a.id] = { content: await nomad.allocFile(a.id, DISK_MARKER, { signal: d.signal }) };
        break;
      } catch (err) {
        out[a.id] = { error: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
        if (Date.now() >= until || d.signal.aborted) break;
        await sleep(1000, d).catch(() => undefined);
      }
    }
  }
  return out;
}

/**
 * Create the dynamic host volume `name` on each of these client nodes with Nomad's built-in mkdir plugin (world-
 * writable, as the lab's static one, so that any task user writes its marker) and wait until each is ready; each is
 * deleted at teardown. Nomad places a group asking for `name` on a node that has a volume of that name.
 */
export async function createDynamicVolumes(
  ctx: RunContext,
  nomad: Nomad,
  name: string,
  nodeIds: readonly string[],
  d: Deadline,
): Promise<DynamicVolume[]> {
  const out: DynamicVolume[] = [];
  for (const nodeId of nodeIds) {
    const v = await nomad.createHostVolume(
      {
        Name: name,
        PluginID: 'mkdir',
        NodeID: nodeId,
        RequestedCapabilities: [{ AttachmentMode: 'file-system', AccessMode: 'single-node-writer' }],
        Parameters: { mode: '0777' },
      },
      { signal: d.signal },
    );
    ctx.cleanup.defer(`delete the dynamic host volume "${name}" ${v.ID.slice(0, 8)}`, () =>
      // its own time: teardown runs also when the run budget is spent
      deleteDynamicVolume(nomad, name, v.ID, deadlineIn(VOLUME_RELEASE_MS)),
    );
    // the create answer says "pending" until the client made the directory
    const ready = await waitFor(
      `the dynamic host volume "${name}" ${v.ID.slice(0, 8)} ready`,
      async (dd) => {
        const r = (await nomad.hostVolume(v.ID, { signal: dd.signal })).body;
        return r.State === 'ready'
          ? { done: true as const, value: r }
          : { done: false as const, reason: `its State is "${r.State}"` };
      },
      { deadline: d, intervals: [200, 500, 1000] },
    );
    out.push({ name, nodeId, id: v.ID, path: ready.HostPath || v.HostPath });
  }
  return out;
}

/** How long teardown waits for the allocs using a dynamic volume to stop before it deletes the volume. */
const VOLUME_RELEASE_MS = 2 * 60_000;

/**
 * Delete a dynamic host volume at teardown. Nomad refuses while a live alloc uses it ("volume <id> in use by
 * allocations"), and the run's jobs still run then: the jobs of the allocs it lists are purged first and the volume
 * read until none is listed.
 */
async function deleteDynamicVolume(nomad: Nomad, name: string, id: string, d: Deadline): Promise<void> {
  const using = (await nomad.hostVolume(id, { signal: d.signal })).body.Allocations ?? [];
  for (const job of new Set(using.map((a) => a.JobID))) await nomad.stopJob(job, { purge: true, signal: d.signal });
  if (using.length)
    await waitFor(
      `the allocs using the dynamic host volume "${name}" ${id.slice(0, 8)} to stop`,
      async (dd) => {
        const left = (await nomad.hostVolume(id, { signal: dd.signal })).body.Allocations ?? [];
        return left.length
          ? {
              done: false as const,
              reason: `${left.length} still use it: ${left.map((a) => a.ID.slice(0, 8)).join(' ')}`,
            }
          : { done: true as const, value: undefined };
      },
      { deadline: d, intervals: [200, 500, 1000] },
    );
  await nomad.deleteHostVolume(id, { signal: d.signal });
}

/** Where a host volume `name` is on node `nodeId`: a dynamic one's directory, else the lab's static one's. */
export function volumeDir(volumes: readonly DynamicVolume[], name: string, nodeId: string): string {
  return volumes.find((v) => v.name === name && v.nodeId === nodeId)?.path ?? LAB_HOST_VOLUME.path;
}

/**
 * Each alloc's host volume marker, read on the client it runs on (the volume is that client's directory: `dirOf` says
 * which, by alloc); `wait`: until the task has written it, at most MARKER_WAIT_MS. A marker not read is recorded with
 * why, never thrown.
 */
export async function readVolumeMarkers(
  lab: Lab,
  nodeNames: Record<string, string>,
  allocs: readonly AllocSnap[],
  d: Deadline,
  wait: boolean,
  dirOf: (a: AllocSnap) => string = () => LAB_HOST_VOLUME.path,
): Promise<Record<string, MarkerRead>> {
  const out: Record<string, MarkerRead> = {};
  for (const a of allocs) {
    const m = lab.machines[nodeNames[a.nodeId] ?? ''];
    if (!m) {
      out[a.id] = { error: `its node ${a.nodeId.slice(0, 8)} is no machine of the lab` };
      continue;
    }
    const file = `${dirOf(a)}/${hostVolumeMarker(a.name)}`;
    const until = Date.now() + (wait ? MARKER_WAIT_MS : 0);
    for (;;) {
      // Note: as root: a dynamic volume lives under Nomad's data dir (/var/lib/nomad/host_volumes/<id>), which only root
      // reads (real 2.0.5: "Permission denied" as the SSH user)
      const r = await m.exec(`cat ${quote(file)}`, { deadline: d, sudo: true }).catch((err: Error) => err);
      out[a.id] =
        r instanceof Error
          ? { error: r.message.split('\n')[0]! }
          : r.code === 0
            ? { content: r.stdout }
            : { error: `${file}: ${(r.stderr || r.stdout).trim() || `exit ${r.code}`}` };
      if (out[a.id]!.content !== undefined || Date.now() >= until || d.signal.aborted) break;
      await sleep(1000, d).catch(() => undefined);
    }
  }
  return out;
}

/**
 * Pure: the host volume `name` as the node reports it. A static volume (no ID) has no state of its own: ready when the
 * node declares it and is ready. A dynamic one (an ID) is named so; its State and claims are the volume's own.
 */
export function nodeVolumeState(node: Pick<ApiNode, 'ID' | 'Status' | 'HostVolumes'>, name: string): VolumeStateRead {
  const v = node.HostVolumes?.[name];
  const base = { name, nodeId: node.ID };
  if (!v) return { ...base, kind: 'static', state: 'absent' };
  const state = node.Status === 'ready' ? 'ready' : `node ${node.Status}`;
  return v.ID
    ? { ...base, kind: 'dynamic', id: v.ID, state, path: v.Path }
    : { ...base, kind: 'static', state, path: v.Path };
}

/**
 * Pure: a dynamic volume's own read merged into what its node reports: its State (when the node is ready) and, as its
 * claims, the allocs Nomad lists as using it that are not terminal.
 */
export function dynamicVolumeState(
  fromNode: VolumeStateRead,
  vol: Pick<ApiHostVolume, 'ID' | 'State' | 'HostPath' | 'Allocations'>,
): VolumeStateRead {
  const claims = (vol.Allocations ?? [])
    .filter((a) => a.DesiredStatus === 'run' && !['complete', 'failed', 'lost'].includes(a.ClientStatus))
    .map((a) => a.ID);
  return {
    ...fromNode,
    kind: 'dynamic',
    id: vol.ID,
    state: fromNode.state === 'ready' || fromNode.state === 'absent' ? vol.State : fromNode.state,
    path: vol.HostPath || fromNode.path,
    claims,
  };
}

/**
 * The host volume `name` on each of these nodes, as Nomad reports it (a dynamic one: also its own read, by the ID the
 * node or `volumes` gives); one not read is recorded with why.
 */
export async function readVolumeStates(
  nomad: Nomad,
  nodeIds: readonly string[],
  name: string,
  d: Deadline,
  volumes: readonly DynamicVolume[] = [],
): Promise<VolumeStateRead[]> {
  const out: VolumeStateRead[] = [];
  for (const id of nodeIds) {
    const r = await nomad.node(id, { signal: d.signal }).catch((err: Error) => err);
    if (r instanceof Error) {
      out.push({ name, nodeId: id, kind: 'static', state: 'not read', error: r.message.split('\n')[0]! });
      continue;
    }
    const fromNode = nodeVolumeState(r.body, name);
    const volId = fromNode.id ?? volumes.find((v) => v.name === name && v.nodeId === id)?.id;
    if (!volId) {
      out.push(fromNode);
      continue;
    }
    const v = await nomad.hostVolume(volId, { signal: d.signal }).catch((err: Error) => err);
    out.push(
      v instanceof Error
        ? { ...fromNode, kind: 'dynamic', id: volId, state: 'not read', error: v.message.split('\n')[0]! }
        : dynamicVolumeState(fromNode, v.body),
    );
  }
  return out;
}
