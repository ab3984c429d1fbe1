// lib/parse/event-stream-frames.ts and lib/checks/transitions.ts against a hand-written stream sample
// (test/fixtures/nomad/event-stream/README.md says where its shapes come from), cut into chunks at every offset.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { EventStreamParser, parseFrameLine, type StreamFrame } from '../../lib/parse/event-stream-frames.js';
import { transientFailures, transitionsFrom, type ReceivedEvent } from '../../lib/checks/transitions.js';
import { timelineFromTransitions } from '../../lib/steps/stream-timeline.js';
import { streamPath } from '../../lib/nomad/event-stream.js';

const SAMPLE = readFileSync(
  new URL('../fixtures/nomad/event-stream/hand-written-reboot.ndjson', import.meta.url),
  'utf8',
);
const ALLOC = '5b3c2f4e-8a1d-4c6b-9e2f-0d7a1b2c3d4e';

const frames = (fs: StreamFrame[]) =>
  fs.map((f) => (f.heartbeat ? 'hb' : `${f.index}:${f.events.map((e) => `${e.Topic}/${e.Type}`).join(',')}`));

t.test('whole sample in one chunk: heartbeats and frames in order', async (t) => {
  const p = new EventStreamParser();
  const got = frames(p.push(SAMPLE));
  t.same(got, [
    'hb',
    '20:Job/JobRegistered',
    '21:Allocation/PlanResult',
    '23:Allocation/AllocationUpdated',
    'hb',
    '30:Node/NodeStreamEvent',
    '31:Allocation/PlanResult',
    '40:Node/NodeRegistration',
    '41:Node/NodeStreamEvent',
    '42:Allocation/PlanResult,Allocation/PlanResult',
  ]);
  t.equal(p.pending, 0);
  t.same(p.end(), []);
});

t.test('a line split across chunks at every offset parses the same', async (t) => {
  const whole = frames(new EventStreamParser().push(SAMPLE));
  for (let cut = 1; cut < SAMPLE.length; cut += 7) {
    const p = new EventStreamParser();
    const got = [...p.push(SAMPLE.slice(0, cut)), ...p.push(SAMPLE.slice(cut))];
    if (JSON.stringify(frames(got)) !== JSON.stringify(whole)) return t.fail(`cut at ${cut} differs`);
  }
  // byte by byte too
  const p = new EventStreamParser();
  const got: StreamFrame[] = [];
  for (const ch of SAMPLE) got.push(...p.push(ch));
  t.same(frames(got), whole);
});

t.test('a last line without newline is a frame at end(); a cut-off one is an error naming what came', async (t) => {
  const p = new EventStreamParser();
  t.same(p.push('{}\n{"Index":5,"Events":[]}'), [{ heartbeat: true }]);
  t.same(p.end(), [{ heartbeat: false, index: 5, events: [] }]);
  const q = new EventStreamParser();
  q.push('{"Index":999,"Events":[{"Topic":"Allocation","Ty');
  t.throws(() => q.end(), /expected a JSON object per line, got "\{\\"Index\\":999/);
});

t.test('bad frames say what was expected and what was received', async (t) => {
  t.throws(() => parseFrameLine('[1,2]'), /expected \{"Index":N,"Events":\[\.\.\.\]\} or \{\}, got "\[1,2\]"/);
  t.throws(() => parseFrameLine('{"Index":"7","Events":[]}'), /expected \{"Index":N,"Events":\[\.\.\.\]\}/);
  t.throws(
    () => parseFrameLine('{"Index":7,"Events":[{"Topic":"Node","Type":"NodeStreamEvent","Index":7,"Payload":{}}]}'),
    /event 0 lacks Key/,
  );
  t.throws(() => parseFrameLine('not json'), /expected a JSON object per line, got "not json"/);
});

t.test('streamPath repeats topic and sends index only when known', async (t) => {
  t.equal(
    streamPath({ topics: ['Allocation:web', 'Node:n1'] }, 0),
    '/v1/event/stream?topic=Allocation%3Aweb&topic=Node%3An1',
  );
  t.equal(
    streamPath({ topics: ['Job:web'], namespace: 'ns' }, 42),
    '/v1/event/stream?index=42&topic=Job%3Aweb&namespace=ns',
  );
});

const received = (text: string): ReceivedEvent[] =>
  new EventStreamParser()
    .push(text)
    .flatMap((f, i) => (f.heartbeat ? [] : f.events.map((event) => ({ receivedAtMs: 1_000_000 + i * 1000, event }))));

t.test('transitions: alloc, node and job status changes from the sample', async (t) => {
  const ts = transitionsFrom(received(SAMPLE));
  t.same(
    ts.filter((x) => x.kind === 'node').map((x) => `${x.from ?? '-'}>${x.to}:${x.type}`),
    ['->down:NodeStreamEvent', 'down>initializing:NodeRegistration', 'initializing>ready:NodeStreamEvent'],
  );
  t.same(
    ts.filter((x) => x.kind === 'alloc' && x.id === ALLOC).map((x) => x.to),
    ['pending/run', 'running/run', 'lost/stop'],
    'the repeated lost/stop (now with NextAllocation) is no transition',
  );
  t.match(
    ts.find((x) => x.to === 'lost/stop')!.detail,
    /alloc 5b3c2f4e running\/run -> lost\/stop \(PlanResult: alloc is lost since its node is down\)/,
  );
  t.same(
    ts.filter((x) => x.kind === 'task').map((x) => x.to),
    ['Started'],
  );
  t.equal(transientFailures(ts, 0).length, 0, 'lost and replaced is not a transient failure');
  const tl = timelineFromTransitions(ts);
  t.same(
    tl.filter((x) => x.lane === 'node').map((x) => [x.label, x.severity]),
    [
      ['stream: node down', 'fail'],
      ['stream: node initializing', 'warn'],
      ['stream: node ready', 'ok'],
    ],
  );
  t.ok(tl.some((x) => x.lane === 'alloc' && x.label === 'stream: alloc 5b3c2f4e lost/stop' && x.severity === 'fail'));
});

/** An alloc event line with the given status and task events (ns times). */
const allocLine = (
  index: number,
  status: string,
  events: { Type: string; Time: number; FailsTask?: boolean; Details?: Record<string, string> }[],
) =>
  JSON.stringify({
    Index: index,
    Events: [
      {
        Topic: 'Allocation',
        Type: 'AllocationUpdated',
        Key: ALLOC,
        Index: index,
        FilterKeys: ['web', ''],
        Payload: {
          Allocation: {
            ID: ALLOC,
            ClientStatus: status,
            DesiredStatus: 'run',
            ModifyTime: (2_000_000 + index) * 1e6,
            TaskStates: { web: { Events: events } },
          },
        },
      },
    ],
  }) + '\n';

t.test(
  'transientFailures: an alloc that failed and was then restarted is found and quoted; one that stayed failed is not',
  async (t) => {
    const setup = { Type: 'Setup Failure', Time: 2_000_050e6, FailsTask: true };
    const restart = { Type: 'Restarting', Time: 2_000_060e6 };
    const started = { Type: 'Started', Time: 2_000_070e6 };
    const flapped = received(
      allocLine(50, 'running', []) +
        allocLine(51, 'failed', [setup]) +
        allocLine(52, 'running', [setup, restart, started]),
    );
    const found = transientFailures(transitionsFrom(flapped), 2_000_000);
    t.equal(found.length, 2, 'the alloc (failed -> running) and its task (Setup Failure -> Restarting)');
    const alloc = found.find((f) => !f.task)!;
    t.match(alloc.failure, /alloc 5b3c2f4e running\/run -> failed\/run/);
    t.match(alloc.recovery, /-> running\/run/);
    t.match(found.find((f) => f.task === 'web')!.failure, /task web: Setup Failure/);
    const stayed = received(allocLine(50, 'running', []) + allocLine(51, 'failed', [setup]));
    t.same(
      transientFailures(transitionsFrom(stayed), 2_000_000),
      [],
      'a failure with no recovery is a plain failure, not a transient one',
    );
    t.same(transientFailures(transitionsFrom(flapped), 2_000_100), [], 'failures before sinceMs do not count');
    const cleanExit = received(
      allocLine(50, 'running', [{ Type: 'Terminated', Time: 2_000_050e6, Details: { exit_code: '0' } }, restart]),
    );
    t.same(transientFailures(transitionsFrom(cleanExit), 0), [], 'Terminated with exit code 0 is not a failure');
  },
);

const REAL = readFileSync(
  new URL('../fixtures/nomad/event-stream/real-1.9.3-dev-raw-exec-restart.ndjson', import.meta.url),
  'utf8',
);

t.test('a real Nomad 1.9.3 capture: parsed whole and cut anywhere, the same frames', async (t) => {
  const whole = new EventStreamParser().push(REAL);
  t.same(frames(whole).slice(0, 4), [
    'hb',
    '8:Node/NodeRegistration',
    '9:Node/NodeStreamEvent',
    '10:Node/NodeRegistration',
  ]);
  t.equal(whole.length, 13);
  for (let cut = 1; cut < REAL.length; cut += 997) {
    const p = new EventStreamParser();
    const got = [...p.push(REAL.slice(0, cut)), ...p.push(REAL.slice(cut))];
    if (JSON.stringify(frames(got)) !== JSON.stringify(frames(whole))) return t.fail(`cut at ${cut} differs`);
  }
});

t.test(
  'the real capture: transitions, and the SIGKILLed task found as a transient failure with its events quoted',
  async (t) => {
    const ts = transitionsFrom(received(REAL));
    const alloc = ts.filter((x) => x.kind === 'alloc').map((x) => x.to);
    t.same(alloc, ['pending/run', 'running/run', 'pending/run', 'running/run', 'running/stop', 'complete/stop']);
    t.same(
      ts.filter((x) => x.kind === 'node').map((x) => x.to),
      ['initializing', 'ready'],
      'the node events of alloc updates (same status) are no transitions',
    );
    const found = transientFailures(ts, 0);
    t.equal(found.length, 1, 'the task, once (the alloc itself never went failed)');
    t.match(found[0], {
      task: 't',
      failure: /task t: Terminated: Exit Code: 137, Signal: 9/,
      recovery: /task t: Restarting: Task restarting in/,
    });
    const killed = transientFailures(ts, Number.MAX_SAFE_INTEGER);
    t.same(killed, [], 'nothing after the end');
  },
);

t.test(
  "the harness's own recording of a real 1.9.3 partition (VM run rcbbaw40749dc1): down, lost, back, an unlinked replacement",
  async (t) => {
    const text = readFileSync(
      new URL('../fixtures/nomad/event-stream/real-1.9.3-vm-partition-75s.ndjson', import.meta.url),
      'utf8',
    );
    const rec: ReceivedEvent[] = text
      .trim()
      .split('\n')
      .flatMap((l) => {
        const o = JSON.parse(l) as { receivedAtMs: number };
        const f = parseFrameLine(l);
        return f.heartbeat ? [] : f.events.map((event) => ({ receivedAtMs: o.receivedAtMs, event }));
      });
    const ts = transitionsFrom(rec);
    t.same(
      ts.filter((x) => x.kind === 'node').map((x) => x.to),
      ['initializing', 'ready', 'down', 'ready'],
    );
    const allocs = [...new Set(ts.filter((x) => x.kind === 'alloc').map((x) => x.id))];
    t.equal(allocs.length, 2, 'the watched alloc and its replacement');
    t.same(
      ts.filter((x) => x.kind === 'alloc' && x.id === allocs[0]).map((x) => x.to),
      ['pending/run', 'running/run', 'lost/stop', 'running/stop', 'complete/stop'],
    );
    t.match(ts.find((x) => x.to === 'lost/stop')?.detail, /PlanResult: alloc is lost since its node is down/);
    t.notMatch(ts.find((x) => x.id === allocs[1])?.detail, /replaces/, 'no PreviousAllocation link on the replacement');
    t.same(transientFailures(ts, 0), [], 'a lost alloc is no transient failure');
  },
);
