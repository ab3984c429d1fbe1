// Part of the Nomad API stand-in (not Nomad): system, sysbatch and batch jobs as Nomad's schedulers treat them, in the
// shapes real Nomad writes (AllocListStub and TaskState keys as in test/fixtures/nomad; a Terminated event with
// Details.exit_code as real 1.9.3 writes it, test/fixtures/nomad/real-1.9.3/netns-missing/after-restart). A system or
// sysbatch job runs one alloc on every ready, eligible node (named job.group[0] on each, as the system scheduler names
// them); a drain stops a node's system allocs after the others without a replacement, and an eligible node gets its
// missing system allocs placed. A drained batch alloc ends by the stand-in's Nomad line (GH-26025, GH-26961): failed and
// rescheduled on 1.10.3 to 1.10.5, left to complete in place from 1.11.0, migrated like a service alloc before; on
// the lines with GH-28018 a drain-stopped one is placed again once its node is eligible.
// DERIVED, not captured: the descriptions of the stopped system allocs and of the failed batch alloc
// (nomad scheduler/util.go allocNodeTainted, scheduler/reconcile.go allocRescheduled).
import type { ApiAllocation, ApiJob, ApiNode } from '../../../lib/nomad/api-types.js';
import type { Cluster } from './cluster.js';
import { nowRfc3339, taskEvent } from './payloads.js';

/** A client status an alloc never leaves. */
export const TERMINAL = new Set(['complete', 'failed', 'lost']);
/** What the system scheduler says of an alloc it stops on a draining node. */
export const NODE_TAINTED = 'alloc not needed as node is tainted';

/** A system or sysbatch job: one alloc per node. */
export const perNode = (job: ApiJob | undefined): boolean => job?.Type === 'system' || job?.Type === 'sysbatch';
const isBatch = (job: ApiJob | undefined): boolean => job?.Type === 'batch';

/** The nodes the scheduler places on: ready, eligible, not draining. */
const placeable = (n: ApiNode): boolean =>
  n.Status === 'ready' && n.SchedulingEligibility === 'eligible' && !n.DrainStrategy;

/** A constraint as Nomad's parse gives it. */
interface Constraint {
  LTarget?: string;
  RTarget?: string;
  Operand?: string;
}

/**
 * The node's value of a constraint's attribute: node name, datacenter, pool and class, `attr.*` and `meta.*` (what a
 * constraint on some clients names); undefined for one the stand-in does not know.
 */
function nodeValue(node: ApiNode, target: string): string | undefined {
  const n = node as ApiNode & Record<string, unknown>;
  const m = /^\$\{(.+)\}$/.exec(target.trim());
  const key = m?.[1] ?? target;
  if (key === 'node.unique.name') return n.Name;
  if (key === 'node.unique.id') return n.ID;
  if (key === 'node.datacenter') return n.Datacenter;
  if (key === 'node.pool') return String(n['NodePool'] ?? 'default');
  if (key === 'node.class') return String(n['NodeClass'] ?? '');
  if (key.startsWith('attr.')) return n.Attributes?.[key.slice(5)];
  if (key.startsWith('meta.')) return (n['Meta'] as Record<string, string> | null | undefined)?.[key.slice(5)];
  return undefined;
}

/** Whether the node meets one constraint (operators =, ==, is, !=, not, regexp, is_set, is_not_set). */
function meets(n: ApiNode, k: Constraint): boolean {
  const have = nodeValue(n, k.LTarget ?? '');
  const want = k.RTarget ?? '';
  switch (k.Operand ?? '=') {
    case '=':
    case '==':
    case 'is':
      return have === want;
    case '!=':
    case 'not':
      return have !== want;
    case 'regexp':
      return have !== undefined && new RegExp(want).test(have);
    case 'is_set':
      return have !== undefined;
    case 'is_not_set':
      return have === undefined;
    default:
      throw new Error(`the stand-in does not evaluate constraint operator "${k.Operand}"`);
  }
}

/**
 * Whether the node meets the job's constraints and its groups' (the stand-in places a per-node job's groups together,
 * so a node must meet every group's; real Nomad places each group on the nodes that meet its own).
 */
export function meetsConstraints(n: ApiNode, job: ApiJob): boolean {
  const all = [job, ...(job.TaskGroups ?? [])].flatMap((x) => (x['Constraints'] as Constraint[] | null) ?? []);
  return all.every((k) => meets(n, k));
}

/**
 * Place the per-node job's alloc on every placeable node that meets its constraints and runs none of it (the system
 * scheduler skips a node a constraint filters, with no failed placement); returns what it placed.
 */
export function placeSystem(c: Cluster, job: ApiJob, evalId: string): ApiAllocation[] {
  const placed: ApiAllocation[] = [];
  for (const n of c.allNodes().filter((x) => placeable(x) && meetsConstraints(x, job))) {
    const has = [...c.allocs.values()].some(
      (a) => a.JobID === job.ID && a.NodeID === n.ID && a.DesiredStatus === 'run' && a.ClientStatus !== 'lost',
    );
    if (has) continue;
    c.placementNode = n;
    try {
      placed.push(...c.placeAllocs(job, evalId, [], new Set()));
    } finally {
      c.placementNode = undefined;
    }
  }
  return placed;
}

/** A node eligible again: every per-node job places its alloc there (the system scheduler's node-update eval). */
export function placeSystemOnEligible(c: Cluster): void {
  for (const job of c.jobs.values()) if (perNode(job) && !job.Stop) placeSystem(c, job, '');
}

/** The allocs a drain moves (service, batch) before the ones it stops at the end (system, sysbatch). */
export function drainOrder(
  c: Cluster,
  live: readonly ApiAllocation[],
): { first: ApiAllocation[]; last: ApiAllocation[] } {
  const last = live.filter((a) => perNode(c.jobs.get(a.JobID)));
  return { first: live.filter((a) => !last.includes(a)), last };
}

/** Stop the node's system allocs the drain reached: desired stop, then the client kills their tasks (complete). */
export function stopSystemAllocs(c: Cluster, allocs: readonly ApiAllocation[]): void {
  for (const a of allocs)
    c.updateAlloc(
      a.ID,
      (x) => Object.assign(x, { DesiredStatus: 'stop', DesiredDescription: NODE_TAINTED }),
      'PlanResult',
    );
  c.later(1, () => {
    for (const a of allocs) killTasks(c, a, 'complete');
  });
}

/** The client kills the alloc's live tasks (Killing, Killed) and ends it with `status`. */
function killTasks(c: Cluster, a: ApiAllocation, status: string): void {
  c.updateAlloc(a.ID, (x) => {
    for (const [t, st] of Object.entries(x.TaskStates ?? {})) {
      if (st.State === 'dead') continue;
      c.appendEvent(x, t, taskEvent('Killing', 'Sent interrupt. Waiting 5s before force killing'));
      c.appendEvent(x, t, taskEvent('Killed', 'Task successfully killed'));
      Object.assign(st, { State: 'dead', FinishedAt: nowRfc3339() });
    }
    x.ClientStatus = status;
  });
}

/** What this Nomad line does with a batch alloc a drain reaches. */
export type BatchDrain = 'migrate' | 'fail-and-reschedule' | 'stopped-at-deadline';

/** The stand-in's Nomad line's batch drain behaviour. */
export function batchDrainOf(version: string): BatchDrain {
  const [maj = 0, min = 0, patch = 0] = version.split(/[.-]/).map(Number);
  const v = maj * 1e6 + min * 1e3 + patch;
  if (v >= 1_011_000) return 'stopped-at-deadline';
  if (v >= 1_010_003) return 'fail-and-reschedule';
  return 'migrate';
}

/**
 * Whether this line places a drain-stopped batch alloc again once its node is eligible (GH-28018: the reconciler stops
 * counting it; every 1.11 release, 2.0 before 2.0.4; the Enterprise 1.10.14/1.11.8 fixes are not modelled).
 */
export function placesExtraBatch(version: string): boolean {
  const [maj = 0, min = 0, patch = 0] = version.split(/[.-]/).map(Number);
  const v = maj * 1e6 + min * 1e3 + patch;
  return v >= 1_011_000 && v < 2_000_004;
}

/**
 * GH-28018 as real 1.11.3 played it (docs/findings.md, job-types mixed): at the eval of a later drain stop, each
 * drain-stopped alloc of the job on a node eligible again, with no live alloc of its name, gets a new alloc on that node
 * (a fresh create index, no PreviousAllocation, nothing linked after the stopped one).
 */
export function placeExtraBatch(c: Cluster, job: ApiJob): void {
  if (job.Stop) return;
  const mine = [...c.allocs.values()].filter((a) => a.JobID === job.ID);
  const live = new Set(mine.filter(liveAlloc).map((a) => a.Name));
  for (const a of mine) {
    if (a.DesiredDescription !== 'alloc is being migrated' || a.ClientStatus !== 'complete') continue;
    if (a.NextAllocation || live.has(a.Name)) continue;
    const n = c.allNodes().find((x) => x.ID === a.NodeID);
    if (!n || !placeable(n)) continue;
    const others = new Set(
      (job.TaskGroups ?? []).flatMap((g) => Array.from({ length: g.Count }, (_, i) => `${job.ID}.${g.Name}[${i}]`)),
    );
    others.delete(a.Name);
    c.placementNode = n;
    try {
      c.placeAllocs(job, '', [], others, {}, false);
    } finally {
      c.placementNode = undefined;
    }
    live.add(a.Name);
  }
}

/** Whether the drain handles this alloc as a batch alloc of a line that does not migrate it; the allocs it placed. */
export function drainBatchAlloc(
  c: Cluster,
  a: ApiAllocation,
  place: (job: ApiJob, previous: ApiAllocation[]) => ApiAllocation[],
): { handled: boolean; placed: ApiAllocation[] } {
  const job = c.jobs.get(a.JobID);
  const how = batchDrainOf(c.version);
  if (!isBatch(job) || how === 'migrate') return { handled: false, placed: [] };
  if (how === 'stopped-at-deadline') {
    // the drain leaves it running until its deadline, then stops it with no replacement (MigrateDisablePlacement): as
    // real 2.0.5 did (docs/findings.md, job-types): complete/stop, Killing, Terminated 137 signal 9, Killed
    c.updateAlloc(a.ID, (x) => {
      for (const [t, st] of Object.entries(x.TaskStates ?? {})) {
        if (st.State === 'dead') continue;
        c.appendEvent(x, t, taskEvent('Killing', 'Sent interrupt. Waiting 5s before force killing'));
        c.appendEvent(x, t, terminatedEvent(137, 9));
        c.appendEvent(x, t, taskEvent('Killed', 'Task successfully killed'));
        Object.assign(st, { State: 'dead', Failed: false, FinishedAt: nowRfc3339() });
      }
      Object.assign(x, {
        ClientStatus: 'complete',
        ClientDescription: 'All tasks have completed',
        DesiredStatus: 'stop',
        DesiredDescription: 'alloc is being migrated',
        DesiredTransition: { Migrate: true },
      });
    });
    // the scheduler's eval for this stop is where a line with GH-28018 counts out the job's earlier drain-stopped
    // allocs whose node is eligible again, and places them anew
    if (placesExtraBatch(c.version)) c.later(1, () => placeExtraBatch(c, job!));
    return { handled: true, placed: [] };
  }
  // fail-and-reschedule: the drain kills it, the client reports it failed, the scheduler reschedules it elsewhere
  c.updateAlloc(a.ID, (x) => {
    for (const [t, st] of Object.entries(x.TaskStates ?? {})) {
      if (st.State === 'dead') continue;
      c.appendEvent(x, t, terminatedEvent(137, 9));
      Object.assign(st, { State: 'dead', Failed: true, FinishedAt: nowRfc3339() });
    }
    Object.assign(x, { ClientStatus: 'failed', ClientDescription: 'Failed tasks' });
  });
  const placed = place(job!, [a]);
  c.updateAlloc(
    a.ID,
    (x) => Object.assign(x, { DesiredStatus: 'stop', DesiredDescription: 'alloc was rescheduled because it failed' }),
    'PlanResult',
  );
  return { handled: true, placed };
}

/** A Terminated event as real Nomad writes it (Details.exit_code, signal, oom_killed; ExitCode, Signal). */
export function terminatedEvent(exitCode: number, signal = 0) {
  return taskEvent('Terminated', `Exit Code: ${exitCode}${signal ? `, Signal: ${signal}` : ''}`, {
    ExitCode: exitCode,
    Signal: signal,
    Details: { exit_code: String(exitCode), signal: String(signal), oom_killed: 'false' },
  });
}

/** A live alloc of the node (not terminal, desired to run). */
export const liveAlloc = (a: ApiAllocation): boolean => a.DesiredStatus === 'run' && !TERMINAL.has(a.ClientStatus);

/**
 * What a task that follows the harness's convention wrote to its alloc's data dir (DISK_MARKER): the ID of the first
 * alloc of its place, carried into a replacement where the group's ephemeral disk is kept (sticky on the same node,
 * migrate anywhere), else the alloc's own ID. Undefined for an alloc whose tasks never ran.
 */
export function diskMarker(c: Cluster, id: string): string | undefined {
  const a = c.allocs.get(id);
  return a && ['running', 'complete'].includes(a.ClientStatus) ? diskMarkerOf(c, a) : undefined;
}

/** The marker an alloc holds whatever its status now (a stopped alloc's disk is what its replacement takes over). */
function diskMarkerOf(c: Cluster, a: ApiAllocation): string {
  const prev = a.PreviousAllocation ? c.allocs.get(a.PreviousAllocation) : undefined;
  const disk = c.jobs.get(a.JobID)?.TaskGroups?.find((g) => g.Name === a.TaskGroup)?.EphemeralDisk as
    | { Sticky?: boolean; Migrate?: boolean }
    | undefined;
  const kept = !!prev && (disk?.Migrate === true || (disk?.Sticky === true && prev.NodeID === a.NodeID));
  return kept ? diskMarkerOf(c, prev) : a.ID;
}
