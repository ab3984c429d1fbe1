// Part of the Nomad API stand-in (not Nomad): dynamic host volumes (Nomad 1.10+) made by the built-in mkdir plugin,
// shaped as the real captures test/fixtures/nomad/real-{1.10.5,2.0.5}/dynamic-host-volume/ show them: the create
// answer "pending" with CreateIndex 0, the stored volume "pending" with no node entry until its client made the
// directory (<data_dir>/host_volumes/<ID>), then "ready" and in the node's HostVolumes; a read lists the allocs on its
// node that mount it and are not client-terminal (nomad state_store_host_volumes.go HostVolumeByID); a delete is
// refused while any does (host_volume_endpoint.go Delete). Before 1.10 no route exists (Go's mux: 404).
import type { ApiAllocation, ApiHostVolume, ApiHostVolumeSpec } from '../../../lib/nomad/api-types.js';
import type { Cluster } from './cluster.js';
import { allocStub, nowNs, uuid } from './payloads.js';
import { lineAtLeast } from './lines.js';
import { nodeById } from './nodes.js';
import { TERMINAL } from './job-types.js';
import { hostVolumeMarker, LAB_HOST_VOLUME } from '../../../lib/model/volumes.js';

/** The first line with dynamic host volumes. */
export const HOST_VOLUMES_SINCE = '1.10.0';
/** Where the mkdir plugin makes a volume on a lab client: the lab's data_dir (vms/templates/client.hcl) + host_volumes. */
export const HOST_VOLUMES_DIR = '/var/lib/nomad/host_volumes';

/** A volume as the server stores it (the full read's keys, in the capture's order, Allocations filled on read). */
export interface StandInHostVolume extends Omit<ApiHostVolume, 'Allocations'> {
  Constraints: null;
  RequestedCapacityMinBytes: number;
  RequestedCapacityMaxBytes: number;
  RequestedCapabilities: { AttachmentMode: string; AccessMode: string }[];
  CreateTime: number;
  ModifyTime: number;
}

/** Does this line serve the host volume API? */
export const hostVolumesServed = (c: Cluster): boolean => lineAtLeast(c.version, HOST_VOLUMES_SINCE);

/** The allocs a read lists as using `v`: on its node, not client-terminal, their group mounting a host volume of its name. */
export function allocsUsing(c: Cluster, v: Pick<StandInHostVolume, 'NodeID' | 'Name'>): ApiAllocation[] {
  return [...c.allocs.values()].filter(
    (a) =>
      a.NodeID === v.NodeID &&
      !TERMINAL.has(a.ClientStatus) &&
      Object.values(groupVolumes(c, a)).some((r) => r.Type === 'host' && r.Source === v.Name),
  );
}

/** The volume requests of an alloc's group, as its job holds them. */
export function groupVolumes(c: Cluster, a: ApiAllocation): Record<string, { Type?: string; Source?: string }> {
  const g = c.jobs.get(a.JobID)?.TaskGroups?.find((x) => x.Name === a.TaskGroup) as
    | { Volumes?: Record<string, { Type?: string; Source?: string }> | null }
    | undefined;
  return g?.Volumes ?? {};
}

/** GET /v1/volume/host/:id: the stored volume with the allocs using it (undefined when there is none). */
export function hostVolumeRead(c: Cluster, id: string): ApiHostVolume | undefined {
  const v = c.hostVolumes.get(id);
  return v && { ...structuredClone(v), Allocations: allocsUsing(c, v).map((a) => allocStub(a, c.version)) };
}

/** GET /v1/volumes?type=host: the list stubs (api.HostVolumeStub's keys). */
export function hostVolumeStubs(c: Cluster): Record<string, unknown>[] {
  return [...c.hostVolumes.values()].map((v) => ({
    Namespace: v.Namespace,
    ID: v.ID,
    Name: v.Name,
    PluginID: v.PluginID,
    NodePool: v.NodePool,
    NodeID: v.NodeID,
    CapacityBytes: v.CapacityBytes,
    State: v.State,
    CreateIndex: v.CreateIndex,
    CreateTime: v.CreateTime,
    ModifyIndex: v.ModifyIndex,
    ModifyTime: v.ModifyTime,
  }));
}

/**
 * PUT /v1/volume/host/create: the volume is stored "pending"; two steps later its client has made the directory (the
 * node's HostVolumes holds it: Name, Path, ReadOnly, ID) and the server marks it "ready", unless the test said the
 * clients never make one. The answer is the volume as the request built it (CreateIndex 0, Allocations null).
 */
export function createHostVolume(
  c: Cluster,
  spec: Partial<ApiHostVolumeSpec> | undefined,
): { error: string } | { body: Record<string, unknown> } {
  if (!spec?.Name) return { error: 'missing volume name' };
  const node = spec.NodeID ? nodeById(c, spec.NodeID) : undefined;
  // DERIVED, not captured: the plugin and node checks' wording (nomad host_volume_endpoint.go)
  if (spec.PluginID !== 'mkdir') return { error: `no such plugin: ${spec.PluginID ?? ''}` };
  if (!node) return { error: `node ${spec.NodeID ?? ''} not found` };
  const id = uuid();
  const t = nowNs();
  const v: StandInHostVolume = {
    Namespace: spec.Namespace || 'default',
    ID: id,
    Name: spec.Name,
    PluginID: spec.PluginID,
    NodePool: 'default',
    NodeID: node.ID,
    Constraints: null,
    RequestedCapacityMinBytes: 0,
    RequestedCapacityMaxBytes: 0,
    CapacityBytes: 0,
    RequestedCapabilities: spec.RequestedCapabilities ?? [],
    Parameters: spec.Parameters ?? null,
    HostPath: `${HOST_VOLUMES_DIR}/${id}`,
    State: 'pending',
    CreateIndex: 0,
    CreateTime: t,
    ModifyIndex: 0,
    ModifyTime: t,
  };
  const answer = { ...structuredClone(v), Allocations: null };
  const index = c.commit(['volumes'], (idx) => {
    c.hostVolumes.set(id, Object.assign(v, { CreateIndex: idx, ModifyIndex: idx }));
  });
  const make = (): void => {
    if (!c.hostVolumes.has(id)) return;
    if (c.hostVolumesHeld) {
      c.later(2, make);
      return;
    }
    c.commit(['nodes'], (idx) => {
      node.HostVolumes = {
        ...(node.HostVolumes ?? {}),
        [v.Name]: { Name: v.Name, Path: v.HostPath, ReadOnly: false, ID: id },
      };
      node.ModifyIndex = idx;
    });
    c.commit(['volumes'], (idx) => Object.assign(v, { State: 'ready', ModifyIndex: idx }));
  };
  c.later(2, make);
  return { body: { Volume: answer, Warnings: '', Index: index } };
}

/** DELETE /v1/volume/host/:id: refused while allocs use it; else gone, and from its node's HostVolumes. */
export function deleteHostVolume(c: Cluster, id: string): { status: number; body: unknown } {
  const v = c.hostVolumes.get(id);
  if (!v) return { status: 404, body: 'volume not found' };
  const using = allocsUsing(c, v).map((a) => a.ID);
  if (using.length) return { status: 500, body: `volume ${id} in use by allocations: [${using.join(' ')}]` };
  const index = c.commit(['volumes'], () => c.hostVolumes.delete(id));
  const node = nodeById(c, v.NodeID);
  if (node?.HostVolumes?.[v.Name]?.ID === id)
    c.commit(['nodes'], (idx) => {
      const { [v.Name]: _gone, ...rest } = node.HostVolumes ?? {};
      node.HostVolumes = rest;
      node.ModifyIndex = idx;
    });
  return { status: 200, body: { Index: index } };
}

/**
 * The marker file `file` in the directory `dir` on node `nodeId`, as a task following the harness's convention leaves
 * it in a host volume: the ID of the first alloc of that place that started on the node with its group mounting the
 * volume there (the lab's static one at its path, or a dynamic one whose HostPath is `dir`); undefined when none did.
 */
export function volumeMarker(c: Cluster, nodeId: string, dir: string, file: string): string | undefined {
  const names = new Set(
    [...c.hostVolumes.values()].filter((v) => v.NodeID === nodeId && v.HostPath === dir).map((v) => v.Name),
  );
  if (dir === LAB_HOST_VOLUME.path) names.add(LAB_HOST_VOLUME.name);
  const ran = [...c.allocs.values()]
    .filter((a) => a.NodeID === nodeId && hostVolumeMarker(a.Name) === file)
    .filter((a) => Object.values(groupVolumes(c, a)).some((r) => r.Type === 'host' && names.has(r.Source ?? '')))
    .filter((a) => Object.values(a.TaskStates ?? {}).some((t) => (t.Events ?? []).some((e) => e.Type === 'Started')))
    .sort((x, y) => x.CreateIndex - y.CreateIndex);
  return ran[0]?.ID;
}
