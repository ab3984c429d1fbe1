// Check: a task restarted after the fault gets the alloc's network environment again (NOMAD_ALLOC_IP_/ADDR_/PORT_ per
// port label, as client/taskenv/env.go builds them from the alloc's network status) and its /etc/hosts and
// /etc/resolv.conf. A client that did not restore the alloc's network status hands a restarted task none of it.
import { defineCheck } from './define.js';
import { iso } from './result.js';
import { perTask, type TaskLine } from './whole-alloc.js';
import type { AllocSnap, RebootEvidence, TaskProcess } from '../model/evidence.js';
import type { Judgement } from '../model/check.js';

export const TASK_ENV = defineCheck<RebootEvidence>({
  id: 'task-env',
  title: 'Network environment of a restarted task',
  passesWhen:
    "a task restarted through the API after the reboot or agent restart has every `NOMAD_ALLOC_{IP,ADDR,PORT}_<label>` of its alloc's address and ports, and its /etc/hosts and resolv.conf as before",
  details:
    "after the reboot (or agent restart) the harness restarts one task per restored alloc through the API; its new processes have `NOMAD_ALLOC_IP_<label>`, `NOMAD_ALLOC_ADDR_<label>` and `NOMAD_ALLOC_PORT_<label>` for every port of the group, matching the alloc's address (the API's, or the API's before the fault when the client no longer reports one) and ports, and an `/etc/hosts` (Nomad's, naming the address, where it was Nomad's before) and `/etc/resolv.conf`. Real 1.9.7 and 1.10.5 after an agent restart: only the PORT variables (GH-26699, fixed in 1.10.6 and 1.11.0; 1.10.5 also reports no address for the alloc). Skipped for a partition or with `reboot.restart_task: false`",
  judge: checkTaskEnv,
});

/** Passes when the task restarted after the fault got every alloc-network variable right and its /etc files. */
export function checkTaskEnv(e: RebootEvidence): Judgement {
  return perTask(e, 'restart', {
    head: () => [
      'the restarted task of each alloc, read from /proc/<pid>/environ (only NOMAD_ALLOC_* network variables) after its Started event',
    ],
    tasks: (a) => judgeAlloc(e, a),
    passed: "(restarted after the fault) got the alloc's network variables, /etc/hosts and /etc/resolv.conf",
  });
}

/**
 * The variables a task of this alloc must have (env.go: `to` when set, else the host port). NOMAD_ALLOC_IP_ and _ADDR_
 * are required for every port even when no address is known to compare them with: their value is then '' (any).
 */
export function expectedAllocNetEnv(a: AllocSnap, address: string | undefined = a.address): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of a.ports) {
    const port = String(p.to > 0 ? p.to : p.value);
    out[`NOMAD_ALLOC_PORT_${p.label}`] = port;
    out[`NOMAD_ALLOC_IP_${p.label}`] = address ?? '';
    out[`NOMAD_ALLOC_ADDR_${p.label}`] = address ? `${address}:${port}` : '';
  }
  return out;
}

/**
 * The address the restarted task must be given: the API's now, else the API's before the fault (a client that lost the
 * alloc's network status reports none after an agent restart: real 1.10.5, run r0bepv916473a7, GH-26699).
 */
function addressToExpect(e: RebootEvidence, a: AllocSnap): { address: string | undefined; note: string } {
  if (a.address) return { address: a.address, note: `address ${a.address}` };
  const before = [e.before.alloc, ...e.before.jobAllocs].find((x) => x?.id === a.id)?.address;
  return before
    ? { address: before, note: `address (none) in the API now, ${before} before the fault` }
    : { address: undefined, note: 'address (none) in the API, before the fault too' };
}

/** What is wrong with one process: missing or different variables, missing files; [] when nothing. */
function problems(
  p: TaskProcess,
  want: Record<string, string>,
  hostsBefore: TaskProcess['etcHosts'] | undefined,
  address: string | undefined,
): string[] {
  const out: string[] = [];
  const missing = Object.keys(want).filter((k) => p.allocNetEnv[k] === undefined);
  const wrong = Object.keys(want).filter(
    (k) => want[k] !== '' && p.allocNetEnv[k] !== undefined && p.allocNetEnv[k] !== want[k],
  );
  if (missing.length) out.push(`missing ${missing.join(', ')}`);
  if (wrong.length) out.push(wrong.map((k) => `${k}=${p.allocNetEnv[k]} (expected ${want[k]})`).join(', '));
  const hosts = p.etcHosts;
  if (!hosts.exists) out.push('no /etc/hosts');
  else if (hostsBefore?.byNomad && (!hosts.byNomad || (address && !hosts.addresses.includes(address)))) {
    const now = hosts.byNomad
      ? `names ${hosts.addresses.join(' ') || 'no address'}`
      : 'is no longer the one Nomad writes';
    out.push(`/etc/hosts ${now} (before: Nomad's, naming ${hostsBefore.addresses.join(' ')})`);
  }
  if (!p.resolvConf) out.push('no /etc/resolv.conf');
  return out;
}

/** The restarted task of one alloc: its restart, then every process it has now. */
function judgeAlloc(e: RebootEvidence, a: AllocSnap): TaskLine[] {
  const r = e.whole?.restarts?.find((x) => x.allocId === a.id);
  if (!r) return [{ task: '(none)', ok: false, line: 'no task of this alloc was restarted' }];
  const started =
    r.startedAtMs !== undefined
      ? `restarted at ${iso(r.requestedAtMs)}, started ${iso(r.startedAtMs)}`
      : `restart requested at ${iso(r.requestedAtMs)}`;
  if (r.error) return [{ task: r.task, ok: false, line: `${started}: ${r.error}` }];
  const procs = (e.whole?.afterRestart?.processes ?? []).filter((p) => p.allocId === a.id && p.task === r.task);
  if (!procs.length) return [{ task: r.task, ok: false, line: `${started}; no process of the task found afterwards` }];
  const { address, note } = addressToExpect(e, a);
  const want = expectedAllocNetEnv(a, address);
  const before = e.whole?.before?.processes.find((p) => p.allocId === a.id && p.task === r.task)?.etcHosts;
  const bad = procs.map((p) => ({ p, why: problems(p, want, before, address) })).filter((x) => x.why.length);
  const first = procs[0]!;
  const vars = Object.entries(first.allocNetEnv)
    .sort(([x], [y]) => x.localeCompare(y))
    .map(([k, v]) => `${k}=${v}`);
  const seen = vars.join(' ') || 'no NOMAD_ALLOC_IP_/ADDR_/PORT_ variable';
  const hosts = !first.etcHosts.exists
    ? 'absent'
    : first.etcHosts.byNomad
      ? `Nomad's (${first.etcHosts.addresses.join(' ') || 'no address'})`
      : 'present';
  const files = `/etc/hosts ${hosts}, /etc/resolv.conf ${first.resolvConf ? 'present' : 'absent'}`;
  if (bad.length) {
    const which = bad.map((x) => `pid ${x.p.pid}: ${x.why.join('; ')}`).join(' | ');
    return [{ task: r.task, ok: false, line: `${started}; ${which}; ${note}` }];
  }
  return [{ task: r.task, ok: true, line: `${started}; ${seen}; ${files}` }];
}
