// Pure: what the reboot checks expect for fault kinds other than a reboot (lib/config/faults.ts), applied to their
// results so every verdict says what was expected for the kind:
//   agent-kill, partition (shorter than heartbeat_grace): the host does NOT reboot (boot_id unchanged), the task keeps
//     running (it must NOT be restarted), the alloc is restored in place; agent-kill also needs a new agent PID.
//   partition longer than heartbeat_grace: the node is marked down and the alloc replaced: the expected outcome.
// The kinds that reboot the host (graceful, hard, panic, power-off) keep the checks as they are.
import { FAULT_KINDS, expectReplacement } from '../config/faults.js';
import { classifyAllocOutcome, watchedAllocAfter } from './alloc-outcome.js';
import { iso, oneLine, parseTime, show } from './result.js';
import type { RebootEvidence } from '../model/evidence.js';
import type { CheckResult } from '../model/check.js';

/** The durations a partition is judged by. */
export interface FaultContext {
  heartbeatGraceS: number;
  /** how long the partition held (measured; the configured time when not measured) */
  partitionForS: number;
}

type Status = CheckResult['status'];
const withResult = (r: CheckResult, status: Status, message: string, extra: string[] = []): CheckResult =>
  ({ ...r, status, message: oneLine(message), evidence: [...r.evidence, ...extra] });

/** The checks' results judged against what the fault kind of `e.reboot` leads Nomad to do. */
export function adjustForFault(results: CheckResult[], e: RebootEvidence, f: FaultContext): CheckResult[] {
  const kind = e.reboot.kind;
  if (FAULT_KINDS[kind].rebootsHost) return results;
  const replaced = expectReplacement(kind, { partitionForS: f.partitionForS, heartbeatGraceS: f.heartbeatGraceS });
  const why = kind === 'agent-kill'
    ? 'agent-kill: the agent restarts, the host does not'
    : `partition of ${f.partitionForS}s ${replaced ? '>' : '<='} heartbeat_grace ${f.heartbeatGraceS}s`;
  return results.map((r) => {
    if (r.id === 'client-rebooted') return hostNotRebooted(r, e, why);
    if (r.id === 'task-restarted' && !replaced) return taskKeptRunning(r, e, why);
    if (r.id === 'alloc-restored' && replaced) return allocReplaced(r, e, why);
    if (r.id === 'task-restarted' && replaced) {
      const c = classifyAllocOutcome(e);
      const state = c.replacement ? Object.values(c.replacement.tasks)[0]?.state : undefined;
      if (state === 'running') {
        const ok = `the replacement ${c.replacementId}'s task is running`;
        return withResult(r, 'passed', `expected a replacement (${why}); ${ok}`);
      }
      const seen = `replacement: ${show(c.replacementId)}, task state ${show(state)}`;
      return withResult(r, 'failed', `expected a replacement (${why}) with its task running; ${seen}`);
    }
    if (r.id === 'http-reachable' && replaced && r.status === 'failed' && classifyAllocOutcome(e).outcome === 'replaced') {
      const probed = "its old address was probed, not the replacement's";
      return withResult(r, 'skipped', `the alloc was replaced, as expected (${why}); ${probed}: ${r.message}`);
    }
    return r;
  });
}

// Expected: same boot_id; for agent-kill a new agent PID too.
function hostNotRebooted(r: CheckResult, e: RebootEvidence, why: string): CheckResult {
  const before = e.before.bootId.trim();
  const after = e.after.bootId.trim();
  const pids = [e.reboot.facts?.['agent.pid.before'], e.reboot.facts?.['agent.pid.after']];
  const kind = e.reboot.kind;
  const lines = [`expected for ${kind}: boot_id unchanged (${why})`];
  if (pids[0]) lines.push(`agent pid before ${pids[0]}, after ${show(pids[1])}`);
  const fail = (message: string) => withResult(r, 'failed', message, lines);
  if (!before || !after) return fail(`boot_id ${!before ? 'before' : 'after'} the fault was not observed`);
  if (before !== after) return fail(`the host rebooted (boot_id ${before} -> ${after}), which ${kind} must not do`);
  if (kind === 'agent-kill' && (!pids[1] || pids[0] === pids[1])) {
    const pid = `pid ${show(pids[0])} -> ${show(pids[1])}`;
    return fail(`boot_id unchanged as expected, but the agent was not restarted (${pid})`);
  }
  const agent = kind === 'agent-kill' ? `; the agent was restarted by systemd (pid ${pids[0]} -> ${pids[1]})` : '';
  return withResult(r, 'passed', `boot_id unchanged (${after}), as expected: ${why}${agent}`, lines);
}

// Expected: the task runs through the fault and is NOT started again.
function taskKeptRunning(r: CheckResult, e: RebootEvidence, why: string): CheckResult {
  const alloc = watchedAllocAfter(e);
  const state = alloc?.tasks[e.taskName];
  const since = e.reboot.requestedAt;
  const started = (e.taskEvents[e.allocId] ?? []).filter((ev) => ev.type === 'Started' && ev.timeMs >= since);
  const startedAt = parseTime(state?.startedAt);
  const lines = [`expected for ${e.reboot.kind}: the task keeps running and is not restarted (${why})`];
  const task = e.taskName;
  const kind = e.reboot.kind;
  const fail = (message: string) => withResult(r, 'failed', message, lines);
  if (!state) return fail(`alloc ${e.allocId} has no state for task ${task} after the fault`);
  if (started.length || (startedAt !== undefined && startedAt > since)) {
    const at = started[0] ? iso(started[0].timeMs) : show(state.startedAt);
    return fail(`task ${task} was restarted (started at ${at}), which ${kind} should not cause: ${why}`);
  }
  if (state.state !== 'running') {
    return fail(`task ${task} is ${state.state} after ${kind} (expected running, not restarted)`);
  }
  const since2 = `StartedAt ${show(state.startedAt)}, before the fault`;
  return withResult(r, 'passed', `task ${task} kept running through ${kind} (${since2}), as expected`, lines);
}

// Expected: the node went down and the alloc was replaced; staying in place is the surprise.
function allocReplaced(r: CheckResult, e: RebootEvidence, why: string): CheckResult {
  const c = classifyAllocOutcome(e);
  const lines = [`expected for ${e.reboot.kind}: the node is marked down and the alloc replaced (${why})`];
  if (c.outcome === 'replaced') return withResult(r, 'passed', `replaced, as expected (${why}): ${c.reason}`, lines);
  return withResult(r, 'failed', `expected a replacement (${why}) but the alloc was ${c.outcome}: ${c.reason}`, lines);
}
