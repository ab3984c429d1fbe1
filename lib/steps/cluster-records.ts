import type { Lab } from '../model/lab.js';
import type { FaultTurn, ProbeSeries } from '../model/cluster-evidence.js';
import type { RunContext } from '../run/context.js';
import { deadlineIn, type Deadline } from '../time/deadlines.js';
import { probeTimeoutOf, seconds, serviceContinuity } from '../checks/continuity.js';
import { recordAgentWarnings } from './reboot-steps.js';
import { readAgentLog } from '../lab/observe.js';

/** The probe series on the timeline: its window, and each gap as a bar. */
export function markSeries(ctx: RunContext, s: ProbeSeries): void {
  const every = seconds(s.intervalMs);
  ctx.mark({
    atMs: s.startMs,
    lane: 'probe',
    label: `probing ${s.services.join(', ')} every ${every} (each probe waited for ${seconds(probeTimeoutOf(s))})`,
    severity: 'info',
  });
  for (const c of serviceContinuity(s)) {
    for (const g of c.gaps)
      ctx.mark({
        atMs: g.fromMs,
        untilMs: g.toMs,
        lane: 'probe',
        label: `${g.service}: no answer for ${seconds(g.lengthMs)}${g.open ? ' (never again)' : ''}`,
        detail: g.lastError,
        severity: 'fail',
      });
    for (const g of c.silences)
      ctx.mark({
        atMs: g.fromMs,
        untilMs: g.toMs,
        lane: 'probe',
        label: `${g.service}: no answer within ${seconds(probeTimeoutOf(s))} for ${seconds(g.lengthMs)} (no evidence of down)`,
        detail: g.lastError,
        severity: 'warn',
      });
    ctx.fact(
      `probe.${c.service}`,
      `answered at ${c.up} of ${c.ticks} ticks; gaps: ${c.gaps.map((g) => seconds(g.lengthMs)).join(', ') || 'none'}; silences: ${c.silences.map((g) => seconds(g.lengthMs)).join(', ') || 'none'}${c.slowestMs !== undefined ? `; slowest answer ${seconds(c.slowestMs)}` : ''}`,
    );
  }
  ctx.mark({ atMs: s.endMs, lane: 'probe', label: 'probing ended', severity: 'info' });
}

/** How long one machine's journal may take to read (a machine that never came back must not hold the run). */
const AGENT_LOG_READ_MS = 30_000;

/**
 * Each hit machine's agent WARN and ERROR lines since its first fault (facts and timeline events). Best effort: a
 * machine that does not answer gets `<machine>.agent.warnings` saying why, and the run goes on.
 */
export async function agentWarningsOf(
  ctx: RunContext,
  lab: Lab,
  turns: readonly FaultTurn[],
  d: Deadline,
): Promise<void> {
  const since = new Map<string, number>();
  for (const t of turns) since.set(t.machine, Math.min(since.get(t.machine) ?? Infinity, t.reboot.requestedAt));
  for (const [machine, atMs] of since) {
    const m = lab.machines[machine];
    if (!m) continue;
    try {
      recordAgentWarnings(ctx, await readAgentLog(m, deadlineIn(AGENT_LOG_READ_MS, d)), atMs, machine);
    } catch (err) {
      ctx.fact(
        `${machine}.agent.warnings`,
        `not read: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
      );
    }
  }
}
