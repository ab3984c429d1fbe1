// The HTML timeline of a cluster run: one lane per machine when the host events name machines, each machine's down
// span apart, and the probe series' gaps as bars on a probe lane (shown only when there is one); the alloc table's
// outcome column naming each alloc's machines.
import t from 'tap';
import type { RunRecord, TimelineEvent } from '../../lib/model/run.js';
import { lanesOf, renderTimeline } from '../../lib/report/html-timeline.js';
import { renderAllocTable } from '../../lib/report/html-allocs.js';
import { hostDownSpans } from '../../lib/report/html-layout.js';

const T0 = 1_760_000_000_000;
const host = (machine: string, atMs: number, label: string): TimelineEvent => ({ atMs, lane: 'host', machine, label });
const events: TimelineEvent[] = [
  host('client-2', T0 + 70_000, 'graceful reboot requested'),
  host('client-1', T0 + 10_000, 'graceful reboot requested'),
  host('client-1', T0 + 40_000, 'back'),
  host('client-2', T0 + 95_000, 'back'),
  host('server-1', T0 + 5_000, 'agent up'),
  { atMs: T0 + 1_000, lane: 'probe', label: 'probing web/http every 2.0s' },
  { atMs: T0 + 12_000, untilMs: T0 + 16_000, lane: 'probe', label: 'web/http: no answer for 4.0s', severity: 'fail' },
  { atMs: T0 + 20_000, lane: 'node', label: 'client-1: drain complete', severity: 'ok' },
];
const run: RunRecord = {
  runId: 'r1',
  scenario: 'rolling-reboot',
  suiteName: 'rolling-reboot@1.9.7',
  hostname: 'h',
  startedAtMs: T0,
  durationMs: 120_000,
  properties: {},
  steps: [],
  verdicts: [],
  artifacts: [],
  timeline: events,
  outcome: 'passed',
};

t.test('lanes: one per machine in topology order, the probe lane only with probes', async (t) => {
  t.same(
    lanesOf(events).map((l) => l.name),
    ['server-1', 'client-1', 'client-2', 'node', 'alloc', 'probes', 'steps'],
  );
  const pair = [{ atMs: T0, lane: 'host', label: 'graceful reboot requested' } as TimelineEvent];
  t.same(
    lanesOf(pair).map((l) => l.name),
    ['host', 'node', 'alloc', 'steps'],
    'a run whose host events name no machine keeps the lanes it always had',
  );
});

t.test('down spans per machine', async (t) => {
  t.same(
    hostDownSpans(events, T0 + 120_000).map((s) => [s.machine, s.from - T0, s.to - T0, s.open]),
    [
      ['client-1', 10_000, 40_000, false],
      ['client-2', 70_000, 95_000, false],
    ],
  );
});

t.test('the SVG: a lane per machine, each machine down named, the gap a bar on the probe lane', async (t) => {
  const html = renderTimeline(run, events);
  for (const m of ['server-1', 'client-1', 'client-2', 'probes'])
    t.match(html, new RegExp(`<text class="lane-name"[^>]*>${m}</text>`), `lane ${m}`);
  t.match(html, /client-1 down 30\.0 ?s|client-1 down 30s/);
  t.match(html, /<rect class="bar"[^>]*><title>[^<]*probes: web\/http: no answer for 4\.0s/);
});

t.test("the alloc table's outcome column of a cluster run names each alloc's machine before and after", async (t) => {
  const html = renderAllocTable([
    {
      id: 'allocs-followed',
      title: 'Allocs followed across nodes',
      status: 'passed',
      message: 'every alloc holds a running place',
      evidence: [],
      perAlloc: [
        {
          allocId: 'aaaaaaaa-0000',
          name: 'web.web[0]',
          status: 'passed',
          detail: 'migrated client-1 -> client-2 as bbbbbbbb: migrated by the drain: bbbbbbbb on client-2',
        },
      ],
      expected: 'pass',
      met: true,
      label: 'passed',
    },
  ]);
  t.match(html, /<td class="detail">migrated client-1 -&gt; client-2 as bbbbbbbb: migrated by the drain/);
});

t.test("a cluster run's alloc table names each alloc's node before and after in their own columns", async (t) => {
  const verdict = (id: string, detail: string, nodeBefore: string, nodeAfter: string) => ({
    id,
    title: id,
    status: 'passed' as const,
    message: '',
    evidence: [],
    perAlloc: [
      { allocId: 'aaaaaaaa-0000', name: 'web.web[0]', status: 'passed' as const, detail, nodeBefore, nodeAfter },
    ],
    expected: 'pass' as const,
    met: true,
    label: 'passed' as const,
  });
  const html = renderAllocTable([
    verdict('untouched-allocs', 'on client-2: running throughout', 'client-2', 'client-2'),
  ]);
  t.match(html, /<th>alloc<\/th><th>node before<\/th><th>node after<\/th>/);
  t.match(html, /<code>aaaaaaaa<\/code><\/td><td class="t">client-2<\/td><td class="t">client-2<\/td>/);
  const moved = renderAllocTable([verdict('allocs-followed', 'migrated client-1 -> client-2', 'client-1', 'client-2')]);
  t.match(moved, /<td class="t">client-1<\/td><td class="t">client-2<\/td>/);
  const pair = renderAllocTable([
    {
      ...verdict('alloc-restored', 'restored', 'x', 'y'),
      perAlloc: [{ allocId: 'a', name: 'w', status: 'passed' as const, detail: 'restored' }],
    },
  ]);
  t.notMatch(pair, /node before/, 'a pair run keeps its columns');
});
