// Pure: what became of an alloc whose client the servers stopped hearing from, judged against its group's own
// disconnect policy (lib/model/disconnect.ts). With lost_after (max_client_disconnect before 1.10) the server marks
// the node `disconnected` and the alloc `unknown` (ClientDescription "alloc is unknown since its node is
// disconnected", an AllocStates entry); within lost_after the alloc reconnects in place and a replacement placed
// meanwhile (replace = true) is stopped by the reconcile ("alloc not needed due to disconnected client reconnect";
// nomad/scheduler reconcile.go at v1.10.5). Past lost_after the alloc is lost and replaced, which the policy asks for.
// alloc-outcome.ts asks this module; it imports nothing of alloc-outcome.ts (no import circle).
import { faultKind } from '../faults/registry.js';
import { formatDuration, keepsAllocsThroughDisconnect, type DisconnectPolicy } from '../model/disconnect.js';
import type { AllocSnap, RebootEvidence } from '../model/evidence.js';
import { iso } from './result.js';

/** ClientDescription of an alloc whose node is disconnected (nomad/scheduler generic_sched.go allocUnknown). */
export const ALLOC_UNKNOWN = 'alloc is unknown since its node is disconnected';
/** DesiredDescription of an alloc lost with its node (generic_sched.go allocLost). */
const ALLOC_LOST = 'alloc is lost since its node is down';
/** How long before the fault's request a status change may be stamped and still count (clocks, rounding). */
const SLACK_MS = 1000;
/** How much sooner than lost_after Nomad may lose an alloc and still have followed it (eval broker, heartbeats). */
const LOST_EARLY_SLACK_MS = 5000;

/** What this module decides for one alloc (alloc-outcome.ts adds the alloc's id, name and replacement). */
interface DisconnectVerdict {
  outcome: 'restored' | 'replaced' | 'failed' | 'unknown';
  reason: string;
  /** the alloc went `unknown` after the disruption */
  disconnected: true;
  /** the outcome is what the group's policy asks for, even when it is not a restore */
  expectedByPolicy?: boolean;
}

/** A replacement as alloc-outcome.ts found it. */
interface ReplacementSeen {
  replacementId?: string;
  replacement?: AllocSnap;
}

/** The policy of the alloc's group in this run, when the evidence carries the job's policies. */
function groupPolicy(e: RebootEvidence, group: string): DisconnectPolicy | undefined {
  return e.disconnect?.find((p) => p.group === group);
}

/** When the alloc went `unknown` after the disruption (AllocStates), else its description while still unknown. */
function wentUnknownAt(e: RebootEvidence, a: AllocSnap): number | undefined {
  const since = e.reboot.requestedAt - SLACK_MS;
  const state = (a.clientStatusStates ?? []).find((s) => s.status === 'unknown' && s.atMs >= since);
  if (state) return state.atMs;
  return a.clientStatus === 'unknown' || a.clientDescription === ALLOC_UNKNOWN ? e.reboot.requestedAt : undefined;
}

/** `disconnect { lost_after = "2m" } of group web (Nomad 1.10+)`, or the group's lack of one. */
function policyText(p: DisconnectPolicy): string {
  const line = p.line === '1.10+' ? 'Nomad 1.10+' : 'Nomad before 1.10';
  return p.written
    ? `${p.written} of group ${p.group} (${line})`
    : `no disconnect policy in group ${p.group} (${line})`;
}

/**
 * The outcome of an alloc that went `unknown` during the fault, when it reconnected (in place, or its replacement
 * kept by the reconcile); undefined for every other alloc (alloc-outcome.ts decides those).
 */
export function judgeDisconnected(
  e: RebootEvidence,
  old: AllocSnap,
  repl: ReplacementSeen | undefined,
  beforeNode: string | undefined,
): DisconnectVerdict | undefined {
  const unknownAt = wentUnknownAt(e, old);
  if (unknownAt === undefined) return undefined;
  const p = groupPolicy(e, old.taskGroup);
  const policy = p ? `; policy: ${policyText(p)}` : '';
  const who = `alloc ${old.id} (${old.name})`;
  const went = `went unknown at ${iso(unknownAt)} (node disconnected)`;
  const settled = !!e.settle?.settled;
  const r = repl?.replacement;
  const replStopped = r ? r.desiredStatus !== 'run' || ['complete', 'failed', 'lost'].includes(r.clientStatus) : true;
  const sameNode = !beforeNode || old.nodeId === beforeNode;
  if (old.clientStatus === 'running' && old.desiredStatus === 'run' && sameNode) {
    const again = faultKind(e.reboot.kind).rebootsHost ? ', its tasks started again after the boot' : '';
    const base = `${who} ${went}, then reconnected in place on node ${old.nodeId}${again}`;
    if (!repl?.replacementId) return { outcome: 'restored', disconnected: true, reason: `${base}${policy}` };
    const rid = repl.replacementId;
    if (p && !p.replace) {
      const reason = `${base}, but Nomad placed a replacement ${rid} although the group says replace = false${policy}`;
      return { outcome: 'failed', disconnected: true, reason };
    }
    if (replStopped) {
      const why = r?.desiredDescription ? ` ("${r.desiredDescription}")` : '';
      const reason = `${base}; the replacement ${rid} placed meanwhile (replace = true) was stopped by the reconcile${why}${policy}`;
      return { outcome: 'restored', disconnected: true, reason };
    }
    const still = `${base}, and the replacement ${rid} placed meanwhile is still ${r?.clientStatus ?? '?'} (desired ${r?.desiredStatus ?? '?'})`;
    return settled
      ? {
          outcome: 'failed',
          disconnected: true,
          reason: `${still} after the job settled: the reconcile kept both${policy}`,
        }
      : { outcome: 'unknown', disconnected: true, reason: `${still}; the job had not settled${policy}` };
  }
  // the reconcile kept the replacement: the original stopped as not needed, the replacement runs
  // Note: real 1.10.5 writes no AllocStates entry when lost_after runs out; the alloc's description says it
  const lost =
    old.clientStatus === 'lost' ||
    (old.clientStatusStates ?? []).some((x) => x.status === 'lost') ||
    old.desiredDescription.includes(ALLOC_LOST);
  const keptReplacement =
    !lost && old.desiredStatus !== 'run' && r?.clientStatus === 'running' && r.desiredStatus === 'run' && !!p?.replace;
  if (keptReplacement) {
    const reconcile = p?.reconcile ?? 'best_score';
    const reason = `${who} ${went}; on reconnect the reconcile (reconcile = "${reconcile}") kept the replacement ${repl?.replacementId} and stopped this one${policy}`;
    return { outcome: 'replaced', disconnected: true, reason, expectedByPolicy: reconcile !== 'keep_original' };
  }
  return undefined;
}

/**
 * An alloc lost and replaced after it was `unknown` for the group's lost_after: what the policy asks for. Returns the
 * sentence to add to the reason and whether the replacement is expected; undefined when the group keeps no allocs
 * through a disconnect (then the node-down explanation stands alone).
 */
export function lostUnderPolicy(
  e: RebootEvidence,
  old: AllocSnap | undefined,
): { note: string; expected: boolean } | undefined {
  if (!old) return undefined;
  const p = groupPolicy(e, old.taskGroup);
  if (!p || !keepsAllocsThroughDisconnect(p)) return undefined;
  const unknownAt = wentUnknownAt(e, old);
  // Note: only when Nomad recorded the loss in AllocStates (real 1.10.5 did not when lost_after ran out)
  const lostAt = (old.clientStatusStates ?? []).find((s) => s.status === 'lost' && s.atMs >= (unknownAt ?? 0))?.atMs;
  const lostAfter = formatDuration(p.lostAfterMs);
  if (unknownAt === undefined) {
    const note = `the group keeps allocs through a disconnect (${policyText(p)}) but this one was never unknown: Nomad lost it at once`;
    return { note, expected: false };
  }
  if (lostAt !== undefined && lostAt - unknownAt < p.lostAfterMs - LOST_EARLY_SLACK_MS) {
    const held = formatDuration(Math.round((lostAt - unknownAt) / 1000) * 1000);
    const note = `it was unknown for only ${held} before Nomad lost it, short of lost_after ${lostAfter} (${policyText(p)})`;
    return { note, expected: false };
  }
  // without a recorded loss: the client was back before lost_after could run out, so the policy asked for a reconnect
  if (lostAt === undefined && e.reboot.backAt - unknownAt < p.lostAfterMs - LOST_EARLY_SLACK_MS) {
    const back = formatDuration(Math.round((e.reboot.backAt - unknownAt) / 1000) * 1000);
    const note = `the client was back ${back} after the alloc went unknown, inside lost_after ${lostAfter} (${policyText(p)}), yet Nomad lost it instead of reconnecting it`;
    return { note, expected: false };
  }
  const note = `it was unknown from ${iso(unknownAt)} and lost once lost_after ${lostAfter} ran out: lost and replaced is what ${policyText(p)} asks for`;
  return { note, expected: true };
}

/** The fix the node-down explanation names: the group's own policy, one this line ignores, or how to write one. */
export function disconnectHint(e: RebootEvidence, old: AllocSnap | undefined): string {
  const p = old ? groupPolicy(e, old.taskGroup) : undefined;
  const group = old?.taskGroup ? ` in group ${old.taskGroup}` : ' in the group';
  if (!p) return `a disconnect { lost_after = "…" } block${group}`;
  if (keepsAllocsThroughDisconnect(p)) {
    return `a lost_after longer than the fault (the job has ${policyText(p)}: lost_after ${formatDuration(p.lostAfterMs)})`;
  }
  if (p.ignored.length) {
    const lost = p.ignored.find((f) => f.startsWith('max_client_disconnect'));
    const instead = lost
      ? `disconnect { lost_after = ${lost.split(' = ')[1]} }`
      : 'a disconnect { lost_after = "…" } block';
    return `${instead}${group}: the job's ${p.ignored.join(', ')} is ignored from Nomad 1.10 (GH-25284)`;
  }
  return `a disconnect { lost_after = "…" } block${group} (it has none)`;
}
