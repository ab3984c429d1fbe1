// Check: every mapped port of every alloc answers after the reboot, on its bridge address (from the client) and on its
// host port (from the server): HTTP where the port serves HTTP, a TCP connect where the job says so (probe-kind.ts).
import { allocAfter, allocBefore, allocLabel, classifyAllocOutcome, watchedIds } from './alloc-outcome.js';
import { defineCheck } from './define.js';
import { probeKindOf } from './probe-kind.js';
import { judgement, show, withStatus } from './result.js';
import type { AllocSnap, HttpProbe, RebootEvidence } from '../model/evidence.js';
import type { AllocDetail, CheckResult, FaultSeen, Judgement } from '../model/check.js';

export const HTTP_REACHABLE = defineCheck<RebootEvidence>({
  id: 'http-reachable',
  title: 'HTTP reachable',
  passesWhen:
    'every mapped port of every alloc (or of its replacement) answers on its bridge address from the client and on its mapped host port from the server',
  details:
    'every mapped port of every alloc (a replaced alloc: its replacement) answers on its bridge address (probed from the client) and on its mapped host port (probed from the server): HTTP, or a TCP connect (see "Probes per mapped port"). A failed alloc is not probed and fails here',
  judge: judgeReachable,
  underFault: (r, e, f) =>
    f.replaced && r.status === 'failed' && classifyAllocOutcome(e).outcome === 'replaced' ? oldAddressProbed(r, f) : r,
});

/**
 * Passes when, for every judged alloc, the alloc now holding its place is running and every mapped port (but those the
 * job marks `none`) answered on the bridge address and on the host port; HTTP unless the job asks for TCP.
 */
function judgeReachable(e: RebootEvidence): Judgement {
  const judged = watchedIds(e).map((a) => judgeAlloc(e, a));
  const evidence = judged.flatMap((j) => j.lines);
  const perAlloc = judged.map((j) => j.detail);
  const total = judged.reduce((s, j) => s + j.probes, 0);
  const bad = judged.filter((j) => j.detail.status === 'failed');
  if (total === 0 && e.after.http.length === 0 && judged.length === 1) {
    return judgement('failed', 'no probe was made after the reboot', ['no HTTP probe recorded', ...evidence], perAlloc);
  }
  if (bad.length) {
    const first = bad[0]!;
    const msg =
      judged.length === 1
        ? first.detail.detail
        : `${bad.length} of ${judged.length} allocs not reachable; first: ${allocLabel(first.detail)}: ${first.detail.detail}`;
    return judgement('failed', msg, evidence, perAlloc);
  }
  const msg =
    judged.length === 1
      ? `${judged[0]!.detail.detail.replace(/ \(.*\)$/, '')} (bridge address and host port)`
      : `every mapped port of all ${judged.length} allocs answered (${total} probes, bridge address and host port)`;
  return judgement('passed', msg, evidence, perAlloc);
}

type ProbeTarget = 'bridge' | 'host-port' | 'other';

function urlParts(url: string): { host: string; port: number | undefined } | undefined {
  try {
    const u = new URL(url);
    const port = u.port ? Number(u.port) : undefined;
    return { host: u.hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return undefined;
  }
}

/** Which path a probe exercised: its declared target, else inferred from the URL against the alloc's address and host ports. */
export function probeTarget(p: HttpProbe, allocs: (AllocSnap | undefined)[]): ProbeTarget {
  if (p.target) return p.target;
  const u = urlParts(p.url);
  if (!u) return 'other';
  for (const a of allocs) {
    if (!a) continue;
    if (a.address && u.host === a.address) return 'bridge';
    if (u.port !== undefined && a.ports.some((m) => m.value === u.port)) return 'host-port';
  }
  return 'other';
}

/** One evidence line per probe. */
function probeLine(p: HttpProbe, target: ProbeTarget): string {
  const what = p.kind === 'tcp' ? 'TCP connect' : 'GET';
  const got =
    p.kind === 'tcp'
      ? p.ok
        ? 'connected'
        : show(p.error)
      : `${p.status ?? show(p.error)}${p.status !== undefined && p.error ? ` (${p.error})` : ''}`;
  return `${p.ok ? 'ok  ' : 'FAIL'} [${target}${p.port ? ` ${p.port}` : ''}] from ${p.from}: ${what} ${p.url} -> ${got}`;
}

interface AllocReach {
  detail: AllocDetail;
  lines: string[];
  probes: number;
  failed: HttpProbe[];
}

/** The probes of one alloc (older records carry no alloc ID: they belong to the one watched alloc). */
function probesOf(e: RebootEvidence, allocId: string): HttpProbe[] {
  return e.after.http.filter((p) => p.allocId === allocId || (p.allocId === undefined && allocId === e.allocId));
}

/** Judge one judged alloc: the alloc now holding its slot (itself, or its replacement) must answer on every port. */
function judgeAlloc(e: RebootEvidence, allocId: string): AllocReach {
  const outcome = classifyAllocOutcome(e, allocId);
  const cur = outcome.current ?? allocAfter(e, allocId);
  const name = outcome.name || cur?.name || '';
  const label = allocLabel({ allocId, name });
  const via = cur && cur.id !== allocId ? ` (its replacement ${cur.id.slice(0, 8)})` : '';
  const fail = (detail: string, lines: string[] = []): AllocReach => ({
    detail: { allocId, name, status: 'failed', detail },
    lines: [`${label}${via}: ${detail}`, ...lines],
    probes: 0,
    failed: [],
  });
  if (!cur) return fail('not observed after the reboot, nothing to probe');
  const probes = probesOf(e, cur.id).map((p) => ({ p, target: probeTarget(p, [cur, allocBefore(e, allocId)]) }));
  const lines = probes.map(({ p, target }) => `  ${probeLine(p, target)}`);
  if (!probes.length) return fail(`${cur.clientStatus}: not probed (only a running alloc can answer)`, lines);
  const failed = probes.filter(({ p }) => !p.ok).map(({ p }) => p);
  const ports = cur.ports.filter((m) => probeKindOf(e.probeKinds, cur.taskGroup, m.label) !== 'none');
  const missing: string[] = [];
  const legacy = probes.every(({ p }) => p.port === undefined);
  for (const m of legacy ? [undefined] : ports) {
    for (const t of ['bridge', 'host-port'] as const) {
      const has = probes.some(({ p, target }) => target === t && (m === undefined || p.port === m.label));
      if (!has && !(t === 'bridge' && !cur.address && !legacy)) missing.push(`${t}${m ? ` ${m.label}` : ''}`);
    }
  }
  const head = `${label}${via}: `;
  if (failed.length) {
    const f = failed[0]!;
    const why = `${failed.length} of ${probes.length} probes failed; first: ${f.url} from ${f.from}: ${f.error ?? `HTTP ${show(f.status)}`}`;
    return {
      detail: { allocId, name, status: 'failed', detail: why },
      lines: [head + why, ...lines],
      probes: probes.length,
      failed,
    };
  }
  if (missing.length) {
    const why = `no ${missing.join(', no ')} probe was made, so that path is unproven`;
    return {
      detail: { allocId, name, status: 'failed', detail: why },
      lines: [head + why, ...lines],
      probes: probes.length,
      failed,
    };
  }
  const ok = `all ${probes.length} probes answered (${[...new Set(probes.map(({ p }) => p.port).filter(Boolean))].join(', ') || 'bridge address and host port'})`;
  return {
    detail: { allocId, name, status: 'passed', detail: ok },
    lines: [head + ok, ...lines],
    probes: probes.length,
    failed,
  };
}

/** Under a long partition the alloc was replaced, as expected; what failed was the probe of its old address. */
function oldAddressProbed(r: CheckResult, f: FaultSeen): CheckResult {
  const probed = "its old address was probed, not the replacement's";
  return withStatus(r, 'skipped', `the alloc was replaced, as expected (${f.why}); ${probed}: ${r.message}`);
}
