// The shipped job pinned to the client the scenario disrupts: one job-level constraint on the node's name, the job's
// own constraints kept, the job itself left as it was.
import t from 'tap';
import { pinToNode } from '../../lib/steps/pin-job.js';
import type { ApiJob } from '../../lib/nomad/api-types.js';

const job = (o: Partial<ApiJob> = {}): ApiJob => ({ ID: 'web', Name: 'web', Type: 'service', TaskGroups: [], ...o });

t.test('a job without constraints gets the node-name one', async (t) => {
  t.same(pinToNode(job({ Constraints: null }), 'client-1').Constraints, [
    { LTarget: '${node.unique.name}', RTarget: 'client-1', Operand: '=' },
  ]);
});

t.test("the job's own constraints are kept, the input untouched", async (t) => {
  const own = { LTarget: '${attr.kernel.name}', RTarget: 'linux', Operand: '=' };
  const j = job({ Constraints: [own] });
  const pinned = pinToNode(j, 'client-2');
  t.same(pinned.Constraints, [own, { LTarget: '${node.unique.name}', RTarget: 'client-2', Operand: '=' }]);
  t.same(j.Constraints, [own], 'the parsed job is not changed');
});
