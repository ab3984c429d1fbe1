// The reboot scenario's checks in report order, and the facts that go into the report as properties.
import { checkAllocRestored } from './alloc-restored.js';
import { checkClientRebooted } from './client-rebooted.js';
import { checkHttpReachable } from './http-reachable.js';
import { checkNoDuplicateIp } from './no-duplicate-ip.js';
import { checkNodeBack } from './node-back.js';
import { checkTaskRestarted } from './task-restarted.js';
import type { CheckResult, RebootEvidence } from './types.js';
import { checkUniqueIps } from './unique-ips.js';

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
];

/** The IDs of the reboot checks (for validating per-check expectations from config). */
export const REBOOT_CHECK_IDS: readonly string[] = [
  'client-rebooted',
  'node-back',
  'alloc-restored',
  'task-restarted',
  'http-reachable',
  'no-duplicate-ip',
  'unique-ips',
];

/** Run every reboot check over the evidence, in report order. */
export function rebootChecks(e: RebootEvidence): CheckResult[] {
  return REBOOT_CHECKS.map((check) => check(e));
}
