// The job-type checks on the evidence of real runs (test/fixtures/checks/real-job-types: 1.10.5, 1.11.3 and 2.0.5 on
// VMs): each line's batch drain behaviour named, and the extra alloc real 1.11.3 placed in a stopped batch alloc's
// place found (GH-28018), while 2.0.5 (fixed) and 1.10.5 pass.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { BATCH_OUTCOME } from '../../lib/checks/batch-outcome.js';
import { NO_EXTRA_ALLOC } from '../../lib/checks/no-extra-alloc.js';
import { SYSTEM_ALLOCS } from '../../lib/checks/system-allocs.js';
import type { ClusterEvidence } from '../../lib/model/cluster-evidence.js';
import { judgeCheck } from '../../lib/checks/define.js';

const real = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/checks/real-job-types/${name}.json`, import.meta.url), 'utf8'),
  ) as ClusterEvidence;

t.test(
  '2.0.5: both drained batch allocs stopped at the deadline, not replaced; the system job back on each node',
  async (t) => {
    const e = real('mixed-2.0.5');
    t.match(judgeCheck(BATCH_OUTCOME, e), { status: 'passed', message: /2 stopped-at-deadline/ });
    t.match(judgeCheck(NO_EXTRA_ALLOC, e), { status: 'passed', message: /2 batch\/sysbatch allocs/ });
    t.equal(judgeCheck(SYSTEM_ALLOCS, e).status, 'passed');
  },
);

t.test(
  "1.11.3: a new alloc in a stopped batch alloc's place once its node was eligible again (GH-28018)",
  async (t) => {
    const e = real('mixed-1.11.3');
    t.match(judgeCheck(BATCH_OUTCOME, e), { status: 'passed', message: /2 stopped-at-deadline/ });
    const r = judgeCheck(NO_EXTRA_ALLOC, e);
    t.equal(r.status, 'failed');
    t.match(
      r.message,
      /1 place ran more than once: batch-sleep\.work\[0\]: fadb32ff complete on client-1 \(create index 21\), abdb4448 running on client-1 \(create index 122\)/,
    );
  },
);

t.test('1.10.5: each drained batch alloc failed and was rescheduled; no place ran twice', async (t) => {
  const e = real('batch-drain-1.10.5');
  t.match(judgeCheck(BATCH_OUTCOME, e), { status: 'passed', message: /2 fail-and-reschedule/ });
  t.equal(judgeCheck(NO_EXTRA_ALLOC, e).status, 'passed');
});
