// Check: no Nomad agent of the lab (servers included) crashed during the run, on any boot the run covers (the boot a
// reboot ended too), and systemd restarted none beyond the restarts the faults themselves cause. Judged per machine
// over the journals and unit states the run recorded (lib/steps/sentinel-steps.ts).
import { defineCheck, needing } from './define.js';
import type { Judgement } from '../model/check.js';
import type { AgentJournalRead, SentinelEvidence, WithSentinels } from '../model/sentinels.js';
import { CRASH_PATTERNS, crashesOf, parseUnitShow, quoteLine, restartsOf } from './agent-journal.js';
import { expectedAgentRestarts } from './fault-effects.js';
import { judgement } from './result.js';

export const NO_AGENT_CRASH = defineCheck<WithSentinels>({
  id: 'no-agent-crash',
  title: 'No agent crashed',
  passesWhen:
    "no crash (panic, fatal error, SIGSEGV) in any agent's journal over the run, no systemd restart beyond the fault's own, and every agent running at the end",
  details: `no ${CRASH_PATTERNS.map((p) => `\`${p}\``).join(', ')} in any agent's journal over the run (every boot, servers included), no systemd restart beyond the ones the fault causes, every agent running at the end`,
  judge: needing((e: WithSentinels) => e.sentinels, 'the agents\u2019 journals were not read')(judgeNoAgentCrash),
});

/** How many crashes are quoted per machine (each with the head of its trace). */
const QUOTED_CRASHES = 2;

function judgeNoAgentCrash(s: SentinelEvidence): Judgement {
  const evidence: string[] = [];
  const bad: string[] = [];
  const unread: string[] = [];
  for (const agent of s.agents) {
    const v = machineVerdict(agent, s);
    evidence.push(...v.lines);
    if (v.bad) bad.push(`${agent.machine}: ${v.bad}`);
    if (v.unread) unread.push(agent.machine);
  }
  if (bad.length) return judgement('failed', bad.join('; '), evidence);
  if (!s.agents.length || unread.length === s.agents.length)
    return judgement('skipped', 'no agent journal could be read', evidence);
  const partly = unread.length ? ` (not read: ${unread.join(', ')})` : '';
  return judgement(
    'passed',
    `no crash and no unexpected restart on ${s.agents.length - unread.length} machines${partly}`,
    evidence,
  );
}

/** One machine: its crashes, its unexpected restarts, its unit at the end. */
function machineVerdict(
  agent: AgentJournalRead,
  s: SentinelEvidence,
): { lines: string[]; bad?: string; unread?: boolean } {
  if (agent.error) return { lines: [`${agent.machine}: not read: ${agent.error}`], unread: true };
  const crashes = crashesOf(agent, s.watchFromMs);
  const restarts = restartsOf(agent, s.watchFromMs);
  const unit = parseUnitShow(agent.unitShow ?? '');
  // systemd counts NRestarts per boot; the journal's restart lines cover every boot read (the larger wins for the last)
  const nCurrent = Number(unit['NRestarts'] ?? 0) || 0;
  const currentLines = restarts.filter((r) => r.line.boot === '0').length;
  const seen = restarts.length + Math.max(0, nCurrent - currentLines);
  const expected = expectedAgentRestarts(s.faults, agent.machine);
  const active = unit['ActiveState'];
  const boots = agent.boots.map((b) => `${b.boot}${b.error ? ` (${b.error})` : ` ${b.lines.length} lines`}`);
  const lines = [
    `${agent.machine} (${agent.role}): boots ${boots.join(', ')}; restarts by systemd ${seen} (the faults cause ${expected}); ${unitLine(unit)}`,
  ];
  const problems: string[] = [];
  for (const c of crashes.slice(0, QUOTED_CRASHES)) {
    lines.push(`  ${quoteLine(c.first)}`, ...c.trace.map((t) => `    ${t}`));
  }
  if (crashes.length)
    problems.push(`${crashes.length} crash${crashes.length === 1 ? '' : 'es'} (${firstWords(crashes[0]!.first.text)})`);
  if (seen > expected) {
    problems.push(`restarted by systemd ${seen} time${seen === 1 ? '' : 's'}, the faults explain ${expected}`);
    for (const r of restarts.slice(0, 3))
      lines.push(`  ${quoteLine(r.line)}${r.cause ? ` (main process exited, ${r.cause})` : ''}`);
  }
  if (active !== undefined && active !== 'active')
    problems.push(`the agent is ${active} at the end (ExecMainStatus=${unit['ExecMainStatus'] ?? '?'})`);
  return problems.length ? { lines, bad: problems.join(', ') } : { lines };
}

function unitLine(u: Record<string, string>): string {
  if (!Object.keys(u).length) return 'unit state not read';
  return ['ActiveState', 'NRestarts', 'ExecMainStatus', 'ExecMainStartTimestamp']
    .filter((k) => u[k] !== undefined)
    .map((k) => `${k}=${u[k]}`)
    .join(' ');
}

/** The crash line's message, shortened for the one-line verdict. */
function firstWords(line: string): string {
  const i = CRASH_PATTERNS.map((p) => line.indexOf(p)).filter((x) => x >= 0);
  return line.slice(Math.min(...i)).slice(0, 120);
}
