// The example user scenario's checks (examples/scenarios/server-reboot.ts) over recorded-shape evidence: each must be
// able to fail.
import t from 'tap';
import { CHECKS, type ServerRebootEvidence } from '../../examples/scenarios/server-reboot.js';
import { judgeAll } from '../../lib/checks/define.js';
import type { AllocSnap, TaskEventRec } from '../../lib/model/evidence.js';

const T0 = Date.parse('2026-12-03T08:00:00Z');
const ev = (type: string, timeMs: number): TaskEventRec => ({
  type,
  timeMs,
  message: type,
  details: {},
  failsTask: false,
});
const alloc = (o: { status?: string; restarts?: number; events?: TaskEventRec[] } = {}): AllocSnap => ({
  id: 'a1',
  name: 'web.web[0]',
  nodeId: 'n1',
  jobId: 'web',
  taskGroup: 'web',
  clientStatus: o.status ?? 'running',
  desiredStatus: 'run',
  desiredDescription: '',
  clientDescription: '',
  createIndex: 1,
  modifyIndex: 2,
  createTimeMs: T0 - 60_000,
  previousAllocation: undefined,
  nextAllocation: undefined,
  address: '172.26.64.2',
  ports: [],
  tasks: {
    web: {
      state: 'running',
      failed: false,
      restarts: o.restarts ?? 0,
      startedAt: undefined,
      finishedAt: undefined,
      events: o.events ?? [ev('Received', T0 - 60_000), ev('Started', T0 - 50_000)],
    },
  },
});
const good: ServerRebootEvidence = {
  reboot: {
    machine: 'server',
    kind: 'graceful',
    bootIdBefore: 'b1',
    bootIdAfter: 'b2',
    requestedAt: T0,
    backAt: T0 + 40_000,
  },
  leaderAfter: { leader: '10.199.0.10:4647' },
  allocBefore: alloc(),
  allocAfter: alloc(),
  probesDuring: [{ atMs: T0 + 1000, ok: true, detail: 'http://172.26.64.2:80/ -> 200' }],
  nodeAfter: {
    id: 'n1',
    name: 'client',
    status: 'ready',
    statusUpdatedAt: T0 / 1000,
    drivers: {},
    attributes: {},
    events: [],
  },
};
const status = (e: ServerRebootEvidence) => Object.fromEntries(judgeAll(CHECKS, e).map((r) => [r.id, r.status]));

t.test('everything as it should be: all pass', async (t) => {
  t.same(Object.values(status(good)), ['passed', 'passed', 'passed', 'passed', 'passed']);
});

t.test('each check fails on its own failure', async (t) => {
  t.equal(status({ ...good, reboot: { ...good.reboot, bootIdAfter: 'b1' } })['server-rebooted'], 'failed');
  t.equal(
    status({ ...good, leaderAfter: { error: 'waiting for a Nomad leader: gave up' } })['leader-elected'],
    'failed',
  );
  const restarted = alloc({
    restarts: 1,
    events: [ev('Started', T0 - 50_000), ev('Restarting', T0 + 5000), ev('Started', T0 + 6000)],
  });
  const kept = judgeAll(CHECKS, { ...good, allocAfter: restarted }).find((r) => r.id === 'alloc-kept-running')!;
  t.equal(kept.status, 'failed');
  t.match(kept.evidence.join('\n'), /restarts 0 -> 1[\s\S]*Restarting/);
  t.equal(status({ ...good, allocAfter: undefined })['alloc-kept-running'], 'failed', 'alloc gone');
  t.equal(status({ ...good, allocAfter: alloc({ status: 'failed' }) })['alloc-kept-running'], 'failed');
  const lost = [...good.probesDuring, { atMs: T0 + 3000, ok: false, detail: 'curl: (28) timed out' }];
  t.equal(status({ ...good, probesDuring: lost })['served-through-reboot'], 'failed');
  t.equal(status({ ...good, probesDuring: [] })['served-through-reboot'], 'failed', 'no probe is no proof');
  const down = {
    ...good.nodeAfter!,
    events: [{ message: 'Node heartbeat missed', timestamp: new Date(T0 + 20_000).toISOString() }],
  };
  t.equal(status({ ...good, nodeAfter: down })['node-stayed-ready'], 'failed');
  t.equal(
    status({ ...good, nodeAfter: { ...good.nodeAfter!, status: 'initializing' } })['node-stayed-ready'],
    'failed',
  );
});

t.test('events from before the reboot do not count as a restart', async (t) => {
  const old = alloc({ events: [ev('Started', T0 - 50_000), ev('Restarting', T0 - 40_000)] });
  t.equal(status({ ...good, allocBefore: old, allocAfter: old })['alloc-kept-running'], 'passed');
});

t.test('no leader: the alloc and the node could not be read, failures leader-elected explains', async (t) => {
  const e = {
    ...good,
    leaderAfter: { error: 'waiting for a Nomad leader: gave up' },
    allocAfter: undefined,
    nodeAfter: undefined,
  };
  const by = Object.fromEntries(judgeAll(CHECKS, e).map((r) => [r.id, r]));
  t.equal(by['leader-elected']?.status, 'failed');
  for (const id of ['alloc-kept-running', 'node-stayed-ready'])
    t.match(by[id], { status: 'failed', causedBy: 'leader-elected' }, id);
  t.notOk(by['served-through-reboot']?.causedBy, 'the probes during the reboot are judged on their own');
  t.notOk(
    judgeAll(CHECKS, { ...good, allocAfter: undefined }).find((r) => r.id === 'alloc-kept-running')?.causedBy,
    'with a leader, a missing alloc is a failure of its own',
  );
});
