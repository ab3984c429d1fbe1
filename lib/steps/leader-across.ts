import type { FaultTurn, LeaderSeen } from '../model/cluster-evidence.js';
import type { Nomad } from '../nomad/client.js';
import { deadlineIn, sleep, type Deadline } from '../time/deadlines.js';
import { electedAfter } from '../checks/leader.js';
import { seconds } from '../checks/continuity.js';
import { durationSeconds } from '../config/durations.js';

/** The leader across the fault of the server that led before (undefined when no turn hit it). */
export async function leaderAcross(
  nomad: Nomad,
  old: string,
  turns: readonly FaultTurn[],
  observed: LeaderSeen['observed'],
  single: boolean,
  within: string,
  d: Deadline,
): Promise<LeaderSeen | undefined> {
  const hit = turns.find((t) => t.machine === old);
  if (!hit) return undefined;
  const elected = electedAfter(observed, old, single, hit.reboot.requestedAt, hit.reboot.backAt);
  // Note: Nomad's autopilot adds a returning server to Raft as a non-voter and promotes it once it has been healthy
  // for server_stabilization_time (10 s by default): the old leader is read until it is a voter, within REJOIN_MS
  const backAt = hit.reboot.backAt;
  const until = deadlineIn(REJOIN_MS, d);
  let seen = await oldLeaderState(nomad, old, d);
  while (!seen.rejoined && !until.signal.aborted) {
    await sleep(REJOIN_POLL_MS, until).catch(() => undefined);
    seen = await oldLeaderState(nomad, old, d);
  }
  const waited = seconds(Math.max(0, Date.now() - backAt));
  const oldState = seen.rejoined
    ? `${seen.state}, ${waited} after it was back`
    : `${seen.state} ${waited} after it was back (read for ${seconds(REJOIN_MS)})`;
  return {
    before: old,
    ...(elected ? { elected: elected.leader, electedAfterMs: elected.afterMs } : {}),
    boundMs: durationSeconds(within) * 1000,
    oldRejoined: seen.rejoined,
    oldState,
    single,
    observed: [...observed],
  };
}

/** How long the old leader is read until it is a Serf member and a Raft voter again, and how often. */
export const REJOIN_MS = 2 * 60_000;
const REJOIN_POLL_MS = 1000;

/** The old leader as the cluster sees it now: Serf status and Raft membership, one line, and whether it rejoined. */
async function oldLeaderState(nomad: Nomad, old: string, d: Deadline): Promise<{ rejoined: boolean; state: string }> {
  const members = await nomad.members({ signal: d.signal }).then(
    (r) => r.body,
    () => [],
  );
  const member = members.find((m) => m.Name === old || m.Name.startsWith(`${old}.`));
  const raft = await nomad.raftConfiguration({ signal: d.signal }).then(
    (r) => r.body.Servers.find((s) => s.Node === old || s.Node.startsWith(`${old}.`)),
    (err: unknown) => (err instanceof Error ? err.message.split('\n')[0]! : String(err)),
  );
  const raftState =
    typeof raft === 'string'
      ? `raft configuration unreadable (${raft})`
      : raft
        ? raft.Voter
          ? 'a Raft voter'
          : 'a Raft non-voter'
        : 'no Raft peer';
  const rejoined = member?.Status === 'alive' && typeof raft === 'object' && raft?.Voter === true;
  return { rejoined, state: `Serf ${member ? member.Status : 'no member'}, ${raftState}` };
}
