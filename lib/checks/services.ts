// Check: every Nomad-native service of the job is registered again for the alloc holding each slot after the fault, and
// all its checks pass (a server that dropped the registrations while the node was away leaves the service unreachable
// through discovery even with the alloc running). Pure.
import { resultCheck } from './define.js';
import { result } from './result.js';
import { allocLabel, classifyAll } from './alloc-outcome.js';
import { notRead } from './whole-alloc.js';
import { skippedResult } from './result.js';
import type { AllocSnap, JobServiceRec, RebootEvidence, ServicesEvidence } from '../model/evidence.js';
import type { AllocDetail, CheckResult } from '../model/check.js';

export const SERVICES = resultCheck<RebootEvidence>(
  {
    id: 'services',
    title: 'Nomad services registered again',
    passesWhen:
      'after the fault every Nomad-native service of the job is registered for the alloc holding each slot, and every one of its checks reports `success`',
    details:
      'after the fault every Nomad-native service (provider = "nomad") of the job is registered for the alloc holding each slot (restored, or its replacement) and every one of its checks reports `success` (`/v1/service/<name>`, `/v1/client/allocation/<id>/checks`), waited for with a deadline. Skipped, saying so, for a job without such a service. Also judged for a partition (GH-26424: registrations deleted after missed heartbeats, fixed in 1.10.4)',
  },
  checkServices,
);

/** Passes when every Nomad-native service of the job is registered for each slot's alloc with all its checks passing. */
export function checkServices(e: RebootEvidence): CheckResult {
  const { id, title } = SERVICES;
  const missing = notRead(e, 'services', !!e.whole?.services);
  if (missing) return skippedResult(SERVICES, `the job's services were not read: ${missing}`);
  const s = e.whole!.services!;
  if (!s.declared.length)
    return skippedResult(
      SERVICES,
      'the job has no Nomad-native service (provider = "nomad"), so nothing must be registered again',
    );
  const declaredLine = (d: JobServiceRec) => {
    const checks = d.checks.map((c) => c || '(unnamed)').join(', ') || 'none';
    return `${d.name} (group ${d.group}${d.task ? `, task ${d.task}` : ''}, port ${d.portLabel || '-'}, checks ${checks})`;
  };
  const evidence = [
    `declared: ${s.declared.map(declaredLine).join('; ')}`,
    `waited ${(s.waitedMs / 1000).toFixed(1)}s for every registration and passing check: ${s.complete ? 'all seen' : 'NOT all seen before the deadline'}`,
    ...Object.entries(s.errors).map(([k, v]) => `could not read ${k}: ${v}`),
  ];
  const perAlloc: AllocDetail[] = [];
  for (const o of classifyAll(e)) {
    const label = allocLabel(o);
    const cur = o.current;
    if (!cur || cur.clientStatus !== 'running') {
      const detail = `no running alloc holds its slot (${o.outcome}; judged by alloc-restored)`;
      perAlloc.push({ allocId: o.allocId, name: o.name, status: 'skipped', detail });
      evidence.push(`${label}: skipped: ${detail}`);
      continue;
    }
    const as = cur.id !== o.allocId ? ` (as its replacement ${cur.id.slice(0, 8)})` : '';
    const lines = s.declared.filter((d) => d.group === cur.taskGroup).map((d) => judgeService(s, cur, d));
    evidence.push(`${label}${as}:`, ...lines.map((l) => `  ${l.ok ? 'ok  ' : 'FAIL'} ${l.line}`));
    const bad = lines.filter((l) => !l.ok);
    const detail = `${(bad.length ? bad : lines).map((l) => l.line).join('; ') || 'its group declares no Nomad service'}${as}`;
    perAlloc.push({ allocId: o.allocId, name: o.name, status: bad.length ? 'failed' : 'passed', detail });
  }
  const judged = perAlloc.filter((p) => p.status !== 'skipped');
  const bad = judged.filter((p) => p.status === 'failed');
  const n = judged.length;
  const [status, message] = !n
    ? ([
        'skipped',
        'no running alloc holds a slot of the job, so no registration is expected (see alloc-restored)',
      ] as const)
    : bad.length
      ? ([
          'failed',
          `${bad.length} of ${n} allocs lack a registration or a passing check; first: ${bad[0]!.detail}`,
        ] as const)
      : ([
          'passed',
          `every Nomad service of ${n} alloc${n === 1 ? '' : 's'} is registered again with its checks passing`,
        ] as const);
  return { ...result(id, title, status, message, evidence), perAlloc };
}

/** One service of one alloc: registered for it, and its checks all passing. */
function judgeService(
  s: Pick<ServicesEvidence, 'registrations' | 'checks'>,
  a: AllocSnap,
  svc: JobServiceRec,
): { ok: boolean; line: string } {
  const regs = s.registrations.filter((r) => r.service === svc.name && r.allocId === a.id);
  const checks = s.checks.filter((c) => c.allocId === a.id && c.service === svc.name);
  const named = svc.checks.filter(Boolean);
  const absent = named.filter((n) => !checks.some((c) => c.check === n));
  const failing = checks.filter((c) => c.status !== 'success');
  const regLine = regs.length
    ? `registered at ${regs.map((r) => `${r.address}:${r.port}`).join(', ')}`
    : 'NOT registered for this alloc';
  const checkLine =
    svc.checks.length === 0
      ? 'no checks'
      : checks.length
        ? checks.map((c) => `${c.check} ${c.status}${c.status === 'success' ? '' : ` (${c.output})`}`).join(', ')
        : 'no check result';
  const problems = [
    ...(regs.length ? [] : ['not registered']),
    ...(absent.length ? [`no result for check ${absent.join(', ')}`] : []),
    ...(checks.length < svc.checks.length && !absent.length
      ? [`${checks.length} of ${svc.checks.length} check results`]
      : []),
    ...failing.map((c) => `check ${c.check} is ${c.status}`),
  ];
  return {
    ok: problems.length === 0,
    line: `service ${svc.name}: ${regLine}; checks: ${checkLine}${problems.length ? ` [${problems.join('; ')}]` : ''}`,
  };
}

/** Is every declared service registered for each of `holders` with all its checks passing (what the wait waits for)? */
export function allServicesUp(
  s: Omit<ServicesEvidence, 'complete' | 'waitedMs'>,
  holders: readonly AllocSnap[],
): boolean {
  return holders.every((a) => s.declared.filter((d) => d.group === a.taskGroup).every((d) => judgeService(s, a, d).ok));
}
