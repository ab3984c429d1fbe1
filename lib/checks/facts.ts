// Facts worth recording next to the verdicts (report properties): addresses, ports, state dirs, versions, boot ids.
import { allocBefore, classifyAll, classifyAllocOutcome, watchedAllocAfter } from './alloc-outcome.js';
import { CNI_STATE_DIRS } from './cni-state.js';
import type { AllocSnap, CniStateListing, Observation, RebootEvidence } from '../model/evidence.js';

function ports(a: AllocSnap | undefined): string {
  return a && a.ports.length
    ? a.ports.map((p) => `${p.label}=${p.hostIp ? `${p.hostIp}:` : ''}${p.value}->${p.to}`).join(' ')
    : '';
}

/** IP reservation files in a listing (everything except host-local's `lock` and `last_reserved_ip.N`). */
function reservations(l: CniStateListing): string[] {
  return Object.keys(l.files)
    .filter((f) => f !== 'lock' && !f.startsWith('last_reserved_ip.'))
    .sort();
}

/** Which state directories have files after the reboot: "dir", "a, b", or "none". */
function stateDirsInUse(o: Observation): string {
  const used = CNI_STATE_DIRS.filter((d) =>
    o.cniState.some((l) => l.dir.replace(/\/+$/, '') === d && l.exists && Object.keys(l.files).length > 0),
  );
  return used.length ? used.join(', ') : 'none';
}

/** Report properties from the evidence: facts, never pass/fail. Empty values are left out. */
export function factsFromEvidence(e: RebootEvidence): Record<string, string> {
  const after = watchedAllocAfter(e);
  const node = e.after.node ?? e.before.node;
  const attr = (k: string): string => e.after.node?.attributes[k] ?? e.before.node?.attributes[k] ?? '';
  const outcome = classifyAllocOutcome(e);
  const facts: Record<string, string> = {
    'alloc.id': e.allocId,
    'alloc.address.before': e.before.alloc?.address ?? '',
    'alloc.address.after': after?.address ?? '',
    'alloc.ports.before': ports(e.before.alloc),
    'alloc.ports.after': ports(after),
    'alloc.outcome': outcome.outcome,
    'alloc.outcome.reason': outcome.reason,
    'alloc.replacement': outcome.replacementId ?? '',
    'node.id': node?.id ?? '',
    'nomad.version': attr('nomad.version'),
    'cni.bridge.version': attr('plugins.cni.version.bridge'),
    'cni.stateDir.after': stateDirsInUse(e.after),
    'cni.stateDir.before': e.before.cniState.length ? stateDirsInUse(e.before) : '',
    'bootId.before': e.before.bootId,
    'bootId.after': e.after.bootId,
    'reboot.kind': e.reboot.kind,
    'reboot.downtimeMs': String(e.reboot.backAt - e.reboot.requestedAt),
  };
  const all = classifyAll(e);
  if (all.length > 1) {
    facts['allocs.count'] = String(all.length);
    facts['allocs.outcomes'] = all.map((o) => `${o.name || o.allocId.slice(0, 8)}=${o.outcome}`).join(' ');
    facts['allocs.addresses'] = all
      .map(
        (o) =>
          `${o.name || o.allocId.slice(0, 8)}=${allocBefore(e, o.allocId)?.address ?? '?'}->${o.current?.address ?? '?'}`,
      )
      .join(' ');
  }
  if (e.settle) facts['job.settled'] = `${e.settle.settled ? 'yes' : 'no (deadline)'}: ${e.settle.reason}`;
  if (e.heartbeatGrace) facts['server.heartbeat_grace'] = e.heartbeatGrace;
  for (const l of e.after.cniState) {
    facts[`cni.reservations.after:${l.dir}`] = l.exists ? reservations(l).join(' ') || '(none)' : '(missing)';
  }
  return Object.fromEntries(Object.entries(facts).filter(([, v]) => v !== ''));
}
