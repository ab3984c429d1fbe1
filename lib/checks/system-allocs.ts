// Check: every client node runs the allocs of each system job (and has run those of each sysbatch job) after the
// fault: a node not drained restored them in place, a node drained, rebooted and made eligible again ran them again
// within the bound, one per node.
import { defineCheck, needing } from './define.js';
import { judgement } from './result.js';
import type { AllocDetail, Judgement } from '../model/check.js';
import type { ClusterEvidence } from '../model/cluster-evidence.js';
import { hasJobOfTypes, perNodeJobs, SYSTEM_BACK_WITHIN_MS, type NodeJudged } from './job-types.js';

export const SYSTEM_ALLOCS = defineCheck<ClusterEvidence>({
  id: 'system-allocs',
  title: 'System allocs on every node',
  passesWhen: `every client node runs one alloc of each system job after the fault (the same alloc where the node was not drained: restored in place, or a new one once the servers had lost the node; where it was drained, rebooted and made eligible again, one started within ${SYSTEM_BACK_WITHIN_MS / 1000}s of that) and ran each sysbatch job once`,
  judge: needing(
    (e: ClusterEvidence) => (hasJobOfTypes(e, ['system', 'sysbatch']) ? perNodeJobs(e) : undefined),
    'the run has no system or sysbatch job',
  )(judgeSystemAllocs),
});

function judgeSystemAllocs(nodes: NodeJudged[]): Judgement {
  const perAlloc: AllocDetail[] = nodes.map((n) => ({
    allocId: n.allocId ?? n.beforeId ?? '',
    name: `${n.jobId} on ${n.machine}`,
    status: n.ok ? 'passed' : 'failed',
    detail: n.detail,
    nodeBefore: n.machine,
    nodeAfter: n.allocId ? n.machine : '(none)',
  }));
  const evidence = nodes.map((n) => `${n.jobId} (${n.type}) on ${n.machine}: ${n.detail}`);
  const bad = nodes.filter((n) => !n.ok);
  if (bad.length)
    return judgement(
      'failed',
      `${bad.length} of ${nodes.length} node places of system jobs are not held: ${bad[0]!.jobId} on ${bad[0]!.machine}: ${bad[0]!.detail}`,
      evidence,
      perAlloc,
    );
  const jobs = new Set(nodes.map((n) => n.jobId)).size;
  return judgement(
    'passed',
    `every node holds its place of ${jobs === 1 ? 'the system job' : `${jobs} system jobs`} (${nodes.length} node place${nodes.length === 1 ? '' : 's'})`,
    evidence,
    perAlloc,
  );
}
