// settledState / describeAlloc over the recorded reboot evidence (restored, replaced, duplicate-IP) and edge cases.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { AllocSnap, RebootEvidence, TaskStateSnap } from '../../lib/model/evidence.js';
import { describeAlloc, settledState } from '../../lib/scenario/settle.js';

const load = (name: string): RebootEvidence => JSON.parse(readFileSync(new URL(`../fixtures/checks/${name}.json`, import.meta.url), 'utf8')) as RebootEvidence;

const REBOOT_AT = Date.parse('2025-03-10T09:46:50Z');
const task = (o: Partial<TaskStateSnap> = {}): TaskStateSnap => ({ state: 'running', failed: false, restarts: 0, startedAt: undefined, finishedAt: undefined, events: [], ...o });
const alloc = (o: Partial<AllocSnap> = {}): AllocSnap => ({
  id: 'aaaaaaaa-1111-2222-3333-444444444444', name: 'web.web[0]', nodeId: 'n1', jobId: 'web', taskGroup: 'web',
  clientStatus: 'running', desiredStatus: 'run', desiredDescription: '', clientDescription: '', createIndex: 1, modifyIndex: 2, createTimeMs: 0,
  previousAllocation: undefined, nextAllocation: undefined, address: '172.26.64.2', ports: [], tasks: { web: task() }, ...o,
});
const ID = 'aaaaaaaa-1111-2222-3333-444444444444';

t.test('recorded evidence: restored, replaced, failed with the duplicate-IP error', async (t) => {
  const restored = load('restored');
  t.same(settledState(restored.after.jobAllocs, restored.allocId, restored.reboot.requestedAt), { settled: true, description: 'restored: running with tasks started after the reboot' });

  const replaced = load('replaced');
  t.same(settledState(replaced.after.jobAllocs, replaced.allocId, replaced.reboot.requestedAt), { settled: true, description: 'replaced by 5e1f0a9b (running)' });

  const dup = load('duplicate-ip');
  const s = settledState(dup.after.jobAllocs, dup.allocId, dup.reboot.requestedAt);
  t.equal(s.settled, true);
  t.equal(s.description, 'failed: "Not Restarting: Error was unrecoverable"', 'names the last event');
});

t.test('running, but the task was started before the reboot: not settled yet', async (t) => {
  const before = new Date(REBOOT_AT - 60_000).toISOString();
  const s = settledState([alloc({ tasks: { web: task({ startedAt: before, events: [{ type: 'Started', timeMs: REBOOT_AT - 60_000, message: 'Task started by client', details: {}, failsTask: false }] }) } })], ID, REBOOT_AT);
  t.equal(s.settled, false);
  t.equal(s.description, 'alloc aaaaaaaa client_status=running desired=run tasks[web=running] last event: "Started: Task started by client"');
});

t.test('restored needs every task running after the reboot (by StartedAt or a Started event)', async (t) => {
  const after = new Date(REBOOT_AT + 5000).toISOString();
  t.equal(settledState([alloc({ tasks: { web: task({ startedAt: after }) } })], ID, REBOOT_AT).settled, true, 'StartedAt after the reboot');
  t.equal(settledState([alloc({ tasks: { web: task({ startedAt: '2025-03-10T09:46:55.123456789Z' }) } })], ID, REBOOT_AT).settled, true, 'nanosecond RFC3339 as Nomad writes it');
  t.equal(settledState([alloc({ tasks: { web: task({ events: [{ type: 'Started', timeMs: REBOOT_AT + 1, message: '', details: {}, failsTask: false }] }) } })], ID, REBOOT_AT).settled, true, 'a Started event after the reboot');
  t.equal(settledState([alloc({ tasks: { web: task({ startedAt: after }), sidecar: task({ state: 'pending' }) } })], ID, REBOOT_AT).settled, false, 'one task still pending');
  t.equal(settledState([alloc({ tasks: {} })], ID, REBOOT_AT).settled, false, 'no task states yet');
  t.equal(settledState([alloc({ clientStatus: 'pending', tasks: { web: task({ startedAt: after }) } })], ID, REBOOT_AT).settled, false, 'client status still pending');
});

t.test('a replacement counts only once it runs or ends; terminal states settle', async (t) => {
  const next = alloc({ id: 'bbbbbbbb-0000-0000-0000-000000000000', previousAllocation: ID, clientStatus: 'pending' });
  const old = alloc({ clientStatus: 'running', tasks: { web: task({ startedAt: new Date(REBOOT_AT - 1000).toISOString() }) } });
  t.equal(settledState([old, next], ID, REBOOT_AT).settled, false, 'a pending replacement is not an end state');
  t.same(settledState([old, { ...next, clientStatus: 'failed' }], ID, REBOOT_AT), { settled: true, description: 'replaced by bbbbbbbb (failed)' });
  const byNext = alloc({ id: 'cccccccc-0000-0000-0000-000000000000', clientStatus: 'running' });
  t.same(settledState([alloc({ clientStatus: 'lost', nextAllocation: byNext.id }), byNext], ID, REBOOT_AT), { settled: true, description: 'replaced by cccccccc (running)' }, 'found through NextAllocation');
  for (const st of ['failed', 'lost', 'complete']) t.match(settledState([alloc({ clientStatus: st })], ID, REBOOT_AT), { settled: true, description: new RegExp(`^${st}: none$`) });
  t.same(settledState([], ID, REBOOT_AT), { settled: true, description: 'the alloc is gone from the job' });
  t.equal(settledState([alloc({ id: 'dddddddd-0000-0000-0000-000000000000' })], ID, REBOOT_AT).description, 'the alloc is gone from the job', 'an unrelated alloc is no replacement');
});

t.test('describeAlloc: the newest event across tasks', async (t) => {
  t.equal(describeAlloc(undefined), 'alloc not found');
  const a = alloc({ tasks: {
    web: task({ events: [{ type: 'Started', timeMs: 30, message: 'started', details: {}, failsTask: false }] }),
    log: task({ state: 'dead', events: [{ type: 'Terminated', timeMs: 40, message: 'exit 1', details: {}, failsTask: false }, { type: 'Received', timeMs: 10, message: 'r', details: {}, failsTask: false }] }),
  } });
  t.equal(describeAlloc(a), 'alloc aaaaaaaa client_status=running desired=run tasks[web=running,log=dead] last event: "Terminated: exit 1"');
});
