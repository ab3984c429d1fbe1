// The vacuity rule (lib/checks/fault-effects.ts, fault-exercised): a fault whose effect was never seen makes the run
// vacuous, per kind: a reboot without a new boot id or without a restore attempt on a client with allocs, an
// agent-kill without a restart, a partition past heartbeat_grace without a node status change.
import t from 'tap';
import type { FaultEffectSeen } from '../../lib/model/sentinels.js';
import { REBOOT_KINDS } from '../../lib/model/kinds.js';
import { judgeCheck } from '../../lib/checks/define.js';
import { FAULT_EXERCISED } from '../../lib/checks/fault-exercised.js';
import { effectsOf, expectedAgentRestarts, FAULT_PROOFS } from '../../lib/checks/fault-effects.js';
import { sentinelEvidence } from '../../lib/steps/sentinel-steps.js';
import { DEFAULTS } from '../../lib/config/schema.js';

const T0 = Date.parse('2026-12-05T10:05:00Z');
const RESTORE_LINE =
  '2026-12-05T10:05:44.533120+0000 client nomad[402]:     2026-12-05T10:05:44.533Z [INFO]  client.alloc_runner.task_runner: Task event: alloc_id=73c563bc-1f3a-e380-4574-4b006d1e7bdb task=web type="Failed Restoring Task" msg="failed to restore task; will not run until server is contacted" failed=false';
const fault = (o: Partial<FaultEffectSeen> & Pick<FaultEffectSeen, 'kind'>): FaultEffectSeen => ({
  machine: 'client',
  role: 'client',
  requestedAt: T0,
  backAt: T0 + 40_000,
  bootIdBefore: 'b1',
  bootIdAfter: 'b2',
  hadAllocs: true,
  agentLogAfter: [RESTORE_LINE],
  heartbeatGraceMs: 300_000,
  ...o,
});
const judge = (...faults: FaultEffectSeen[]) =>
  judgeCheck(FAULT_EXERCISED, {
    sentinels: { watchFromMs: T0 - 60_000, agents: [], faults, logRules: { never: [], allowed: [] } },
  });

t.test('every fault kind says what it must cause', async (t) => {
  t.same(Object.keys(FAULT_PROOFS).sort(), [...REBOOT_KINDS].sort());
  for (const k of REBOOT_KINDS) t.ok(FAULT_PROOFS[k].length > 0, k);
});

t.test('a reboot: new boot id and a restore attempt seen -> passed', async (t) => {
  const r = judge(fault({ kind: 'graceful' }));
  t.equal(r.status, 'passed');
  t.ok(r.evidence.some((l) => l.startsWith('graceful on client: restore attempt seen: 1 restore line')));
});

t.test('a docker task the driver recovered: the reattach of its log processes is the restore attempt', async (t) => {
  // The text of real client lines after a reboot: logmon's and the executor's reattach and the task runner's "error
  // recovering task" (exec, 1.9.7), the docker logger's reattach (docker, 1.9.3 and 1.9.7). A docker container the
  // driver recovered leaves no "restor" line: its two reattaches were all real 1.9.3 and 1.9.7 logged of the try.
  const lines = [
    '2026-12-06T18:40:02+0000 client nomad[612]: 2026-12-06T18:40:02.101Z [WARN]  client.alloc_runner.task_runner.task_hook: failed to reattach to logmon process: alloc_id=24573fac-e2d6-b53d-a26d-70df0f5864e6 task=web error="Reattachment process not found"',
    '2026-12-06T18:40:02+0000 client nomad[612]: 2026-12-06T18:40:02.101Z [ERROR] client.driver_mgr.exec: failed to reattach to executor: driver=exec error="error creating rpc client for executor plugin: Reattachment process not found" task_id=7f9df0d1-f8f3-7061-fb02-5142494fe2c2/web/ed773f2b',
    '2026-12-06T18:40:02+0000 client nomad[612]: 2026-12-06T18:40:02.101Z [ERROR] client.alloc_runner.task_runner: error recovering task; cleaning up: alloc_id=7f9df0d1-f8f3-7061-fb02-5142494fe2c2 task=web',
    '2026-12-06T19:14:13+0000 client nomad[248]: 2026-12-06T19:14:05.305Z [WARN]  client.driver_mgr.docker: failed to reattach to docker logger process: driver=docker error="failed to reattach to docker logger process: Reattachment process not found"',
  ];
  for (const line of lines) {
    const r = judge(fault({ kind: 'graceful', agentLogAfter: [line] }));
    t.equal(r.status, 'passed', line.slice(80, 170));
  }
  const unrelated = [
    '2026-12-06T18:40:02+0000 client nomad[612]: 2026-12-06T18:40:02.101Z [WARN]  client.driver_mgr: failed to reattach to plugin, starting new instance: driver=raw_exec',
    '2026-12-06T18:40:03+0000 client nomad[612]: 2026-12-06T18:40:03.000Z [INFO]  client: node registration complete',
  ];
  t.equal(
    judge(fault({ kind: 'graceful', agentLogAfter: unrelated })).status,
    'failed',
    'a plugin reattach is no task',
  );
});

t.test('a reboot with the same boot id is vacuous', async (t) => {
  const r = judge(fault({ kind: 'hard', bootIdAfter: 'b1' }));
  t.equal(r.status, 'failed');
  t.match(r.message, /^vacuous: hard on client: no new boot id/);
});

t.test('a reboot the client restored nothing after is vacuous; without allocs nothing is asked', async (t) => {
  const r = judge(
    fault({ kind: 'power-off', agentLogAfter: ['2026-12-05T10:05:41+0000 client nomad[1]: ==> Nomad agent started!'] }),
  );
  t.equal(r.status, 'failed');
  t.match(r.message, /no restore attempt/);
  t.equal(judge(fault({ kind: 'power-off', hadAllocs: false, agentLogAfter: [] })).status, 'passed');
  const server = fault({ kind: 'graceful', machine: 'server-1', role: 'server', hadAllocs: false, agentLogAfter: [] });
  t.equal(judge(server).status, 'passed', 'a server: the new boot id is the proof');
});

t.test('an agent-kill without a restart is vacuous', async (t) => {
  const seen = fault({
    kind: 'agent-kill',
    bootIdAfter: 'b1',
    facts: { 'agent.restarts': '1', 'agent.pid.before': '611', 'agent.pid.after': '733' },
  });
  t.equal(judge(seen).status, 'passed');
  const none = fault({
    kind: 'agent-kill',
    bootIdAfter: 'b1',
    facts: { 'agent.restarts': '0', 'agent.pid.before': '611', 'agent.pid.after': '611' },
  });
  const r = judge(none);
  t.equal(r.status, 'failed');
  t.match(r.message, /vacuous: agent-kill on client: no agent restarted/);
  t.equal(expectedAgentRestarts([seen, seen, fault({ kind: 'graceful' })], 'client'), 2);
});

t.test('a partition: past heartbeat_grace the node must go down; shorter, it need not', async (t) => {
  const long = { kind: 'partition' as const, bootIdAfter: 'b1', backAt: T0 + 40_000, heartbeatGraceMs: 10_000 };
  t.equal(judge(fault({ ...long, nodeStatuses: ['down', 'initializing', 'ready'] })).status, 'passed');
  const r = judge(fault({ ...long, nodeStatuses: ['ready'] }));
  t.equal(r.status, 'failed');
  t.match(r.message, /partition on client: no node down/);
  const short = judge(fault({ ...long, heartbeatGraceMs: 300_000, nodeStatuses: [] }));
  t.equal(short.status, 'passed', 'the host stayed up; the node need not change');
  t.match(short.evidence.join('\n'), /node down not required \(the fault was not longer than heartbeat_grace\)/);
  const unwatched = effectsOf(fault({ ...long })).find((e) => e.effect === 'node down');
  t.equal(unwatched?.notApplicable, "the node's status was not watched");
});

t.test('several faults: each is numbered and the first missing one named', async (t) => {
  const r = judge(fault({ kind: 'graceful' }), fault({ kind: 'graceful', bootIdAfter: 'b1' }));
  t.equal(r.status, 'failed');
  t.match(r.message, /graceful #2 on client: no new boot id/);
  t.equal(judge().status, 'skipped');
});

t.test('sentinelEvidence: the agent log after each fault, from the journals read', async (t) => {
  const e = sentinelEvidence({
    watchFromMs: T0 - 60_000,
    faults: [
      {
        machine: 'client',
        role: 'client',
        hadAllocs: true,
        record: {
          machine: 'fake-client',
          kind: 'graceful',
          bootIdBefore: 'b1',
          bootIdAfter: 'b2',
          requestedAt: T0,
          backAt: T0 + 1,
        },
      },
    ],
    agents: [
      {
        machine: 'client',
        role: 'client',
        boots: [
          { boot: '-1', lines: ['2026-12-05T10:04:59.000000+0000 client nomad[1]: before the fault'] },
          { boot: '0', lines: [RESTORE_LINE] },
        ],
      },
    ],
    config: { ...DEFAULTS, agentLog: { never: ['x'], allowed: [] } },
  });
  t.same(e.faults[0]!.agentLogAfter, [RESTORE_LINE]);
  t.equal(e.faults[0]!.heartbeatGraceMs, 300_000);
  t.equal(e.faultAtMs, T0);
  t.same(e.logRules.never, ['x']);
});

t.test("the fault's own marks, and a host that must stay up", async (t) => {
  const cut = { kind: 'partition' as const, bootIdAfter: 'b1', heartbeatGraceMs: 300_000 };
  t.equal(
    judge(fault({ ...cut, marks: ['partition: client cut off from the server', 'partition healed'] })).status,
    'passed',
  );
  const unhealed = judge(fault({ ...cut, marks: ['partition: client cut off from the server'] }));
  t.equal(unhealed.status, 'failed');
  t.match(unhealed.message, /vacuous: partition on client: no mark "partition healed"/);
  const rebooted = judge(fault({ kind: 'agent-kill', bootIdAfter: 'b2', facts: { 'agent.restarts': '1' } }));
  t.equal(rebooted.status, 'failed', 'an agent-kill that rebooted the host is not the fault asked for');
  t.match(rebooted.message, /no same boot id/);
  const off = judge(fault({ kind: 'power-off', marks: ['powered off', 'powered on'] }));
  t.equal(off.status, 'passed');
  t.match(off.evidence.join('\n'), /power-off on client: mark "powered off" seen/);
});
