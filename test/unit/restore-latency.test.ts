// The restore-notice latency (issue 14): the client's clock offset from one SSH round trip, the moment each alloc ran
// again (its last task's first Started since the disruption, on the harness's clock), and the property's text.
import t from 'tap';
import { clockOffsetFrom } from '../../lib/lab/parse-observe.js';
import { formatRestoreNotices, restoreNotices } from '../../lib/scenario/restore-latency.js';
import type { AllocSnap, TaskStateSnap } from '../../lib/model/evidence.js';

const task = (starts: number[], other: { type: string; timeMs: number }[] = []): TaskStateSnap => ({
  state: 'running', failed: false, restarts: 0, startedAt: undefined, finishedAt: undefined,
  events: [...other, ...starts.map((timeMs) => ({ type: 'Started', timeMs }))]
    .sort((a, b) => a.timeMs - b.timeMs).map((e) => ({ ...e, message: '', details: {}, failsTask: false })),
} as unknown as TaskStateSnap);
const alloc = (id: string, name: string, tasks: Record<string, TaskStateSnap>, clientStatus = 'running'): AllocSnap =>
  ({ id, name, clientStatus, tasks } as unknown as AllocSnap);

t.test('the clock offset: guest minus the round trip\'s midpoint, uncertain by half the round trip', async (t) => {
  t.same(clockOffsetFrom(1000, 1300, 1100), { offsetMs: 250, uncertaintyMs: 50 });
  t.same(clockOffsetFrom(1000, 900, 1001), { offsetMs: -100, uncertaintyMs: 1 }, 'rounded half up (-100.5)');
});

t.test('each alloc restored in place: the last task\'s first Started after the disruption, put on the harness\'s clock', async (t) => {
  const since = 10_000;
  const clock = { offsetMs: 500, uncertaintyMs: 20 }; // the client runs 0.5 s ahead
  const allocs = [
    // started before the disruption (9 s client time), then again at 20.5 s and 21.5 s client time (two tasks)
    alloc('a1', 'job.web[1]', { web: task([9_000, 20_500]), side: task([21_500, 30_000]) }),
    alloc('a0', 'job.web[0]', { web: task([19_500]) }),
    alloc('a2', 'job.web[2]', { web: task([15_000]) }, 'failed'),
    alloc('a3', 'job.web[3]', { web: task([9_000]) }),
  ];
  const n = restoreNotices(allocs, { a1: 21_400, a0: 19_300, a2: 16_000, a3: 12_000, gone: 1 }, since, clock);
  t.same(n, [
    { allocId: 'a0', name: 'job.web[0]', runningAtMs: 19_000, noticedAtMs: 19_300, latencyMs: 300 },
    { allocId: 'a1', name: 'job.web[1]', runningAtMs: 21_000, noticedAtMs: 21_400, latencyMs: 400 },
  ], 'sorted by name; a failed alloc, one with no Started since, and an unknown id are left out');
  t.equal(formatRestoreNotices(n, clock), 'web[0] 300 ms, web[1] 400 ms (client clock +500 ms ± 20 ms)');
  t.equal(formatRestoreNotices(n, { offsetMs: -3, uncertaintyMs: 1 })?.endsWith('(client clock -3 ms ± 1 ms)'), true);
  t.equal(formatRestoreNotices([], clock), undefined);
});
