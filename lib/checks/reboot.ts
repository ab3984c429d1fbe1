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
import { classifyAllocOutcome } from './alloc-outcome.js';
import { mentionsDuplicateAllocation } from './parse-duplicate-ip.js';

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
];

/** The reboot checks' one definition each, in report order (list, config validation, JUnit names, README tables). */
export const REBOOT_CHECK_DEFS: readonly CheckDef[] = [
  CLIENT_REBOOTED, NODE_BACK, ALLOC_RESTORED, TASK_RESTARTED, HTTP_REACHABLE, NO_DUPLICATE_IP, UNIQUE_IPS, NO_LEAKS,
];

/** The IDs of the reboot checks (for validating per-check expectations from config). */
export const REBOOT_CHECK_IDS: readonly string[] = REBOOT_CHECK_DEFS.map((d) => d.id);

/** Checks that fail as a consequence when the alloc's restore failed with the duplicate-IP error. */
const DUPLICATE_IP_CONSEQUENCES = ['alloc-restored', 'task-restarted', 'http-reachable'];

/** Run every reboot check over the evidence, in report order, linking consequences to their cause. */
export function rebootChecks(e: RebootEvidence): CheckResult[] {
  return linkCauses(REBOOT_CHECKS.map((check) => check(e)), e);
}

/**
 * Mark failures that are explained by the duplicate-IP error: when the watched alloc failed and its failing
 * event is the host-local duplicate error, it cannot be restored, started or reached. A reproduction of that
 * bug (`--expect no-duplicate-ip=fail`) then need not list every consequence; any other failure stays a failure.
 */
export function linkCauses(results: CheckResult[], e: RebootEvidence): CheckResult[] {
  const dup = results.find((r) => r.id === 'no-duplicate-ip');
  if (dup?.status !== 'failed') return results;
  const { outcome, failingEvent } = classifyAllocOutcome(e);
  if (outcome !== 'failed' || !failingEvent || !mentionsDuplicateAllocation(failingEvent.message)) return results;
  // Note: real 1.9.3 still holds the failed alloc's own stale reservation or its namespace when the run looks (teardown
  // timing varies); leftovers of that alloc only are the same cause.
  const onlyStaleOwn = (findLeaks(e)?.leaks ?? []).every((l) => l.owner === e.allocId);
  const consequence = (id: string) => DUPLICATE_IP_CONSEQUENCES.includes(id) || (id === 'no-leaks' && onlyStaleOwn);
  return results.map((r) => (r.status === 'failed' && consequence(r.id) ? { ...r, causedBy: 'no-duplicate-ip' } : r));
}
