// lib/nomad/parse.ts against the Nomad API samples in test/fixtures/nomad/.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type {
  ApiAllocListStub,
  ApiAllocation,
  ApiNode,
  ApiNodeListStub,
  ApiTaskEvent,
} from '../../lib/nomad/api-types.js';
import { mergeTaskEvents, nomadTime, toAllocSnap, toNodeSnap, toTaskEvent } from '../../lib/nomad/parse.js';

const sample = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../fixtures/nomad/${name}`, import.meta.url), 'utf8')) as T;
const ALLOC = '5b3c2f4e-8a1d-4c6b-9e2f-0d7a1b2c3d4e';

t.test('running alloc: address, ports, task state, ms times', async (t) => {
  const s = toAllocSnap(sample<ApiAllocation>('alloc-running.json'));
  t.equal(s.id, ALLOC);
  t.equal(s.clientStatus, 'running');
  t.equal(s.address, '172.26.64.2', 'from NetworkStatus.Address');
  t.same(
    s.ports,
    [{ label: 'http', value: 23456, to: 8080, hostIp: '192.168.121.11' }],
    'from AllocatedResources.Shared.Ports',
  );
  t.equal(s.previousAllocation, undefined, 'empty string -> undefined');
  t.equal(s.nextAllocation, undefined);
  t.equal(s.createTimeMs, 1736850001000, 'ns -> ms');
  const web = s.tasks.web!;
  t.equal(web.state, 'running');
  t.equal(web.startedAt, '2025-01-14T10:20:02.500000000Z');
  t.equal(web.finishedAt, undefined, 'zero time -> undefined');
  t.same(
    web.events.map((e) => e.type),
    ['Received', 'Task Setup', 'Started'],
  );
  t.equal(web.events[1]!.message, 'Building Task Directory');
});

t.test('restored alloc keeps its ID and shows Failed Restoring Task then Started', async (t) => {
  const s = toAllocSnap(sample<ApiAllocation>('alloc-restored.json'));
  t.equal(s.id, ALLOC);
  t.same(
    s.tasks.web!.events.slice(-2).map((e) => e.type),
    ['Failed Restoring Task', 'Started'],
  );
  t.equal(s.tasks.web!.events.at(-2)!.message, 'failed to restore task; will not run until server is contacted');
  t.equal(s.tasks.web!.startedAt, '2025-01-14T10:31:04.100000000Z');
});

t.test('duplicate-IP setup failure is a failing task event with the CNI message', async (t) => {
  const s = toAllocSnap(sample<ApiAllocation>('alloc-duplicate-ip.json'));
  t.equal(s.clientStatus, 'failed');
  const last = s.tasks.web!.events.at(-1)!;
  t.equal(last.type, 'Setup Failure');
  t.equal(last.failsTask, true);
  t.match(
    last.message,
    /^failed to setup alloc: pre-run hook "network" failed: .*172\.26\.64\.2 has been allocated to 5b3c2f4e-[0-9a-f-]+, duplicate allocation is not allowed$/,
  );
  t.equal(last.details.fails_task, 'true');
  t.equal(s.tasks.web!.failed, true);
  t.ok(s.tasks.web!.finishedAt);
});

t.test('replaced: lost alloc points forward, replacement points back', async (t) => {
  const lost = toAllocSnap(sample<ApiAllocation>('alloc-lost.json'));
  const repl = toAllocSnap(sample<ApiAllocation>('alloc-replacement.json'));
  t.equal(lost.clientStatus, 'lost');
  t.equal(lost.desiredDescription, 'alloc is lost since its node is down');
  t.equal(lost.nextAllocation, repl.id);
  t.equal(repl.previousAllocation, lost.id);
  t.not(repl.id, lost.id);
});

t.test('list stub has no address, ports or previous alloc', async (t) => {
  const s = toAllocSnap(sample<ApiAllocListStub>('alloc-stub-running.json'));
  t.equal(s.id, ALLOC);
  t.equal(s.address, undefined);
  t.same(s.ports, []);
  t.equal(s.previousAllocation, undefined);
  t.equal(s.tasks.web!.events.length, 3);
});

t.test('rejects what is not an allocation, naming what is missing', async (t) => {
  t.throws(() => toAllocSnap(null as unknown as ApiAllocation), /expected an allocation .*not an object/);
  t.throws(
    () => toAllocSnap({ ID: 7 } as unknown as ApiAllocation),
    /ID \(string\), ClientStatus \(string\), NodeID \(string\); got \{"ID":7\}/,
  );
  t.throws(() => toAllocSnap(sample<ApiAllocation[]>('nodes-list.json')[0]!), /missing or wrong: ClientStatus/);
});

t.test('task events: ns -> ms, DisplayMessage falls back to Message, FailsTask from Details', async (t) => {
  const e = toTaskEvent({
    Type: 'Task Setup',
    Time: 1736850001200000000,
    DisplayMessage: '',
    Message: 'Building Task Directory',
    Details: { fails_task: 'true' },
  });
  t.same(e, {
    type: 'Task Setup',
    timeMs: 1736850001200,
    message: 'Building Task Directory',
    details: { fails_task: 'true' },
    failsTask: true,
  });
  t.throws(
    () => toTaskEvent({ Type: 'Started', Time: '1736850001200000000' } as unknown as ApiTaskEvent),
    /Time \(number\)/,
  );
  t.equal(nomadTime('0001-01-01T00:00:00Z'), undefined);
  t.equal(nomadTime(''), undefined);
  t.equal(nomadTime('2025-01-14T10:20:02Z'), '2025-01-14T10:20:02Z');
});

t.test('nodes: full node, down node with heartbeat event, list stub', async (t) => {
  const n = toNodeSnap(sample<ApiNode>('node-ready.json'));
  t.equal(n.status, 'ready');
  t.equal(n.statusUpdatedAt, 1736849921, 'Unix seconds, as the API gives');
  t.same(n.drivers.exec, { detected: true, healthy: true });
  t.same(n.drivers.docker, { detected: false, healthy: false });
  t.equal(n.attributes['plugins.cni.version.bridge'], 'v1.1.1');
  const down = toNodeSnap(sample<ApiNode>('node-down.json'));
  t.equal(down.status, 'down');
  t.equal(down.events.at(-1)!.message, 'Node heartbeat missed');
  const stub = toNodeSnap(sample<ApiNodeListStub[]>('nodes-list.json')[0]!);
  t.equal(stub.id, n.id);
  t.equal(stub.statusUpdatedAt, 0, 'the stub has no StatusUpdatedAt');
  t.same(stub.events, []);
  t.throws(() => toNodeSnap({ ID: 'x' } as unknown as ApiNode), /expected a node .*Status \(string\)/);
});

t.test('mergeTaskEvents keeps events Nomad dropped, de-duplicated, oldest first', async (t) => {
  const before = toAllocSnap(sample<ApiAllocation>('alloc-running.json'));
  const after = toAllocSnap(sample<ApiAllocation>('alloc-restored.json'));
  // Nomad keeps the last 10 per task: pretend the first two were dropped by the time of the second poll
  after.tasks.web!.events = after.tasks.web!.events.slice(2);
  const h1 = mergeTaskEvents({}, [before]);
  const h2 = mergeTaskEvents(h1, [after]);
  t.same(
    h2[ALLOC]!.map((e) => e.type),
    ['Received', 'Task Setup', 'Started', 'Failed Restoring Task', 'Started'],
  );
  t.equal(h1[ALLOC]!.length, 3, 'input history not mutated');
  t.same(mergeTaskEvents(h2, [after, before]), h2, 'polling the same events again adds nothing');
  const other = toAllocSnap(sample<ApiAllocation>('alloc-replacement.json'));
  const h3 = mergeTaskEvents(h2, [other]);
  t.same(Object.keys(h3).sort(), [ALLOC, other.id].sort(), 'kept per alloc');
  const shuffled = {
    ...after,
    tasks: { web: { ...after.tasks.web!, events: [...after.tasks.web!.events].reverse() } },
  };
  const times = mergeTaskEvents({}, [shuffled])[ALLOC]!.map((e) => e.timeMs);
  t.same(
    times,
    [...times].sort((a, b) => a - b),
    'sorted oldest first',
  );
});
