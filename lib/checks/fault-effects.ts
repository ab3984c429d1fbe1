// Pure: what each fault kind must have caused for a run to have exercised it, as data keyed by the kind's name (the
// one place: a fault's definition can carry its own list later), and the rule for each effect over what the run saw.
// A green run whose fault never took effect (no new boot, no agent restart, no node status change, no restore
// attempt) proves nothing: fault-exercised fails it as vacuous.
import type { RebootKind } from '../model/kinds.js';
import type { FaultEffectSeen } from '../model/sentinels.js';

/** The effects a fault can be proved by. */
export type FaultEffect = 'new-boot-id' | 'agent-restarted' | 'node-status-change' | 'restore-attempt';

/** Per fault kind, what it must have caused. */
export const FAULT_EFFECTS: Readonly<Record<RebootKind, readonly FaultEffect[]>> = {
  graceful: ['new-boot-id', 'restore-attempt'],
  hard: ['new-boot-id', 'restore-attempt'],
  panic: ['new-boot-id', 'restore-attempt'],
  'power-off': ['new-boot-id', 'restore-attempt'],
  'agent-kill': ['agent-restarted'],
  partition: ['node-status-change'],
};

/** How many times systemd restarts the agent for each fault of a kind (agent-kill: SIGKILL, Restart=on-failure). */
const AGENT_RESTARTS: Partial<Record<RebootKind, number>> = { 'agent-kill': 1 };

/** The systemd restarts the run's faults explain on `machine`. */
export function expectedAgentRestarts(faults: readonly FaultEffectSeen[], machine: string): number {
  return faults.filter((f) => f.machine === machine).reduce((n, f) => n + (AGENT_RESTARTS[f.kind] ?? 0), 0);
}

/** A fault of the run rebooted `machine`'s host (its kind must cause a new boot id). */
export function rebootedHost(faults: readonly FaultEffectSeen[], machine: string): boolean {
  return faults.some((f) => f.machine === machine && FAULT_EFFECTS[f.kind].includes('new-boot-id'));
}

/** What one effect's rule found: it applies (else why not), it was seen, and the line that shows it. */
export interface EffectSeen {
  effect: FaultEffect;
  /** absent: the effect applies to this fault; else why it does not (a short partition, a server without allocs) */
  notApplicable?: string;
  seen: boolean;
  line: string;
}

/** A restore attempt in the client agent's log: the task runner's restore lines ("failed to restore task", ...). */
const RESTORE_LINE = /restor/i;
/** A node status that says the servers stopped hearing the client. */
const NOT_READY = new Set(['down', 'disconnected']);

/** Each effect the fault's kind must have caused, judged over what the run saw of this fault. */
export function effectsOf(f: FaultEffectSeen): EffectSeen[] {
  return FAULT_EFFECTS[f.kind].map((effect) => RULES[effect](f));
}

const RULES: Readonly<Record<FaultEffect, (f: FaultEffectSeen) => EffectSeen>> = {
  'new-boot-id': (f) => {
    const seen = Boolean(f.bootIdBefore) && Boolean(f.bootIdAfter) && f.bootIdBefore !== f.bootIdAfter;
    return { effect: 'new-boot-id', seen, line: `boot_id ${f.bootIdBefore || '?'} -> ${f.bootIdAfter || '?'}` };
  },
  'agent-restarted': (f) => {
    const restarts = Number(f.facts?.['agent.restarts'] ?? NaN);
    const [before, after] = [f.facts?.['agent.pid.before'], f.facts?.['agent.pid.after']];
    const seen = (Number.isFinite(restarts) && restarts >= 1) || (!!before && !!after && before !== after);
    const line = `systemd restarts ${Number.isFinite(restarts) ? restarts : '?'}, agent pid ${before ?? '?'} -> ${after ?? '?'}`;
    return { effect: 'agent-restarted', seen, line };
  },
  'node-status-change': (f) => {
    const cutMs = f.backAt - f.requestedAt;
    const statuses = f.nodeStatuses ?? [];
    const line = `node statuses after the cut: ${statuses.join(' -> ') || '(none seen)'}; cut ${(cutMs / 1000).toFixed(1)}s, heartbeat_grace ${f.heartbeatGraceMs === undefined ? '?' : `${(f.heartbeatGraceMs / 1000).toFixed(0)}s`}`;
    if (f.role !== 'client') return { effect: 'node-status-change', notApplicable: 'not a client', seen: false, line };
    if (f.heartbeatGraceMs === undefined || cutMs <= f.heartbeatGraceMs)
      return {
        effect: 'node-status-change',
        notApplicable: 'the cut was not longer than heartbeat_grace',
        seen: false,
        line,
      };
    if (!f.nodeStatuses)
      return { effect: 'node-status-change', notApplicable: "the node's status was not watched", seen: false, line };
    return { effect: 'node-status-change', seen: statuses.some((s) => NOT_READY.has(s)), line };
  },
  'restore-attempt': (f) => {
    const hits = (f.agentLogAfter ?? []).filter((l) => RESTORE_LINE.test(l));
    const line = hits.length
      ? `${hits.length} restore line${hits.length === 1 ? '' : 's'} in the agent's log, the first: ${hits[0]!.slice(0, 200)}`
      : `no line matching ${String(RESTORE_LINE)} in ${f.agentLogAfter?.length ?? 0} agent log lines after the fault`;
    if (f.role !== 'client' || !f.hadAllocs)
      return { effect: 'restore-attempt', notApplicable: 'no allocs on this machine to restore', seen: false, line };
    if (!f.agentLogAfter)
      return { effect: 'restore-attempt', notApplicable: "the agent's log was not read", seen: false, line };
    return { effect: 'restore-attempt', seen: hits.length > 0, line };
  },
};
