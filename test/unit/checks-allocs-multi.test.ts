// Every alloc judged: outcomes per alloc (restored, replaced by name as real 1.9.7 left it, failed, unknown only when the
// job had not settled), the checks' per-alloc detail and summaries, cause links, and the HTML per-alloc table.
import t from 'tap';
import { judgeAll, judgeCheck } from '../../lib/checks/define.js';
import type {
  AllocSnap,
  HttpProbe,
  Observation,
  RebootEvidence,
  TaskEventRec,
  TaskStateSnap,
} from '../../lib/model/evidence.js';
import type { Verdict } from '../../lib/model/check.js';
import { classifyAll } from '../../lib/checks/alloc-outcome.js';
import { applyExpectations } from '../../lib/checks/verdict.js';
import { ALLOC_RESTORED } from '../../lib/checks/alloc-restored.js';
import { TASK_RESTARTED } from '../../lib/checks/task-restarted.js';
import { HTTP_REACHABLE } from '../../lib/checks/http-reachable.js';
import { UNIQUE_IPS } from '../../lib/checks/unique-ips.js';
import { NO_DUPLICATE_IP } from '../../lib/checks/no-duplicate-ip.js';
import { CHECKS } from '../../scenarios/bridge-exec-reboot.js';
import { renderAllocTable } from '../../lib/report/html-allocs.js';

const REBOOT = Date.parse('2026-12-02T10:00:00Z');
const ev = (type: string, at: number, message = '', failsTask = false): TaskEventRec => ({
  type,
  timeMs: at,
  message,
  details: {},
  failsTask,
  task: 'web',
});
const task = (o: Partial<TaskStateSnap> = {}): TaskStateSnap => ({
  state: 'running',
  failed: false,
  restarts: 0,
  startedAt: undefined,
  finishedAt: undefined,
  events: [],
  ...o,
});
const id = (n: number): string => `${String(n).repeat(8)}-0000-4000-8000-000000000000`;
const alloc = (n: number, o: Partial<AllocSnap> = {}): AllocSnap => ({
  id: id(n),
  name: `job.web[${n - 1}]`,
  nodeId: 'node1',
  jobId: 'job',
  taskGroup: 'web',
  clientStatus: 'running',
  desiredStatus: 'run',
  desiredDescription: '',
  clientDescription: '',
  createIndex: 10 + n,
  modifyIndex: 200,
  createTimeMs: REBOOT - 60_000,
  previousAllocation: undefined,
  nextAllocation: undefined,
  address: `172.26.64.${n + 1}`,
  ports: [{ label: 'http', value: 20000 + n, to: 80, hostIp: '10.199.0.11' }],
  tasks: {
    web: task({ startedAt: new Date(REBOOT + 30_000).toISOString(), events: [ev('Started', REBOOT + 30_000)] }),
  },
  ...o,
});
const obs = (label: string, allocs: AllocSnap[], http: HttpProbe[] = []): Observation => ({
  label,
  atMs: REBOOT + 60_000,
  bootId: label === 'before' ? 'boot-a' : 'boot-b',
  uptimeS: 20,
  node: {
    id: 'node1',
    name: 'client',
    status: 'ready',
    statusUpdatedAt: REBOOT / 1000 + 40,
    drivers: {},
    attributes: {},
    events: [],
  },
  alloc: allocs[0],
  jobAllocs: allocs,
  nodeAllocs: allocs.filter((a) => ['running', 'pending'].includes(a.clientStatus)),
  http,
  cniState: [],
});
const probes = (a: AllocSnap, ok = true): HttpProbe[] => [
  {
    from: 'client',
    url: `http://${a.address}:80/`,
    ok,
    status: ok ? 200 : undefined,
    error: ok ? undefined : 'refused',
    allocId: a.id,
    port: 'http',
    kind: 'http',
    target: 'bridge',
  },
  {
    from: 'server',
    url: `http://10.199.0.11:${a.ports[0]!.value}/`,
    ok,
    status: ok ? 200 : undefined,
    error: ok ? undefined : 'refused',
    allocId: a.id,
    port: 'http',
    kind: 'http',
    target: 'host-port',
  },
];
const evidence = (
  before: AllocSnap[],
  after: AllocSnap[],
  http: HttpProbe[],
  o: Partial<RebootEvidence> = {},
): RebootEvidence => ({
  jobId: 'job',
  taskName: 'web',
  allocId: before[0]!.id,
  allocIds: before.map((a) => a.id),
  disruptionIndex: 100,
  heartbeatGrace: '10s',
  settle: { settled: true, reason: 'all settled', quietMs: 20_000 },
  before: obs('before', before),
  after: obs('after', after, http),
  reboot: {
    machine: 'client',
    kind: 'graceful',
    bootIdBefore: 'boot-a',
    bootIdAfter: 'boot-b',
    requestedAt: REBOOT,
    backAt: REBOOT + 45_000,
  },
  taskEvents: {},
  clientLog: [],
  ...o,
});
const beforeAllocs = [1, 2, 3].map((n) =>
  alloc(n, { modifyIndex: 50, tasks: { web: task({ startedAt: new Date(REBOOT - 50_000).toISOString() }) } }),
);
const DUP = (n: number) =>
  `failed to setup alloc: pre-run hook "network" failed: failed to configure networking for alloc: failed to configure network: plugin type="bridge" failed (add): failed to allocate for range 0: 172.26.64.${n + 1} has been allocated to ${id(n)}, duplicate allocation is not allowed`;

t.test('count 3 restored: all pass with three lines each; an address change is named', async (t) => {
  const after = [alloc(1), alloc(2, { address: '172.26.64.4' }), alloc(3, { address: '172.26.64.3' })];
  const e = evidence(
    beforeAllocs,
    after,
    after.flatMap((a) => probes(a)),
  );
  t.same(
    classifyAll(e).map((o) => o.outcome),
    ['restored', 'restored', 'restored'],
  );
  const r = judgeCheck(ALLOC_RESTORED, e);
  t.equal(r.status, 'passed');
  t.match(
    r.message,
    /^all 3 allocs restored in place; 2 came back with a different address \(job\.web\[1\] 172\.26\.64\.3 -> 172\.26\.64\.4; job\.web\[2\] 172\.26\.64\.4 -> 172\.26\.64\.3\)/,
  );
  t.equal(r.perAlloc?.length, 3);
  t.match(judgeCheck(HTTP_REACHABLE, e), {
    status: 'passed',
    message: /every mapped port of all 3 allocs answered \(6 probes/,
  });
  t.match(judgeCheck(TASK_RESTARTED, e), { status: 'passed', message: /all 3 tasks of 3 allocs started again/ });
});

t.test(
  'count 3 on 1.9.3: every alloc failed with the duplicate-IP error; consequences linked; failed allocs hold no address',
  async (t) => {
    const after = [1, 2, 3].map((n) =>
      alloc(n, {
        clientStatus: 'failed',
        clientDescription: 'Failed tasks',
        tasks: {
          web: task({
            state: 'dead',
            failed: true,
            startedAt: new Date(REBOOT - 50_000).toISOString(),
            events: [
              ev('Failed Restoring Task', REBOOT + 20_000),
              ev('Setup Failure', REBOOT + 25_000, DUP(n), true),
              ev('Not Restarting', REBOOT + 25_001, 'Error was unrecoverable', true),
            ],
          }),
        },
      }),
    );
    const e = evidence(beforeAllocs, after, []);
    const outcomes = classifyAll(e);
    t.same(
      outcomes.map((o) => o.outcome),
      ['failed', 'failed', 'failed'],
    );
    t.ok(
      outcomes.every((o) => o.failingEvent?.type === 'Setup Failure'),
      'quotes the cause, not Not Restarting',
    );
    const results = judgeAll(CHECKS, e);
    const by = (x: string) => results.find((r) => r.id === x)!;
    t.match(by('alloc-restored').message, /^0 of 3 allocs restored; 3 failed; first: failed: alloc 11111111/);
    t.match(by('no-duplicate-ip').message, /for 3 of 3 allocs: 172\.26\.64\.2 was already allocated to 11111111/);
    for (const x of [ALLOC_RESTORED, TASK_RESTARTED, HTTP_REACHABLE])
      t.equal(by(x.id).causedBy, NO_DUPLICATE_IP.id, `${x.id} is a consequence`);
    t.match(judgeCheck(HTTP_REACHABLE, e).perAlloc, [
      { status: 'failed', detail: /failed: not probed/ },
      { status: 'failed' },
      { status: 'failed' },
    ]);
    t.equal(judgeCheck(UNIQUE_IPS, e).status, 'skipped', 'no live alloc, no address to compare');
    // real 1.9.3 may leave the failed allocs' namespaces and their veths: the same cause, as long as no more veths remain than failed allocs
    const leaky = evidence(beforeAllocs, after, []);
    leaky.after.cniState = [
      { dir: '/var/lib/cni/networks/nomad', exists: true, files: { '172.26.64.2': `${id(1)}\r\neth0` } },
    ];
    leaky.after.netState = { netns: [id(2), id(3)], veths: [1, 2].map((n) => ({ name: `veth${n}`, master: 'nomad' })) };
    const leaks = judgeAll(CHECKS, leaky).find((r) => r.id === 'no-leaks')!;
    t.equal(leaks.status, 'failed');
    t.equal(
      leaks.causedBy,
      'no-duplicate-ip',
      "the failed allocs' leftovers are the duplicate-IP failure's consequence",
    );
    leaky.after.netState.veths.push(...[3, 4].map((n) => ({ name: `veth${n}`, master: 'nomad' })));
    t.notOk(
      judgeAll(CHECKS, leaky).find((r) => r.id === 'no-leaks')!.causedBy,
      'more veths than failed allocs is a leak of its own',
    );
    t.match(judgeCheck(NO_DUPLICATE_IP, e).perAlloc, [
      { status: 'failed', detail: /^Setup Failure: 172\.26\.64\.2 was already allocated to 11111111/ },
      { status: 'failed' },
      { status: 'failed' },
    ]);
  },
);

t.test(
  '1.9.3 with a reschedule policy (run r17tvf472b0c25): the alloc failed on the duplicate-IP error and Nomad replaced it; the lost restore is the consequence',
  async (t) => {
    const failed = alloc(1, {
      clientStatus: 'failed',
      clientDescription: 'Failed tasks',
      desiredDescription: 'alloc was rescheduled because it failed',
      nextAllocation: '99999999-0000-4000-8000-000000000000',
      tasks: {
        web: task({
          state: 'dead',
          failed: true,
          startedAt: new Date(REBOOT - 50_000).toISOString(),
          events: [ev('Failed Restoring Task', REBOOT + 20_000), ev('Setup Failure', REBOOT + 25_000, DUP(1), true)],
        }),
      },
    });
    const repl = alloc(9, {
      id: '99999999-0000-4000-8000-000000000000',
      name: 'job.web[0]',
      address: '172.26.64.3',
      previousAllocation: failed.id,
      createIndex: 150,
      createTimeMs: REBOOT + 60_000,
    });
    const e = evidence([beforeAllocs[0]!], [failed, repl], probes(repl));
    const [o] = classifyAll(e);
    t.equal(o!.outcome, 'replaced');
    t.match(o!.reason, /rescheduled after it ended failed .*duplicate allocation is not allowed/);
    const results = judgeAll(CHECKS, e);
    const by = (x: string) => results.find((r) => r.id === x)!;
    t.equal(by('no-duplicate-ip').status, 'failed');
    t.equal(by('alloc-restored').status, 'failed');
    t.equal(by('alloc-restored').causedBy, NO_DUPLICATE_IP.id, 'replaced because it failed on the duplicate IP');
    t.equal(by('task-restarted').causedBy, ALLOC_RESTORED.id, 'its tasks did not restart in place: replaced');
    t.equal(by('http-reachable').status, 'passed', 'the replacement answers');
    const verdicts = applyExpectations(results, { perCheck: { 'no-duplicate-ip': 'fail' } });
    t.same(
      verdicts.filter((v) => !v.met).map((v) => v.id),
      [],
      '--expect no-duplicate-ip=fail reproduces the bug: the chain of consequences is met',
    );

    // A replacement for another reason (the node was marked down) is not the duplicate IP's doing.
    const lost = { ...failed, clientStatus: 'lost', desiredDescription: 'alloc is lost since its node is down' };
    const other = judgeAll(CHECKS, evidence([beforeAllocs[0]!], [lost, repl], probes(repl)));
    t.notOk(other.find((r) => r.id === 'alloc-restored')!.causedBy, 'lost with its node: a failure of its own');
  },
);

t.test(
  'real 1.9.7 node-down: replaced, matched by name (no links), heartbeat_grace explained; the rest judged on',
  async (t) => {
    const lost = alloc(1, {
      clientStatus: 'pending',
      clientDescription: 'No tasks have started',
      desiredStatus: 'stop',
      desiredDescription: 'alloc is lost since its node is down',
      tasks: { web: task({ state: 'pending', startedAt: new Date(REBOOT - 50_000).toISOString() }) },
    });
    const repl = alloc(9, {
      id: '99999999-0000-4000-8000-000000000000',
      name: 'job.web[0]',
      createIndex: 150,
      createTimeMs: REBOOT + 50_000,
    });
    const after = [lost, alloc(2), alloc(3), repl];
    const e = evidence(
      beforeAllocs,
      after,
      [repl, alloc(2), alloc(3)].flatMap((a) => probes(a)),
    );
    e.after.node!.events = [
      { message: 'Node heartbeat missed', timestamp: '2026-12-02T10:00:25Z' },
      { message: 'Node reregistered by heartbeat', timestamp: '2026-12-02T10:00:50Z' },
    ];
    const [o1, o2] = classifyAll(e);
    t.equal(o1!.outcome, 'replaced');
    t.equal(o1!.replacementId, repl.id);
    t.equal(o1!.matchedBy, 'name');
    t.match(
      o1!.reason,
      /matched by job, group and name job\.web\[0\] created after the reboot \(Nomad left PreviousAllocation and NextAllocation empty\)/,
    );
    t.match(
      o1!.reason,
      /node event "Node heartbeat missed" at 2026-12-02T10:00:25Z; the alloc: "alloc is lost since its node is down"\): the server's heartbeat_grace \(10s\) is shorter than the reboot \(45 s until SSH was back\)/,
    );
    t.equal(o2!.outcome, 'restored');
    const results = judgeAll(CHECKS, e);
    const by = (x: string) => results.find((r) => r.id === x)!;
    t.match(by('alloc-restored').message, /^2 of 3 allocs restored; 1 replaced/);
    t.equal(by('http-reachable').status, 'passed', "the replacement answers in the lost alloc's place");
    t.equal(by('task-restarted').causedBy, 'alloc-restored', 'its tasks did not restart in place: a consequence');
    const old = alloc(7, { createIndex: 90, name: 'job.web[0]', id: '77777777-0000-4000-8000-000000000000' });
    t.equal(
      classifyAll(evidence(beforeAllocs, [lost, alloc(2), alloc(3), old], []))[0]!.outcome,
      'failed',
      'an alloc of that name from before the reboot is no replacement: lost and not replaced after settling is a failure',
    );
  },
);

t.test('unknown only while the job had not settled', async (t) => {
  const pending = [
    alloc(1, { clientStatus: 'pending', tasks: { web: task({ state: 'pending' }) } }),
    alloc(2),
    alloc(3),
  ];
  const unsettled = evidence(beforeAllocs, pending, [], {
    settle: { settled: false, reason: 'job.web[0] 11111111: client_status=pending', quietMs: 20_000 },
  });
  t.match(classifyAll(unsettled)[0], {
    outcome: 'unknown',
    reason: /the job had not settled when the wait ran out \(last: job\.web\[0\] 11111111: client_status=pending\)/,
  });
  t.match(classifyAll(evidence(beforeAllocs, pending, []))[0], {
    outcome: 'failed',
    reason: /not running and not replaced after the job settled/,
  });
  const stale = [
    alloc(1, { tasks: { web: task({ startedAt: new Date(REBOOT - 50_000).toISOString() }) } }),
    alloc(2),
    alloc(3),
  ];
  t.match(classifyAll(evidence(beforeAllocs, stale, [], { settle: { settled: false, reason: 'x', quietMs: 1 } }))[0], {
    outcome: 'unknown',
    reason: /tasks not started since the reboot \(a view from before it\)/,
  });
});

t.test('HTML: one row per alloc, one column per per-alloc check, escaped', async (t) => {
  const after = [alloc(1), alloc(2, { name: 'job.web[1]<script>' })];
  const e = evidence(beforeAllocs.slice(0, 2), after, probes(after[0]!).concat(probes(after[1]!, false)));
  const verdicts: Verdict[] = judgeAll(CHECKS, e).map((r) => ({
    ...r,
    expected: 'pass',
    met: r.status !== 'failed',
    label: r.status === 'failed' ? 'failed' : r.status,
  }));
  const html = renderAllocTable(verdicts);
  t.match(html, /<table id="allocs">/);
  t.equal((html.match(/<tr data-alloc=/g) ?? []).length, 2);
  t.match(html, /data-check="http-reachable" data-status="failed" title="2 of 2 probes failed/);
  t.notMatch(html, /<script>/, 'alloc names are escaped');
  t.match(html, /job\.web\[1\]&lt;script&gt;/);
  t.equal(renderAllocTable([]), '', 'no per-alloc checks, no table');
});

t.test(
  'recorded: the real count-3 run on 1.9.3 (run raz4jad7512261, docs/findings.md): every alloc failed with the duplicate-IP error',
  async (t) => {
    const { readFileSync } = await import('node:fs');
    const e = JSON.parse(
      readFileSync(new URL('../fixtures/checks/real-1.9.3-count-3.json', import.meta.url), 'utf8'),
    ) as RebootEvidence;
    const outcomes = classifyAll(e);
    t.same(
      outcomes.map((o) => o.outcome),
      ['failed', 'failed', 'failed'],
    );
    t.ok(
      outcomes.every(
        (o) =>
          o.failingEvent?.type === 'Setup Failure' &&
          /duplicate allocation is not allowed/.test(o.failingEvent.message),
      ),
    );
    const results = judgeAll(CHECKS, e);
    const by = (x: string) => results.find((r) => r.id === x)!;
    t.match(
      by('no-duplicate-ip').perAlloc?.map((p) => p.detail),
      [
        /^Setup Failure: 172\.26\.64\.2 was already allocated to 3378983b/,
        /172\.26\.64\.3 was already allocated to 396b4426/,
        /172\.26\.64\.4 was already allocated to 584cd270/,
      ],
    );
    for (const x of [ALLOC_RESTORED, TASK_RESTARTED, HTTP_REACHABLE])
      t.equal(by(x.id).causedBy, NO_DUPLICATE_IP.id, `${x.id} is a consequence`);
    t.equal(by('unique-ips').status, 'skipped', 'the failed allocs still report their addresses; none is live');
  },
);
