// agent-kill records the agent's age at the kill on the host's monotonic clock (uptime minus the process's start in
// clock ticks) and the host's clock then: what places a kill in the agent's 60 s state-snapshot period.
import t from 'tap';
import { killAgent } from '../../lib/ssh/disrupt.js';
import { deadlineIn } from '../../lib/time/deadlines.js';

/** A host whose agent is pid 612 until the kill, then 629; `stamp` is what the age line prints. */
function host(stamp: string) {
  let killed = false;
  const ran: string[] = [];
  return {
    ran,
    m: {
      name: 'client',
      bootId: async () => 'boot-1',
      disconnect: async () => {},
      exec: async (cmd: string) => {
        ran.push(cmd);
        if (cmd.includes('systemctl kill')) {
          killed = true;
          return { code: 0, stdout: `${stamp}\n`, stderr: '', durationMs: 1 };
        }
        const pid = killed ? 629 : 612;
        return {
          code: 0,
          stdout: `MainPID=${pid}\nActiveState=active\nNRestarts=${killed ? 1 : 0}\n`,
          stderr: '',
          durationMs: 1,
        };
      },
    },
  };
}

t.test('the age at the kill and the host clock are facts of the fault', async (t) => {
  const h = host('nrh-age 512.37 43480 100 1796610312755256375');
  const rec = await killAgent(h.m, { deadline: deadlineIn(10_000) });
  t.match(rec.facts, { 'agent.age_at_kill_s': '77.57', 'agent.killed_at_host_ms': '1796610312755' });
  const kill = h.ran.find((c) => c.includes('systemctl kill'))!;
  t.match(kill, /\/proc\/612\/stat/, 'the age is read of the PID that is killed');
  t.ok(kill.indexOf('nrh-age') < kill.indexOf('systemctl kill'), 'read before the kill, in the same command');
});

t.test('no fact when the host cannot say (no /proc of the PID): the fault is still done and recorded', async (t) => {
  for (const stamp of ['nrh-age 512.37  100 1796610312755256375', '', 'nrh-age 10.00 4000 100 1796610312755256375']) {
    const rec = await killAgent(host(stamp).m, { deadline: deadlineIn(10_000) });
    t.same(
      Object.keys(rec.facts ?? {}).sort(),
      ['agent.pid.after', 'agent.pid.before', 'agent.restarts'],
      JSON.stringify(stamp),
    );
  }
});
