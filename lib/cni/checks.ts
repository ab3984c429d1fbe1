// Pure checks for scenario cni-ipam-reboot: what host-local does when the same container is added again after a reboot.
import type { CheckDef } from '../model/check.js';
import type { CniStateListing } from '../model/evidence.js';
import type { CheckResult } from '../model/check.js';
import { result, show } from '../checks/result.js';
import { findDuplicateIpError } from '../checks/parse-duplicate-ip.js';
import { describeOutcome, type CniOutcome } from './parse-result.js';
import type { CniStateMode } from './config.js';

/** One probe: ADD before the reboot, ADD again with the same container id after it. */
export interface CniProbeRun {
  mode: CniStateMode;
  /** host-local state directory (<dataDir>/nomad) */
  stateDir: string;
  containerId: string;
  first: CniOutcome | undefined;
  second: CniOutcome | undefined;
  /** the state directory listed just before the reboot and just after it (before the second ADD) */
  stateBefore: CniStateListing | undefined;
  stateAfter: CniStateListing | undefined;
}

export interface CniRebootEvidence {
  bootIdBefore: string;
  bootIdAfter: string;
  runs: CniProbeRun[];
}

/** cni-ipam-reboot's checks, one definition each. */
export const CNI_CHECKS = {
  rebooted: { id: 'client-rebooted', title: 'Client rebooted', passesWhen: 'boot_id changed' },
  persistent: { id: 'persistent-state-duplicate', title: 'Persistent state refuses the re-add', passesWhen: 'with state on disk the second ADD fails with `… has been allocated to <id>, duplicate allocation is not allowed` naming the container' },
  tmpfs: { id: 'tmpfs-state-clean', title: 'tmpfs state accepts the re-add', passesWhen: 'with state on tmpfs the second ADD succeeds' },
} as const satisfies Record<string, CheckDef>;

function listingLines(label: string, l: CniStateListing | undefined): string[] {
  if (!l) return [`state ${label}: (not listed)`];
  if (!l.exists) return [`state ${label}: ${l.dir} absent`];
  const files = Object.entries(l.files).sort();
  return [`state ${label}: ${l.dir} (${files.length} file(s))`, ...files.map(([n, c]) => `  ${n}: ${JSON.stringify(c)}`)];
}

function runEvidence(r: CniProbeRun): string[] {
  return [
    `container id: ${r.containerId}; state dir: ${r.stateDir}`,
    `ADD before reboot: ${describeOutcome(r.first)}`,
    ...listingLines('before reboot', r.stateBefore),
    ...listingLines('after reboot', r.stateAfter),
    `ADD after reboot:  ${describeOutcome(r.second)}`,
  ];
}

/** Boot ids must be known and differ, else nothing below proves anything about a reboot. */
function checkRebooted(e: CniRebootEvidence): CheckResult {
  const { id, title } = CNI_CHECKS.rebooted;
  const ev = [`boot_id before: ${show(e.bootIdBefore)}`, `boot_id after:  ${show(e.bootIdAfter)}`];
  if (!e.bootIdBefore.trim() || !e.bootIdAfter.trim()) return result(id, title, 'failed', 'a boot_id was not observed, so a reboot cannot be proved', ev);
  if (e.bootIdBefore.trim() === e.bootIdAfter.trim()) return result(id, title, 'failed', `boot_id did not change (${e.bootIdBefore.trim()})`, ev);
  return result(id, title, 'passed', 'boot_id changed', ev);
}

/** Persistent dataDir: the second ADD must fail with host-local's duplicate error naming this container. */
function checkPersistent(r: CniProbeRun): CheckResult {
  const { id, title } = CNI_CHECKS.persistent;
  const ev = runEvidence(r);
  if (!r.first?.ok) return result(id, title, 'failed', `the first ADD did not succeed (${describeOutcome(r.first)}), so the probe proves nothing`, ev);
  if (!r.second) return result(id, title, 'failed', 'the ADD after the reboot was not run', ev);
  if (r.second.ok) return result(id, title, 'failed', `the ADD after the reboot succeeded (${r.second.ips.join(', ')}): the persistent state did not block it`, ev);
  const dup = findDuplicateIpError(r.second.msg);
  if (!dup) return result(id, title, 'failed', `the ADD after the reboot failed with a different error: ${r.second.msg}`, ev);
  if (dup.allocId !== r.containerId) return result(id, title, 'failed', `duplicate error names ${dup.allocId}, not this container (${r.containerId})`, ev);
  return result(id, title, 'passed', `${dup.ip} is still reserved for ${dup.allocId} after the reboot: duplicate allocation is not allowed (code ${show(r.second.code)})`, ev);
}

/** tmpfs dataDir: the state is gone after the reboot, so the second ADD must succeed. */
function checkTmpfs(r: CniProbeRun): CheckResult {
  const { id, title } = CNI_CHECKS.tmpfs;
  const ev = runEvidence(r);
  if (!r.first?.ok) return result(id, title, 'failed', `the first ADD did not succeed (${describeOutcome(r.first)}), so the probe proves nothing`, ev);
  if (!r.second) return result(id, title, 'failed', 'the ADD after the reboot was not run', ev);
  if (!r.second.ok) return result(id, title, 'failed', `the ADD after the reboot failed: ${r.second.msg}`, ev);
  const leftover = r.stateAfter?.exists ? Object.keys(r.stateAfter.files).filter((f) => /^[0-9a-f.:]+$/i.test(f)) : [];
  const note = leftover.length > 0 ? `; note: ${leftover.length} reservation(s) survived the reboot` : '';
  return result(id, title, 'passed', `the ADD after the reboot got ${r.second.ips.join(', ') || '(no address)'} (before: ${r.first.ips.join(', ')})${note}`, ev);
}

/** All checks of the CNI host-local reboot probe: the reboot itself, then one check per probe run by its mode. */
export function cniChecks(e: CniRebootEvidence): CheckResult[] {
  return [checkRebooted(e), ...e.runs.map((r) => (r.mode === 'persistent' ? checkPersistent(r) : checkTmpfs(r)))];
}
