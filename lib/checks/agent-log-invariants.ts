// Check: after the first fault, no agent of the lab (servers included) logged a line that must never appear
// (lib/checks/agent-journal.ts SHIPPED_INVARIANTS, plus the user's `agent_log.never`), unless an allowed text
// (`agent_log.allowed`) excuses it. Judged per machine; each hit quoted with its machine, boot and time.
import { defineCheck, needing } from './define.js';
import type { Judgement } from '../model/check.js';
import type { SentinelEvidence, WithSentinels } from '../model/sentinels.js';
import { rebootedHost } from './fault-effects.js';
import { invariantHits, quoteLine, SHIPPED_INVARIANTS, type LogInvariant } from './agent-journal.js';
import { judgement } from './result.js';

export const AGENT_LOG_INVARIANTS = defineCheck<WithSentinels>({
  id: 'agent-log-invariants',
  title: 'Agent log invariants',
  passesWhen:
    'after the fault no agent (servers included) logs a line the shipped invariants or `agent_log.never` forbid, unless `agent_log.allowed` excuses it',
  details: `after the fault no agent (servers included) logs a line the invariants forbid (${SHIPPED_INVARIANTS.map((r) => `\`${r.all.join('` with `')}\`${r.unlessHostRebooted ? ' where the host stayed up' : ''}`).join(', ')}, and \`agent_log.never\`) unless \`agent_log.allowed\` excuses it; each hit quoted with machine, boot and time`,
  judge: needing((e: WithSentinels) => e.sentinels, 'the agents\u2019 journals were not read')(judgeInvariants),
});

/** Hits quoted per machine. */
const QUOTED = 5;

function judgeInvariants(s: SentinelEvidence): Judgement {
  const since = s.faultAtMs ?? s.watchFromMs;
  const rules: LogInvariant[] = [
    ...SHIPPED_INVARIANTS,
    ...s.logRules.never.map((t) => ({ all: [t], why: 'agent_log.never' })),
  ];
  const evidence: string[] = [];
  const bad: string[] = [];
  let read = 0;
  for (const agent of s.agents) {
    if (agent.error) {
      evidence.push(`${agent.machine}: not read: ${agent.error}`);
      continue;
    }
    read++;
    const rebooted = rebootedHost(s.faults, agent.machine);
    const hits = invariantHits(agent, since, rules, s.logRules.allowed, rebooted);
    if (!hits.length) {
      evidence.push(`${agent.machine}: none`);
      continue;
    }
    const first = hits[0]!.rule;
    bad.push(
      `${agent.machine}: ${hits.length} line${hits.length === 1 ? '' : 's'} (${first.all.join(' + ')}: ${first.why})`,
    );
    evidence.push(`${agent.machine}: ${hits.length}`);
    for (const h of hits.slice(0, QUOTED)) evidence.push(`  ${quoteLine(h.line)}`);
  }
  if (bad.length) return judgement('failed', bad.join('; '), evidence);
  if (!read) return judgement('skipped', 'no agent journal could be read', evidence);
  return judgement('passed', `no forbidden line on ${read} machine${read === 1 ? '' : 's'} after the fault`, evidence);
}
