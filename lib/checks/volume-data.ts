// Check: the data a task wrote before the fault is where Nomad promises it after. An ephemeral disk: in the same alloc
// when restored, in its replacement on the same node when the disk is sticky, on another node when it migrates. The
// lab's static host volume: wherever the place runs on the same node again (the volume is that node's directory). Each
// task writes its marker (the ID of the first alloc of its place) once; the harness reads it before the first fault and
// after the last (the disk's through Nomad's client fs API, the volume's on the client).
import { defineCheck, needing } from './define.js';
import { judgement } from './result.js';
import type { AllocDetail, Judgement } from '../model/check.js';
import type { ClusterEvidence } from '../model/cluster-evidence.js';
import { DISK_MARKER, hostVolumeMarker, LAB_HOST_VOLUME } from '../model/volumes.js';
import type { AllocSnap } from '../model/evidence.js';
import { latestOf } from '../model/replacement.js';
import { machineOf } from './across-nodes.js';

export const VOLUME_DATA = defineCheck<ClusterEvidence>({
  id: 'volume-data',
  title: 'Volume and disk data kept',
  passesWhen: `every alloc of a group with ephemeral_disk { sticky or migrate } finds the marker its place wrote before the fault (${DISK_MARKER}) where Nomad promises it: the same alloc restored, a replacement on the same node (sticky), a replacement on another node (migrate); every alloc of a group mounting the lab's host volume "${LAB_HOST_VOLUME.name}" finds its marker there when its place runs on the same node again. A replacement where nothing is promised (a sticky-only disk or a host volume on another node) is reported, not judged`,
  judge: needing(
    keptAllocs,
    "the run has no group with a kept ephemeral disk (sticky, migrate) or the lab's host volume",
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
        `no marker before the fault (${wrote?.error ?? 'not read'}): its task must write ${kind === 'disk' ? DISK_MARKER : `${LAB_HOST_VOLUME.name}'s ${hostVolumeMarker(b.name)}`} once it starts`,
      );
    const a = e.after.find((x) => x.id === b.id) ?? b;
    const first = e.after.find((x) => x.id !== a.id && (x.previousAllocation === a.id || x.id === a.nextAllocation));
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
