// Check: every client node Nomad placed each system job on before the fault runs its alloc after it (and each node
// placed a sysbatch job has run it): a node not drained restored them in place, a node drained, rebooted and made eligible again ran them again
// within the bound, one per node.
import { defineCheck, needing } from './define.js';
import { judgement } from './result.js';
import type { AllocDetail, Judgement } from '../model/check.js';
import type { ClusterEvidence } from '../model/cluster-evidence.js';
import { hasJobOfTypes, perNodeJobs, SYSTEM_BACK_WITHIN_MS, unplacedNodes, type NodeJudged } from './job-types.js';

export const SYSTEM_ALLOCS = defineCheck<ClusterEvidence>({
  id: 'system-allocs',
  title: 'System allocs on every node',
  passesWhen: `every client that held a system job's alloc before the fault runs one after it (the same one, a replacement, or a new one within ${SYSTEM_BACK_WITHIN_MS / 1000}s after a drain), and each sysbatch job ran once`,
  details: `every client node that held an alloc of a system job before the fault (where Nomad placed it while the lab was healthy: a constraint may keep it off other clients, which are named, not judged) runs one after it (the same alloc where the node was not drained: restored in place, or a new one once the servers had lost the node; where it was drained, rebooted and made eligible again, one started within ${SYSTEM_BACK_WITHIN_MS / 1000}s of that) and ran each sysbatch job once`,
  judge: needing(
    (e: ClusterEvidence) => (hasJobOfTypes(e, ['system', 'sysbatch']) ? perNodeJobs(e) : undefined),
    'the run has no system or sysbatch job',
  )(judgeSystemAllocs),
});

function judgeSystemAllocs(nodes: NodeJudged[], e: ClusterEvidence): Judgement {
  const unplaced = unplacedNodes(e).map(
    (u) =>
      `${u.jobId} on ${u.machine}: not placed there before the fault (a constraint, its node pool or datacenter), not judged; after: ${u.after}`,
  );
  const perAlloc: AllocDetail[] = nodes.map((n) => ({
    allocId: n.allocId ?? n.beforeId ?? '',
    name: `${n.jobId} on ${n.machine}`,
    status: n.ok ? 'passed' : 'failed',
    detail: n.detail,
    nodeBefore: n.machine,
    nodeAfter: n.allocId ? n.machine : '(none)',
  }));
  const evidence = [...nodes.map((n) => `${n.jobId} (${n.type}) on ${n.machine}: ${n.detail}`), ...unplaced];
  const skippedLine = unplaced.length
    ? `; ${unplaced.length} node${unplaced.length === 1 ? '' : 's'} without a place before the fault not judged`
    : '';
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
    `every node holds its place of ${jobs === 1 ? 'the system job' : `${jobs} system jobs`} (${nodes.length} node place${nodes.length === 1 ? '' : 's'})${skippedLine}`,
    evidence,
    perAlloc,
  );
}
