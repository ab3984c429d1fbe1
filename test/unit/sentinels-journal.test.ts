// The agent-journal sentinels (lib/checks/agent-journal.ts, no-agent-crash, agent-log-invariants) on journal text in
// the shape `journalctl -u nomad -o short-iso-precise` prints: a Go nil-pointer panic of a client on the way down of a
// reboot (the boot the reboot ended), systemd restarting the unit after it, an agent-kill's one expected restart, a
// server that logs the keyring error after the fault, and a clean run.
import t from 'tap';
import { resolveConfig } from '../../lib/config/validate.js';
import type { AgentJournalRead, FaultEffectSeen, SentinelEvidence } from '../../lib/model/sentinels.js';
import { judgeCheck } from '../../lib/checks/define.js';
import { NO_AGENT_CRASH } from '../../lib/checks/no-agent-crash.js';
import { AGENT_LOG_INVARIANTS } from '../../lib/checks/agent-log-invariants.js';
import {
  crashesOf,
  invariantHits,
  journalTimeMs,
  linesSince,
  restartsOf,
  SHIPPED_INVARIANTS,
} from '../../lib/checks/agent-journal.js';

const RUN_START = Date.parse('2026-12-05T10:00:00Z');
const FAULT_AT = Date.parse('2026-12-05T10:05:00Z');

/** A client's journal of the boot a reboot ended: running, then a panic in the alloc runner while the host went down. */
const PANIC_BOOT = [
  '2026-12-05T10:01:12.204511+0000 client-1 nomad[611]:     2026-12-05T10:01:12.204Z [INFO]  client: node registration complete',
  '2026-12-05T10:05:00.913377+0000 client-1 systemd[1]: Stopping nomad.service - Nomad...',
  '2026-12-05T10:05:00.915002+0000 client-1 nomad[611]: ==> Caught signal: interrupt',
  '2026-12-05T10:05:01.027733+0000 client-1 nomad[611]: panic: runtime error: invalid memory address or nil pointer dereference',
  '2026-12-05T10:05:01.027733+0000 client-1 nomad[611]: [signal SIGSEGV: segmentation violation code=0x1 addr=0x48 pc=0x2a1f3b6]',
  '2026-12-05T10:05:01.027801+0000 client-1 nomad[611]: goroutine 1894 [running]:',
  '2026-12-05T10:05:01.027801+0000 client-1 nomad[611]: github.com/hashicorp/nomad/client/allocrunner.(*allocRunner).destroyImpl(0xc0008f2a80)',
  '2026-12-05T10:05:01.027801+0000 client-1 nomad[611]: \t/home/runner/work/nomad/nomad/client/allocrunner/alloc_runner.go:1043 +0x96',
  '2026-12-05T10:05:01.027801+0000 client-1 nomad[611]: created by github.com/hashicorp/nomad/client/allocrunner.(*allocRunner).Destroy in goroutine 1871',
  '2026-12-05T10:05:01.031245+0000 client-1 systemd[1]: nomad.service: Main process exited, code=exited, status=2/INVALIDARGUMENT',
  "2026-12-05T10:05:01.031390+0000 client-1 systemd[1]: nomad.service: Failed with result 'exit-code'.",
  '2026-12-05T10:05:01.033002+0000 client-1 systemd[1]: Stopped nomad.service - Nomad.',
];
/** The boot after: the agent starts and restores (the host rebooted: "failed to restore task" is expected here). */
const AFTER_BOOT = [
  '2026-12-05T10:05:41.118020+0000 client-1 systemd[1]: Started nomad.service - Nomad.',
  '2026-12-05T10:05:41.402871+0000 client-1 nomad[402]: ==> Nomad agent started! Log data will stream in below:',
  '2026-12-05T10:05:44.533120+0000 client-1 nomad[402]:     2026-12-05T10:05:44.533Z [INFO]  client.alloc_runner.task_runner: Task event: alloc_id=73c563bc-1f3a-e380-4574-4b006d1e7bdb task=web type="Failed Restoring Task" msg="failed to restore task; will not run until server is contacted" failed=false',
];
/** An agent-kill: SIGKILL, systemd's restart (Restart=on-failure), the agent back. */
const KILLED = [
  '2026-12-05T10:05:00.401211+0000 client-1 systemd[1]: nomad.service: Main process exited, code=killed, status=9/KILL',
  "2026-12-05T10:05:00.401409+0000 client-1 systemd[1]: nomad.service: Failed with result 'signal'.",
  '2026-12-05T10:05:02.651730+0000 client-1 systemd[1]: nomad.service: Scheduled restart job, restart counter is at 1.',
  '2026-12-05T10:05:02.655012+0000 client-1 systemd[1]: Started nomad.service - Nomad.',
  '2026-12-05T10:05:02.911447+0000 client-1 nomad[733]: ==> Nomad agent started! Log data will stream in below:',
];
const UNIT = (n: number, state = 'active', status = 0) =>
  `ActiveState=${state}\nNRestarts=${n}\nExecMainStatus=${status}\nExecMainStartTimestamp=Sat 2026-12-05 10:05:41 UTC\n`;
const QUIET_SERVER: AgentJournalRead = {
  machine: 'server',
  role: 'server',
  boots: [
    {
      boot: '0',
      lines: [
        '2026-12-05T10:00:31.002144+0000 server nomad[498]:     2026-12-05T10:00:31.002Z [INFO]  nomad: cluster leadership acquired',
      ],
    },
  ],
  unitShow: UNIT(0),
};
const reboot = (machine = 'client-1', kind: FaultEffectSeen['kind'] = 'graceful'): FaultEffectSeen => ({
  machine,
  role: 'client',
  kind,
  requestedAt: FAULT_AT,
  backAt: FAULT_AT + 41_000,
  bootIdBefore: 'b1',
  bootIdAfter: kind === 'graceful' ? 'b2' : 'b1',
});
const evidence = (
  agents: AgentJournalRead[],
  faults: FaultEffectSeen[],
  never: string[] = [],
  allowed: string[] = [],
) => ({
  sentinels: {
    watchFromMs: RUN_START,
    faultAtMs: FAULT_AT,
    agents,
    faults,
    logRules: { never, allowed },
  } satisfies SentinelEvidence,
});

t.test('journal times: short-iso-precise and short-iso, with the offset', async (t) => {
  t.equal(journalTimeMs(PANIC_BOOT[3]!), Date.parse('2026-12-05T10:05:01.027733Z'));
  t.equal(journalTimeMs('2026-12-05T11:05:01+0100 client nomad[1]: x'), Date.parse('2026-12-05T10:05:01Z'));
  t.equal(journalTimeMs('    at github.com/...'), undefined);
});

t.test('a panic trace is one crash, quoted with its machine, boot and the head of its trace', async (t) => {
  const agent: AgentJournalRead = {
    machine: 'client-1',
    role: 'client',
    boots: [
      { boot: '-1', lines: PANIC_BOOT },
      { boot: '0', lines: AFTER_BOOT },
    ],
    unitShow: UNIT(0),
  };
  const crashes = crashesOf(agent, RUN_START);
  t.equal(crashes.length, 1, '`panic:` and the `SIGSEGV` line after it are one crash');
  t.equal(crashes[0]!.first.boot, '-1');
  t.match(crashes[0]!.trace[0], /SIGSEGV/);
  t.ok(
    crashes[0]!.trace.some((l) => l.includes('allocrunner.(*allocRunner).destroyImpl(')),
    'the head reaches the first frame (what a known issue\u2019s signature names)',
  );
  t.notOk(
    crashes[0]!.trace.some((l) => l.includes('Main process exited')),
    'systemd\u2019s lines after the trace are not part of it',
  );
  t.equal(crashes[0]!.trace.length, 5, 'the crashing process\u2019s lines only');
  const r = judgeCheck(NO_AGENT_CRASH, evidence([QUIET_SERVER, agent], [reboot()]));
  t.equal(r.status, 'failed');
  t.match(r.message, /client-1: 1 crash \(panic: runtime error: invalid memory address/);
  t.ok(
    r.evidence.some((l) => l.includes('client-1 boot -1: 2026-12-05T10:05:01.027733+0000 client-1 nomad[611]: panic:')),
    'the first line quoted with machine, boot and time',
  );
  t.ok(
    r.evidence.some((l) => l.includes('alloc_runner.go:1043')),
    'the head of the trace quoted',
  );
  t.ok(
    r.evidence.some((l) => l.startsWith('server (server): boots 0 1 lines')),
    'the server judged too',
  );
});

t.test('a crash before the run started is not this run’s', async (t) => {
  const agent: AgentJournalRead = {
    machine: 'client-1',
    role: 'client',
    boots: [{ boot: '0', lines: PANIC_BOOT }],
    unitShow: UNIT(0),
  };
  t.equal(crashesOf(agent, Date.parse('2026-12-05T10:06:00Z')).length, 0);
});

t.test('agent-kill: its one restart is expected; a second one is not', async (t) => {
  const agent: AgentJournalRead = {
    machine: 'client-1',
    role: 'client',
    boots: [{ boot: '0', lines: KILLED }],
    unitShow: UNIT(1),
  };
  const restarts = restartsOf(agent, RUN_START);
  t.equal(restarts.length, 1);
  t.equal(restarts[0]!.cause, 'code=killed, status=9/KILL');
  const kill = reboot('client-1', 'agent-kill');
  t.equal(judgeCheck(NO_AGENT_CRASH, evidence([agent], [kill])).status, 'passed');
  const unexplained = judgeCheck(NO_AGENT_CRASH, evidence([agent], [reboot()]));
  t.equal(unexplained.status, 'failed', 'the same restart after a reboot fault is unexpected');
  t.match(unexplained.message, /restarted by systemd 1 time, the faults explain 0/);
  t.ok(unexplained.evidence.some((l) => l.includes('Scheduled restart job') && l.includes('status=9/KILL')));
  // NRestarts counts restarts the journal no longer shows (rotated): the larger count wins
  const rotated = { ...agent, boots: [{ boot: '0', lines: [] }], unitShow: UNIT(2) };
  t.match(judgeCheck(NO_AGENT_CRASH, evidence([rotated], [kill])).message, /restarted by systemd 2 times/);
});

t.test('an agent not running at the end fails, with its exit status', async (t) => {
  const agent: AgentJournalRead = {
    machine: 'client-1',
    role: 'client',
    boots: [{ boot: '0', lines: [] }],
    unitShow: UNIT(0, 'failed', 1),
  };
  const r = judgeCheck(NO_AGENT_CRASH, evidence([agent], []));
  t.equal(r.status, 'failed');
  t.match(r.message, /the agent is failed at the end \(ExecMainStatus=1\)/);
});

t.test('a clean run passes; a machine that did not answer is named, not failed', async (t) => {
  const agent: AgentJournalRead = {
    machine: 'client-1',
    role: 'client',
    boots: [{ boot: '0', lines: AFTER_BOOT }],
    unitShow: UNIT(0),
  };
  const gone: AgentJournalRead = { machine: 'client-2', role: 'client', boots: [], error: 'ssh: connect ECONNREFUSED' };
  const r = judgeCheck(NO_AGENT_CRASH, evidence([QUIET_SERVER, agent, gone], [reboot()]));
  t.equal(r.status, 'passed');
  t.match(r.message, /on 2 machines \(not read: client-2\)/);
  t.equal(judgeCheck(NO_AGENT_CRASH, {}).status, 'skipped', 'no journals read at all');
});

t.test('invariants: after the fault only; "failed to restore" is news only where the host stayed up', async (t) => {
  const rebooted: AgentJournalRead = {
    machine: 'client-1',
    role: 'client',
    boots: [{ boot: '0', lines: AFTER_BOOT }],
    unitShow: UNIT(0),
  };
  t.equal(judgeCheck(AGENT_LOG_INVARIANTS, evidence([rebooted], [reboot()])).status, 'passed');
  const killed = judgeCheck(AGENT_LOG_INVARIANTS, evidence([rebooted], [reboot('client-1', 'agent-kill')]));
  t.equal(killed.status, 'failed', 'after an agent-kill the agent must reattach');
  t.match(killed.message, /client-1: 1 line \(failed to restore:/);
  t.ok(killed.evidence.some((l) => l.startsWith('  client-1 boot 0: 2026-12-05T10:05:44.533120+0000')));
  t.ok(SHIPPED_INVARIANTS.length >= 3);
});

t.test('invariants: the keyring error on a server, the Alloc.GetAllocs denial, before the fault ignored', async (t) => {
  const server: AgentJournalRead = {
    machine: 'server-2',
    role: 'server',
    boots: [
      {
        boot: '0',
        lines: [
          '2026-12-05T10:04:00.000100+0000 server-2 nomad[500]:     2026-12-05T10:04:00.000Z [ERROR] nomad.keyring: keyring has not been initialized yet',
          '2026-12-05T10:06:10.118020+0000 server-2 nomad[512]:     2026-12-05T10:06:10.117Z [ERROR] http: request failed: method=GET path=/v1/var/a error="keyring has not been initialized yet" code=500',
        ],
      },
    ],
  };
  const client: AgentJournalRead = {
    machine: 'client-1',
    role: 'client',
    boots: [
      {
        boot: '0',
        lines: [
          '2026-12-05T10:05:50.001000+0000 client-1 nomad[402]:     2026-12-05T10:05:50.000Z [ERROR] client.rpc: error performing RPC to server: error="rpc error: Permission denied" rpc=Alloc.GetAllocs server=10.199.0.10:4647',
        ],
      },
    ],
  };
  const hits = invariantHits(server, FAULT_AT, SHIPPED_INVARIANTS, [], false);
  t.equal(hits.length, 1, 'the line before the fault is not held against it');
  const r = judgeCheck(AGENT_LOG_INVARIANTS, evidence([server, client], [reboot('server-2')]));
  t.equal(r.status, 'failed');
  t.match(r.message, /server-2: 1 line \(keyring has not been initialized/);
  t.match(r.message, /client-1: 1 line \(Alloc\.GetAllocs \+ Permission denied/);
  // the user's allow-list excuses a line; the user's never-list adds one
  const allowed = judgeCheck(AGENT_LOG_INVARIANTS, evidence([client], [reboot()], [], ['rpc=Alloc.GetAllocs']));
  t.equal(allowed.status, 'passed');
  const own = judgeCheck(
    AGENT_LOG_INVARIANTS,
    evidence([client], [reboot()], ['error performing RPC'], ['Permission denied']),
  );
  t.equal(own.status, 'passed', 'allowed text excuses a line whatever rule caught it');
  const own2 = judgeCheck(AGENT_LOG_INVARIANTS, evidence([server], [reboot()], ['request failed'], []));
  t.match(own2.message, /server-2: 1 line/);
});

t.test('lines without a time (a trace) belong to the boot and moment before them', async (t) => {
  const agent: AgentJournalRead = {
    machine: 'c',
    role: 'client',
    boots: [
      {
        boot: '0',
        lines: [
          '2026-12-05T10:04:00.000000+0000 c nomad[1]: a',
          'untimed',
          '2026-12-05T10:06:00.000000+0000 c nomad[1]: b',
          'untimed 2',
        ],
      },
    ],
  };
  t.same(
    linesSince(agent, FAULT_AT).map((l) => l.text),
    ['2026-12-05T10:06:00.000000+0000 c nomad[1]: b', 'untimed 2'],
  );
});

t.test('harness.yaml agent_log.never / .allowed: lists of texts into the config; anything else named', async (t) => {
  const r = resolveConfig({
    file: { agent_log: { never: ['failed to reattach', 'rpc error'], allowed: 'rpc=Alloc.GetAllocs' } },
    env: {},
    flags: {},
    knownChecks: [],
  });
  t.ok(r.ok);
  t.same(r.config.agentLog, { never: ['failed to reattach', 'rpc error'], allowed: ['rpc=Alloc.GetAllocs'] });
  t.same(resolveConfig({ file: undefined, env: {}, flags: {}, knownChecks: [] }).config.agentLog, {
    never: [],
    allowed: [],
  });
  const bad = resolveConfig({ file: { agent_log: { never: [3] } }, env: {}, flags: {}, knownChecks: [] });
  t.notOk(bad.ok);
  t.match(bad.ok ? [] : bad.problems, [{ field: 'agent_log.never', message: 'must be a list of texts' }]);
});

t.test(
  'invariants: a whole-lab power loss rebooted every host, not only its target (seen on 3+2 with 2.0.5)',
  async (t) => {
    const other: AgentJournalRead = {
      machine: 'client-2',
      role: 'client',
      boots: [{ boot: '0', lines: AFTER_BOOT.map((l) => l.replace(' client-1 ', ' client-2 ')) }],
      unitShow: UNIT(0),
    };
    const all = judgeCheck(AGENT_LOG_INVARIANTS, evidence([other], [reboot('client-1', 'power-loss-all')]));
    t.equal(all.status, 'passed', 'client-2 lost power too: its restore is the fault, not news');
    const one = judgeCheck(AGENT_LOG_INVARIANTS, evidence([other], [reboot('client-1', 'agent-kill')]));
    t.equal(one.status, 'failed', 'after an agent-kill of client-1, a failed restore on client-2 is news');
  },
);
