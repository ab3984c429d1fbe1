// Pure: the leader across a server's fault, from what live machines saw of /v1/status/leader meanwhile. With several
// servers another one must lead within the bound of the fault's request; with one, the same one once it is back.
import type { ClusterEvidence, LeaderSeen } from '../model/cluster-evidence.js';
import { needing } from './define.js';

/** The first leader after the fault that is not the old one (several servers), or any after its return (one). */
export function electedAfter(
  observed: LeaderSeen['observed'],
  before: string,
  single: boolean,
  requestedAt: number,
  backAt: number,
): { leader: string; afterMs: number } | undefined {
  const from = single ? backAt : requestedAt;
  const seen = observed.find(
    (o) => o.atMs >= from && o.leader !== '' && o.leader !== '?' && (single || o.leader !== before),
  );
  return seen ? { leader: seen.leader, afterMs: seen.atMs - from } : undefined;
}

/** The leader checks' judge: skipped when the fault did not hit the leader, else `judge` of what was seen of it. */
export const whenLeaderHit = needing((e: ClusterEvidence) => e.leader, 'the fault did not hit the leader');
