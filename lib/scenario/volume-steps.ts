// The data a task keeps across a fault, read before the first fault and after the last: the marker in a kept
// ephemeral disk through Nomad's client fs API, the marker in the lab's host volume on the client the alloc runs on
// (lib/model/volumes.ts says where; lib/checks/volume-data.ts judges them); and the host volume itself as Nomad
// reports it after the fault (the node's HostVolumes), for volume-state.
import type { AllocSnap } from '../model/evidence.js';
import type { Lab } from '../model/lab.js';
import type { MarkerRead, VolumeStateRead } from '../model/cluster-evidence.js';
import type { Nomad } from '../nomad/client.js';
import type { ApiNode } from '../nomad/api-types.js';
import { DISK_MARKER, hostVolumeMarker, LAB_HOST_VOLUME } from '../model/volumes.js';
import { quote } from '../shell/quote.js';
import { sleep, type Deadline } from '../time/deadlines.js';

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
 * Each alloc's host volume marker, read on the client it runs on (the volume is that client's directory); `wait`: until
 * the task has written it, at most MARKER_WAIT_MS. A marker not read is recorded with why, never thrown.
 */
export async function readVolumeMarkers(
  lab: Lab,
  nodeNames: Record<string, string>,
  allocs: readonly AllocSnap[],
  d: Deadline,
  wait: boolean,
): Promise<Record<string, MarkerRead>> {
  const out: Record<string, MarkerRead> = {};
  for (const a of allocs) {
    const m = lab.machines[nodeNames[a.nodeId] ?? ''];
    if (!m) {
      out[a.id] = { error: `its node ${a.nodeId.slice(0, 8)} is no machine of the lab` };
      continue;
    }
    const file = `${LAB_HOST_VOLUME.path}/${hostVolumeMarker(a.name)}`;
    const until = Date.now() + (wait ? MARKER_WAIT_MS : 0);
    for (;;) {
      const r = await m.exec(`cat ${quote(file)}`, { deadline: d }).catch((err: Error) => err);
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

/** The host volume `name` on each of these nodes, as Nomad reports it; one not read is recorded with why. */
export async function readVolumeStates(
  nomad: Nomad,
  nodeIds: readonly string[],
  name: string,
  d: Deadline,
): Promise<VolumeStateRead[]> {
  const out: VolumeStateRead[] = [];
  for (const id of nodeIds) {
    const r = await nomad.node(id, { signal: d.signal }).catch((err: Error) => err);
    out.push(
      r instanceof Error
        ? { name, nodeId: id, kind: 'static', state: 'not read', error: r.message.split('\n')[0]! }
        : nodeVolumeState(r.body, name),
    );
  }
  return out;
}
