// Part of the Nomad API stand-in (not Nomad): one server's own view, for the reads servers-agree makes of each server
// (lib/nomad/server-state.ts). The stand-in holds one state; a request naming a server (header x-stand-in-server, set
// by the stand-in env's per-server clients) is answered from that state as that server would hold it, unless a test
// bent the server's view: behind by some Raft entries, missing an object (a diverging state store), keyring not
// ready. The list stubs serve only the keys servers-agree reads (ID, Namespace, ModifyIndex); the Raft configuration,
// the keyring, the Raft stats and the query meta headers have the shapes of three real servers of every line
// (real-<line>/cluster/, fake-nomad-vs-real-cluster.test.ts).
import type { ApiAgentSelf } from '../../../lib/nomad/api-types.js';
import type { Cluster } from './cluster.js';
import { agentSelf, allocStub } from './payloads.js';
import type { Reply } from './routes.js';

/** How a test bends one server's view. */
export interface ServerView {
  /** the server has applied this many fewer entries (its applied and last index lag; its state is the leader's) */
  behindBy?: number;
  /** the server's state store lacks the first alloc (a diverging server at the same index) */
  lacksAlloc?: boolean;
  /** the server's keyring lists no active key (never initialized) */
  keyringNotReady?: boolean;
}

/** The servers of the stand-in cluster, and the views tests bent. */
export interface StandInServers {
  /** slot names of the servers (default: the one server) */
  names: string[];
  views: Map<string, ServerView>;
}

/** The header naming the server a request is meant for. */
export const SERVER_HEADER = 'x-stand-in-server';

/** A stale read of the state store: with Nomad's query meta headers (a follower's LastContact, in ms). */
const json = (body: unknown, index: number, leader: boolean): Reply => ({
  status: 200,
  body: JSON.stringify(body),
  headers: {
    'content-type': 'application/json',
    'x-nomad-index': String(index),
    'x-nomad-knownleader': 'true',
    'x-nomad-lastcontact': leader ? '0' : '12',
  },
});
/** agent/self and the Raft configuration: no query meta (real-<line>/cluster/initial/server-*). */
const plain = (body: unknown): Reply => ({
  status: 200,
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});

/** Answer a read of `path` as `server` holds it; undefined for a path this file does not serve. */
export function serverRead(c: Cluster, s: StandInServers, server: string, path: string): Reply | undefined {
  const view = s.views.get(server) ?? {};
  const applied = Math.max(1, c.index - (view.behindBy ?? 0));
  const leader = server === c.serverName;
  switch (path) {
    case '/v1/agent/self': {
      const self: ApiAgentSelf = agentSelf(c.version);
      self.config.NodeName = server;
      self.stats = {
        ...self.stats,
        raft: {
          ...(self.stats['raft'] ?? {}),
          state: server === c.serverName ? 'Leader' : 'Follower',
          applied_index: String(applied),
          commit_index: String(applied),
          last_log_index: String(applied),
          last_log_term: '2',
          term: '2',
        },
      };
      return plain(self);
    }
    case '/v1/operator/raft/configuration':
      return plain({
        Index: 0,
        Servers: s.names.map((n, i) => ({
          ID: `a1b2c3d4-0000-4000-8000-00000000000${i + 1}`,
          Node: `${n}.global`,
          Address: `10.199.0.${10 + i}:4647`,
          Leader: n === c.serverName,
          Voter: n !== c.serverName || Date.now() >= c.nonVoterUntilMs,
          RaftProtocol: '3',
        })),
      });
    case '/v1/operator/keyring/keys':
      return json(
        view.keyringNotReady
          ? []
          : [
              {
                KeyID: '2f1e5a9c-3b7d-4e1f-9a2c-5d6e7f8a9b0c',
                Algorithm: 'aes256-gcm',
                CreateTime: 1796603150244965000,
                CreateIndex: 7,
                ModifyIndex: 7,
                State: 'active',
                PublishTime: 0,
              },
            ],
        applied,
        leader,
      );
    case '/v1/jobs':
      return json(
        [...c.jobs.values()].map((j) => ({
          ID: j.ID,
          Namespace: j.Namespace ?? 'default',
          ModifyIndex: j.ModifyIndex,
        })),
        applied,
        leader,
      );
    case '/v1/allocations': {
      const allocs = [...c.allocs.values()].map((a) => allocStub(a, c.version));
      return json(view.lacksAlloc ? allocs.slice(1) : allocs, applied, leader);
    }
    case '/v1/nodes':
      return json(
        c.allNodes().map((n) => ({ ID: n.ID, ModifyIndex: n.ModifyIndex })),
        applied,
        leader,
      );
    case '/v1/deployments':
      return json(
        [...c.deployments.values()].map((d) => ({ ID: d.ID, Namespace: d.Namespace, ModifyIndex: d.ModifyIndex })),
        applied,
        leader,
      );
    case '/v1/vars':
      return json([], applied, leader);
    default:
      return undefined;
  }
}
