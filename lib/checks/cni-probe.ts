// What the checks of cni-ipam-reboot decide from: the host's boot ids and one probe per host-local state mode (ADD a
// container before the reboot, ADD it again after), with the evidence lines every probe check shows.
import type { CniStateListing } from '../model/evidence.js';
import type { CniStateMode } from '../model/kinds.js';
import { describeOutcome, type CniOutcome } from '../parse/cni-result.js';
import type { Judgement } from '../model/check.js';
import { judgement } from './result.js';

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

function listingLines(label: string, l: CniStateListing | undefined): string[] {
  if (!l) return [`state ${label}: (not listed)`];
  if (!l.exists) return [`state ${label}: ${l.dir} absent`];
  const files = Object.entries(l.files).sort();
  return [
    `state ${label}: ${l.dir} (${files.length} file(s))`,
    ...files.map(([n, c]) => `  ${n}: ${JSON.stringify(c)}`),
  ];
}

/** What one probe did, as evidence lines. */
function runEvidence(r: CniProbeRun): string[] {
  return [
    `container id: ${r.containerId}; state dir: ${r.stateDir}`,
    `ADD before reboot: ${describeOutcome(r.first)}`,
    ...listingLines('before reboot', r.stateBefore),
    ...listingLines('after reboot', r.stateAfter),
    `ADD after reboot:  ${describeOutcome(r.second)}`,
  ];
}

/** The probe of one state mode, or why there is none to judge. */
function probeOf(e: CniRebootEvidence, mode: CniStateMode): CniProbeRun | undefined {
  return e.runs.find((r) => r.mode === mode);
}

/** A probe with both ADDs done: the first succeeded, the second ran; with its evidence lines. */
export interface BothAdds {
  run: CniProbeRun;
  first: Extract<CniOutcome, { ok: true }>;
  second: CniOutcome;
  ev: string[];
}

/**
 * A probe with both ADDs done, its outcomes and evidence; or the failed judgement that says why the probe proves
 * nothing (no probe of that mode, the first ADD failed, the second never ran).
 */
function probeWithSecond(e: CniRebootEvidence, mode: CniStateMode, label: string): BothAdds | { failed: Judgement } {
  const run = probeOf(e, mode);
  if (!run) return { failed: judgement('failed', `no probe with state ${label} was run`, []) };
  const ev = runEvidence(run);
  const { first, second } = run;
  if (!first?.ok) {
    return {
      failed: judgement(
        'failed',
        `the first ADD did not succeed (${describeOutcome(first)}), so the probe proves nothing`,
        ev,
      ),
    };
  }
  if (!second) return { failed: judgement('failed', 'the ADD after the reboot was not run', ev) };
  return { run, first, second, ev };
}

/** A probe check's judge: `judge` of the probe of `mode` with both ADDs done, else the failure saying why it proves nothing. */
export const withBothAdds =
  (mode: CniStateMode, label: string) =>
  (judge: (p: BothAdds) => Judgement) =>
  (e: CniRebootEvidence): Judgement => {
    const p = probeWithSecond(e, mode, label);
    return 'failed' in p ? p.failed : judge(p);
  };
