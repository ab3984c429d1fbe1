// The settle rule after a disruption (jobSettleState / slotState): every judged alloc's place settled with evidence newer
// than the disruption, nothing meant to run pending; a lost alloc is not an end. Plus describeAlloc.
import t from 'tap';
import type { AllocSnap, TaskStateSnap } from '../../lib/model/evidence.js';
import { describeAlloc, jobSettleState, slotState, successorOf } from '../../lib/scenario/settle.js';

const REBOOT_AT = Date.parse('2025-03-10T09:46:50Z');
const SINCE = { index: 100, atMs: REBOOT_AT };
const after = new Date(REBOOT_AT + 5000).toISOString();
const task = (o: Partial<TaskStateSnap> = {}): TaskStateSnap => ({ state: 'running', failed: false, restarts: 0, startedAt: undefined, finishedAt: undefined, events: [], ...o });
const ID = 'aaaaaaaa-1111-2222-3333-444444444444';
const alloc = (o: Partial<AllocSnap> = {}): AllocSnap => ({
  id: ID, name: 'web.web[0]', nodeId: 'n1', jobId: 'web', taskGroup: 'web',
  clientStatus: 'running', desiredStatus: 'run', desiredDescription: '', clientDescription: '', createIndex: 50, modifyIndex: 120, createTimeMs: 0,
  previousAllocation: undefined, nextAllocation: undefined, address: '172.26.64.2', ports: [], tasks: { web: task({ startedAt: after }) }, ...o,
});
const W = new Set([ID]);

t.test('restored: running, changed after the disruption, every task started since', async (t) => {
  t.match(slotState([alloc()], ID, W, SINCE), { settled: true, description: /running with tasks started after the disruption/ });
  t.match(slotState([alloc({ modifyIndex: 90 })], ID, W, SINCE), { settled: false, description: /unchanged since before the disruption/ }, 'the view from before the reboot is no evidence');
  const before = new Date(REBOOT_AT - 60_000).toISOString();
  t.match(slotState([alloc({ tasks: { web: task({ startedAt: before }) } })], ID, W, SINCE), { settled: false, description: /tasks not started since/ });
  t.equal(slotState([alloc({ tasks: { web: task({ events: [{ type: 'Started', timeMs: REBOOT_AT + 1, message: '', details: {}, failsTask: false }] }) } })], ID, W, SINCE).settled, true, 'a Started event after the disruption');
  t.equal(slotState([alloc({ tasks: { web: task({ startedAt: after }), sidecar: task({ state: 'pending' }) } })], ID, W, SINCE).settled, false, 'one task still pending');
  t.equal(slotState([alloc({ tasks: {} })], ID, W, SINCE).settled, false, 'no task states yet');
  t.equal(slotState([alloc({ clientStatus: 'pending' })], ID, W, SINCE).settled, false, 'client status pending');
});

t.test('failed is an end, unless a reschedule is pending', async (t) => {
  t.match(slotState([alloc({ clientStatus: 'failed' })], ID, W, SINCE), { settled: true, description: /failed$/ });
  t.match(slotState([alloc({ clientStatus: 'failed', followupEvalId: 'e1' })], ID, W, SINCE), { settled: false, description: /reschedule is pending/ });
  t.match(slotState([alloc({ clientStatus: 'complete' })], ID, W, SINCE), { settled: true });
});

t.test('real 1.9.7 node-down: lost is not an end; the replacement (same name, no links) is', async (t) => {
  const lost = alloc({ clientStatus: 'lost', desiredStatus: 'stop', desiredDescription: 'alloc is lost since its node is down' });
  t.match(slotState([lost], ID, W, SINCE), { settled: false, description: /stopped by the server; waiting for its replacement/ });
  // the client came back and reported the old alloc pending, desired stop, "No tasks have started"
  const back = { ...lost, clientStatus: 'pending', clientDescription: 'No tasks have started', modifyIndex: 130 };
  t.match(jobSettleState([back], [ID], SINCE), { settled: false }, 'pending (desired stop) without a replacement');
  const repl = alloc({ id: 'bbbbbbbb-0000-0000-0000-000000000000', createIndex: 140, modifyIndex: 150, clientStatus: 'pending', tasks: { web: task({ state: 'pending' }) } });
  t.equal(successorOf([back, repl], back, ID, W, SINCE)?.id, repl.id, 'matched by job, group and name created after the disruption');
  t.equal(jobSettleState([back, repl], [ID], SINCE).settled, false, 'the replacement still pending');
  const running = { ...repl, clientStatus: 'running', tasks: { web: task({ startedAt: after }) } };
  const s = jobSettleState([back, running], [ID], SINCE);
  t.equal(s.settled, true, 'settled once the replacement runs; the old alloc pending with desired stop does not hold it up');
  t.match(s.description, /web\.web\[0\] replaced by bbbbbbbb: running/);
  t.equal(successorOf([back, { ...repl, createIndex: 90 }], back, ID, W, SINCE), undefined, 'an alloc of that name from before the disruption is no replacement');
  t.equal(successorOf([back, { ...repl, name: 'web.web[1]' }], back, ID, W, SINCE), undefined, 'another index is no replacement');
});

t.test('links: PreviousAllocation / NextAllocation, followed to the newest', async (t) => {
  const old = alloc({ clientStatus: 'failed', nextAllocation: 'cccccccc-0000-0000-0000-000000000000' });
  const next = alloc({ id: 'cccccccc-0000-0000-0000-000000000000', previousAllocation: ID, createIndex: 140, nextAllocation: 'dddddddd-0000-0000-0000-000000000000', clientStatus: 'failed' });
  const last = alloc({ id: 'dddddddd-0000-0000-0000-000000000000', previousAllocation: next.id, createIndex: 160 });
  t.equal(successorOf([old, next, last], old, ID, W, SINCE)?.id, last.id);
});

t.test('the job: every judged alloc and no pending alloc meant to run', async (t) => {
  const b = alloc({ id: 'bbbbbbbb-1111-2222-3333-444444444444', name: 'web.web[1]' });
  t.equal(jobSettleState([alloc(), b], [ID, b.id], SINCE).settled, true);
  t.match(jobSettleState([alloc(), { ...b, clientStatus: 'pending' }], [ID, b.id], SINCE), { settled: false, description: /web\.web\[1\] bbbbbbbb/ });
  const extra = alloc({ id: 'eeeeeeee-1111-2222-3333-444444444444', name: 'web.web[2]', clientStatus: 'pending', createIndex: 130 });
  t.match(jobSettleState([alloc(), extra], [ID], SINCE), { settled: false, description: /eeeeeeee.*\(pending\)/ }, 'an unjudged alloc meant to run, still pending');
  t.match(jobSettleState([], [ID], SINCE), { settled: true, description: /gone from the job/ });
});

t.test('describeAlloc: the newest event across tasks', async (t) => {
  t.equal(describeAlloc(undefined), 'alloc not found');
  const a = alloc({ tasks: {
    web: task({ events: [{ type: 'Started', timeMs: 30, message: 'started', details: {}, failsTask: false }] }),
    log: task({ state: 'dead', events: [{ type: 'Terminated', timeMs: 40, message: 'exit 1', details: {}, failsTask: false }, { type: 'Received', timeMs: 10, message: 'r', details: {}, failsTask: false }] }),
  } });
  t.equal(describeAlloc(a), 'alloc aaaaaaaa client_status=running desired=run tasks[web=running,log=dead] last event: "Terminated: exit 1"');
});
