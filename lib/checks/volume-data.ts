// Check: the data a task wrote to its alloc's ephemeral disk before the fault is where Nomad promises it after: in the
// same alloc when restored, in its replacement on the same node when the disk is sticky, on another node when it
// migrates. Each task writes its marker (DISK_MARKER: the ID of the first alloc of its place) once; the harness reads
// it through Nomad before the first fault and after the last.
import { defineCheck, needing } from './define.js';
import { judgement } from './result.js';
import type { AllocDetail, Judgement } from '../model/check.js';
import { DISK_MARKER, type ClusterEvidence } from '../model/cluster-evidence.js';
import type { AllocSnap } from '../model/evidence.js';
import { latestOf } from '../model/replacement.js';
import { machineOf } from './across-nodes.js';

export const VOLUME_DATA = defineCheck<ClusterEvidence>({
  id: 'volume-data',
  title: 'Ephemeral disk data kept',
  passesWhen: `every alloc of a group with ephemeral_disk { sticky or migrate } finds the marker its place wrote before the fault (${DISK_MARKER}) where Nomad promises it: the same alloc restored, a replacement on the same node (sticky), a replacement on another node (migrate); a replacement elsewhere of a sticky-only disk is reported, not judged`,
  judge: needing(
    diskAllocs,
    'the run has no group with ephemeral_disk { sticky = true } or { migrate = true }',
  )(judgeVolumeData),
});

/** The allocs before the fault whose group keeps its disk, with how; undefined when there are none. */
function diskAllocs(e: ClusterEvidence): { alloc: AllocSnap; sticky: boolean; migrate: boolean }[] | undefined {
  const out = e.before.flatMap((a) => {
    const d = e.jobs?.find((j) => j.id === a.jobId)?.keptDisks?.find((k) => k.group === a.taskGroup);
    return d ? [{ alloc: a, sticky: d.sticky, migrate: d.migrate }] : [];
  });
  return out.length ? out : undefined;
}

const live = (a: AllocSnap): boolean =>
  a.desiredStatus === 'run' && (a.clientStatus === 'running' || a.clientStatus === 'complete');

function judgeVolumeData(
  allocs: { alloc: AllocSnap; sticky: boolean; migrate: boolean }[],
  e: ClusterEvidence,
): Judgement {
  const perAlloc: AllocDetail[] = allocs.map(({ alloc: b, sticky, migrate }) => {
    const row = (status: AllocDetail['status'], detail: string, end?: AllocSnap): AllocDetail => ({
      allocId: b.id,
      name: b.name,
      status,
      detail,
      nodeBefore: machineOf(e, b.nodeId),
      nodeAfter: end ? machineOf(e, end.nodeId) : '(none)',
    });
    const wrote = e.markers?.before[b.id];
    if (!wrote?.content)
      return row(
        'failed',
        `no marker before the fault (${wrote?.error ?? 'not read'}): its task must write ${DISK_MARKER} once it starts`,
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
    const promised = same || (sticky && sameNode) || migrate;
    const seen = e.markers?.after[end.id];
    const found = seen?.content?.trim();
    if (!promised)
      return row(
        'passed',
        `${how}: a sticky disk moves with no migrate, so nothing is promised (marker ${found ? `"${found}"` : 'absent'})`,
        end,
      );
    if (found === wrote.content.trim()) return row('passed', `${how}: marker "${found}" kept`, end);
    return row(
      'failed',
      `${how}: ${found ? `marker "${found}", not "${wrote.content.trim()}"` : `no marker (${seen?.error ?? 'not read'})`}; ${same ? 'its own disk' : sticky && sameNode ? 'a sticky disk on the same node' : 'a migrating disk'} must keep it`,
      end,
    );
  });
  const evidence = perAlloc.map((p) => `${p.allocId.slice(0, 8)} ${p.name}: ${p.detail}`);
  const bad = perAlloc.filter((p) => p.status === 'failed');
  if (bad.length)
    return judgement(
      'failed',
      `${bad.length} of ${perAlloc.length} allocs lost their disk's data: ${bad[0]!.name} ${bad[0]!.detail}`,
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
