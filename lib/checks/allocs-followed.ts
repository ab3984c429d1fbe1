// Check: every alloc of the job, followed across nodes through the fault's turns, holds a running place at the end,
// each one that was on a drained node was migrated by the drain (not lost with its node), and the job's count is met.
import { defineCheck, needing } from './define.js';
import { judgement } from './result.js';
import type { AllocDetail, Judgement } from '../model/check.js';
import type { ClusterEvidence } from '../model/cluster-evidence.js';
import { followAllocs, followedLine, type FollowedAlloc } from './across-nodes.js';
import { othersLine, viewOfTypes } from './job-types.js';

export const ALLOCS_FOLLOWED = defineCheck<ClusterEvidence>({
  id: 'allocs-followed',
  title: 'Allocs followed across nodes',
  passesWhen:
    "every alloc of a service job healthy before the fault holds a running place after it, a drained node's allocs were migrated, not lost, and the job runs its full count",
  details:
    'every alloc of a service job healthy before the fault holds a running place after it (restored in place, migrated by the drain, or replaced on another node, each named with its node before and after), every alloc of a drained node was migrated rather than lost, and the job runs as many allocs as it asks for',
  judge: needing(
    (e: ClusterEvidence) => viewOfTypes(e, ['service']),
    (e) => `the run has no service job (${othersLine(e, ['service']) || 'no alloc'})`,
  )((view, e) => withOthers(judgeFollowed(view), e)),
});

/** The judgement with a line saying which allocs of other job types it left to their own checks. */
function withOthers(j: Judgement, e: ClusterEvidence): Judgement {
  const line = othersLine(e, ['service']);
  return line ? { ...j, evidence: [...(j.evidence ?? []), line] } : j;
}

function judgeFollowed(e: ClusterEvidence): Judgement {
  const followed = followAllocs(e);
  const perAlloc: AllocDetail[] = followed.map((f) => {
    const bad = fault(f, e.drain);
    return {
      allocId: f.allocId,
      name: f.name,
      status: bad ? 'failed' : 'passed',
      detail: bad ? `${bad}: ${followedLine(f)}` : followedLine(f),
      nodeBefore: f.machineBefore,
      nodeAfter: f.machineAfter,
    };
  });
  const running = e.after.filter((a) => a.desiredStatus === 'run' && a.clientStatus === 'running');
  const evidence = [
    ...followed.map((f) => `${f.allocId.slice(0, 8)} ${f.name}: ${followedLine(f)}`),
    `running after the fault: ${running.length} of ${e.expectedAllocs} (${running.map((a) => `${a.id.slice(0, 8)}@${e.nodeNames[a.nodeId] ?? a.nodeId.slice(0, 8)}`).join(', ') || 'none'})`,
  ];
  if (followed.length === 0) return judgement('failed', 'no alloc was healthy before the fault to follow', evidence);
  const failed = perAlloc.filter((p) => p.status === 'failed');
  if (failed.length)
    return judgement(
      'failed',
      `${failed.length} of ${followed.length} allocs ${failed.length === 1 ? 'was' : 'were'} not carried through: ${failed[0]!.name} ${failed[0]!.detail}`,
      evidence,
      perAlloc,
    );
  if (running.length < e.expectedAllocs)
    return judgement(
      'failed',
      `only ${running.length} of the job's ${e.expectedAllocs} allocs run after the fault`,
      evidence,
      perAlloc,
    );
  const counts = new Map<string, number>();
  for (const f of followed) counts.set(f.outcome, (counts.get(f.outcome) ?? 0) + 1);
  const summary = [...counts].map(([o, n]) => `${n} ${o}`).join(', ');
  return judgement(
    'passed',
    `every alloc holds a running place (${summary}); ${running.length} of ${e.expectedAllocs} run`,
    evidence,
    perAlloc,
  );
}

/** What is wrong with one followed alloc, or undefined. */
function fault(f: FollowedAlloc, drain: boolean): string | undefined {
  if (!f.running) return `its place is not running (${f.outcome})`;
  if (drain && f.drained && f.outcome !== 'migrated')
    return `it was on a drained node but was ${f.outcome}, not migrated`;
  return undefined;
}
