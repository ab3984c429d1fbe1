// Check: the data a task wrote before the fault is where Nomad promises it after. An ephemeral disk: in the same alloc
// when restored, in its replacement on the same node when the disk is sticky, on another node when it migrates. The
// lab's static host volume or a dynamic one the run created on each client (1.10+, mkdir plugin): wherever the place
// runs on the same node again (the volume is that node's directory). Each
// task writes its marker (the ID of the first alloc of its place) once; the harness reads it before the first fault and
// after the last (the disk's through Nomad's client fs API, the volume's on the client). Its sibling volume-state
// judges the host volume itself after the fault: ready on the node of every live alloc mounting it, and (a dynamic
// volume whose claims were read) claimed by exactly the live allocs on its node.
import { defineCheck, needing } from './define.js';
import { judgement } from './result.js';
import type { AllocDetail, Judgement } from '../model/check.js';
import type { ClusterEvidence, VolumeStateRead } from '../model/cluster-evidence.js';
import { DISK_MARKER, hostVolumeMarker, LAB_HOST_VOLUME } from '../model/volumes.js';
import type { AllocSnap } from '../model/evidence.js';
import { latestOf, linkedSuccessor } from '../model/replacement.js';
import { machineOf } from './across-nodes.js';

export const VOLUME_DATA = defineCheck<ClusterEvidence>({
  id: 'volume-data',
  title: 'Volume and disk data kept',
  passesWhen:
    'every alloc of a group with a sticky or migrating ephemeral disk, or mounting a host volume (static or dynamic), finds the marker its place wrote before the fault wherever Nomad promises it',
  details: `every alloc of a group with ephemeral_disk { sticky or migrate } finds the marker its place wrote before the fault (${DISK_MARKER}) where Nomad promises it: the same alloc restored, a replacement on the same node (sticky), a replacement on another node (migrate); every alloc of a group mounting a host volume (the lab's static "${LAB_HOST_VOLUME.name}", or a dynamic one the harness created on every client with the mkdir plugin, Nomad 1.10+) finds its marker there when its place runs on the same node again. A replacement where nothing is promised (a sticky-only disk or a host volume on another node) is reported, not judged`,
  judge: needing(
    keptAllocs,
    'the run has no group with a kept ephemeral disk (sticky, migrate) or a host volume',
  )(judgeVolumeData),
});

/** One alloc before the fault whose data is kept: on its ephemeral disk (sticky, migrate) or on the host volume. */
interface Kept {
  alloc: AllocSnap;
  kind: 'disk' | 'host volume';
  sticky: boolean;
  migrate: boolean;
}

/** The allocs before the fault whose data is kept, with how; undefined when there are none. */
function keptAllocs(e: ClusterEvidence): Kept[] | undefined {
  const out = e.before.flatMap((a): Kept[] => {
    const job = e.jobs?.find((j) => j.id === a.jobId);
    const d = job?.keptDisks?.find((k) => k.group === a.taskGroup);
    const v = job?.hostVolumes?.includes(a.taskGroup);
    return [
      ...(d ? [{ alloc: a, kind: 'disk' as const, sticky: d.sticky, migrate: d.migrate }] : []),
      ...(v ? [{ alloc: a, kind: 'host volume' as const, sticky: false, migrate: false }] : []),
    ];
  });
  return out.length ? out : undefined;
}

const live = (a: AllocSnap): boolean =>
  a.desiredStatus === 'run' && (a.clientStatus === 'running' || a.clientStatus === 'complete');

function judgeVolumeData(allocs: Kept[], e: ClusterEvidence): Judgement {
  const perAlloc: AllocDetail[] = allocs.map(({ alloc: b, kind, sticky, migrate }) => {
    const markers = kind === 'disk' ? e.markers : e.volumeMarkers;
    const row = (status: AllocDetail['status'], detail: string, end?: AllocSnap): AllocDetail => ({
      allocId: b.id,
      name: b.name,
      status,
      detail: `${kind}: ${detail}`,
      nodeBefore: machineOf(e, b.nodeId),
      nodeAfter: end ? machineOf(e, end.nodeId) : '(none)',
    });
    const wrote = markers?.before[b.id];
    if (!wrote?.content)
      return row(
        'failed',
        `no marker before the fault (${wrote?.error ?? 'not read'}): its task must write ${kind === 'disk' ? DISK_MARKER : `${volumeNameOf(e, b)}'s ${hostVolumeMarker(b.name)}`} once it starts`,
      );
    const a = e.after.find((x) => x.id === b.id) ?? b;
    const first = linkedSuccessor(e.after, a);
    const end = first ? latestOf(e.after, first) : a;
    if (!live(end))
      return row(
        'skipped',
        `its place holds no live alloc (${end.clientStatus}/${end.desiredStatus}): allocs-followed judges it`,
        end,
      );
    const same = end.id === b.id;
    const sameNode = end.nodeId === b.nodeId;
    const how = same
      ? 'restored in place'
      : `replaced by ${end.id.slice(0, 8)} on ${sameNode ? 'the same node' : machineOf(e, end.nodeId)}`;
    const promised = kind === 'disk' ? same || (sticky && sameNode) || migrate : sameNode;
    const seen = markers?.after[end.id];
    const found = seen?.content?.trim();
    if (!promised)
      return row(
        'passed',
        `${how}: ${kind === 'disk' ? 'a sticky disk does not move without migrate' : "another node's host volume is another directory"}, so nothing is promised (marker ${found ? `"${found}"` : 'absent'})`,
        end,
      );
    if (found === wrote.content.trim()) return row('passed', `${how}: marker "${found}" kept`, end);
    return row(
      'failed',
      `${how}: ${found ? `marker "${found}", not "${wrote.content.trim()}"` : `no marker (${seen?.error ?? 'not read'})`}; ${kind === 'host volume' ? 'the host volume of the same node' : same ? 'its own disk' : sticky && sameNode ? 'a sticky disk on the same node' : 'a migrating disk'} must keep it`,
      end,
    );
  });
  const evidence = perAlloc.map((p) => `${p.allocId.slice(0, 8)} ${p.name}: ${p.detail}`);
  const bad = perAlloc.filter((p) => p.status === 'failed');
  if (bad.length)
    return judgement(
      'failed',
      `${bad.length} of ${perAlloc.length} allocs lost their kept data: ${bad[0]!.name} ${bad[0]!.detail}`,
      evidence,
      perAlloc,
    );
  const kept = perAlloc.filter((p) => p.status === 'passed').length;
  return judgement(
    'passed',
    `${kept} of ${perAlloc.length} allocs found their data where Nomad promises it`,
    evidence,
    perAlloc,
  );
}

export const VOLUME_STATE = defineCheck<ClusterEvidence>({
  id: 'volume-state',
  title: 'Host volume ready, claims match',
  passesWhen:
    'after the fault every host volume (static or dynamic) is ready on every node that runs or ran an alloc mounting it, and a dynamic one lists exactly its live allocs',
  details: `after the fault, the host volume (the lab's "${LAB_HOST_VOLUME.name}" or a dynamic one the harness created) is ready on the node of every live alloc of a group mounting it and on every node that ran one before (a static volume: the node declares it in its HostVolumes and is ready; a dynamic one: its State is ready) and, where Nomad holds claims on it (a dynamic volume), they are exactly the live allocs mounting it on that node`,
  judge: needing(
    (e: ClusterEvidence) => (e.volumeStates && e.jobs?.some((j) => j.hostVolumes?.length) ? e.volumeStates : undefined),
    'the run has no group mounting a host volume (or its state was not read)',
  )(judgeVolumeState),
});

/** The allocs of groups mounting a host volume. */
function onHostVolume(e: ClusterEvidence, a: AllocSnap): boolean {
  return !!e.jobs?.find((j) => j.id === a.jobId)?.hostVolumes?.includes(a.taskGroup);
}

/** The host volume an alloc's group mounts (older records name none: the lab's). */
function volumeNameOf(e: ClusterEvidence, a: Pick<AllocSnap, 'jobId' | 'taskGroup'>): string {
  return e.jobs?.find((j) => j.id === a.jobId)?.volumeNames?.[a.taskGroup] ?? LAB_HOST_VOLUME.name;
}

function judgeVolumeState(states: VolumeStateRead[], e: ClusterEvidence): Judgement {
  // a complete alloc has let its volume go: the running ones mount it
  const mounting = e.after.filter(
    (a) => a.desiredStatus === 'run' && a.clientStatus === 'running' && onHostVolume(e, a),
  );
  const stateOn = (nodeId: string, name: string): VolumeStateRead | undefined =>
    states.find((s) => s.nodeId === nodeId && s.name === name);
  const vol = (s: VolumeStateRead | undefined, name: string): string =>
    s
      ? `${s.kind} volume "${s.name}"${s.id ? ` ${s.id.slice(0, 8)}` : ''} ${s.state}${s.path ? ` (${s.path})` : ''}${s.error ? `: ${s.error}` : ''}`
      : `volume "${name}" not read`;
  // each live alloc mounting it: the volume on its node is ready and, where claims were read, claims it
  const rows: AllocDetail[] = mounting.map((a) => {
    const name = volumeNameOf(e, a);
    const s = stateOn(a.nodeId, name);
    const machine = machineOf(e, a.nodeId);
    const row = (status: AllocDetail['status'], detail: string): AllocDetail => ({
      allocId: a.id,
      name: a.name,
      status,
      detail: `on ${machine}: ${detail}`,
      nodeBefore: machineOf(e, e.before.find((b) => b.name === a.name)?.nodeId ?? a.nodeId),
      nodeAfter: machine,
    });
    if (!s || s.state !== 'ready') return row('failed', `${vol(s, name)}, not ready`);
    if (s.claims && !s.claims.includes(a.id)) return row('failed', `${vol(s, name)}, but not among its claims`);
    const claims = s.claims ? `, claimed by it` : ' (a static volume: Nomad holds no claims on it)';
    return row('passed', `${vol(s, name)}${claims}`);
  });
  // each node that ran such an alloc before and holds none now: its volume is still the node's, ready
  const nodesNow = new Set(mounting.map((a) => `${volumeNameOf(e, a)}\n${a.nodeId}`));
  const left = [
    ...new Set(e.before.filter((b) => onHostVolume(e, b)).map((b) => `${volumeNameOf(e, b)}\n${b.nodeId}`)),
  ].filter((n) => !nodesNow.has(n));
  for (const key of left) {
    const [name, nodeId] = key.split('\n') as [string, string];
    const s = stateOn(nodeId, name);
    const machine = machineOf(e, nodeId);
    const ok = s?.state === 'ready';
    rows.push({
      allocId: '',
      name: `${name} on ${machine}`,
      status: ok ? 'passed' : 'failed',
      detail: `(no live alloc mounts it now): ${vol(s, name)}${ok ? '' : ', not ready'}`,
      nodeBefore: machine,
      nodeAfter: machine,
    });
  }
  // claims Nomad still holds for allocs that no longer run there: a claim the fault left behind
  for (const s of states.filter((x) => x.claims)) {
    const machine = machineOf(e, s.nodeId);
    const liveHere = new Set(
      mounting.filter((a) => a.nodeId === s.nodeId && volumeNameOf(e, a) === s.name).map((a) => a.id),
    );
    for (const c of s.claims!.filter((id) => !liveHere.has(id)))
      rows.push({
        allocId: c,
        name: `${s.name} on ${machine}`,
        status: 'failed',
        detail: `${vol(s, s.name)} is still claimed by ${c.slice(0, 8)}, which runs no live alloc mounting it there`,
        nodeBefore: machine,
        nodeAfter: machine,
      });
  }
  const evidence = rows.map((r) => `${r.allocId ? `${r.allocId.slice(0, 8)} ` : ''}${r.name} ${r.detail}`);
  const bad = rows.filter((r) => r.status === 'failed');
  if (!rows.length) return judgement('skipped', 'no alloc mounted the host volume before or after the fault', evidence);
  if (bad.length)
    return judgement(
      'failed',
      `${bad.length} of ${rows.length} host volume places are not ready or claimed as the allocs run: ${bad[0]!.name} ${bad[0]!.detail}`,
      evidence,
      rows,
    );
  const nodes = new Set(states.filter((s) => s.state === 'ready').map((s) => machineOf(e, s.nodeId))).size;
  return judgement(
    'passed',
    `the host volume is ready on ${nodes} node${nodes === 1 ? '' : 's'}; ${mounting.length} live alloc${mounting.length === 1 ? '' : 's'} mount${mounting.length === 1 ? 's' : ''} it where it is ready`,
    evidence,
    rows,
  );
}
