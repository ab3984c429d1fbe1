// Check: the task answers HTTP on its bridge address and on its mapped host port after the reboot.
import { watchedAllocAfter } from './alloc-outcome.js';
import { result, show } from './result.js';
import type { AllocSnap, HttpProbe, RebootEvidence } from '../model/evidence.js';
import type { CheckDef, CheckResult } from '../model/check.js';

export const HTTP_REACHABLE: CheckDef = {
  id: 'http-reachable',
  title: 'HTTP reachable',
  passesWhen: 'the task answers on its bridge address (from the client) and on its mapped host port (from the server)',
};

export type ProbeTarget = 'bridge' | 'host-port' | 'other';

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

/** Passes when every probe after the reboot answered and at least one bridge-address and one host-port probe were made. */
export function checkHttpReachable(e: RebootEvidence): CheckResult {
  const { id, title } = HTTP_REACHABLE;
  const allocs = [watchedAllocAfter(e), e.before.alloc];
  const probes = e.after.http.map((p) => ({ p, target: probeTarget(p, allocs) }));
  const evidence = probes.map(
    ({ p, target }) => `${p.ok ? 'ok  ' : 'FAIL'} [${target}] from ${p.from}: GET ${p.url} -> ${p.status ?? show(p.error)}${p.status !== undefined && p.error ? ` (${p.error})` : ''}`,
  );
  if (probes.length === 0) return result(id, title, 'failed', 'no probe was made after the reboot', ['no HTTP probe recorded']);
  const failed = probes.filter(({ p }) => !p.ok);
  if (failed.length > 0) {
    const first = failed[0]!.p;
    return result(id, title, 'failed', `${failed.length} of ${probes.length} probes failed; first: ${first.url} from ${first.from}: ${first.error ?? `HTTP ${show(first.status)}`}`, evidence);
  }
  const missing = (['bridge', 'host-port'] as const).filter((t) => !probes.some((x) => x.target === t));
  if (missing.length > 0) {
    return result(id, title, 'failed', `no ${missing.join(' and no ')} probe was made, so that path is unproven`, evidence);
  }
  return result(id, title, 'passed', `all ${probes.length} probes answered (bridge address and host port)`, evidence);
}
