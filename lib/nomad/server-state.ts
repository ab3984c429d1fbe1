// One server's own view of the cluster, read from that server with `stale=true` (answered from its own Raft log and
// state store, never forwarded to the leader): its Raft configuration, its Raft stats, its keyring, and the jobs,
// allocs, nodes, deployments and variables it holds. lib/checks/servers-agree.ts compares the reads side by side.
import type { ServerRead, ServerStateKind } from '../model/sentinels.js';
import { SERVER_STATE_KINDS } from '../model/sentinels.js';
import type { ApiAgentSelf, ApiKeyringKey, ApiListStub, ApiRaftConfiguration } from './api-types.js';
import type { Nomad } from './client.js';

/** Read one server's view (each part on its own: a part that fails is recorded in `errors`, never thrown). */
export async function readServerState(nomad: Nomad, server: string, signal: AbortSignal): Promise<ServerRead> {
  const atMs = Date.now();
  const errors: string[] = [];
  const attempt = async <T>(what: string, f: () => Promise<T>): Promise<T | undefined> =>
    f().catch((err: unknown) => {
      errors.push(`${what}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      return undefined;
    });
  const q = { signal, stale: true };
  const self0 = await attempt('/v1/agent/self', () => nomad.agentSelf({ signal }).then((r) => r.body));
  const raft = await attempt('/v1/operator/raft/configuration', () => nomad.raftConfiguration(q).then((r) => r.body));
  const keys = await attempt('/v1/operator/keyring/keys', () => nomad.keyringKeys(q).then((r) => r.body));
  const state: Partial<Record<ServerStateKind, string[]>> = {};
  for (const kind of SERVER_STATE_KINDS) {
    const list = await attempt(`${kind} (stale)`, () => nomad.listAll(kind, q).then((r) => r.body));
    if (list) state[kind] = stubLines(list);
  }
  const self1 = await attempt('/v1/agent/self (after)', () => nomad.agentSelf({ signal }).then((r) => r.body));
  const before = self0 ? raftStats(self0) : {};
  const after = self1 ? raftStats(self1) : {};
  return {
    server,
    atMs,
    ...(raft ? { voters: votersOf(raft) } : {}),
    ...(before.lastIndex !== undefined ? { lastIndex: before.lastIndex } : {}),
    ...(before.lastTerm !== undefined ? { lastTerm: before.lastTerm } : {}),
    ...(before.appliedIndex !== undefined ? { appliedIndex: before.appliedIndex } : {}),
    ...(after.appliedIndex !== undefined ? { appliedIndexAfter: after.appliedIndex } : {}),
    ...(keys ? { keyring: keyringState(keys) } : {}),
    state,
    errors,
  };
}

/** The Raft stats of `/v1/agent/self` (`stats.raft`: last_log_index, last_log_term, applied_index, strings). Pure. */
export function raftStats(self: ApiAgentSelf): { lastIndex?: number; lastTerm?: number; appliedIndex?: number } {
  const raft = self.stats?.['raft'] ?? {};
  const num = (k: string): number | undefined => {
    const v = Number(raft[k]);
    return raft[k] !== undefined && Number.isFinite(v) ? v : undefined;
  };
  const out: { lastIndex?: number; lastTerm?: number; appliedIndex?: number } = {};
  const [lastIndex, lastTerm, appliedIndex] = [num('last_log_index'), num('last_log_term'), num('applied_index')];
  if (lastIndex !== undefined) out.lastIndex = lastIndex;
  if (lastTerm !== undefined) out.lastTerm = lastTerm;
  if (appliedIndex !== undefined) out.appliedIndex = appliedIndex;
  return out;
}

/** The voters of a Raft configuration by node name, sorted. Pure. */
export function votersOf(raft: ApiRaftConfiguration): string[] {
  return raft.Servers.filter((s) => s.Voter)
    .map((s) => s.Node)
    .sort();
}

/** Ready when at least one key is active (a keyring that was never initialized lists none). Pure. */
export function keyringState(keys: readonly ApiKeyringKey[]): { ready: boolean; detail: string } {
  const active = keys.filter((k) => k.State === 'active');
  const detail = keys.length
    ? keys.map((k) => `${k.KeyID.slice(0, 8)} ${k.State ?? '?'}`).join(', ')
    : 'no keys listed';
  return { ready: active.length > 0, detail };
}

/** One line per object, `<namespace>/<id or path> <modify index>`, sorted: what two servers must hold alike. Pure. */
export function stubLines(list: readonly ApiListStub[]): string[] {
  return list
    .map((o) => `${o.Namespace ? `${o.Namespace}/` : ''}${o.ID ?? o.Path ?? '?'} ${o.ModifyIndex ?? '?'}`)
    .sort();
}
