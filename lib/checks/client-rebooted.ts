// Check: the client host really rebooted (its kernel boot_id changed and its uptime restarted). Under a fault that
// leaves the host up (agent-kill, a partition) it judges the opposite: the same boot, and for agent-kill a new agent.
import { formatMs } from '../errors.js';
import { defineCheck } from './define.js';
import { judgement, show, withStatus } from './result.js';
import type { RebootEvidence } from '../model/evidence.js';
import type { CheckResult, FaultSeen, Judgement } from '../model/check.js';

export const CLIENT_REBOOTED = defineCheck<RebootEvidence>({
  id: 'client-rebooted',
  title: 'Client rebooted',
  passesWhen: 'boot_id differs before and after; uptime is shorter than the time since the reboot was requested',
  judge: judgeClientRebooted,
  underFault: hostNotRebooted,
});

function judgeClientRebooted(e: RebootEvidence): Judgement {
  const before = e.before.bootId.trim();
  const after = e.after.bootId.trim();
  const sinceRequestMs = e.after.atMs - e.reboot.requestedAt;
  const uptimeS = e.after.uptimeS;
  const evidence = [
    `boot_id before: ${show(before)}`,
    `boot_id after:  ${show(after)}`,
    `reboot (${e.reboot.kind}) of ${e.reboot.machine} requested at ${new Date(e.reboot.requestedAt).toISOString()}, SSH back at ${new Date(e.reboot.backAt).toISOString()}`,
    `uptime after: ${uptimeS === undefined ? '(unknown)' : `${uptimeS}s`}; time since the reboot was requested: ${formatMs(sinceRequestMs)}`,
  ];
  if (!before || !after) {
    return judgement(
      'failed',
      `boot_id ${!before ? 'before' : 'after'} the reboot was not observed, so a reboot cannot be proved`,
      evidence,
    );
  }
  if (before === after) {
    return judgement('failed', `boot_id did not change (${before}): the client was not rebooted`, evidence);
  }
  if (uptimeS !== undefined && Number.isFinite(sinceRequestMs) && uptimeS * 1000 > sinceRequestMs + UPTIME_SLACK_MS) {
    return judgement(
      'failed',
      `boot_id changed but uptime ${uptimeS}s is longer than the ${formatMs(sinceRequestMs)} since the reboot was requested`,
      evidence,
    );
  }
  return judgement(
    'passed',
    `boot_id changed${uptimeS === undefined ? '' : ` and uptime restarted (${uptimeS}s)`}`,
    evidence,
  );
}

/** Note: uptime is read inside the VM a moment after `after.atMs` is stamped on the host; allow this much slack. */
const UPTIME_SLACK_MS = 2_000;

/** Expected when the host stays up: the same boot_id; for agent-kill a new agent PID too. */
function hostNotRebooted(r: CheckResult, e: RebootEvidence, f: FaultSeen): CheckResult {
  const before = e.before.bootId.trim();
  const after = e.after.bootId.trim();
  const pids = [e.reboot.facts?.['agent.pid.before'], e.reboot.facts?.['agent.pid.after']];
  const kind = f.kind;
  const lines = [`expected for ${kind}: boot_id unchanged (${f.why})`];
  if (pids[0]) lines.push(`agent pid before ${pids[0]}, after ${show(pids[1])}`);
  const fail = (message: string) => withStatus(r, 'failed', message, lines);
  if (!before || !after) return fail(`boot_id ${!before ? 'before' : 'after'} the fault was not observed`);
  if (before !== after) return fail(`the host rebooted (boot_id ${before} -> ${after}), which ${kind} must not do`);
  if (kind === 'agent-kill' && (!pids[1] || pids[0] === pids[1])) {
    const pid = `pid ${show(pids[0])} -> ${show(pids[1])}`;
    return fail(`boot_id unchanged as expected, but the agent was not restarted (${pid})`);
  }
  const agent = kind === 'agent-kill' ? `; the agent was restarted by systemd (pid ${pids[0]} -> ${pids[1]})` : '';
  return withStatus(r, 'passed', `boot_id unchanged (${after}), as expected: ${f.why}${agent}`, lines);
}
