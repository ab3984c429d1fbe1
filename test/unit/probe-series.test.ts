// The probe series' pure parts (lib/scenario/probe-series.ts): the targets of the running allocs through their
// nodes' host ports, the machine probes run from, and a tick's failed sample for a service nothing could be probed of.
import t from 'tap';
import type { AllocSnap } from '../../lib/model/evidence.js';
import { probeFrom, seriesServices, seriesTargets, tickSamples } from '../../lib/scenario/probe-series.js';

const alloc = (id: string, node: string, o: Partial<AllocSnap> = {}): AllocSnap => ({
  id,
  name: 'web.web[0]',
  nodeId: node,
  jobId: 'web',
  taskGroup: 'web',
  clientStatus: 'running',
  desiredStatus: 'run',
  desiredDescription: '',
  clientDescription: '',
  createIndex: 1,
  modifyIndex: 1,
  createTimeMs: 0,
  previousAllocation: undefined,
  nextAllocation: undefined,
  address: '172.26.64.2',
  ports: [
    { label: 'http', value: 23456, to: 80, hostIp: '10.199.0.21' },
    { label: 'admin', value: 23457, to: 9000, hostIp: '' },
  ],
  tasks: {},
  ...o,
});
const machine = (n: string) => ({ n1: 'client-1', n2: 'client-2' })[n] ?? n;
const address = (n: string) => ({ n1: '10.199.0.21', n2: '10.199.0.22' })[n];

t.test('targets: every probed port of each running alloc through its host address', async (t) => {
  const kinds = { web: { admin: 'tcp' as const } };
  const allocs = [
    alloc('aaaaaaaa-1', 'n1'),
    alloc('bbbbbbbb-2', 'n2', { clientStatus: 'complete', desiredStatus: 'stop' }),
    alloc('cccccccc-3', 'n2', { ports: [{ label: 'http', value: 30000, to: 80, hostIp: '' }] }),
  ];
  t.same(
    seriesTargets(allocs, kinds, machine, address).map((x) => [x.service, x.machine, `${x.host}:${x.port}`, x.kind]),
    [
      ['web/http', 'client-1', '10.199.0.21:23456', 'http'],
      ['web/admin', 'client-1', '10.199.0.21:23457', 'tcp'],
      ['web/http', 'client-2', '10.199.0.22:30000', 'http'],
    ],
    'a stopped alloc is not probed; a port without HostIP through its node address',
  );
  t.same(seriesServices(allocs, { web: { admin: 'none' } }), ['web/http'], "a port the job marks 'none' is no service");
});

t.test('probeFrom: a server not under the fault, else a client; none left', async (t) => {
  const names = ['server-1', 'server-2', 'client-1', 'client-2'];
  t.equal(probeFrom(names, new Set()), 'server-1');
  t.equal(probeFrom(names, new Set(['server-1'])), 'server-2');
  t.equal(probeFrom(['server', 'client'], new Set(['server'])), 'client');
  t.equal(probeFrom(['server', 'client'], new Set(['server', 'client'])), undefined);
});

t.test('tickSamples: a service with no probe this tick gets a failed sample saying why', async (t) => {
  const skipped = seriesTargets([alloc('aaaaaaaa-1', 'n1')], undefined, machine, address);
  const made = [{ atMs: 5, tick: 3, service: 'web/admin', target: 'x', from: 'server-1', ok: true }];
  const out = tickSamples(3, 5, ['web/http', 'web/admin', 'api/grpc'], made, skipped, 'server-1');
  t.same(
    out.map((s) => [s.service, s.ok, s.error]),
    [
      ['web/admin', true, undefined],
      ['web/http', false, 'no alloc of it on a live client (aaaaaaaa on client-1 under the fault)'],
      ['api/grpc', false, 'no running alloc of it'],
    ],
  );
  t.match(tickSamples(0, 0, ['web/http'], [], [], undefined), [{ ok: false, error: 'no machine left to probe from' }]);
});
