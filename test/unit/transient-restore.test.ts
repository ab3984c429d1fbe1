// The restore as the event stream tells it: a task instance the reboot itself ended (a docker container SIGKILLed by the
// host's shutdown, reported as `Terminated` exit 137 when the client recovers it) is the fault's effect, not a failure
// after it; a task that dies again after its post-fault start is a transient failure.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { restartsAfter, transitionsFrom, type ReceivedEvent } from '../../lib/checks/transitions.js';
import { withTransientFailures } from '../../lib/checks/transient.js';
import { faultEndsTasks } from '../../lib/faults/registry.js';
import { parseFrameLine } from '../../lib/parse/event-stream-frames.js';
import type { CheckResult } from '../../lib/model/check.js';

const ALLOC = 'b0a09acb-1111-2222-3333-444455556666';
const NS = 1_000_000;

/** One AllocationUpdated frame carrying the task's events so far (Nomad sends the whole list every time). */
function frame(
  atMs: number,
  index: number,
  status: string,
  events: { type: string; atMs: number; msg: string; details?: Record<string, string> }[],
): ReceivedEvent {
  const Events = events.map((e) => ({
    Type: e.type,
    Time: e.atMs * NS,
    DisplayMessage: e.msg,
    Details: e.details ?? {},
  }));
  return {
    receivedAtMs: atMs,
    event: {
      Topic: 'Allocation',
      Type: 'AllocationUpdated',
      Key: ALLOC,
      Index: index,
      Payload: {
        Allocation: {
          ID: ALLOC,
          ClientStatus: status,
          DesiredStatus: 'run',
          ModifyTime: atMs * NS,
          TaskStates: { web: { Events } },
        },
      },
    },
  };
}

const FAULT = 2_000_000;
const started0 = { type: 'Started', atMs: FAULT - 60_000, msg: 'Task started by client' };
const killed137 = {
  type: 'Terminated',
  atMs: FAULT + 150_000,
  msg: 'Exit Code: 137, Exit Message: "Docker container exited with non-zero exit code: 137"',
  details: { exit_code: '137', signal: '0', oom_killed: 'false' },
};
const restarting = {
  type: 'Restarting',
  atMs: FAULT + 150_010,
  msg: 'Task restarting in 17.4s',
  details: { restart_reason: 'Restart within policy' },
};
const started1 = { type: 'Started', atMs: FAULT + 168_000, msg: 'Task started by client' };

// The docker recovery shape: Started (before) -> reboot -> Terminated 137 -> Restarting -> Started.
const dockerSequence = (): ReceivedEvent[] => [
  frame(FAULT - 60_000, 10, 'running', [started0]),
  frame(FAULT + 150_000, 20, 'running', [started0, killed137]),
  frame(FAULT + 150_010, 21, 'pending', [started0, killed137, restarting]),
  frame(FAULT + 168_000, 22, 'running', [started0, killed137, restarting, started1]),
];

const passed: CheckResult = {
  id: 'alloc-restored',
  title: 'alloc restored',
  status: 'passed',
  message: 'same alloc, running',
  evidence: [],
} as CheckResult;
const reboot = { sinceMs: FAULT, endsTasks: true, name: 'reboot' };

t.test(
  'docker after a reboot: the container the reboot killed is its effect, quoted with exit code and restart',
  async (t) => {
    const ts = transitionsFrom(dockerSequence());
    const r = restartsAfter(ts, FAULT, true);
    t.same(r.transient, [], 'no transient failure');
    t.equal(r.endedByFault.length, 1);
    t.match(r.endedByFault[0], {
      task: 'web',
      exitCode: '137',
      endedAtMs: FAULT + 150_000,
      restartedAtMs: FAULT + 150_010,
    });
    const [judged] = withTransientFailures([passed], ts, reboot);
    t.equal(judged!.status, 'passed', 'alloc-restored keeps its status');
    t.match(
      judged!.evidence.join('\n'),
      /task web: the instance running before the reboot was ended by it \(exit 137, reported \S+Z\); restarted by the restart policy at \S+Z \(Restarting: Task restarting in 17\.4s\)/,
    );
  },
);

t.test('docker: a task that dies again after its post-fault start is still a transient failure', async (t) => {
  const died = {
    type: 'Terminated',
    atMs: FAULT + 180_000,
    msg: 'Exit Code: 1',
    details: { exit_code: '1', signal: '0', oom_killed: 'false' },
  };
  const again = {
    type: 'Restarting',
    atMs: FAULT + 180_010,
    msg: 'Task restarting in 15s',
    details: { restart_reason: 'Restart within policy' },
  };
  const started2 = { type: 'Started', atMs: FAULT + 196_000, msg: 'Task started by client' };
  const all = [started0, killed137, restarting, started1];
  const seq = [
    ...dockerSequence(),
    frame(FAULT + 180_000, 23, 'running', [...all, died]),
    frame(FAULT + 196_000, 24, 'running', [...all, died, again, started2]),
  ];
  const ts = transitionsFrom(seq);
  const r = restartsAfter(ts, FAULT, true);
  t.equal(r.endedByFault.length, 1, "the first termination is still the reboot's");
  t.equal(r.transient.length, 1, 'the second one is a failure');
  t.match(r.transient[0]!.failure, /task web: Terminated: Exit Code: 1$/);
  const [judged] = withTransientFailures([passed], ts, reboot);
  t.equal(judged!.status, 'failed');
  t.match(
    judged!.message,
    /failed after the fault and was restarted \(seen in the event stream\): alloc b0a09acb task web: Terminated: Exit Code: 1; then/,
  );
});

t.test('a fault that leaves tasks running (agent-kill): any termination after it is a failure', async (t) => {
  const ts = transitionsFrom(dockerSequence());
  const r = restartsAfter(ts, FAULT, false);
  t.same(r.endedByFault, []);
  t.equal(r.transient.length, 1);
  const [judged] = withTransientFailures([passed], ts, { sinceMs: FAULT, endsTasks: false, name: 'agent-kill' });
  t.equal(judged!.status, 'failed');
});

t.test('a setup failure before the post-fault start still counts (it is not the old instance ending)', async (t) => {
  const setup = {
    type: 'Setup Failure',
    atMs: FAULT + 150_000,
    msg: 'failed to setup alloc: pre-run hook "network" failed',
    details: { fails_task: 'true' },
  };
  const seq = [
    frame(FAULT - 60_000, 10, 'running', [started0]),
    frame(FAULT + 150_000, 20, 'pending', [started0, setup]),
    frame(FAULT + 160_000, 21, 'running', [started0, setup, restarting]),
  ];
  const r = restartsAfter(transitionsFrom(seq), FAULT, true);
  t.same(r.endedByFault, []);
  t.equal(r.transient.length, 1);
});

t.test(
  'exec after a reboot (real v1.9.7 restore: Failed Restoring Task -> Started): nothing ended, nothing failed',
  async (t) => {
    const a = JSON.parse(
      readFileSync(
        new URL('../fixtures/nomad/real-1.9.7/reboot-sim/after-reboot-sim/allocation.json', import.meta.url),
        'utf8',
      ),
    );
    const events = a.TaskStates.web.Events as { Time: number; Type: string }[];
    const fault = Math.floor(events.find((e) => e.Type === 'Failed Restoring Task')!.Time / NS) - 1000;
    const ts = transitionsFrom([
      {
        receivedAtMs: fault + 5000,
        event: { Topic: 'Allocation', Type: 'AllocationUpdated', Key: a.ID, Index: 30, Payload: { Allocation: a } },
      },
    ]);
    t.same(
      ts.filter((x) => x.kind === 'task').map((x) => x.to),
      ['Received', 'Task Setup', 'Started', 'Failed Restoring Task', 'Started'],
    );
    const r = restartsAfter(ts, fault, true);
    t.same(r, { transient: [], endedByFault: [] });
    const [judged] = withTransientFailures([passed], ts, reboot);
    t.same(judged, passed, 'untouched');
  },
);

t.test(
  'the real capture: a SIGKILL of a running task with no fault in between is a failure (raw_exec, v1.9.3)',
  async (t) => {
    const text = readFileSync(
      new URL('../fixtures/nomad/event-stream/real-1.9.3-dev-raw-exec-restart.ndjson', import.meta.url),
      'utf8',
    );
    const rec = text
      .trim()
      .split('\n')
      .flatMap((l) => {
        const f = parseFrameLine(l);
        return f.heartbeat ? [] : f.events.map((event) => ({ receivedAtMs: 0, event }));
      });
    const ts = transitionsFrom(rec);
    const firstStart = ts.find((x) => x.kind === 'task' && x.to === 'Started')!;
    // The fault "happened" after the task's first start: with a fault that does not end tasks, the kill is a failure.
    t.equal(restartsAfter(ts, firstStart.atMs + 1, false).transient.length, 1);
  },
);

/** A run's events.ndjson (one frame a line with the harness's receivedAtMs) as received events. */
function recorded(name: string): ReceivedEvent[] {
  const text = readFileSync(new URL(`../fixtures/nomad/event-stream/${name}`, import.meta.url), 'utf8');
  return text
    .trim()
    .split('\n')
    .flatMap((l) => {
      const o = JSON.parse(l) as { receivedAtMs: number };
      const f = parseFrameLine(l);
      return f.heartbeat ? [] : f.events.map((event) => ({ receivedAtMs: o.receivedAtMs, event }));
    });
}

const REAL_DOCKER = [
  {
    build: '1.9.3',
    file: 'real-1.9.3-vm-docker-reboot.ndjson',
    run: 'r3yrouce401949',
    rebootAt: '2026-12-04T15:04:29.171Z',
    ended: '2026-12-04T15:06:23.786Z',
    restarted: '2026-12-04T15:06:24.011Z',
    wait: '17.939606055s',
  },
  {
    build: '1.9.7',
    file: 'real-1.9.7-vm-docker-reboot.ndjson',
    run: 'r4hryc8f91db83',
    rebootAt: '2026-12-04T15:20:38.446Z',
    ended: '2026-12-04T15:23:40.335Z',
    restarted: '2026-12-04T15:23:40.988Z',
    wait: '17.339593133s',
  },
];

for (const c of REAL_DOCKER) {
  t.test(
    `real ${c.build} docker reboot (run ${c.run}): the SIGKILLed container is the reboot's, alloc-restored passes`,
    async (t) => {
      const ts = transitionsFrom(recorded(c.file));
      const rebootAt = Date.parse(c.rebootAt);
      const tasks = ts.filter((x) => x.kind === 'task').map((x) => x.to);
      t.same(
        tasks.slice(-4),
        ['Started', 'Terminated', 'Restarting', 'Started'],
        'the docker recovery shape as Nomad sent it',
      );
      const r = restartsAfter(ts, rebootAt, true);
      t.same(r.transient, [], 'no failure after the reboot');
      t.equal(r.endedByFault.length, 1);
      t.match(r.endedByFault[0], {
        task: 'web',
        exitCode: '137',
        ended: /Docker container exited with non-zero exit code: 137/,
      });
      const [judged] = withTransientFailures([passed], ts, { sinceMs: rebootAt, endsTasks: true, name: 'reboot' });
      t.equal(judged!.status, 'passed');
      const line = `the instance running before the reboot was ended by it (exit 137, reported ${c.ended}); restarted by the restart policy at ${c.restarted} (Restarting: Task restarting in ${c.wait})`;
      t.ok(judged!.evidence.at(-1)!.endsWith(line), judged!.evidence.at(-1)!);
      // The rule before this one read the same sequence as a failure after the reboot:
      t.equal(
        restartsAfter(ts, rebootAt, false).transient.length,
        1,
        'read as a fault that leaves tasks running, it is one',
      );
    },
  );
}

t.test(
  "executor-kill: the instance the killed executor ended is the fault's effect (as seen on 2.0.5: exit -1, restarted)",
  async (t) => {
    // the real sequence of a 2.0.5 exec task whose executor was SIGKILLed (e2e new-faults, 2026-12-06)
    const lost = {
      type: 'Terminated',
      atMs: FAULT + 2_000,
      msg: 'Exit Code: -1, Exit Message: "executor: error waiting on process: rpc error: code = Unavailable desc = error reading from server: EOF"',
      details: { exit_code: '-1', signal: '0', oom_killed: 'false' },
    };
    const seq = [
      frame(FAULT - 60_000, 10, 'running', [started0]),
      frame(FAULT + 2_000, 20, 'running', [started0, lost]),
      frame(FAULT + 2_010, 21, 'pending', [started0, lost, restarting]),
      frame(FAULT + 20_000, 22, 'running', [started0, lost, restarting, started1]),
    ];
    const ts = transitionsFrom(seq);
    t.ok(faultEndsTasks('executor-kill'), "executor-kill's rule restarts the task: it ends the instance itself");
    t.ok(faultEndsTasks('docker-restart'), 'so does docker-restart');
    t.notOk(faultEndsTasks('agent-kill'), 'agent-kill leaves the tasks running');
    t.notOk(faultEndsTasks('link-flap'), 'link-flap too');
    const [judged] = withTransientFailures([passed], ts, { sinceMs: FAULT, endsTasks: true, name: 'executor-kill' });
    t.equal(judged!.status, 'passed', 'alloc-restored keeps its status');
    t.match(judged!.evidence.join('\n'), /ended by it \(exit -1, reported \S+\); restarted by the restart policy/);
    const [wrong] = withTransientFailures([passed], ts, { sinceMs: FAULT, endsTasks: false, name: 'executor-kill' });
    t.equal(wrong!.status, 'failed', 'judged as a fault that leaves the tasks running, the same events are a failure');
  },
);
