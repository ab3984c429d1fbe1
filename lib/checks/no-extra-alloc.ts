// Check: no batch or sysbatch place ran twice: beside an alloc that runs or completed, Nomad placed no second one (a
// failed, lost, migrated or stopped alloc's replacement is no extra).
import { defineCheck, needing } from './define.js';
import { judgement } from './result.js';
import type { Judgement } from '../model/check.js';
import type { ClusterEvidence } from '../model/cluster-evidence.js';
import { hasJobOfTypes, jobsOfTypes } from './job-types.js';
import type { AllocSnap } from '../model/evidence.js';
import { machineOf } from './across-nodes.js';

export const NO_EXTRA_ALLOC = defineCheck<ClusterEvidence>({
  id: 'no-extra-alloc',
  title: 'No extra batch alloc',
  passesWhen:
    'each place of a batch job (its alloc name), and of a sysbatch job on each node, holds at most one alloc after the fault: pending, running or complete, or stopped by a drain and not replaced',
  judge: needing(
    (e: ClusterEvidence) => (hasJobOfTypes(e, ['batch', 'sysbatch']) ? e : undefined),
    'the run has no batch or sysbatch job',
  )(judgeExtra),
});

function judgeExtra(e: ClusterEvidence): Judgement {
  const extra = extraAllocs(e);
  const evidence = extra.map(
    (x) =>
      `${x.place}: ${x.allocs.map((a) => `${a.id.slice(0, 8)} ${a.clientStatus} on ${machineOf(e, a.nodeId)} (create index ${a.createIndex})`).join(', ')}`,
  );
  if (extra.length)
    return judgement(
      'failed',
      `${extra.length} place${extra.length === 1 ? '' : 's'} ran more than once: ${evidence[0]}`,
      evidence,
    );
  const n = e.after.filter((a) =>
    e.jobs?.some((j) => j.id === a.jobId && (j.type === 'batch' || j.type === 'sysbatch')),
  ).length;
  return judgement(
    'passed',
    `no place ran twice (${n} batch/sysbatch alloc${n === 1 ? '' : 's'} read after the fault)`,
    [`${n} allocs of batch and sysbatch jobs after the fault, none beside another of its place`],
  );
}

/** A set of allocs of one batch or sysbatch place that ran more than once meant to. */
interface ExtraAllocs {
  jobId: string;
  /** the alloc name (job.group[i]), and the machine for a sysbatch place */
  place: string;
  allocs: AllocSnap[];
}

/**
 * The places of batch and sysbatch jobs with more than one alloc that ran or runs as meant (pending, running or
 * complete, still desired to run): a failed, lost, migrated or stopped alloc's replacement is no extra, a second one
 * beside a live or completed one is. A sysbatch place is its name on one node.
 */
/**
 * An alloc that holds its place: one Nomad means to run (pending, running or complete), or one a drain stopped at its
 * deadline with nothing placed after it (complete, stopped, Migrate set): Nomad documents that a drained batch alloc is
 * not replaced, and 2.0.4+ keeps it counted when its node is made eligible again (GH-28018); a new alloc in its place
 * is the extra one.
 */
const holdsPlace = (a: AllocSnap): boolean =>
  (a.desiredStatus === 'run' && ['pending', 'running', 'complete'].includes(a.clientStatus)) ||
  (a.desiredStatus === 'stop' && a.clientStatus === 'complete' && a.migrate === true && !a.nextAllocation);

export function extraAllocs(e: ClusterEvidence): ExtraAllocs[] {
  const out: ExtraAllocs[] = [];
  for (const job of jobsOfTypes(e, ['batch', 'sysbatch'])) {
    const places = new Map<string, AllocSnap[]>();
    for (const a of e.after.filter((x) => x.jobId === job.id)) {
      if (!holdsPlace(a)) continue;
      const place = job.type === 'sysbatch' ? `${a.name}@${machineOf(e, a.nodeId)}` : a.name;
      places.set(place, [...(places.get(place) ?? []), a]);
    }
    for (const [place, allocs] of places)
      if (allocs.length > 1)
        out.push({ jobId: job.id, place, allocs: allocs.sort((x, y) => x.createIndex - y.createIndex) });
  }
  return out;
}
