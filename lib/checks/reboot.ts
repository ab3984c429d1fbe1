// The reboot scenario's checks in report order, and the facts that go into the report as properties.
import { ALLOC_RESTORED, checkAllocRestored } from './alloc-restored.js';
import { CLIENT_REBOOTED, checkClientRebooted } from './client-rebooted.js';
import { HTTP_REACHABLE, checkHttpReachable } from './http-reachable.js';
import { NO_DUPLICATE_IP, checkNoDuplicateIp } from './no-duplicate-ip.js';
import { NODE_BACK, checkNodeBack } from './node-back.js';
import { TASK_RESTARTED, checkTaskRestarted } from './task-restarted.js';
import type { RebootEvidence } from '../model/evidence.js';
import type { CheckDef, CheckResult } from '../model/check.js';
import { UNIQUE_IPS, checkUniqueIps } from './unique-ips.js';
import { NO_LEAKS, checkNoLeaks, findLeaks } from './no-leaks.js';
import { classifyAll } from './alloc-outcome.js';
import { mentionsDuplicateAllocation } from './parse-duplicate-ip.js';
import { TASK_DIRS, checkTaskDirs } from './task-dirs.js';
import { TASK_NETNS, checkTaskNetns } from './task-netns.js';
import { TASK_ENV, checkTaskEnv } from './task-env.js';
import { ALLOC_EXEC, checkAllocExec } from './alloc-exec.js';
import { SERVICES, checkServices } from './services.js';
import { AGENT_RESOURCES, checkAgentResources } from './agent-resources.js';

export { factsFromEvidence } from './facts.js';
export { classifyAllocOutcome } from './alloc-outcome.js';

/** The checks of the reboot scenario, in report order. Each is pure over the evidence. */
export const REBOOT_CHECKS: readonly ((e: RebootEvidence) => CheckResult)[] = [
  checkClientRebooted,
  checkNodeBack,
  checkAllocRestored,
  checkTaskRestarted,
  checkHttpReachable,
  checkNoDuplicateIp,
  checkUniqueIps,
  checkNoLeaks,
  checkTaskDirs,
  checkTaskNetns,
  checkTaskEnv,
  checkAllocExec,
  checkServices,
  checkAgentResources,
];

/** The reboot checks' one definition each, in report order (list, config validation, JUnit names, README tables). */
export const REBOOT_CHECK_DEFS: readonly CheckDef[] = [
  CLIENT_REBOOTED, NODE_BACK, ALLOC_RESTORED, TASK_RESTARTED, HTTP_REACHABLE, NO_DUPLICATE_IP, UNIQUE_IPS, NO_LEAKS,
  TASK_DIRS, TASK_NETNS, TASK_ENV, ALLOC_EXEC, SERVICES, AGENT_RESOURCES,
];

/** The IDs of the reboot checks (for validating per-check expectations from config). */
export const REBOOT_CHECK_IDS: readonly string[] = REBOOT_CHECK_DEFS.map((d) => d.id);

/** Checks that fail as a consequence when the alloc's restore failed with the duplicate-IP error. */
const DUPLICATE_IP_CONSEQUENCES = ['alloc-restored', 'task-restarted', 'http-reachable'];

/** Run every reboot check over the evidence, in report order, linking consequences to their cause. */
export function rebootChecks(e: RebootEvidence): CheckResult[] {
  return linkReplaced(linkCauses(REBOOT_CHECKS.map((check) => check(e)), e), e);
}

/**
 * A replaced alloc's tasks were not started again in place: task-restarted failing only for allocs that alloc-restored
 * already judged replaced is that check's consequence (`--expect alloc-restored=fail` reproduces a node-down).
 */
export function linkReplaced(results: CheckResult[], e: RebootEvidence): CheckResult[] {
  const restored = results.find((r) => r.id === 'alloc-restored');
  if (restored?.status !== 'failed') return results;
  const replaced = new Set(classifyAll(e).filter((o) => o.outcome === 'replaced').map((o) => o.allocId));
  return results.map((r) => {
    const bad = (r.perAlloc ?? []).filter((p) => p.status === 'failed');
    const onlyReplaced = r.id === 'task-restarted' && r.status === 'failed' && !r.causedBy && bad.length > 0 && bad.every((p) => replaced.has(p.allocId));
    return onlyReplaced ? { ...r, causedBy: 'alloc-restored' } : r;
  });
}

/**
 * Mark failures that are explained by the duplicate-IP error: when every alloc that was not restored failed and its
 * failing event is the host-local duplicate error, those allocs cannot be restored, started or reached. A reproduction
 * of that bug (`--expect no-duplicate-ip=fail`) then need not list every consequence; any other failure stays one.
 */
export function linkCauses(results: CheckResult[], e: RebootEvidence): CheckResult[] {
  const dup = results.find((r) => r.id === 'no-duplicate-ip');
  if (dup?.status !== 'failed') return results;
  const notRestored = classifyAll(e).filter((o) => o.outcome !== 'restored');
  const byDup = (o: (typeof notRestored)[number]) => o.outcome === 'failed' && !!o.failingEvent && mentionsDuplicateAllocation(o.failingEvent.message);
  if (!notRestored.length || !notRestored.every(byDup)) return results;
  // Note: real 1.9.3 still holds the failed allocs' own stale reservations or namespaces when the run looks (teardown
  // timing varies); leftovers of those allocs only are the same cause.
  const failedIds = new Set(notRestored.map((o) => o.allocId));
  // Surplus veths on the bridge are those allocs' too when there are no more of them than failed allocs.
  const onlyStaleOwn = (findLeaks(e)?.leaks ?? []).every((l) => (l.owner !== undefined && failedIds.has(l.owner)) || (l.kind === 'veths' && (l.surplus ?? Infinity) <= failedIds.size));
  const consequence = (id: string) => DUPLICATE_IP_CONSEQUENCES.includes(id) || (id === 'no-leaks' && onlyStaleOwn);
  return results.map((r) => (r.status === 'failed' && consequence(r.id) ? { ...r, causedBy: 'no-duplicate-ip' } : r));
}

/** The checks of one reboot's restore, reused by other scenarios that reboot (upgrade-in-place upgrade-then-reboot). */
export const RESTORE_CHECK_IDS: readonly string[] = ['client-rebooted', 'alloc-restored', 'task-restarted', 'http-reachable', 'no-duplicate-ip'];

/** Run the restore checks (a subset of REBOOT_CHECKS, same functions) with the same cause links. */
export function restoreChecks(e: RebootEvidence): CheckResult[] {
  return rebootChecks(e).filter((r) => RESTORE_CHECK_IDS.includes(r.id));
}
