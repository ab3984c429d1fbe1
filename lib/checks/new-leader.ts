// Check: after the leader's fault the cluster elected a leader within the bound: another server (several servers), or
// the only one again once it was back.
import { defineCheck } from './define.js';
import { whenLeaderHit } from './leader.js';
import { judgement, iso } from './result.js';
import type { Judgement } from '../model/check.js';
import type { ClusterEvidence, LeaderSeen } from '../model/cluster-evidence.js';

export const NEW_LEADER = defineCheck<ClusterEvidence>({
  id: 'new-leader',
  title: 'New leader in time',
  passesWhen:
    "after the leader's fault another server leads within `reboot.leader_within` of the fault's request (with one server: it leads again within that bound of its return); skipped when no leader was hit",
  judge: whenLeaderHit(judgeNewLeader),
});

function judgeNewLeader(l: LeaderSeen): Judgement {
  const seen = l.observed.map(
    (o) =>
      `${iso(o.atMs)} from ${o.from}: ${o.leader === '' ? 'no leader' : o.leader === '?' ? 'no answer' : o.leader}`,
  );
  const changes = seen.filter((line, i) => i === 0 || line.split(': ')[1] !== seen[i - 1]!.split(': ')[1]);
  const evidence = [`leader before: ${l.before}`, ...changes];
  const from = l.single ? 'its return' : 'the fault';
  if (!l.elected || l.electedAfterMs === undefined)
    return judgement(
      'failed',
      `no ${l.single ? '' : 'other '}leader seen after ${from} (old leader ${l.before})`,
      evidence,
    );
  if (l.electedAfterMs > l.boundMs)
    return judgement(
      'failed',
      `${l.elected} led only ${s(l.electedAfterMs)} after ${from}, past the bound of ${s(l.boundMs)}`,
      evidence,
    );
  return judgement(
    'passed',
    `${l.elected} led ${s(l.electedAfterMs)} after ${from} (bound ${s(l.boundMs)}; was ${l.before})`,
    evidence,
  );
}

const s = (ms: number) => (ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`);
