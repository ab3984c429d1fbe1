// Check: the server that led before its fault is a member of the cluster again afterwards (Serf alive, a Raft voter).
import { defineCheck } from './define.js';
import { whenLeaderHit } from './leader.js';
import { judgement } from './result.js';
import type { Judgement } from '../model/check.js';
import type { ClusterEvidence, LeaderSeen } from '../model/cluster-evidence.js';

export const OLD_LEADER_REJOINED = defineCheck<ClusterEvidence>({
  id: 'old-leader-rejoined',
  title: 'Old leader rejoined',
  passesWhen:
    'the server that led before the fault is alive in the Serf members and a Raft voter again within 2 minutes of its return; skipped when no leader was hit',
  details:
    "the server that led before the fault is alive in the Serf members and a Raft voter again within 2 minutes of its return (Nomad's autopilot adds a returning server as a non-voter and promotes it once it has been stable for server_stabilization_time, 10 s by default: the harness reads it until then); skipped when no leader was hit",
  judge: whenLeaderHit(judgeRejoined),
});

function judgeRejoined(l: LeaderSeen): Judgement {
  const evidence = [`old leader ${l.before}: ${l.oldState}`];
  return l.oldRejoined
    ? judgement('passed', `${l.before} is back in the cluster (${l.oldState})`, evidence)
    : judgement('failed', `${l.before} did not rejoin: ${l.oldState}`, evidence);
}
