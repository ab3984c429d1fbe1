// lib/checks/fault-expectations.ts over the recorded check samples (test/fixtures/checks/): what agent-kill and a
// partition expect, each with a sample where the expectation is NOT met, and the reboot kinds left alone.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { judgeAll } from '../../lib/checks/define.js';
import { CHECKS } from '../../scenarios/bridge-exec-reboot.js';
import { adjustForFault } from '../../lib/checks/fault-expectations.js';
import type { RebootEvidence } from '../../lib/model/evidence.js';

const load = (name: string): RebootEvidence =>
  JSON.parse(readFileSync(new URL(`../fixtures/checks/${name}.json`, import.meta.url), 'utf8')) as RebootEvidence;
const judge = (e: RebootEvidence, partitionForS = 30, heartbeatGraceS = 300) =>
  new Map(adjustForFault(CHECKS, judgeAll(CHECKS, e), e, { partitionForS, heartbeatGraceS }).map((r) => [r.id, r]));

/** The restored sample as an agent-kill would look: same boot, the task running since before the fault. */
function agentKilled(): RebootEvidence {
  const e = load('restored');
  e.reboot = {
    ...e.reboot,
    kind: 'agent-kill',
    bootIdAfter: e.reboot.bootIdBefore,
    facts: { 'agent.pid.before': '612', 'agent.pid.after': '977' },
  };
  e.after.bootId = e.before.bootId;
  const id = e.allocId;
  e.taskEvents[id] = e.taskEvents[id]!.filter((ev) => ev.timeMs < e.reboot.requestedAt);
  const task = e.after.alloc!.tasks[e.taskName]!;
  task.events = task.events.filter((ev) => ev.timeMs < e.reboot.requestedAt);
  task.startedAt = e.before.alloc!.tasks[e.taskName]!.startedAt;
  return e;
}

t.test('agent-kill met: boot_id unchanged with a new agent pid, task kept running', async (t) => {
  const v = judge(agentKilled());
  t.match(v.get('client-rebooted'), {
    status: 'passed',
    message:
      /boot_id unchanged .* as expected: agent-kill: the agent restarts, the host does not; the agent was restarted by systemd \(pid 612 -> 977\)/,
  });
  t.match(v.get('task-restarted'), { status: 'passed', message: /kept running through agent-kill/ });
  t.equal(v.get('alloc-restored')?.status, 'passed');
});

t.test('agent-kill NOT met: the host rebooted, the agent pid did not change, the task was restarted', async (t) => {
  const rebooted = load('restored');
  rebooted.reboot = {
    ...rebooted.reboot,
    kind: 'agent-kill',
    facts: { 'agent.pid.before': '612', 'agent.pid.after': '977' },
  };
  const v = judge(rebooted);
  t.match(v.get('client-rebooted'), {
    status: 'failed',
    message: /the host rebooted \(boot_id .* -> .*\), which agent-kill must not do/,
  });
  t.match(v.get('task-restarted'), {
    status: 'failed',
    message: /was restarted \(started at .*\), which agent-kill should not cause/,
  });
  const samePid = agentKilled();
  samePid.reboot.facts = { 'agent.pid.before': '612', 'agent.pid.after': '612' };
  t.match(judge(samePid).get('client-rebooted'), {
    status: 'failed',
    message: /the agent was not restarted \(pid 612 -> 612\)/,
  });
});

t.test('partition longer than heartbeat_grace: replaced is the expectation, restored is the surprise', async (t) => {
  const replaced = load('replaced');
  replaced.reboot = { ...replaced.reboot, kind: 'partition', bootIdAfter: replaced.reboot.bootIdBefore };
  replaced.after.bootId = replaced.before.bootId;
  const v = judge(replaced, 75, 20);
  t.match(v.get('alloc-restored'), {
    status: 'passed',
    message:
      /^replaced, as expected \(partition of 75s > heartbeat_grace 20s\): alloc \S+ \(\S+\) was replaced by 5e1f0a9b/,
  });
  t.match(v.get('client-rebooted'), { status: 'passed' });
  const stayed = agentKilled();
  stayed.reboot.kind = 'partition';
  t.match(judge(stayed, 75, 20).get('alloc-restored'), {
    status: 'failed',
    message: /expected a replacement \(partition of 75s > heartbeat_grace 20s\) but the alloc was restored/,
  });
  t.match(judge(stayed, 10, 20).get('alloc-restored'), { status: 'passed' }, 'within the grace, in place is right');
});

t.test('kinds that reboot the host leave every result untouched', async (t) => {
  for (const kind of ['graceful', 'hard', 'panic', 'power-off'] as const) {
    const e = load('restored');
    e.reboot.kind = kind;
    t.same(
      adjustForFault(CHECKS, judgeAll(CHECKS, e), e, { partitionForS: 999, heartbeatGraceS: 1 }),
      judgeAll(CHECKS, e),
      kind,
    );
  }
});
