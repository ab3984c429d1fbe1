// The restore-notice latency (issue 14): the client's clock offset from one SSH round trip, the moment each alloc ran
// again (its last task's first Started since the disruption, on the harness's clock), and the property's text.
import t from 'tap';
import { clockOffsetFrom } from '../../lib/parse/host-observe.js';
import { formatRestoreNotices, restoreNotices, streamNotices } from '../../lib/steps/restore-latency.js';
import type { AllocSnap, TaskStateSnap } from '../../lib/model/evidence.js';

const task = (starts: number[], other: { type: string; timeMs: number }[] = []): TaskStateSnap =>
  ({
    state: 'running',
    failed: false,
    restarts: 0,
    startedAt: undefined,
    finishedAt: undefined,
    events: [...other, ...starts.map((timeMs) => ({ type: 'Started', timeMs }))]
      .sort((a, b) => a.timeMs - b.timeMs)
      .map((e) => ({ ...e, message: '', details: {}, failsTask: false })),
  }) as unknown as TaskStateSnap;
const alloc = (id: string, name: string, tasks: Record<string, TaskStateSnap>, clientStatus = 'running'): AllocSnap =>
  ({ id, name, clientStatus, tasks }) as unknown as AllocSnap;

t.test("the clock offset: guest minus the round trip's midpoint, uncertain by half the round trip", async (t) => {
  t.same(clockOffsetFrom(1000, 1300, 1100), { offsetMs: 250, uncertaintyMs: 50 });
  t.same(clockOffsetFrom(1000, 900, 1001), { offsetMs: -100, uncertaintyMs: 1 }, 'rounded half up (-100.5)');
});

t.test(
  "each alloc restored in place: the last task's first Started after the disruption, put on the harness's clock",
  async (t) => {
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
    t.same(
      n,
      [
        {
          allocId: 'a0',
          name: 'job.web[0]',
          runningAtMs: 19_000,
          noticedAtMs: 19_300,
          latencyMs: 300,
          via: 'settle wait',
        },
        {
          allocId: 'a1',
          name: 'job.web[1]',
          runningAtMs: 21_000,
          noticedAtMs: 21_400,
          latencyMs: 400,
          via: 'settle wait',
        },
      ],
      'sorted by name; a failed alloc, one with no Started since, and an unknown id are left out',
    );
    t.equal(
      formatRestoreNotices(n, clock),
      'web[0] 300 ms, web[1] 400 ms (client clock +500 ms ± 20 ms; seen first by the settle wait)',
    );
    t.equal(formatRestoreNotices(n, { offsetMs: -3, uncertaintyMs: 1 })?.includes('(client clock -3 ms ± 1 ms;'), true);
    t.equal(formatRestoreNotices([], clock), undefined);
  },
);

// An Allocation stream event as Nomad sends it (nomad-reference.md: Payload.Allocation, task event Time in ns)
const frame = (
  receivedAtMs: number,
  id: string,
  clientStatus: string,
  tasks: Record<string, number[]>,
  topic = 'Allocation',
) => ({
  receivedAtMs,
  event: {
    Topic: topic,
    Type: 'AllocationUpdated',
    Key: id,
    Index: receivedAtMs,
    Payload: {
      Allocation: {
        ID: id,
        ClientStatus: clientStatus,
        DesiredStatus: 'run',
        ModifyTime: (receivedAtMs - 150) * 1e6,
        TaskStates: Object.fromEntries(
          Object.entries(tasks).map(([task, starts]) => [
            task,
            {
              State: 'running',
              Events: [{ Type: 'Received', Time: 1e6 }, ...starts.map((s) => ({ Type: 'Started', Time: s * 1e6 }))],
            },
          ]),
        ),
      },
    },
  },
});

t.test(
  'the event stream: the first frame showing the alloc running with every task started since the disruption',
  async (t) => {
    const since = 10_000;
    const clock = { offsetMs: 500, uncertaintyMs: 20 };
    const tasks = { a0: ['web'], a1: ['web', 'side'] };
    const received = [
      frame(9_800, 'a0', 'running', { web: [9_000] }), // before the disruption
      frame(19_450, 'a0', 'pending', { web: [9_000] }), // restored, not running yet
      frame(19_600, 'a0', 'running', { web: [9_000, 19_500] }), // started 19.0 s on our clock, seen at 19.6 s
      frame(19_700, 'a0', 'running', { web: [9_000, 19_500] }), // a later frame does not move it
      frame(20_800, 'a1', 'running', { web: [20_500] }), // one task started, the other not yet
      frame(22_100, 'a1', 'running', { web: [20_500], side: [21_500] }),
      frame(22_200, 'other', 'running', { web: [21_000] }), // not watched
      frame(22_300, 'a2', 'running', { web: [21_000] }, 'Job'), // not an Allocation topic
    ];
    const seen = streamNotices(received, tasks, since, clock);
    t.same(
      seen,
      { a0: { atMs: 19_600, modifyTimeMs: 19_450 }, a1: { atMs: 22_100, modifyTimeMs: 21_950 } },
      "arrival, and the alloc's ModifyTime (server clock) from the same frame",
    );
    const at = (r: Record<string, { atMs: number }>) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.atMs]));
    t.same(
      at(streamNotices(received, tasks, since, { offsetMs: -2_000, uncertaintyMs: 1 })),
      { a0: 9_800, a1: 22_100 },
      'the client clock 2 s behind: what it stamped 9 s is after a disruption at 10 s on ours; a1 needs both tasks started',
    );

    const allocs = [
      alloc('a0', 'job.web[0]', { web: task([9_000, 19_500]) }),
      alloc('a1', 'job.web[1]', { web: task([20_500]), side: task([21_500]) }),
    ];
    const server = { offsetMs: 100, uncertaintyMs: 30 }; // the server runs 0.1 s ahead
    const n = restoreNotices(allocs, { a0: 20_400, a1: 21_900 }, since, clock, seen, server);
    t.same(
      n.map((x) => [x.name, x.latencyMs, x.via, x.settleLatencyMs, x.nomadMs]),
      [
        // Started 19.0 s (ours); the server recorded it at 19.45 s on its clock = 19.35 s on ours; seen at 19.6 s
        ['job.web[0]', 600, 'event stream', 1_400, 350],
        ['job.web[1]', 900, 'settle wait', undefined, undefined],
      ],
      "the earlier of the two; the settle wait's own figure kept when the stream was first; Nomad's part from the server's record",
    );
    t.equal(
      formatRestoreNotices(n, clock, server),
      "web[0] 600 ms, web[1] 900 ms (client clock +500 ms ± 20 ms; seen first by web[0]: the event stream, web[1]: the settle wait; the settle wait's read: 1400 ms, 900 ms; of it Nomad's (Started to the server's record of it, server clock +100 ms ± 30 ms): 350 ms, ?)",
    );
    t.equal(
      formatRestoreNotices(n, clock),
      "web[0] 600 ms, web[1] 900 ms (client clock +500 ms ± 20 ms; seen first by web[0]: the event stream, web[1]: the settle wait; the settle wait's read: 1400 ms, 900 ms)",
      "without the server's clock: no split",
    );
    const both = restoreNotices(allocs.slice(0, 1), { a0: 20_400 }, since, clock, seen);
    t.equal(
      formatRestoreNotices(both, clock),
      "web[0] 600 ms (client clock +500 ms ± 20 ms; seen first by the event stream; the settle wait's read: 1400 ms)",
    );
  },
);
