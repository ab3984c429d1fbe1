// Check: every batch alloc that ran before the fault ends as Nomad promises: restored in place or rescheduled as its
// reschedule policy says, not run again once complete, under a drain one of Nomad's documented behaviours (named), and
// never "complete" with exit code 0 after its executor was killed.
import { defineCheck, needing } from './define.js';
import { judgement } from './result.js';
import type { AllocDetail, Judgement } from '../model/check.js';
import type { ClusterEvidence } from '../model/cluster-evidence.js';
import { batchOutcomes, type BatchJudged } from './job-types.js';

export const BATCH_OUTCOME = defineCheck<ClusterEvidence>({
  id: 'batch-outcome',
  title: 'Batch allocs carried through',
  passesWhen:
    'every batch alloc running or complete before the fault ends running or complete, rescheduled only as its policy and a drain allow, never run again once complete',
  details:
    'every batch alloc running or complete before the fault ends running or complete: restored in place, or rescheduled only where its reschedule policy allows; one that had completed is not run again; a drained one failed-and-rescheduled (Nomad 1.10.3-1.10.5), completed in place or stopped at the drain deadline with no replacement (1.11.0+), or migrated, said which; a task whose executor was killed does not end complete with exit code 0',
  judge: needing((e: ClusterEvidence) => {
    const b = batchOutcomes(e);
    return b.length ? b : undefined;
  }, 'the run has no batch alloc that ran before the fault')(judgeBatch),
});

function judgeBatch(allocs: BatchJudged[]): Judgement {
  const perAlloc: AllocDetail[] = allocs.map((b) => ({
    allocId: b.allocId,
    name: b.name,
    status: b.ok ? 'passed' : 'failed',
    detail: b.detail,
    nodeBefore: b.machineBefore,
    nodeAfter: b.machineAfter,
  }));
  const drained = allocs.flatMap((b) => (b.drainBehaviour ? [b.drainBehaviour] : []));
  const behaviours = [...new Set(drained)];
  const evidence = [
    ...allocs.map((b) => `${b.allocId.slice(0, 8)} ${b.name}: ${b.detail}`),
    ...(behaviours.length ? [`under the drain Nomad did: ${behaviours.join(', ')}`] : []),
  ];
  const bad = allocs.filter((b) => !b.ok);
  if (bad.length)
    return judgement(
      'failed',
      `${bad.length} of ${allocs.length} batch allocs did not end as Nomad promises: ${bad[0]!.name} ${bad[0]!.detail}`,
      evidence,
      perAlloc,
    );
  const counts = new Map<string, number>();
  for (const b of allocs) counts.set(b.outcome, (counts.get(b.outcome) ?? 0) + 1);
  return judgement(
    'passed',
    `every batch alloc carried through (${[...counts].map(([o, n]) => `${n} ${o}`).join(', ')})${behaviours.length ? `; under the drain: ${behaviours.join(', ')}` : ''}`,
    evidence,
    perAlloc,
  );
}
