// Who leads while a server is under a fault: every interval, a live machine asks its own agent for /v1/status/leader
// (no token needed; a client agent forwards it to a server), read back to a server machine through the Serf members
// read before the fault. The API tunnel of the run may go through the very server that is down; this does not.
import type { Lab } from '../model/lab.js';
import type { LeaderSeen } from '../model/cluster-evidence.js';
import { resolveLeader, type ServerMember } from '../model/target.js';
import { deadlineIn, sleep, type Deadline } from '../time/deadlines.js';
import { probeFrom } from './probe-series.js';

/** The command a machine answers /v1/status/leader with (its own agent's HTTP API). */
export const LEADER_COMMAND = "curl -sS --max-time 3 'http://127.0.0.1:4646/v1/status/leader'";

/** What one answer names: the server machine, "" for no leader, "?" for no answer (or the raw address). Pure. */
export function leaderOf(
  r: { code: number; stdout: string },
  members: readonly ServerMember[],
  servers: readonly string[],
  addresses: Readonly<Record<string, readonly string[]>> = {},
): string {
  if (r.code !== 0) return '?';
  let addr: unknown;
  try {
    addr = JSON.parse(r.stdout.trim());
  } catch {
    return '?';
  }
  if (typeof addr !== 'string') return '?';
  if (addr === '') return '';
  const m = resolveLeader(addr, members, servers, addresses);
  return 'name' in m ? m.name : addr;
}

export function startLeaderWatch(o: {
  lab: Lab;
  intervalMs: number;
  members: readonly ServerMember[];
  servers: readonly string[];
  addresses?: Readonly<Record<string, readonly string[]>>;
  down: () => ReadonlySet<string>;
  deadline: Deadline;
}): { stop(): Promise<LeaderSeen['observed']> } {
  const observed: LeaderSeen['observed'] = [];
  const stopped = new AbortController();
  const signal = AbortSignal.any([stopped.signal, o.deadline.signal]);
  const loop = (async () => {
    while (!signal.aborted) {
      const atMs = Date.now();
      const from = probeFrom(Object.keys(o.lab.machines), o.down());
      if (from) {
        const d = deadlineIn(5000, o.deadline);
        const r = await o.lab.machines[from]!.exec(LEADER_COMMAND, { deadline: d }).catch(() => ({
          code: -1,
          stdout: '',
        }));
        observed.push({ atMs, leader: leaderOf(r, o.members, o.servers, o.addresses), from });
      }
      await sleep(Math.max(0, atMs + o.intervalMs - Date.now()), { at: o.deadline.at, signal }).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      stopped.abort();
      await loop;
      return observed;
    },
  };
}
