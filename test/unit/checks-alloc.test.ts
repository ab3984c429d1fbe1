// alloc outcome classification, alloc-restored and task-restarted over recorded samples.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { judgeCheck } from '../../lib/checks/define.js';
import { classifyAllocOutcome } from '../../lib/checks/alloc-outcome.js';
import { ALLOC_RESTORED } from '../../lib/checks/alloc-restored.js';
import { TASK_RESTARTED } from '../../lib/checks/task-restarted.js';
import type { RebootEvidence } from '../../lib/model/evidence.js';

const load = (name: string): RebootEvidence =>
  JSON.parse(readFileSync(new URL(`../fixtures/checks/${name}.json`, import.meta.url), 'utf8')) as RebootEvidence;
const NEW = '5e1f0a9b-3c2d-4b7e-a1f6-8d9c0b1a2e3f';

t.test('classifyAllocOutcome', async (t) => {
  t.match(classifyAllocOutcome(load('restored')), { outcome: 'restored', reason: /running again on node f3a2c1d4/ });

  const replaced = classifyAllocOutcome(load('replaced'));
  t.equal(replaced.outcome, 'replaced');
  t.equal(replaced.replacementId, NEW);
  t.equal(replaced.replacement?.previousAllocation, '2976d256-4d3b-9b84-1c1e-6a2f0c9e8b71');
  t.match(replaced.reason, /marked down/, 'says the node went down');
  t.match(replaced.reason, /heartbeat_grace is shorter than the reboot/, 'explains heartbeat_grace');

  // A partition past heartbeat_grace: the explanation names the partition and its length, not a reboot.
  const cut = load('replaced');
  cut.reboot = { ...cut.reboot, kind: 'partition', backAt: cut.reboot.requestedAt + 60_000 };
  cut.heartbeatGrace = '30s';
  const p = classifyAllocOutcome(cut);
  t.equal(p.outcome, 'replaced');
  t.match(
    p.reason,
    /the node was marked down during the partition \(.*\): the server's heartbeat_grace \(30s\) is shorter than the partition \(60 s\), so the scheduler replaced the lost alloc \(what a partition past heartbeat_grace makes Nomad do/,
  );
  t.notMatch(p.reason, /reboot|SSH/, "no reboot in a partition's explanation");

  // Only NextAllocation on the old alloc, replacement not in the job list, not node-lost.
  const nextOnly = load('replaced');
  nextOnly.after.jobAllocs = nextOnly.after.jobAllocs.filter((a) => a.id !== NEW);
  nextOnly.after.alloc!.clientStatus = 'failed';
  nextOnly.after.alloc!.desiredDescription = 'alloc was rescheduled because it failed';
  const n = classifyAllocOutcome(nextOnly);
  t.match(n, { outcome: 'replaced', replacementId: NEW, replacement: undefined });
  t.notMatch(n.reason, /heartbeat_grace/, 'a failure-driven reschedule is not blamed on heartbeats');
  t.match(n.reason, /rescheduled because it failed/);

  const failed = classifyAllocOutcome(load('duplicate-ip'));
  t.equal(failed.outcome, 'failed');
  t.equal(failed.failingEvent?.type, 'Setup Failure', 'quotes the cause, not the Not Restarting that follows');
  t.match(failed.reason, /duplicate allocation is not allowed/);

  const pending = load('restored');
  pending.after.alloc!.clientStatus = 'pending';
  pending.after.jobAllocs[0]!.clientStatus = 'pending';
  t.match(classifyAllocOutcome(pending), { outcome: 'unknown', reason: /is pending/ });

  const disconnected = load('restored');
  disconnected.after.alloc!.clientStatus = 'unknown';
  disconnected.after.alloc!.clientDescription = 'alloc is unknown since its node is disconnected';
  disconnected.after.jobAllocs = [disconnected.after.alloc!];
  t.match(classifyAllocOutcome(disconnected), { outcome: 'unknown', reason: /node is disconnected/ });

  const vanished = load('restored');
  vanished.after.alloc = undefined;
  vanished.after.jobAllocs = [];
  t.match(classifyAllocOutcome(vanished), { outcome: 'unknown', reason: /not found after the reboot/ });
});

t.test('alloc-restored', async (t) => {
  t.equal(judgeCheck(ALLOC_RESTORED, load('restored')).status, 'passed');
  const r = judgeCheck(ALLOC_RESTORED, load('replaced'));
  t.equal(r.status, 'failed', 'a replaced alloc (PreviousAllocation set) fails');
  t.match(r.message, /^not restored \(replaced\): alloc 2976d256/);
  t.match(
    r.evidence.join('\n'),
    /after: {2}5e1f0a9b.*previous 2976d256/,
    'the replacement is shown as what holds the slot now',
  );
  const f = judgeCheck(ALLOC_RESTORED, load('duplicate-ip'));
  t.equal(f.status, 'failed');
  t.match(f.message, /^not restored \(failed\): /);
});

t.test('task-restarted', async (t) => {
  const ok = judgeCheck(TASK_RESTARTED, load('restored'));
  t.equal(ok.status, 'passed', ok.message);
  t.match(ok.message, /Started event at 2025-03-10T09:47:41\.500Z/);

  t.match(judgeCheck(TASK_RESTARTED, load('duplicate-ip')), {
    status: 'failed',
    message: /not started after the reboot/,
  });
  t.match(judgeCheck(TASK_RESTARTED, load('replaced')), { status: 'failed' });

  // No Started event recorded (events lost: Nomad keeps 10), but StartedAt moved past the reboot.
  const byStartedAt = load('restored');
  byStartedAt.taskEvents = {};
  byStartedAt.after.alloc!.tasks['http']!.events = byStartedAt.after.alloc!.tasks['http']!.events.filter(
    (e) => e.type !== 'Started',
  );
  byStartedAt.after.jobAllocs = [byStartedAt.after.alloc!];
  t.match(judgeCheck(TASK_RESTARTED, byStartedAt), { status: 'passed', message: /StartedAt 2025-03-10T09:47:41/ });

  // Started after the reboot, but dead now.
  const died = load('restored');
  died.after.alloc!.tasks['http']!.state = 'dead';
  t.match(judgeCheck(TASK_RESTARTED, died), { status: 'failed', message: /but dead now/ });

  // A Started event before the reboot only does not count.
  const old = load('restored');
  old.taskEvents = {};
  old.after.alloc!.tasks['http']!.events = old.after.alloc!.tasks['http']!.events.slice(0, 3);
  old.after.alloc!.tasks['http']!.startedAt = '2025-03-10T09:40:02.5Z';
  t.match(judgeCheck(TASK_RESTARTED, old), {
    status: 'failed',
    message: /no Started event since 2025-03-10T09:46:50\.000Z/,
  });

  const noAlloc = load('restored');
  noAlloc.after.alloc = undefined;
  noAlloc.after.jobAllocs = [];
  t.match(judgeCheck(TASK_RESTARTED, noAlloc), { status: 'failed', message: /not observed after the reboot/ });
});
