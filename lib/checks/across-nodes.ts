// Pure: what became of each alloc of a cluster's job across the fault's turns, followed across nodes. Nomad's links
// (NextAllocation, a newer alloc's PreviousAllocation) first, then the same name created after the disruption (a
// node-down replacement real 1.9.x places unlinked). Each alloc ends restored in place, migrated by a drain, replaced
// on another node after its node went down (or it failed), untouched, failed, or lost without a replacement.
import type { AllocSnap } from '../model/evidence.js';
import type { ClusterEvidence } from '../model/cluster-evidence.js';
import { replacementOf } from '../model/replacement.js';
import { LOST_NODE_DOWN } from './alloc-outcome.js';
import { faultKind } from '../faults/registry.js';

type NodeOutcome = 'untouched' | 'restored' | 'migrated' | 'replaced' | 'failed' | 'lost' | 'missing';

export interface FollowedAlloc {
  allocId: string;
  name: string;
  outcome: NodeOutcome;
  /** machine of the node before and of the alloc holding its place now ("(none)" when nothing holds it) */
  machineBefore: string;
  machineAfter: string;
  /** the alloc holding the place now, when it is another one */
  currentId?: string;
  /** why it moved or ended, one line */
  why: string;
  /** its node was hit by a turn of the fault */
  touched: boolean;
  /** its node was drained before its fault */
  drained: boolean;
  /** the place is held by a running alloc Nomad means to run */
  running: boolean;
}

const TERMINAL = new Set(['complete', 'failed', 'lost']);
const MIGRATING = 'alloc is being migrated';
const RESCHEDULED_FAILED = 'alloc was rescheduled because it failed';

/** The machine a node is, else the node's short ID. */
export function machineOf(e: Pick<ClusterEvidence, 'nodeNames'>, nodeId: string | undefined): string {
  if (!nodeId) return '(none)';
  return e.nodeNames[nodeId] ?? `node ${nodeId.slice(0, 8)}`;
}

/** The node IDs the fault hit (its client turns). */
export function touchedNodes(e: Pick<ClusterEvidence, 'turns' | 'nodeNames'>): Set<string> {
  if (hitWholeLab(e)) return new Set(Object.keys(e.nodeNames));
  return new Set(e.turns.flatMap((t) => (t.nodeId ? [t.nodeId] : [])));
}

/** A fault of the run hit every machine of the lab (its turn names only the target). */
export function hitWholeLab(e: Pick<ClusterEvidence, 'turns'>): boolean {
  return e.turns.some((t) => faultKind(t.reboot.kind).wholeLab === true);
}

const live = (a: AllocSnap): boolean => a.desiredStatus === 'run' && a.clientStatus === 'running';

/**
 * The alloc that replaced `a`, by the one rule of lib/model/replacement.ts (Nomad's links, else the same name created
 * after the disruption and claimed by no other chain). A name is only taken for an alloc that ended or was stopped: one
 * Nomad still means to run holds its own place.
 */
function successor(e: ClusterEvidence, a: AllocSnap, claimed: ReadonlySet<string>): AllocSnap | undefined {
  const found = replacementOf(e.after, a, a.id, {
    watched: new Set([...claimed, a.id]),
    createdAfter: (x) => x.createIndex > e.disruptionIndex,
  });
  if (found?.matchedBy === 'name' && !TERMINAL.has(a.clientStatus) && a.desiredStatus === 'run') return undefined;
  return found?.alloc;
}

/** Why Nomad replaced `a` (as the old alloc says it), one line. */
function whyReplaced(a: AllocSnap): string {
  if (a.migrate || a.desiredDescription === MIGRATING) return 'migrated by the drain';
  if (a.desiredDescription === LOST_NODE_DOWN || a.clientStatus === 'lost')
    return `its node went down (${a.desiredDescription || 'lost'})`;
  if (a.desiredDescription === RESCHEDULED_FAILED || a.clientStatus === 'failed')
    return 'it failed and was rescheduled';
  return a.desiredDescription || `client ${a.clientStatus}, desired ${a.desiredStatus}`;
}

/** Follow every alloc healthy before the fault to what holds its place after it. */
export function followAllocs(e: ClusterEvidence): FollowedAlloc[] {
  const touched = touchedNodes(e);
  const drainedAllocs = new Set(e.turns.flatMap((t) => t.drain?.allocsOnNode ?? []));
  const claimed = new Set<string>();
  return e.before.map((b) => {
    const base = {
      allocId: b.id,
      name: b.name,
      machineBefore: machineOf(e, b.nodeId),
      touched: touched.has(b.nodeId),
      drained: drainedAllocs.has(b.id),
    };
    const a = e.after.find((x) => x.id === b.id);
    if (!a)
      return {
        ...base,
        outcome: 'missing',
        machineAfter: '(none)',
        why: 'not among the job allocs after the fault',
        running: false,
      };
    // walk the chain of replacements to its end (a migrated alloc may have been replaced again)
    const chain: AllocSnap[] = [a];
    for (
      let cur = a, next = successor(e, cur, claimed);
      next && !chain.includes(next);
      next = successor(e, cur, claimed)
    ) {
      claimed.add(next.id);
      chain.push(next);
      cur = next;
    }
    const end = chain.at(-1)!;
    const running = live(end);
    const machineAfter = machineOf(e, end.nodeId);
    if (chain.length === 1) {
      if (running && a.nodeId === b.nodeId)
        return {
          ...base,
          outcome: base.touched ? 'restored' : 'untouched',
          machineAfter,
          why: base.touched ? 'running again on its node' : 'its node was not hit',
          running,
        };
      const outcome: NodeOutcome = a.clientStatus === 'lost' ? 'lost' : running ? 'restored' : 'failed';
      const why = `${a.clientStatus}/${a.desiredStatus}${a.desiredDescription ? ` (${a.desiredDescription})` : ''}, no replacement`;
      return { ...base, outcome, machineAfter, why, running };
    }
    const first = chain[1]!;
    const outcome: NodeOutcome = !running
      ? 'failed'
      : a.migrate || a.desiredDescription === MIGRATING
        ? 'migrated'
        : 'replaced';
    // a replacement replaced again: why each one after the first went, in order
    const hops = chain.length > 2 ? `; then ${chain.slice(1, -1).map(whyReplaced).join('; then ')}` : '';
    const endState = running ? '' : `; the last one is ${end.clientStatus}/${end.desiredStatus}`;
    return {
      ...base,
      outcome,
      machineAfter,
      currentId: end.id,
      why: `${whyReplaced(a)}: ${first.id.slice(0, 8)} on ${machineOf(e, first.nodeId)}${hops}${endState}`,
      running,
    };
  });
}

/** One line per alloc for the per-alloc table: the outcome and the machines before and after. */
export function followedLine(f: FollowedAlloc): string {
  const move = f.machineBefore === f.machineAfter ? `on ${f.machineBefore}` : `${f.machineBefore} -> ${f.machineAfter}`;
  return `${f.outcome} ${move}${f.currentId ? ` as ${f.currentId.slice(0, 8)}` : ''}: ${f.why}`;
}
