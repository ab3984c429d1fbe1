// The settle rule after a disruption (jobSettleState / slotState / settleDecision): every judged alloc's place decided
// with evidence newer than the disruption and Nomad with nothing pending for the job (no open eval, no follow-up eval
// still to run, no active deployment); a lost alloc is not an end, nor a failed one Nomad reschedules later. Replayed on
// sequences recorded from real Nomad. Plus describeAlloc.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { AllocSnap, EvalSnap, TaskStateSnap } from '../../lib/model/evidence.js';
import type { ApiAllocListStub, ApiDeployment, ApiEvaluation } from '../../lib/nomad/api-types.js';
import { toAllocSnap, toDeploymentSnap, toEvalSnap } from '../../lib/nomad/parse.js';
import {
  describeAlloc,
  jobSettleState,
  settleDecision,
  settleEndMs,
  slotState,
  successorOf,
  viewFingerprint,
} from '../../lib/steps/settle.js';

const REBOOT_AT = Date.parse('2025-03-10T09:46:50Z');
const SINCE = { index: 100, atMs: REBOOT_AT };
const after = new Date(REBOOT_AT + 5000).toISOString();
const task = (o: Partial<TaskStateSnap> = {}): TaskStateSnap => ({
  state: 'running',
  failed: false,
  restarts: 0,
  startedAt: undefined,
  finishedAt: undefined,
  events: [],
  ...o,
});
const ID = 'aaaaaaaa-1111-2222-3333-444444444444';
const alloc = (o: Partial<AllocSnap> = {}): AllocSnap => ({
  id: ID,
  name: 'web.web[0]',
  nodeId: 'n1',
  jobId: 'web',
  taskGroup: 'web',
  clientStatus: 'running',
  desiredStatus: 'run',
  desiredDescription: '',
  clientDescription: '',
  createIndex: 50,
  modifyIndex: 120,
  createTimeMs: 0,
  previousAllocation: undefined,
  nextAllocation: undefined,
  address: '172.26.64.2',
  ports: [],
  tasks: { web: task({ startedAt: after }) },
  ...o,
});
const W = new Set([ID]);

t.test('restored: running, changed after the disruption, every task started since', async (t) => {
  t.match(slotState([alloc()], ID, W, SINCE), {
    settled: true,
    description: /running with tasks started after the disruption/,
  });
  t.match(
    slotState([alloc({ modifyIndex: 90 })], ID, W, SINCE),
    { settled: false, description: /unchanged since before the disruption/ },
    'the view from before the reboot is no evidence',
  );
  const before = new Date(REBOOT_AT - 60_000).toISOString();
  t.match(slotState([alloc({ tasks: { web: task({ startedAt: before }) } })], ID, W, SINCE), {
    settled: false,
    description: /tasks not started since/,
  });
  t.equal(
    slotState(
      [
        alloc({
          tasks: {
            web: task({
              events: [{ type: 'Started', timeMs: REBOOT_AT + 1, message: '', details: {}, failsTask: false }],
            }),
          },
        }),
      ],
      ID,
      W,
      SINCE,
    ).settled,
    true,
    'a Started event after the disruption',
  );
  t.equal(
    slotState(
      [alloc({ tasks: { web: task({ startedAt: after }), sidecar: task({ state: 'pending' }) } })],
      ID,
      W,
      SINCE,
    ).settled,
    false,
    'one task still pending',
  );
  t.equal(slotState([alloc({ tasks: {} })], ID, W, SINCE).settled, false, 'no task states yet');
  t.equal(slotState([alloc({ clientStatus: 'pending' })], ID, W, SINCE).settled, false, 'client status pending');
});

t.test('failed is an end, unless a reschedule is pending', async (t) => {
  t.match(slotState([alloc({ clientStatus: 'failed' })], ID, W, SINCE), { settled: true, description: /failed$/ });
  t.match(slotState([alloc({ clientStatus: 'failed', followupEvalId: 'e1' })], ID, W, SINCE), {
    settled: false,
    description: /reschedule is pending/,
  });
  t.match(slotState([alloc({ clientStatus: 'complete' })], ID, W, SINCE), { settled: true });
});

t.test('real 1.9.7 node-down: lost is not an end; the replacement (same name, no links) is', async (t) => {
  const lost = alloc({
    clientStatus: 'lost',
    desiredStatus: 'stop',
    desiredDescription: 'alloc is lost since its node is down',
  });
  t.match(slotState([lost], ID, W, SINCE), {
    settled: false,
    description: /stopped by the server; waiting for its replacement/,
  });
  // the client came back and reported the old alloc pending, desired stop, "No tasks have started"
  const back = { ...lost, clientStatus: 'pending', clientDescription: 'No tasks have started', modifyIndex: 130 };
  t.match(jobSettleState([back], [ID], SINCE), { settled: false }, 'pending (desired stop) without a replacement');
  const repl = alloc({
    id: 'bbbbbbbb-0000-0000-0000-000000000000',
    createIndex: 140,
    modifyIndex: 150,
    clientStatus: 'pending',
    tasks: { web: task({ state: 'pending' }) },
  });
  t.equal(
    successorOf([back, repl], back, ID, W, SINCE)?.id,
    repl.id,
    'matched by job, group and name created after the disruption',
  );
  t.equal(jobSettleState([back, repl], [ID], SINCE).settled, false, 'the replacement still pending');
  const running = { ...repl, clientStatus: 'running', tasks: { web: task({ startedAt: after }) } };
  const s = jobSettleState([back, running], [ID], SINCE);
  t.equal(
    s.settled,
    true,
    'settled once the replacement runs; the old alloc pending with desired stop does not hold it up',
  );
  t.match(s.description, /web\.web\[0\] replaced by bbbbbbbb: running/);
  t.equal(
    successorOf([back, { ...repl, createIndex: 90 }], back, ID, W, SINCE),
    undefined,
    'an alloc of that name from before the disruption is no replacement',
  );
  t.equal(
    successorOf([back, { ...repl, name: 'web.web[1]' }], back, ID, W, SINCE),
    undefined,
    'another index is no replacement',
  );
});

t.test('links: PreviousAllocation / NextAllocation, followed to the newest', async (t) => {
  const old = alloc({ clientStatus: 'failed', nextAllocation: 'cccccccc-0000-0000-0000-000000000000' });
  const next = alloc({
    id: 'cccccccc-0000-0000-0000-000000000000',
    previousAllocation: ID,
    createIndex: 140,
    nextAllocation: 'dddddddd-0000-0000-0000-000000000000',
    clientStatus: 'failed',
  });
  const last = alloc({ id: 'dddddddd-0000-0000-0000-000000000000', previousAllocation: next.id, createIndex: 160 });
  t.equal(successorOf([old, next, last], old, ID, W, SINCE)?.id, last.id);
});

t.test('the job: every judged alloc and no pending alloc meant to run', async (t) => {
  const b = alloc({ id: 'bbbbbbbb-1111-2222-3333-444444444444', name: 'web.web[1]' });
  t.equal(jobSettleState([alloc(), b], [ID, b.id], SINCE).settled, true);
  t.match(jobSettleState([alloc(), { ...b, clientStatus: 'pending' }], [ID, b.id], SINCE), {
    settled: false,
    description: /web\.web\[1\] bbbbbbbb/,
  });
  const extra = alloc({
    id: 'eeeeeeee-1111-2222-3333-444444444444',
    name: 'web.web[2]',
    clientStatus: 'pending',
    createIndex: 130,
  });
  t.match(
    jobSettleState([alloc(), extra], [ID], SINCE),
    { settled: false, description: /eeeeeeee.*\(pending\)/ },
    'an unjudged alloc meant to run, still pending',
  );
  t.match(jobSettleState([], [ID], SINCE), { settled: true, description: /gone from the job/ });
});

t.test('describeAlloc: the newest event across tasks', async (t) => {
  t.equal(describeAlloc(undefined), 'alloc not found');
  const a = alloc({
    tasks: {
      web: task({ events: [{ type: 'Started', timeMs: 30, message: 'started', details: {}, failsTask: false }] }),
      log: task({
        state: 'dead',
        events: [
          { type: 'Terminated', timeMs: 40, message: 'exit 1', details: {}, failsTask: false },
          { type: 'Received', timeMs: 10, message: 'r', details: {}, failsTask: false },
        ],
      }),
    },
  });
  t.equal(
    describeAlloc(a),
    'alloc aaaaaaaa client_status=running desired=run tasks[web=running,log=dead] last event: "Terminated: exit 1"',
  );
});

// ---- Nomad's own state: evaluations, follow-up evals with WaitUntil, deployments (recorded real sequences) ----

type Seq<T> = { at: string; atMs: number; index: number; body: T }[];
const REC = '../fixtures/nomad/real-1.9.3/settle/';
const seq = <T>(name: string): Seq<T> =>
  readFileSync(new URL(`${REC}seq-${name}.ndjson`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { at: string; index: number; body: T })
    .map((x) => ({ ...x, atMs: Date.parse(x.at) }));
const ALLOCS = seq<ApiAllocListStub[]>('allocs');
const EVALS = seq<ApiEvaluation[]>('evals');
const DEPLOYMENTS = seq<ApiDeployment | null>('deployment');
const MOMENTS = JSON.parse(readFileSync(new URL(`${REC}moments.json`, import.meta.url), 'utf8')) as Record<
  string,
  string
>;

/**
 * The view the settle wait gets when it reads the allocs, then the evals and the deployment: the evals answer that came
 * next (within a second; one of the watchers' answers), else the last one before, which held since.
 */
function viewAt(index: number, o: { budgetEndMs?: number; tasksRestart?: boolean } = {}) {
  const a = ALLOCS.find((x) => x.index === index)!;
  const latest = <T>(s: Seq<T>) =>
    s.find((x) => x.atMs >= a.atMs && x.atMs - a.atMs < 1000) ?? s.filter((x) => x.atMs <= a.atMs).at(-1)!;
  const evals = latest(EVALS).body.map(toEvalSnap);
  const dep = latest(DEPLOYMENTS).body;
  return {
    allocs: a.body.map(toAllocSnap),
    opts: {
      evals,
      deployment: dep ? toDeploymentSnap(dep) : undefined,
      nowMs: a.atMs,
      budgetEndMs: o.budgetEndMs ?? a.atMs + 600_000,
      tasksRestart: o.tasksRestart ?? true,
    },
  };
}
const [API0, API1, RESCHEDULED] = [
  '824419d5-a059-ae8f-61e5-4278ae1a8585',
  '943fd97a-226f-fa66-39cd-06038cf769e8',
  'b0713694',
];

t.test(
  'real 1.9.3: a failed alloc with a delayed follow-up eval is waited for, then its replacement settles it',
  async (t) => {
    // api[1] failed at index 21; api[0] kept running (a failure, not a reboot: its tasks are not expected to restart)
    const since = { index: 20, atMs: Date.parse(MOMENTS['failRequestedAt']!) };
    const watched = [API0, API1];
    const at = (index: number, o: { budgetEndMs?: number } = {}) => {
      const v = viewAt(index, { ...o, tasksRestart: false });
      return jobSettleState(v.allocs, watched, since, v.opts);
    };
    const s21 = at(21);
    t.equal(s21.settled, false, 'failed, and the alloc-failure eval written with it still pending');
    t.match(
      s21.description,
      /resched\.api\[1\] 943fd97a: client_status=failed .*\(eval 2ea59a06 \(alloc-failure\) pending: Nomad may still reschedule it\)/,
    );
    const s23 = at(23);
    t.match(s23, {
      settled: false,
      decided: false,
      reschedules: [{ allocId: API1, name: 'api[1]', evalId: /^9dec6d69/, beyondBudget: false }],
    });
    t.equal(
      s23.slots[1]!.description,
      'api[1] failed; Nomad reschedules it at 14:59:19 (follow-up eval 9dec6d69): waiting',
    );
    t.equal(s23.reschedules[0]!.atMs, Date.parse('2026-12-04T14:59:19.498Z'), 'WaitUntil in ms');
    const s25 = at(25);
    t.equal(s25.settled, false, 'the replacement placed, not yet running');
    t.match(s25.description, /resched\.api\[1\] replaced by b0713694: client_status=pending/);
    const s27 = at(27);
    t.equal(s27.settled, true, s27.description);
    t.match(
      s27.description,
      /^all 2 allocs settled: resched\.api\[0\] 824419d5: running, its tasks kept running.*; resched\.api\[1\] replaced by b0713694: running$/,
    );
    t.equal(s27.slots[1]!.currentId!.slice(0, 8), RESCHEDULED, 'followed NextAllocation to the replacement');
    // every view before the replacement runs is open; the first view after it is settled
    t.same(
      [21, 23, 25, 27].map((i) => at(i).settled),
      [false, false, false, true],
    );
  },
);

t.test(
  'real 1.9.3: a delayed reschedule after the budget is named as such, and the rest of the job still decides',
  async (t) => {
    const since = { index: 20, atMs: Date.parse(MOMENTS['failRequestedAt']!) };
    const budgetEndMs = Date.parse('2026-12-04T14:59:10Z');
    const v23 = viewAt(23, { budgetEndMs, tasksRestart: false });
    const s23 = jobSettleState(v23.allocs, [API0, API1], since, v23.opts);
    t.equal(
      s23.slots[1]!.description,
      "api[1] failed; Nomad reschedules it at 14:59:19 (follow-up eval 9dec6d69), after this wait's budget ends at 14:59:10: not waited for",
    );
    t.match(
      s23,
      { settled: false, decided: true, pending: [/^eval 2ea59a06 \(alloc-failure\) pending/] },
      'the alloc-failure eval was still running',
    );
    const v24 = { ...v23, opts: { ...v23.opts, evals: EVALS.find((e) => e.index === 24)!.body.map(toEvalSnap) } };
    const s24 = jobSettleState(v24.allocs, [API0, API1], since, v24.opts);
    t.match(s24, { settled: false, decided: true, pending: [] });
    // Note: api[0] kept running (nothing of Nomad's says so but the absence of change), so the quiet period confirms it
    const d = settleDecision(s24, {
      nowMs: v23.opts.nowMs + 20_000,
      unchangedSinceMs: v23.opts.nowMs,
      confirmMs: 3000,
      quietMs: 20_000,
    });
    t.match(
      d,
      { done: true, ending: 'beyond-budget', settled: false, reason: /not waited for/ },
      'not "failed": ends unsettled, naming the reschedule',
    );
  },
);

t.test(
  'real 1.9.3: lost allocs are replaced only after the node returns; the blocked eval holds the job until then',
  async (t) => {
    // the client cut off past heartbeat_grace; the judged allocs: api[0] and api[1]'s earlier replacement
    const since = { index: 27, atMs: Date.parse(MOMENTS['clientStoppedAt']!) };
    const watched = [API0, ALLOCS.find((x) => x.index === 27)!.body.find((a) => a.ID.startsWith(RESCHEDULED))!.ID];
    const at = (index: number) => {
      const v = viewAt(index);
      return jobSettleState(v.allocs, watched, since, v.opts);
    };
    const s31 = at(31);
    t.match(s31, { settled: false, decided: false });
    t.match(
      s31.description,
      /resched\.api\[0\] 824419d5: client_status=lost desired=stop .*\(stopped by the server; waiting for its replacement\)/,
    );
    t.match(
      s31.pending,
      [/^eval 2064bf74 \(queued-allocs\) blocked: created to place remaining allocations$/],
      'the blocked eval is named',
    );
    t.match(at(35), {
      settled: false,
      description: /replaced by e2e7ab60: client_status=pending.*replaced by 224fe4ae: client_status=pending/,
    });
    const s38 = at(38);
    t.equal(s38.settled, true, s38.description);
    t.match(
      s38.description,
      /resched\.api\[0\] replaced by e2e7ab60: running; resched\.api\[1\] replaced by 224fe4ae: running$/,
      'matched by name: no links',
    );
    t.equal(at(40).settled, true, "the replacements' health update changes nothing");
  },
);

t.test('real 1.9.7: a restored alloc with every eval complete settles', async (t) => {
  const dir = '../fixtures/nomad/real-1.9.7/reboot-sim/after-reboot-sim/';
  const read = <T>(f: string): T => JSON.parse(readFileSync(new URL(`${dir}${f}`, import.meta.url), 'utf8')) as T;
  const allocs = read<ApiAllocListStub[]>('job-allocations.json').map(toAllocSnap);
  const evals = read<ApiEvaluation[]>('evaluations.json').map(toEvalSnap);
  // after-agent-restart/ was read at index 19; the simulated reboot came before the task's Failed Restoring Task (11:50:48)
  const since = { index: 19, atMs: Date.parse('2026-12-02T11:50:40Z') };
  const s = jobSettleState(allocs, [allocs[0]!.id], since, { evals, nowMs: Date.parse('2026-12-02T11:51:17Z') });
  t.match(s, { settled: true, decided: true, pending: [], reschedules: [] });
  t.equal(
    s.description,
    'all 1 allocs settled: bridge-exec-http.web[0] 9d2d41e6: running with tasks started after the disruption',
  );
});

t.test('what Nomad still holds: open evals, an unjudged follow-up, an active deployment', async (t) => {
  const ev = (o: Partial<EvalSnap>): EvalSnap => ({
    id: 'e1e1e1e1-0000',
    status: 'complete',
    triggeredBy: 'job-register',
    statusDescription: '',
    waitUntilMs: undefined,
    createIndex: 1,
    modifyIndex: 2,
    ...o,
  });
  const other = alloc({
    id: 'ffffffff-1111-2222-3333-444444444444',
    name: 'web.web[3]',
    clientStatus: 'failed',
    followupEvalId: 'f0f0f0f0-0000',
    createIndex: 10,
    modifyIndex: 130,
  });
  const evals = [
    ev({}),
    ev({
      id: 'f0f0f0f0-0000',
      status: 'pending',
      triggeredBy: 'alloc-failure',
      waitUntilMs: REBOOT_AT + 60_000,
      createIndex: 3,
    }),
  ];
  const s = jobSettleState([alloc(), other], [ID], SINCE, { evals, nowMs: REBOOT_AT + 10_000 });
  t.match(s, {
    settled: false,
    decided: true,
    pending: ['eval f0f0f0f0 (alloc-failure) pending until 09:47:50, the follow-up of web[3] ffffffff'],
  });
  t.match(s.description, /^all 1 allocs settled: .*; Nomad still holds for the job: eval f0f0f0f0/);
  const dep = { id: 'd1d1d1d1-0000', status: 'running', statusDescription: 'Deployment is running', modifyIndex: 5 };
  t.match(jobSettleState([alloc()], [ID], SINCE, { evals: [ev({})], deployment: dep }), {
    settled: false,
    pending: ['deployment d1d1d1d1 running ("Deployment is running")'],
  });
  t.match(jobSettleState([alloc()], [ID], SINCE, { evals: [ev({})], deployment: { ...dep, status: 'successful' } }), {
    settled: true,
    pending: [],
  });
  const blocked = ev({
    id: 'b1b1b1b1-0000',
    status: 'blocked',
    triggeredBy: 'queued-allocs',
    statusDescription: 'created to place remaining allocations',
  });
  t.match(jobSettleState([alloc()], [ID], SINCE, { evals: [blocked] }).pending, [
    'eval b1b1b1b1 (queued-allocs) blocked: created to place remaining allocations',
  ]);
  // a failed alloc: no reschedule coming only once no eval of the job is about to run
  const failed = alloc({ clientStatus: 'failed' });
  t.match(slotState([failed], ID, W, SINCE, { evals: [ev({})] }), {
    settled: true,
    description: /failed; no reschedule coming$/,
  });
  t.match(slotState([failed], ID, W, SINCE, { evals: [ev({ status: 'pending', triggeredBy: 'alloc-failure' })] }), {
    settled: false,
    description: /Nomad may still reschedule it/,
  });
  t.match(
    slotState([{ ...failed, followupEvalId: 'e1e1e1e1-0000' }], ID, W, SINCE, { evals: [ev({})] }),
    { settled: true },
    'its follow-up eval complete (and no successor): decided',
  );
  t.match(
    slotState([{ ...failed, followupEvalId: 'gone' }], ID, W, SINCE, { evals: [ev({})] }),
    { settled: true },
    'its follow-up eval collected: Nomad collects terminal evals only',
  );
  const due = slotState([{ ...failed, followupEvalId: 'f0f0f0f0-0000' }], ID, W, SINCE, {
    evals: [ev({ id: 'f0f0f0f0-0000', status: 'pending', waitUntilMs: REBOOT_AT })],
    nowMs: REBOOT_AT + 1,
  });
  t.equal(
    due.description,
    "web[0] failed; Nomad's reschedule was due at 09:46:50 (follow-up eval f0f0f0f0, still pending): waiting",
  );
});

t.test(
  'settleDecision: confirm once nothing is pending, the quiet period while Nomad holds something, else wait',
  async (t) => {
    const T0 = REBOOT_AT + 60_000;
    const timing = (still: number) => ({ nowMs: T0 + still, unchangedSinceMs: T0, confirmMs: 3000, quietMs: 20_000 });
    const settled = jobSettleState([alloc()], [ID], SINCE, { evals: [] });
    t.match(settleDecision(settled, timing(1000)), {
      done: false,
      reason: /; confirming: unchanged for 1s of 3s$/,
      wakeAtMs: T0 + 3000,
    });
    t.match(settleDecision(settled, timing(3000)), {
      done: true,
      ending: 'settled',
      settled: true,
      reason: /^all 1 allocs settled/,
    });
    const dep = { id: 'd1d1d1d1-0000', status: 'paused', statusDescription: 'Deployment is paused', modifyIndex: 5 };
    const held = jobSettleState([alloc()], [ID], SINCE, { evals: [], deployment: dep });
    t.match(settleDecision(held, timing(3000)), {
      done: false,
      reason: /deployment d1d1d1d1 paused.*; unchanged for 3s of 20s$/,
      wakeAtMs: T0 + 20_000,
    });
    t.match(settleDecision(held, timing(20_000)), {
      done: true,
      ending: 'quiet',
      settled: true,
      reason:
        /Nomad still holds for the job: deployment d1d1d1d1 paused .*; nothing changed for 20s \(settle quiet period\)$/,
    });
    const kept = jobSettleState([alloc({ modifyIndex: 90 })], [ID], SINCE, { evals: [], tasksRestart: false });
    t.match(
      settleDecision(kept, timing(3000)),
      {
        done: false,
        reason: /kept running \(no restart expected\); confirming: unchanged for 3s of 20s$/,
        wakeAtMs: T0 + 20_000,
      },
      'kept running: only the absence of change says so, so the quiet period confirms it',
    );
    t.match(settleDecision(kept, timing(20_000)), { done: true, ending: 'settled' });
    const open = jobSettleState([alloc({ clientStatus: 'pending' })], [ID], SINCE, { evals: [] });
    t.match(
      settleDecision(open, timing(60_000)),
      { done: false, wakeAtMs: undefined },
      'an undecided place is never ended by quiet',
    );
    const resched = jobSettleState([alloc({ clientStatus: 'failed', followupEvalId: 'f0f0f0f0-0000' })], [ID], SINCE, {
      evals: [
        {
          id: 'f0f0f0f0-0000',
          status: 'pending',
          triggeredBy: 'alloc-failure',
          statusDescription: '',
          waitUntilMs: T0 + 30_000,
          createIndex: 1,
          modifyIndex: 1,
        },
      ],
      nowMs: T0,
      budgetEndMs: T0 + 600_000,
    });
    t.match(
      settleDecision(resched, timing(0)),
      { done: false, wakeAtMs: T0 + 30_000 },
      'wakes at WaitUntil to say it is due',
    );
    t.equal(
      settleEndMs(resched, T0 + 10_000, 300_000, T0 + 600_000),
      T0 + 330_000,
      'the window starts again at the reschedule',
    );
    t.equal(settleEndMs(resched, T0 + 10_000, 300_000, T0 + 100_000), T0 + 100_000, 'never past the budget');
    t.equal(settleEndMs(settled, T0 + 10_000, 300_000, T0 + 600_000), T0 + 10_000, 'nothing coming: the end stays');
  },
);

t.test('viewFingerprint: any alloc, eval or deployment change is a change', async (t) => {
  const e: EvalSnap = {
    id: 'e1',
    status: 'pending',
    triggeredBy: 'x',
    statusDescription: '',
    waitUntilMs: undefined,
    createIndex: 1,
    modifyIndex: 2,
  };
  const base = viewFingerprint([alloc()], [e]);
  t.equal(viewFingerprint([alloc()], [e]), base);
  t.not(viewFingerprint([alloc({ modifyIndex: 121 })], [e]), base);
  t.not(viewFingerprint([alloc()], [{ ...e, status: 'complete' }]), base);
  t.not(viewFingerprint([alloc()], [e], { id: 'd', status: 'running', statusDescription: '', modifyIndex: 3 }), base);
});

t.test('toEvalSnap: WaitUntil as Nomad sends it, left out while zero', async (t) => {
  const evals = JSON.parse(
    readFileSync(new URL(`${REC}failed-delayed/job-evaluations.json`, import.meta.url), 'utf8'),
  ) as ApiEvaluation[];
  const f = evals.map(toEvalSnap).find((e) => e.id.startsWith('9dec6d69'))!;
  t.same(f, {
    id: '9dec6d69-f984-cbc3-0f80-7ac5e73383d6',
    status: 'pending',
    triggeredBy: 'alloc-failure',
    statusDescription: 'created for delayed rescheduling',
    waitUntilMs: Date.parse('2026-12-04T14:59:19.498Z'),
    createIndex: 22,
    modifyIndex: 22,
  });
  t.equal(evals.map(toEvalSnap).find((e) => e.id.startsWith('e41a0021'))!.waitUntilMs, undefined);
  t.equal(toEvalSnap({ ...evals[0]!, WaitUntil: '0001-01-01T00:00:00Z' }).waitUntilMs, undefined, "Go's zero time");
  const full = JSON.parse(
    readFileSync(new URL(`${REC}failed-delayed/allocation-943fd97a.json`, import.meta.url), 'utf8'),
  ) as ApiAllocListStub;
  t.equal(toAllocSnap(full).followupEvalId, f.id, 'the failed alloc names it');
});
