// The probe series' pure parts (lib/steps/probe-series.ts): the targets of the running allocs through their
// nodes' host ports, the machine probes run from, and a tick's failed sample for a service nothing could be probed of.
import t from 'tap';
import type { AllocSnap } from '../../lib/model/evidence.js';
import type { ExecOptions, ExecResult, Lab, Machine } from '../../lib/model/lab.js';
import {
  probeFrom,
  probeTimeoutMs,
  sampleOf,
  seriesServices,
  seriesTargets,
  startProbeSeries,
  tickSamples,
} from '../../lib/steps/probe-series.js';
import { serviceContinuity } from '../../lib/checks/continuity.js';
import { deadlineIn, remaining, sleep } from '../../lib/time/deadlines.js';

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
  const out = tickSamples(3, 5, ['web/http', 'web/admin', 'api/grpc'], new Set(['web/admin']), skipped, 'server-1');
  t.same(
    out.map((s) => [s.service, s.ok, s.error, s.outcome]),
    [
      ['web/http', false, 'no alloc of it on a live client (aaaaaaaa on client-1 under the fault)', 'down'],
      ['api/grpc', false, 'no running alloc of it', 'down'],
    ],
    'the probed service gets no failed sample; the others are evidence of down',
  );
  t.match(tickSamples(0, 0, ['web/http'], new Set(), [], undefined), [
    { ok: false, error: 'no machine left to probe from' },
  ]);
});

t.test('probeTimeoutMs: longer than the interval and than the probe inside the machine', async (t) => {
  t.equal(probeTimeoutMs(2000), 10_000, 'curl gives up after 5 s inside; 5 s more for the SSH round trip');
  t.equal(probeTimeoutMs(5000), 15_000, 'three intervals when those are longer');
});

t.test('sampleOf: answered with its latency; refused is down; timed out or given up on is silence', async (t) => {
  const [x] = seriesTargets([alloc('aaaaaaaa-1', 'n1')], { web: { admin: 'none' } }, machine, address);
  const of = (p: Parameters<typeof sampleOf>[5]) => sampleOf(x!, 7, 100, 'server-1', 3200, p, 10_000);
  t.match(of({ ok: true }), {
    ok: true,
    outcome: 'answered',
    latencyMs: 3200,
    target: 'aaaaaaaa 10.199.0.21:23456 (client-1)',
  });
  t.match(
    of({
      ok: false,
      error: "curl: (7) Failed to connect to 10.199.0.21 port 23456 after 0 ms: Couldn't connect to server",
    }),
    {
      outcome: 'down',
    },
  );
  t.match(of({ ok: false, error: 'curl: (56) Recv failure: Connection reset by peer' }), { outcome: 'down' });
  t.match(of({ ok: false, error: 'HTTP 503' }), { outcome: 'down' });
  t.match(of({ ok: false, error: 'curl: (28) Operation timed out after 5001 milliseconds with 0 bytes received' }), {
    outcome: 'silent',
  });
  t.match(of({ ok: false, error: 'no answer within 5s' }), { outcome: 'silent' }, 'the TCP probe timed out');
  const gave = of({ thrown: 'waiting for deadline: gave up after 10.0s; last: deadline reached' });
  t.match(gave, { ok: false, outcome: 'silent' });
  t.match(gave.error, /^no answer within 10\.0s \(the harness gave up on the probe: waiting for deadline: gave up/);
});

/** A lab of one server and two clients whose probes answer after `delayMs(host)`, or are refused. */
function slowLab(answer: (host: string, n: number) => { delayMs: number; refused?: boolean }): {
  lab: Lab;
  sent: string[];
  /** the most probes that were waiting for their answer at one time */
  peak: () => number;
} {
  const sent: string[] = [];
  let waiting = 0;
  let peak = 0;
  const exec = async (cmd: string, o: ExecOptions): Promise<ExecResult> => {
    const host = /http:\/\/([\d.]+):/.exec(cmd)?.[1] ?? '?';
    sent.push(host);
    const a = answer(host, sent.length);
    peak = Math.max(peak, ++waiting);
    await sleep(a.delayMs, { at: o.deadline.at, signal: o.deadline.signal }).finally(() => waiting--);
    return a.refused
      ? {
          code: 7,
          stdout: '000',
          stderr: "curl: (7) Failed to connect: Couldn't connect to server",
          durationMs: a.delayMs,
        }
      : { code: 0, stdout: '200', stderr: '', durationMs: a.delayMs };
  };
  const m = (role: string) => ({ role, name: role, exec }) as unknown as Machine;
  const lab = { id: 'r', machines: { 'server-1': m('server'), 'client-1': m('client'), 'client-2': m('client') } };
  return { lab: lab as unknown as Lab, sent, peak: () => peak };
}

t.test('startProbeSeries: a slow answer (3x the interval) still counts at its tick; probes overlap', async (t) => {
  const { lab, sent, peak } = slowLab(() => ({ delayMs: 150 }));
  const targets = seriesTargets(
    [alloc('aaaaaaaa-1', 'n1', { ports: [{ label: 'http', value: 1, to: 80, hostIp: '10.0.0.1' }] })],
    undefined,
    machine,
    address,
  );
  const run = startProbeSeries({
    lab,
    intervalMs: 50,
    services: ['web/http'],
    targets: async () => targets,
    down: () => new Set(),
    deadline: deadlineIn(60_000),
  });
  // Note: until six probes were sent, not a fixed 400 ms: a loaded machine runs fewer ticks in a given time (3 in
  // 400 ms at load 30). That a tick does not wait for the last answer shows as probes waiting side by side: a tick's
  // timer (due 50 ms on) always runs before the answer of the probe before it (due 150 ms on), however late both are.
  const enough = deadlineIn(30_000);
  while (sent.length < 6 && remaining(enough) > 0) await sleep(10);
  const s = await run.stop();
  t.ok(sent.length >= 6, `six probes sent within 30 s (${sent.length} sent)`);
  t.ok(peak() >= 2, `probes overlap: a tick does not wait for the last answer (at most ${peak()} waiting at once)`);
  t.same(
    s.samples.map((x) => x.tick),
    s.samples.map((_, i) => i),
    'a probe every tick, each counted at its own tick',
  );
  t.ok(s.samples.length >= 6 && s.samples.every((x) => x.ok && x.outcome === 'answered'), 'every probe answered');
  t.ok(
    s.samples.every((x) => (x.latencyMs ?? 0) >= 140),
    'each answer keeps its latency',
  );
  t.equal(s.probeTimeoutMs, probeTimeoutMs(50));
  const [c] = serviceContinuity(s);
  t.same([c!.gaps, c!.silences], [[], []], 'no gap, no silence');
  t.ok(c!.slowestMs! >= 140, 'the slowest answer reported');
});

t.test('startProbeSeries: a refusal is a gap at once; the down client is not probed', async (t) => {
  const { lab, sent } = slowLab((host, n) => ({ delayMs: 5, refused: host === '10.0.0.2' && n > 2 }));
  const at = (host: string, node: string, id: string) =>
    alloc(id, node, { ports: [{ label: 'http', value: 1, to: 80, hostIp: host }] });
  const down = new Set<string>();
  const run = startProbeSeries({
    lab,
    intervalMs: 20,
    services: ['web/http'],
    targets: async () =>
      seriesTargets(
        [at('10.0.0.1', 'n1', 'aaaaaaaa-1'), at('10.0.0.2', 'n2', 'bbbbbbbb-2')],
        undefined,
        machine,
        address,
      ),
    down: () => down,
    deadline: deadlineIn(60_000),
  });
  await sleep(60);
  // a tick reads the down set when it starts (its atMs): every tick that starts after this line knows it, however late
  // a loaded machine runs the sleep above
  const downAt = Date.now();
  down.add('client-1');
  await sleep(100);
  const s = await run.stop();
  const after = s.samples.filter((x) => x.atMs > downAt);
  t.ok(after.length > 0, 'ticks ran after the fault began');
  t.notOk(
    after.some((x) => x.target.includes('client-1')),
    'nothing probed on the machine under the fault',
  );
  const [c] = serviceContinuity(s);
  t.equal(c!.gaps.length, 1, 'one gap, open');
  t.equal(c!.gaps[0]!.evidence, 'down');
  t.match(c!.gaps[0]!.lastError, /Couldn't connect to server/);
  t.ok(sent.length > 0);
});
