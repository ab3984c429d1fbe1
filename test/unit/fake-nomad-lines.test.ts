// The Nomad API stand-in's line knob (test/helpers/fake-nomad/lines.ts): a payload keeps the 1.9 samples' keys on a 1.9
// line and gains or loses each line's keys from that line on, cumulatively, whatever the patch or pre-release.
import t from 'tap';
import { forLine, lineAtLeast } from '../helpers/fake-nomad/lines.js';

const node = () => ({ ID: 'n', Reserved: {}, Resources: {}, Status: 'ready' });

t.test('lineAtLeast compares the release part', async (t) => {
  t.equal(lineAtLeast('1.10.5', '1.10.0'), true);
  t.equal(lineAtLeast('1.9.7', '1.10.0'), false, '1.9 is before 1.10 (not a string compare)');
  t.equal(lineAtLeast('2.0.5-dev', '2.0.0'), true, 'a dev build belongs to its line');
  t.equal(lineAtLeast('1.11.0+ent', '1.11.0'), true);
  t.equal(lineAtLeast('main', '1.10.0'), false, 'unparsable: the samples line');
});

t.test('a node on each line', async (t) => {
  t.same(Object.keys(forLine('node', '1.9.7', node())), ['ID', 'Reserved', 'Resources', 'Status'], '1.9: unchanged');
  t.same(
    Object.keys(forLine('node', '1.10.5', node())).sort(),
    ['GCVolumesOnNodeGC', 'ID', 'NodeMaxAllocs', 'Reserved', 'Resources', 'Status'],
    '1.10 adds NodeMaxAllocs and GCVolumesOnNodeGC',
  );
  const n2 = forLine('node', '2.0.5', node()) as Record<string, unknown>;
  t.same(
    Object.keys(n2).sort(),
    ['GCVolumesOnNodeGC', 'ID', 'IdentitySigningKeyID', 'NodeMaxAllocs', 'Status'],
    '2.0: the 1.10 and 1.11 changes both (Reserved/Resources gone)',
  );
  t.equal(n2.NodeMaxAllocs, 0);
});

t.test('keys already there are kept, the input is not changed', async (t) => {
  const st = { State: 'running', TaskHandle: null, Paused: '' };
  t.same(forLine('taskState', '1.10.5', st), { State: 'running', Paused: '' }, '1.10 drops TaskHandle');
  t.same(st, { State: 'running', TaskHandle: null, Paused: '' }, 'the input object is untouched');
  const stub = { ID: 'a', AllocatedResources: { Shared: {} } };
  t.same(forLine('allocStub', '1.10.5', stub), stub, 'a value present stays (not replaced by the default)');
});

t.test('an added object value is a copy per payload', async (t) => {
  const a = forLine('agentConfig', '1.10.5', {}) as { RPC: { AcceptBacklog: number } };
  a.RPC.AcceptBacklog = 1;
  const b = forLine('agentConfig', '1.10.5', {}) as { RPC: { AcceptBacklog: number } };
  t.equal(b.RPC.AcceptBacklog, 256);
});
