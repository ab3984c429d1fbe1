// Check: no batch or sysbatch place ran twice: beside an alloc that runs or completed, Nomad placed no second one (a
// failed, lost, migrated or stopped alloc's replacement is no extra).
import { defineCheck, needing } from './define.js';
import { judgement } from './result.js';
import type { Judgement } from '../model/check.js';
import type { ClusterEvidence } from '../model/cluster-evidence.js';
import { extraAllocs, hasJobOfTypes } from './job-types.js';
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
