// The probe series judged (lib/checks/continuity.ts, service-continuity): a service is up at a tick when any of its
// probes answered; gaps, their lengths, one still open at the end, and reboot.max_gap.
import t from 'tap';
import type { ProbeSample, ProbeSeries } from '../../lib/model/cluster-evidence.js';
import type { ClusterEvidence } from '../../lib/model/cluster-evidence.js';
import { serviceContinuity } from '../../lib/checks/continuity.js';
import { judgeCheck } from '../../lib/checks/define.js';
import { SERVICE_CONTINUITY } from '../../lib/checks/service-continuity.js';

const T0 = 1_760_000_000_000;
const STEP = 1000;
/** One tick per character per target: "+" answered, "-" refused. */
function series(rows: Record<string, string>, services = ['web/http']): ProbeSeries {
  const samples: ProbeSample[] = [];
  let ticks = 0;
  for (const [key, row] of Object.entries(rows)) {
    const [service, target] = key.split(' ') as [string, string];
    ticks = Math.max(ticks, row.length);
    [...row].forEach((c, tick) => {
      if (c === ' ') return;
      samples.push({
        atMs: T0 + tick * STEP + 3,
        tick,
        service,
        target,
        from: 'server-1',
        ok: c === '+',
        ...(c === '+' ? {} : { error: 'connection refused' }),
      });
    });
  }
  return { intervalMs: STEP, startMs: T0, endMs: T0 + ticks * STEP, samples, services };
}
const evidence = (s: ProbeSeries | undefined, maxGapMs = 0): ClusterEvidence => ({
  topology: '1+2',
  jobId: 'web',
  expectedAllocs: 2,
  nodeNames: {},
  turns: [],
  disruptionIndex: 0,
  before: [],
  after: [],
  drain: true,
  maxGapMs,
  ...(s ? { series: s } : {}),
});

t.test('two allocs on two clients: one down at a time is no gap', async (t) => {
  const s = series({ 'web/http a@client-1': '++----++++', 'web/http b@client-2': '++++++---+' });
  const [c] = serviceContinuity(s);
  t.same([c!.ticks, c!.up, c!.gaps.length], [10, 10, 0]);
  const r = judgeCheck(SERVICE_CONTINUITY, evidence(s));
  t.equal(r.status, 'passed', r.message);
  t.match(r.message, /every port answered at every tick \(web\/http\)/);
});

t.test('gaps: their start and length, the last error; one open at the end never closes', async (t) => {
  const s = series({ 'web/http a@client-1': '++---+++--', 'web/http b@client-1': '++---+++--' });
  const [c] = serviceContinuity(s);
  t.same(
    c!.gaps.map((g) => [g.fromMs - T0, g.lengthMs, g.open]),
    [
      [2003, 3000, false],
      [8003, 1997, true],
    ],
  );
  t.match(c!.gaps[0]!.lastError, /a@client-1 from server-1: connection refused; b@client-1/);
  const r = judgeCheck(SERVICE_CONTINUITY, evidence(s, 60_000));
  t.equal(r.status, 'failed', 'an open gap fails whatever the bound');
  t.match(
    r.message,
    /^web\/http stopped answering for 2\.0s from .*, and never again; gaps allowed: shorter than 60\.0s/,
  );
});

t.test('reboot.max_gap: a gap shorter passes, one as long fails; no gap allowed by default', async (t) => {
  const s = series({ 'web/http a@client-1': '+++----+++' });
  t.equal(judgeCheck(SERVICE_CONTINUITY, evidence(s)).status, 'failed');
  t.match(judgeCheck(SERVICE_CONTINUITY, evidence(s)).message, /for 4\.0s .*gaps allowed: none/);
  const ok = judgeCheck(SERVICE_CONTINUITY, evidence(s, 5000));
  t.equal(ok.status, 'passed');
  t.match(ok.message, /shorter than 5\.0s \(reboot\.max_gap\); the longest 4\.0s/);
  t.equal(judgeCheck(SERVICE_CONTINUITY, evidence(s, 4000)).status, 'failed', 'as long as the bound is too long');
});

t.test('several services are judged apart; a service that never had a probe, or no series at all', async (t) => {
  const s = series({ 'web/http a': '++++', 'api/grpc b': '+--+' }, ['web/http', 'api/grpc']);
  const r = judgeCheck(SERVICE_CONTINUITY, evidence(s));
  t.equal(r.status, 'failed');
  t.match(r.message, /^api\/grpc stopped answering for 2\.0s/);
  t.equal(judgeCheck(SERVICE_CONTINUITY, evidence(undefined)).status, 'skipped');
  const none = judgeCheck(SERVICE_CONTINUITY, evidence({ ...s, samples: [] }));
  t.equal(none.status, 'failed');
  t.match(none.message, /holds no probe/);
});

t.test('a lab of one client whose client is hit: the gap is measured, the check skipped', async (t) => {
  const s = series({ 'web/http a@client': '++----++' });
  const e = { ...evidence(s), topology: '1+1' };
  const hit = {
    ...e,
    turns: [
      {
        machine: 'client',
        role: 'client' as const,
        targetedAs: 'clients',
        reboot: {
          machine: 'client',
          kind: 'graceful' as const,
          bootIdBefore: 'a',
          bootIdAfter: 'b',
          requestedAt: T0,
          backAt: T0 + 4000,
        },
      },
    ],
  };
  const r = judgeCheck(SERVICE_CONTINUITY, hit);
  t.equal(r.status, 'skipped');
  t.match(r.message, /one client cannot serve through that client's fault \(the longest gap 4\.0s/);
  t.equal(judgeCheck(SERVICE_CONTINUITY, e).status, 'failed', 'no client hit (a server reboot): judged');
});
