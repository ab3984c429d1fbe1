// Pure: what each fault kind must have caused for a run to have exercised it, as data keyed by the kind's name (the
// one place; its items have the shape of a fault kind's own `proves` list, so the list can move into each kind's
// definition), and the rule for each item over what the run saw. A green run whose fault never took effect (no new
// boot, no agent restart, no node status change, no restore attempt) proves nothing: fault-exercised fails it.
import type { RebootKind } from '../model/kinds.js';
import type { FaultEffectSeen } from '../model/sentinels.js';
import { FAULTS, faultKind } from '../faults/registry.js';
import type { VacuityProof } from '../faults/define.js';

/** One thing a fault must have caused: what its kind proves (lib/faults), or a restore attempt after a reboot. */
type FaultProof =
  | VacuityProof
  /** a restore attempt in the client agent's log after the fault (a client that ran allocs) */
  | { what: 'restore-line' };

const RESTORE = { what: 'restore-line' } as const;

/**
 * Per fault kind, what it must have caused: its own `proves` (one definition, in its file under lib/faults), and for a
 * kind that reboots the host, a restore attempt by the client agent that comes back.
 */
export const FAULT_PROOFS: Readonly<Record<RebootKind, readonly FaultProof[]>> = Object.fromEntries(
  FAULTS.kinds.map((k) => [k.name, [...k.proves, ...(k.rebootsHost ? [RESTORE] : [])]]),
) as unknown as Record<RebootKind, readonly FaultProof[]>;

/** How many times systemd restarts the agent for each fault of a kind (agent-kill: SIGKILL, Restart=on-failure). */
function agentRestartsOf(kind: RebootKind): number {
  return FAULT_PROOFS[kind].filter((p) => p.what === 'agent-restarted').length;
}

/** The systemd restarts the run's faults explain on `machine`. */
export function expectedAgentRestarts(faults: readonly FaultEffectSeen[], machine: string): number {
  return faults.filter((f) => f.machine === machine).reduce((n, f) => n + agentRestartsOf(f.kind), 0);
}

/** A fault of the run rebooted `machine`'s host (its kind must change the boot id). */
export function rebootedHost(faults: readonly FaultEffectSeen[], machine: string): boolean {
  return faults.some(
    (f) =>
      (f.machine === machine || faultKind(f.kind).wholeLab === true) &&
      FAULT_PROOFS[f.kind].some((p) => p.what === 'boot-id' && p.changes),
  );
}

/** What one proof's rule found: it applies (else why not), it was seen, and the line that shows it. */
interface EffectSeen {
  /** the proof in a few words: "new boot id", "agent restarted", "node down", "mark powered off", "restore attempt" */
  effect: string;
  /** absent: the proof applies to this fault; else why it does not (a short partition, a server without allocs) */
  notApplicable?: string;
  seen: boolean;
  line: string;
}

/**
 * A restore attempt in the client agent's log: the task runner's restore lines ("Failed Restoring Task", "error
 * recovering task"), or a restored task's hooks and driver reattaching to the plugin processes the fault ended
 * ("failed to reattach to logmon process", "... to executor", "... to docker logger process"). A docker task whose
 * container the driver recovers leaves no "restor" line at all: only the reattach of its log processes shows the try.
 */
const RESTORE_LINE =
  /restor|error recovering task|failed to reattach to (executor|logmon process|docker logger process)/i;
/** The node statuses that say the servers stopped hearing the client, by the status a proof names. */
const GONE: Readonly<Record<'down' | 'disconnected', readonly string[]>> = {
  down: ['down', 'disconnected'],
  disconnected: ['disconnected'],
};

/** Each proof the fault's kind must have caused, judged over what the run saw of this fault. */
export function effectsOf(f: FaultEffectSeen): EffectSeen[] {
  return FAULT_PROOFS[f.kind].map((p) => proofSeen(p, f));
}

function proofSeen(p: FaultProof, f: FaultEffectSeen): EffectSeen {
  switch (p.what) {
    case 'boot-id': {
      const known = Boolean(f.bootIdBefore) && Boolean(f.bootIdAfter);
      const changed = known && f.bootIdBefore !== f.bootIdAfter;
      const effect = p.changes ? 'new boot id' : 'same boot id';
      const line = `boot_id ${f.bootIdBefore || '?'} -> ${f.bootIdAfter || '?'}`;
      return { effect, seen: known && changed === p.changes, line };
    }
    case 'agent-restarted': {
      const restarts = Number(f.facts?.['agent.restarts'] ?? Number.NaN);
      const [before, after] = [f.facts?.['agent.pid.before'], f.facts?.['agent.pid.after']];
      const seen = (Number.isFinite(restarts) && restarts >= 1) || (!!before && !!after && before !== after);
      const line = `systemd restarts ${Number.isFinite(restarts) ? restarts : '?'}, agent pid ${before ?? '?'} -> ${after ?? '?'}`;
      return { effect: 'agent restarted', seen, line };
    }
    case 'node-status': {
      const effect = `node ${p.becomes}`;
      const cutMs = f.backAt - f.requestedAt;
      const statuses = f.nodeStatuses ?? [];
      const grace = f.heartbeatGraceMs === undefined ? '?' : `${(f.heartbeatGraceMs / 1000).toFixed(0)}s`;
      const line = `node statuses after the fault: ${statuses.join(' -> ') || '(none seen)'}; fault ${(cutMs / 1000).toFixed(1)}s, heartbeat_grace ${grace}`;
      if (f.role !== 'client') return { effect, notApplicable: 'not a client', seen: false, line };
      if (p.when === 'past-heartbeat-grace' && (f.heartbeatGraceMs === undefined || cutMs <= f.heartbeatGraceMs))
        return { effect, notApplicable: 'the fault was not longer than heartbeat_grace', seen: false, line };
      if (!f.nodeStatuses) return { effect, notApplicable: "the node's status was not watched", seen: false, line };
      return { effect, seen: statuses.some((s) => GONE[p.becomes].includes(s)), line };
    }
    case 'mark': {
      const effect = `mark "${p.label}"`;
      const marks = f.marks ?? [];
      const line = `the fault's marks: ${marks.join(', ') || '(none)'}`;
      if (!f.marks) return { effect, notApplicable: "the fault's marks were not recorded", seen: false, line };
      return { effect, seen: marks.includes(p.label), line };
    }
    case 'restore-line': {
      const effect = 'restore attempt';
      const hits = (f.agentLogAfter ?? []).filter((l) => RESTORE_LINE.test(l));
      const line = hits.length
        ? `${hits.length} restore line${hits.length === 1 ? '' : 's'} in the agent's log, the first: ${hits[0]!.slice(0, 200)}`
        : `no line matching ${String(RESTORE_LINE)} in ${f.agentLogAfter?.length ?? 0} agent log lines after the fault`;
      if (f.role !== 'client' || !f.hadAllocs)
        return { effect, notApplicable: 'no allocs on this machine to restore', seen: false, line };
      if (!f.agentLogAfter) return { effect, notApplicable: "the agent's log was not read", seen: false, line };
      return { effect, seen: hits.length > 0, line };
    }
  }
}
