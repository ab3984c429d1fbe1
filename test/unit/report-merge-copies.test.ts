// merge --copy-attachments' plan: where each file goes in the merged folder, and the session naming the copies.
import t from 'tap';
import { attachmentCopies, nameInRun } from '../../lib/report/merge-copies.js';
import type { SessionReport } from '../../lib/model/session.js';
import type { RunRecord } from '../../lib/model/run.js';

t.test('a file keeps its name inside its run folder', async (t) => {
  t.equal(nameInRun('/ci/reports-shard-1/r1/alloc-after.json', 'r1'), 'alloc-after.json');
  t.equal(nameInRun('/ci/r1/hosts/client/journal.txt', 'r1'), 'hosts/client/journal.txt', 'sub-folders kept');
  t.equal(nameInRun('/elsewhere/alloc-after.json', 'r1'), 'alloc-after.json', 'outside a run folder: its name');
  t.equal(nameInRun('/ci/r1/x/r1/y.log', 'r1'), 'y.log', 'the last segment naming the run');
});

t.test('the copies and the session that names them', async (t) => {
  const run = (runId: string, paths: string[]) =>
    ({ runId, artifacts: paths.map((p) => ({ name: p.split('/').at(-1)!, path: p })) }) as unknown as RunRecord;
  const session = {
    suites: [
      { name: 'a', attempts: [run('r1', ['/in/1/r1/a.json', '/gone/r1/b.json'])] },
      { name: 'b', attempts: [run('r2', ['/in/2/r2/a.json'])] },
    ],
  } as unknown as SessionReport;
  const inputs = new Set(['/in/1/r1/a.json', '/in/2/r2/a.json']);
  const plan = attachmentCopies(session, {
    outDir: '/out',
    exists: (p) => inputs.has(p),
    pageOf: (id) => (id === 'r1' ? '/in/1/r1/report.html' : undefined),
  });
  t.same(plan.copies, [
    { from: '/in/1/r1/report.html', to: '/out/r1/report.html' },
    { from: '/in/1/r1/a.json', to: '/out/r1/a.json' },
    { from: '/in/2/r2/a.json', to: '/out/r2/a.json' },
  ]);
  t.same(
    plan.session.suites.flatMap((s) => s.attempts.flatMap((r) => r.artifacts.map((a) => a.path))),
    ['/out/r1/a.json', '/gone/r1/b.json', '/out/r2/a.json'],
    'a file not among the inputs keeps its path',
  );
  t.same([...plan.pages], [['r1', '/out/r1/report.html']]);
  t.same(session.suites[0]!.attempts[0]!.artifacts[0]!.path, '/in/1/r1/a.json', 'the input session is not changed');
});
