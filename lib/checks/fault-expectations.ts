// Pure: what the checks expect for fault kinds other than a reboot, so every verdict says what was expected for the
// kind. The kind's own outcome rule (lib/faults/<kind>.ts `outcome`) decides it, e.g.:
//   agent-kill, partition (shorter than heartbeat_grace): the host does NOT reboot (boot_id unchanged), the task keeps
//     running (it must NOT be restarted), the alloc is restored in place; agent-kill also needs a new agent PID.
//   partition longer than heartbeat_grace: the node is marked down and the alloc replaced: the expected outcome.
// The kinds that reboot the host (graceful, hard, panic, power-off) keep the checks as they are. What each check
// expects lives on the check (`underFault`); this asks the kind for its outcome and asks them.
import { faultKind } from '../faults/registry.js';
import type { RebootEvidence } from '../model/evidence.js';
import type { CheckDef, CheckResult, FaultSeen } from '../model/check.js';

/** The durations a partition is judged by. */
interface FaultContext {
  heartbeatGraceS: number;
  /** how long the partition held (measured; the configured time when not measured) */
  partitionForS: number;
  /** the job's shortest disconnect lost_after (absent or 0: none) */
  lostAfterS?: number;
}

/** The fault of `e.reboot` as the checks are told, or undefined when it rebooted the host (nothing changes then). */
export function faultSeen(e: RebootEvidence, f: FaultContext): FaultSeen | undefined {
  const kind = faultKind(e.reboot.kind);
  if (kind.rebootsHost) return undefined;
  const { replaced, restartsTasks, why = kind.name } = kind.outcome(f);
  return { kind: kind.name, replaced, why, ...(restartsTasks && !replaced ? { restartsTasks } : {}) };
}

/** The checks' results judged against what the fault kind of `e.reboot` leads Nomad to do. */
export function adjustForFault(
  checks: readonly CheckDef<RebootEvidence>[],
  results: CheckResult[],
  e: RebootEvidence,
  f: FaultContext,
): CheckResult[] {
  const fault = faultSeen(e, f);
  if (!fault) return results;
  return results.map((r) => checks.find((c) => c.id === r.id)?.underFault?.(r, e, fault) ?? r);
}
