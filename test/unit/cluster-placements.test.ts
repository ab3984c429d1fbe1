// Where a system or sysbatch job is expected: the nodes Nomad placed it on once every eval of it was past pending
// (lib/steps/cluster-jobs.ts settledPlacements), with evals and allocs in the recorded shapes' fields.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { settledPlacements } from '../../lib/steps/cluster-jobs.js';
import type { ApiAllocListStub, ApiEvaluation } from '../../lib/nomad/api-types.js';

const read = <T>(p: string): T =>
  JSON.parse(readFileSync(new URL(`../fixtures/nomad/real-2.0.5/system/${p}`, import.meta.url), 'utf8')) as T;

t.test('a real system job evaluated: its one placement, taken once no eval is pending', async (t) => {
  const evals = read<ApiEvaluation[]>('job-evaluations.json');
  const allocs = read<ApiAllocListStub[]>('job-allocations.json');
  t.ok(evals.length && evals.every((e) => e.Status === 'complete'), 'the capture: every eval complete');
  t.same(
    settledPlacements(evals, allocs),
    allocs.map((a) => a.NodeID),
  );
  t.equal(
    settledPlacements(
      evals.map((e) => ({ ...e, Status: 'pending' })),
      allocs,
    ),
    undefined,
    'still evaluating',
  );
  t.equal(settledPlacements([], allocs), undefined, 'no eval yet');
});

t.test(
  'a constrained job: the nodes with a live alloc only, one entry per alloc; a blocked eval settles',
  async (t) => {
    const allocs = [
      { NodeID: 'n1', DesiredStatus: 'run' },
      { NodeID: 'n1', DesiredStatus: 'run' },
      { NodeID: 'n2', DesiredStatus: 'stop' },
    ];
    t.same(settledPlacements([{ Status: 'complete' }, { Status: 'blocked' }], allocs), ['n1', 'n1']);
    t.same(settledPlacements([{ Status: 'complete' }], []), [], 'placed nowhere');
  },
);
