// Check: the client host really rebooted (its kernel boot_id changed and its uptime restarted).
import { formatMs } from '../errors.js';
import { result, show } from './result.js';
import type { RebootEvidence } from '../model/evidence.js';
import type { CheckDef, CheckResult } from '../model/check.js';

export const CLIENT_REBOOTED: CheckDef = {
  id: 'client-rebooted',
  title: 'Client rebooted',
  passesWhen: 'boot_id differs before and after; uptime is shorter than the time since the reboot was requested',
};

/** Note: uptime is read inside the VM a moment after `after.atMs` is stamped on the host; allow this much slack. */
const UPTIME_SLACK_MS = 2_000;

/** Passes when both boot ids are known and differ, and the uptime after is shorter than the time since the reboot was requested. */
export function checkClientRebooted(e: RebootEvidence): CheckResult {
  const { id, title } = CLIENT_REBOOTED;
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
    return result(id, title, 'failed', `boot_id ${!before ? 'before' : 'after'} the reboot was not observed, so a reboot cannot be proved`, evidence);
  }
  if (before === after) {
    return result(id, title, 'failed', `boot_id did not change (${before}): the client was not rebooted`, evidence);
  }
  if (uptimeS !== undefined && Number.isFinite(sinceRequestMs) && uptimeS * 1000 > sinceRequestMs + UPTIME_SLACK_MS) {
    return result(id, title, 'failed', `boot_id changed but uptime ${uptimeS}s is longer than the ${formatMs(sinceRequestMs)} since the reboot was requested`, evidence);
  }
  return result(id, title, 'passed', `boot_id changed${uptimeS === undefined ? '' : ` and uptime restarted (${uptimeS}s)`}`, evidence);
}
