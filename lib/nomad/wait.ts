// Waits on Nomad built on waitFor, using blocking queries (index + wait) instead of sleeping.
// Each probe says what it saw last, so a timeout explains itself.
import { EXIT, HarnessError, TimeoutError } from '../errors.js';
import { remaining, sleep, type Deadline } from '../time/deadlines.js';
import { waitFor, type Probe } from '../time/wait-for.js';
import type { ApiAllocListStub, ApiAllocation, ApiNode, ApiNodeListStub } from './api-types.js';
import type { Nomad, Read, ReadQuery } from './client.js';

/** Longest single blocking call; short enough that a lost connection is noticed quickly. */
export const MAX_BLOCK_MS = 30_000;
/** Time kept back from the deadline so a blocking call returns before the deadline aborts it. */
const DEADLINE_MARGIN_MS = 250;
/** Pause between blocking calls; they block themselves, this only bounds a spin on index 0. */
export const BLOCKING_INTERVALS = [50];
const TERMINAL = new Set(['failed', 'lost', 'complete']);

export interface WaitOpts {
  deadline: Deadline;
  /** called when the reason changes (progress lines) */
  onReason?: (reason: string) => void;
  maxBlockMs?: number;
}

/** The `wait` for the next blocking call: capped by the remaining deadline (Nomad adds up to wait/16 jitter). */
export function blockingWait(d: Deadline, maxBlockMs = MAX_BLOCK_MS): string | undefined {
  const ms = Math.floor(Math.min(maxBlockMs, ((remaining(d) - DEADLINE_MARGIN_MS) * 16) / 17));
  return ms >= 1 ? `${ms}ms` : undefined;
}

/** A waitFor probe that re-reads with the last X-Nomad-Index so each call blocks until something changes. */
export function blockingProbe<T, R>(
  read: (q: ReadQuery) => Promise<Read<T>>,
  judge: (body: T, d: Deadline) => Probe<R> | Promise<Probe<R>>,
  maxBlockMs = MAX_BLOCK_MS,
): (d: Deadline) => Promise<Probe<R>> {
  let index: number | undefined;
  let last = 'no answer from Nomad yet';
  let errors = 0;
  return async (d) => {
    const wait = index ? blockingWait(d, maxBlockMs) : undefined;
    try {
      const r = await read(wait ? { index, wait, signal: d.signal } : { signal: d.signal });
      errors = 0;
      index = r.index;
      const p = await judge(r.body, d);
      if (!p.done) last = p.reason;
      return p;
    } catch (err) {
      // Note: the deadline firing mid-call is not news; keep the last real observation as the reason.
      if (d.signal.aborted && d.signal.reason instanceof TimeoutError) return { done: false, reason: last };
      if (d.signal.aborted) throw d.signal.reason;
      if (err instanceof HarnessError && err.exitCode === EXIT.USAGE) throw err;
      errors++;
      await sleep(Math.min(2000, 100 * 2 ** errors), d).catch(() => undefined);
      return {
        done: false,
        reason: `${last}; then error: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
      };
    }
  };
}

/** Wait until the cluster has a leader; returns its RPC address. (/v1/status/leader does not block.) */
export async function waitForLeader(nomad: Nomad, { deadline, onReason }: WaitOpts): Promise<string> {
  return waitFor(
    'a Nomad leader',
    async (d) => {
      const { body } = await nomad.leader({ signal: d.signal });
      return body
        ? { done: true, value: body }
        : { done: false, reason: 'no leader elected yet (/v1/status/leader is "")' };
    },
    { deadline, onReason },
  );
}

/**
 * Bridge-mode jobs get implicit constraints on these attributes (nomad@v1.9.7:nomad/job_endpoint_hooks.go): a plugin
 * whose version the client did not fingerprint makes every bridge job unplaceable.
 */
export const BRIDGE_CNI_ATTRIBUTES: readonly string[] = ['bridge', 'firewall', 'host-local', 'loopback', 'portmap'].map(
  (p) => `plugins.cni.version.${p}`,
);
/** Which of `attributes` the node has not set. Pure. */
export function missingAttributes(node: Pick<ApiNode, 'Attributes'>, attributes: readonly string[]): string[] {
  return attributes.filter((a) => !node.Attributes?.[a]);
}

interface NodeSelector {
  nodeName?: string;
  nodeId?: string;
  /** task driver that must be detected and healthy, e.g. "exec" */
  driver: string;
  /** also require StatusUpdatedAt >= this (Unix seconds): "ready again after the reboot" */
  updatedSinceS?: number;
  /** also require ModifyIndex > this: the node record changed since (second-granular StatusUpdatedAt cannot tell two updates in one second apart) */
  modifiedAfterIndex?: number;
  /**
   * also require StatusUpdatedAt > this (Unix seconds, the value read just before a disruption): the server itself set a
   * new status since, on the server's clock. A restarting client registers as initializing, then ready, so this holds
   * after every agent start, while a node still "ready" from before a reboot (within heartbeat_grace) does not pass.
   */
  statusUpdatedAfterS?: number;
  /**
   * node attributes that must be set once the node is ready, e.g. plugins.cni.version.bridge (bridge jobs are constrained
   * on it). They come from static fingerprints, which run once at agent start: missing on a ready node ends the wait.
   */
  attributes?: readonly string[];
}

/** Wait until the node is `ready` with `driver` detected and healthy; returns the full node. */
export async function waitForNodeReady(
  nomad: Nomad,
  sel: NodeSelector,
  { deadline, onReason, maxBlockMs }: WaitOpts,
): Promise<ApiNode> {
  const who = sel.nodeId ? `node ${sel.nodeId.slice(0, 8)}` : `node "${sel.nodeName ?? '?'}"`;
  const judge = async (nodes: ApiNodeListStub[], d: Deadline): Promise<Probe<ApiNode>> => {
    const mine = nodes
      .filter((n) => (sel.nodeId ? n.ID === sel.nodeId : n.Name === sel.nodeName))
      .sort((a, b) => b.ModifyIndex - a.ModifyIndex)[0];
    if (!mine)
      return {
        done: false,
        reason: `${who} not registered (${nodes.length ? nodes.map((n) => `${n.Name}=${n.Status}`).join(', ') : 'no nodes'})`,
      };
    const seen = `node ${mine.Name} ${mine.ID.slice(0, 8)} status=${mine.Status}${mine.StatusDescription ? ` (${mine.StatusDescription})` : ''}`;
    if (mine.Status !== 'ready') return { done: false, reason: seen };
    const drv = mine.Drivers?.[sel.driver];
    if (!drv?.Detected) return { done: false, reason: `${seen}, driver ${sel.driver} not detected` };
    if (!drv.Healthy)
      return { done: false, reason: `${seen}, driver ${sel.driver} unhealthy: ${drv.HealthDescription ?? ''}` };
    const { body: node } = await nomad.node(mine.ID, { signal: d.signal });
    if (sel.updatedSinceS !== undefined && node.StatusUpdatedAt < sel.updatedSinceS) {
      return {
        done: false,
        reason: `${seen}, but status last updated at ${node.StatusUpdatedAt} < ${sel.updatedSinceS} (not re-registered yet)`,
      };
    }
    if (sel.statusUpdatedAfterS !== undefined && node.StatusUpdatedAt <= sel.statusUpdatedAfterS) {
      return {
        done: false,
        reason: `${seen}, but its status was last set at ${node.StatusUpdatedAt}, not after ${sel.statusUpdatedAfterS} (the view from before the disruption; not re-registered yet)`,
      };
    }
    if (sel.modifiedAfterIndex !== undefined && node.ModifyIndex <= sel.modifiedAfterIndex) {
      return {
        done: false,
        reason: `${seen}, but unchanged since index ${sel.modifiedAfterIndex} (not re-registered yet)`,
      };
    }
    if (node.Status !== 'ready') return { done: false, reason: `node ${node.Name} status=${node.Status}` };
    const missing = missingAttributes(node, sel.attributes ?? []);
    if (missing.length) {
      return {
        done: false,
        terminal: true,
        reason: `${seen}, but without ${missing.join(', ')}: its static fingerprint ran once at agent start and did not set it (for plugins.cni.version.*: the plugin did not print its version within Nomad's 3 s; see "failed to detect CNI plugin version" in the client log), so jobs constrained on it cannot be placed`,
      };
    }
    return { done: true, value: node };
  };
  return waitFor(
    `${who} ready with driver ${sel.driver}`,
    blockingProbe((q) => nomad.nodes(q), judge, maxBlockMs),
    { deadline, onReason, intervals: BLOCKING_INTERVALS },
  );
}

/** Wait until the job's newest alloc is running; fails fast (TerminalStateError) if it ended failed/lost/complete with no replacement coming. */
export async function waitForAllocRunning(
  nomad: Nomad,
  jobId: string,
  { deadline, onReason, maxBlockMs }: WaitOpts,
): Promise<ApiAllocation> {
  const judge = async (allocs: ApiAllocListStub[], d: Deadline): Promise<Probe<ApiAllocation>> => {
    const byNewest = [...allocs].sort((a, b) => b.CreateIndex - a.CreateIndex);
    const running = byNewest.find((a) => a.ClientStatus === 'running' && a.DesiredStatus === 'run');
    if (running) return { done: true, value: (await nomad.allocation(running.ID, { signal: d.signal })).body };
    const newest = byNewest[0];
    if (!newest) return { done: false, reason: `no allocations for job "${jobId}" yet` };
    if (!TERMINAL.has(newest.ClientStatus) || newest.NextAllocation || newest.FollowupEvalID)
      return { done: false, reason: describeAllocStub(newest) };
    // Note: a lost alloc is replaced by a blocked eval once a node fits again (e.g. its node comes back).
    const blocked = (await nomad.evaluations({ signal: d.signal })).body.find(
      (e) => e.JobID === jobId && e.Status === 'blocked',
    );
    if (blocked)
      return {
        done: false,
        reason: `${describeAllocStub(newest)}; blocked eval ${blocked.ID.slice(0, 8)} waits to place a replacement`,
      };
    return { done: false, reason: describeAllocStub(newest), terminal: true };
  };
  return waitFor(
    `an alloc of job "${jobId}" running`,
    blockingProbe((q) => nomad.jobAllocations(jobId, q), judge, maxBlockMs),
    { deadline, onReason, intervals: BLOCKING_INTERVALS },
  );
}

/** One line about an alloc for wait reasons: `alloc 1a2b3c4d client_status=pending, last event "Task Setup: Building Task Directory"`. */
export function describeAllocStub(a: ApiAllocListStub): string {
  const parts = [`alloc ${a.ID.slice(0, 8)} client_status=${a.ClientStatus}`];
  if (a.DesiredStatus !== 'run') parts[0] += ` desired_status=${a.DesiredStatus}`;
  const why = a.DesiredDescription || a.ClientDescription;
  if (why) parts[0] += ` (${why})`;
  const last = Object.values(a.TaskStates ?? {})
    .flatMap((t) => t.Events ?? [])
    .sort((x, y) => x.Time - y.Time)
    .at(-1);
  if (last) parts.push(`last event "${last.Type}: ${last.DisplayMessage || last.Message || ''}"`);
  if (a.NextAllocation) parts.push(`replaced by ${a.NextAllocation.slice(0, 8)}`);
  return parts.join(', ');
}
