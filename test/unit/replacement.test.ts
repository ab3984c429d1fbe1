// The one rule for "what replaced this alloc" (lib/model/replacement.ts): Nomad's links first, then job + group + name
// created after the disruption (not another watched alloc), the newest of several; chains followed to their end.
import t from 'tap';
import { latestOf, replacementOf } from '../../lib/model/replacement.js';
import type { AllocSnap } from '../../lib/model/evidence.js';

const alloc = (id: string, o: Partial<AllocSnap> = {}): AllocSnap => ({
  id,
  name: 'web.web[0]',
  nodeId: 'n1',
  jobId: 'web',
  taskGroup: 'web',
  clientStatus: 'running',
  desiredStatus: 'run',
  desiredDescription: '',
  clientDescription: '',
  createIndex: 50,
  modifyIndex: 60,
  createTimeMs: 0,
  previousAllocation: undefined,
  nextAllocation: undefined,
  address: '',
  ports: [],
  tasks: {},
  ...o,
});
const old = alloc('old');
const after100 = { watched: new Set(['old']), createdAfter: (a: AllocSnap) => a.createIndex > 100 };

t.test('by PreviousAllocation, else NextAllocation (even when not listed), else by name', async (t) => {
  const prev = alloc('p', { previousAllocation: 'old', createIndex: 10 });
  const named = alloc('n', { createIndex: 150 });
  t.match(replacementOf([old, named, prev], old, 'old', after100), { id: 'p', matchedBy: 'PreviousAllocation' });
  const linked = { ...old, nextAllocation: 'gone' };
  t.same(replacementOf([linked, named], linked, 'old', after100), { id: 'gone', matchedBy: 'NextAllocation' });
  t.match(replacementOf([old, named], old, 'old', after100), { id: 'n', matchedBy: 'name' });
});

t.test('by name: created after the disruption, the same slot, no other watched alloc, the newest', async (t) => {
  const early = alloc('early', { createIndex: 90 });
  const other = alloc('other', { createIndex: 150, name: 'web.web[1]' });
  const watched = alloc('w', { createIndex: 160 });
  const a = alloc('a', { createIndex: 120 });
  const b = alloc('b', { createIndex: 140 });
  const o = { ...after100, watched: new Set(['old', 'w']) };
  t.equal(replacementOf([old, early, other, watched], old, 'old', o), undefined, 'none fits');
  t.match(replacementOf([old, a, b, early], old, 'old', o), { id: 'b' }, 'the newest of two');
  t.equal(replacementOf([a], undefined, 'old', o), undefined, 'an alloc never seen has no slot to match');
});

t.test('a chain is followed to its newest alloc', async (t) => {
  const r1 = alloc('r1', { previousAllocation: 'old', nextAllocation: 'r2' });
  const r2 = alloc('r2');
  const r3 = alloc('r3', { previousAllocation: 'r2' });
  t.equal(latestOf([old, r1, r2, r3], r1).id, 'r3');
  t.equal(latestOf([old], old).id, 'old', 'an alloc nothing replaced is its own newest');
});
