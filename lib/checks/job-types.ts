// Pure: what Nomad promises each job type across a fault on a cluster, one rule each. A system job runs one alloc on
// every eligible node it placed it on while healthy (a constraint may keep it off others): a node not drained restores it in place (system tasks do not wait for the servers), a node
// drained, rebooted and made eligible again runs one again within a bound. A sysbatch job runs once per node. A batch
// alloc that ran before the fault is restored in place or rescheduled as its reschedule policy says; one that had
// completed is not run again; under a drain Nomad either fails it and reschedules it (1.10.3 to 1.10.5) or leaves it to
// complete in place (1.11.0 on), named, never with an extra alloc; a batch task whose executor was killed does not end
// "complete" with exit code 0.
import type { AllocSnap, TaskEventRec } from '../model/evidence.js';
import type { ClusterEvidence, ClusterJob, FaultTurn } from '../model/cluster-evidence.js';
import type { JobType } from '../model/kinds.js';
import { latestOf, linkedSuccessor } from '../model/replacement.js';
import { machineOf, touchedNodes } from './across-nodes.js';

/** How long a drained node, rebooted and eligible again, may take to run its system allocs again. */
export const SYSTEM_BACK_WITHIN_MS = 2 * 60_000;

/** The job types whose allocs run to an end (complete) rather than on. */
const RUN_TO_END: ReadonlySet<JobType> = new Set(['batch', 'sysbatch']);
/** The job types with one alloc per node. */
const PER_NODE: ReadonlySet<JobType> = new Set(['system', 'sysbatch']);

/** The job type of a job of the run (service when the record does not say). */
export function jobTypeOf(e: Pick<ClusterEvidence, 'jobs'>, jobId: string): JobType {
  return e.jobs?.find((j) => j.id === jobId)?.type ?? 'service';
}

/** The jobs of the run of these types. */
export function jobsOfTypes(e: Pick<ClusterEvidence, 'jobs'>, types: readonly JobType[]): ClusterJob[] {
  return (e.jobs ?? []).filter((j) => types.includes(j.type ?? 'service'));
}

const running = (a: AllocSnap): boolean => a.desiredStatus === 'run' && a.clientStatus === 'running';
/** It ran to its end by itself: complete and still meant to run (a drain or a job stop sets desired stop). */
const ranToEnd = (a: AllocSnap): boolean => a.desiredStatus === 'run' && a.clientStatus === 'complete';
const state = (a: AllocSnap): string =>
  `${a.clientStatus}/${a.desiredStatus}${a.desiredDescription ? ` (${a.desiredDescription})` : ''}`;
const short = (a: AllocSnap): string => a.id.slice(0, 8);

/** The last turn that hit a node (its drain, its eligibility). */
function turnOf(e: Pick<ClusterEvidence, 'turns'>, nodeId: string): FaultTurn | undefined {
  return e.turns.filter((t) => t.nodeId === nodeId).at(-1);
}

/** When the alloc's tasks first started (Unix ms, the client's clock), else when the server created it. */
function startedMs(a: AllocSnap): number {
  const starts = Object.values(a.tasks).flatMap((t) => t.events.filter((ev) => ev.type === 'Started'));
  return starts.length ? Math.min(...starts.map((ev) => ev.timeMs)) : a.createTimeMs;
}

/** One node of one per-node job (system, sysbatch): what runs there after the fault. */
export interface NodeJudged {
  jobId: string;
  type: JobType;
  nodeId: string;
  machine: string;
  ok: boolean;
  /** the alloc that holds the node's place after the fault, if any */
  allocId?: string;
  /** the alloc there before the fault, if any */
  beforeId?: string;
  detail: string;
}

/** The client nodes Nomad placed the per-node job on while the lab was healthy (its allocs before the fault). */
const placedBefore = (e: ClusterEvidence, jobId: string): Set<string> =>
  new Set(e.before.filter((a) => a.jobId === jobId).map((a) => a.nodeId));

/**
 * Every client node of every system and sysbatch job that held a place of it before the fault, judged by what Nomad
 * promises for the type. The expectation is where Nomad placed the job while the lab was healthy, not every client: a
 * constraint (node name, pool, datacenter, an attribute) keeps it off the others (unplacedNodes names them).
 */
export function perNodeJobs(e: ClusterEvidence, boundMs = SYSTEM_BACK_WITHIN_MS): NodeJudged[] {
  const out: NodeJudged[] = [];
  const touched = touchedNodes(e);
  for (const job of jobsOfTypes(e, [...PER_NODE])) {
    const type = job.type ?? 'system';
    const placed = placedBefore(e, job.id);
    for (const nodeId of Object.keys(e.nodeNames).filter((n) => placed.has(n))) {
      const machine = machineOf(e, nodeId);
      const before = e.before.find((a) => a.jobId === job.id && a.nodeId === nodeId);
      const here = e.after.filter((a) => a.jobId === job.id && a.nodeId === nodeId);
      const base = { jobId: job.id, type, nodeId, machine, ...(before ? { beforeId: before.id } : {}) };
      const verdict = (ok: boolean, detail: string, a?: AllocSnap): NodeJudged => ({
        ...base,
        ok,
        detail,
        ...(a ? { allocId: a.id } : {}),
      });
      const turn = turnOf(e, nodeId);
      const hit = touched.has(nodeId);
      const how = !hit
        ? 'not hit'
        : turn?.drain
          ? `drained, ${turn.reboot.kind}${turn.eligibleAt !== undefined ? ', eligible again' : ', never eligible again'}`
          : `${turn?.reboot.kind ?? 'hit'} without a drain`;
      const seen = here.length ? here.map((a) => `${short(a)} ${state(a)}`).join(', ') : 'no alloc';
      if (type === 'sysbatch') {
        const ran = here.filter((a) => running(a) || ranToEnd(a));
        if (ran.length === 0) out.push(verdict(false, `${how}: no alloc of the job ran here to its end (${seen})`));
        else if (ran.length > 1)
          out.push(verdict(false, `${how}: ran ${ran.length} times (${seen}); once per node expected`, ran[1]));
        else
          out.push(
            verdict(
              true,
              `${how}: ${short(ran[0]!)} ${state(ran[0]!)}${before && before.id !== ran[0]!.id ? ` (before: ${short(before)})` : ''}`,
              ran[0],
            ),
          );
        continue;
      }
      const live = here.filter(running);
      if (live.length === 0) {
        out.push(verdict(false, `${how}: no alloc of the system job runs here (${seen})`));
        continue;
      }
      if (live.length > 1) {
        out.push(verdict(false, `${how}: ${live.length} allocs of the system job run here (${seen}); one expected`));
        continue;
      }
      const a = live[0]!;
      const same = before?.id === a.id;
      if (turn?.drain) {
        if (same) {
          out.push(verdict(true, `${how}: ${short(a)} restored in place (the drain left it)`, a));
          continue;
        }
        if (turn.eligibleAt === undefined) {
          out.push(verdict(false, `${how}: runs ${short(a)}, but the node was never made eligible again`, a));
          continue;
        }
        const afterMs = Math.max(0, startedMs(a) - turn.eligibleAt);
        const within = afterMs <= boundMs;
        out.push(
          verdict(
            within,
            `${how}: ${short(a)} started ${(afterMs / 1000).toFixed(1)}s after the node was eligible again (bound ${boundMs / 1000}s)`,
            a,
          ),
        );
        continue;
      }
      if (!before) {
        out.push(verdict(false, `${how}: runs ${short(a)}, but no alloc of the job ran here before the fault`, a));
        continue;
      }
      // a node the servers lost (past heartbeat_grace): its system allocs are lost, a new one is placed once it is back
      const was = e.after.find((x) => x.id === before.id) ?? before;
      if (!same && was.clientStatus === 'lost') {
        out.push(verdict(true, `${how}: ${short(before)} lost with its node, ${short(a)} placed when it was back`, a));
        continue;
      }
      out.push(
        same
          ? verdict(true, `${how}: ${short(a)} ${hit ? 'restored in place' : 'ran throughout'}`, a)
          : verdict(
              false,
              `${how}: ${short(before)} was replaced by ${short(a)} (${state(was)}), not ${hit ? 'restored in place' : 'left running'}`,
              a,
            ),
      );
    }
  }
  return out;
}

/**
 * The client nodes of each per-node job that held no place of it before the fault (Nomad did not place it there while
 * the lab was healthy), with what runs there after: not judged, said.
 */
export function unplacedNodes(e: ClusterEvidence): { jobId: string; machine: string; after: string }[] {
  return jobsOfTypes(e, [...PER_NODE]).flatMap((job) => {
    const placed = placedBefore(e, job.id);
    return Object.keys(e.nodeNames)
      .filter((n) => !placed.has(n))
      .map((nodeId) => {
        const here = e.after.filter((a) => a.jobId === job.id && a.nodeId === nodeId);
        return {
          jobId: job.id,
          machine: machineOf(e, nodeId),
          after: here.length ? here.map((a) => `${short(a)} ${state(a)}`).join(', ') : 'no alloc',
        };
      });
  });
}

/**
 * Which of Nomad's documented behaviours a drained batch alloc showed: failed and rescheduled (1.10.3-1.10.5), left to
 * run to its end (1.11.0+), stopped at the drain's deadline with no replacement (1.11.0+, MigrateDisablePlacement), or
 * migrated like a service (before 1.10.3).
 */
type DrainBehaviour = 'fail-and-reschedule' | 'complete-in-place' | 'stopped-at-deadline' | 'migrated';

/** One batch alloc that ran before the fault, judged. */
export interface BatchJudged {
  allocId: string;
  name: string;
  jobId: string;
  ok: boolean;
  outcome: string;
  machineBefore: string;
  machineAfter: string;
  /** under a drain: what Nomad did with it */
  drainBehaviour?: DrainBehaviour;
  detail: string;
}

/**
 * Every batch alloc healthy (running or complete) before the fault, followed to its end: restored in place or
 * rescheduled as its reschedule policy says, not run again once complete, under a drain one of Nomad's documented
 * behaviours, and its task not "complete" with exit code 0 after its executor was killed.
 */
export function batchOutcomes(e: ClusterEvidence): BatchJudged[] {
  const touched = touchedNodes(e);
  const jobs = new Map(jobsOfTypes(e, ['batch']).map((j) => [j.id, j]));
  return e.before
    .filter((b) => jobs.has(b.jobId))
    .map((b) => {
      const job = jobs.get(b.jobId)!;
      const a = e.after.find((x) => x.id === b.id) ?? b;
      const first = linkedSuccessor(e.after, a);
      const end = first ? latestOf(e.after, first) : a;
      const base = {
        allocId: b.id,
        name: b.name,
        jobId: b.jobId,
        machineBefore: machineOf(e, b.nodeId),
        machineAfter: machineOf(e, end.nodeId),
      };
      const fine = running(end) || ranToEnd(end);
      const moved = first ? ` -> ${short(first)} on ${machineOf(e, first.nodeId)}, now ${state(end)}` : '';
      const judged = (ok: boolean, outcome: string, detail: string, drainBehaviour?: DrainBehaviour): BatchJudged => ({
        ...base,
        ok,
        outcome,
        detail: `${outcome}: ${detail}`,
        ...(drainBehaviour ? { drainBehaviour } : {}),
      });
      const killed = executorKill(e, b.id, a);
      if (killed?.completeWithZero)
        return judged(false, 'complete with exit 0 after its executor was killed', killed.line);
      const withKill = (j: BatchJudged): BatchJudged => (killed ? { ...j, detail: `${j.detail}; ${killed.line}` } : j);
      if (ranToEnd(b)) {
        const again =
          first ??
          e.after.find(
            (x) => x.name === b.name && x.id !== b.id && x.createIndex > e.disruptionIndex && !x.previousAllocation,
          );
        return again
          ? judged(
              false,
              'run again',
              `it had completed before the fault, then ${short(again)} ran it again (${state(again)})`,
            )
          : judged(true, 'not run again', `completed before the fault; ${state(a)} after it, no new alloc`);
      }
      if (!touched.has(b.nodeId))
        return withKill(judged(fine, fine ? 'untouched' : 'ended badly', `its node was not hit; ${state(a)}${moved}`));
      const allows = !(job.noReschedule ?? []).includes(b.taskGroup);
      const drained = e.turns.some((t) => t.drain && (t.nodeId === b.nodeId || t.drain.allocsOnNode.includes(b.id)));
      if (drained) {
        if (first) {
          const behaviour: DrainBehaviour = a.clientStatus === 'failed' ? 'fail-and-reschedule' : 'migrated';
          return judged(fine, behaviour, `drained: the alloc ended ${state(a)}${moved}`, behaviour);
        }
        if (ranToEnd(a))
          return judged(
            true,
            'complete-in-place',
            `drained: left to run to its end on its node (${state(a)})`,
            'complete-in-place',
          );
        if (a.clientStatus === 'complete' && a.desiredStatus === 'stop')
          return judged(
            true,
            'stopped-at-deadline',
            `drained: left to run until the drain's deadline, then stopped with no replacement (${state(a)})`,
            'stopped-at-deadline',
          );
        if (running(a)) return judged(true, 'restored in place', `drained, then running again on its node`);
        return judged(false, 'not carried through', `drained: ended ${state(a)} with no replacement`);
      }
      if (!first) {
        if (fine) return withKill(judged(true, 'restored in place', `${state(a)} on its node`));
        if (a.clientStatus === 'failed' && !allows)
          return withKill(judged(true, 'failed, not rescheduled', `${state(a)}; its reschedule policy allows none`));
        return withKill(
          judged(
            false,
            'not rescheduled',
            `${state(a)} with no replacement${a.clientStatus === 'lost' ? ' (a lost alloc is replaced whatever the policy)' : '; its reschedule policy allows one'}`,
          ),
        );
      }
      if (a.clientStatus === 'failed' && !allows)
        return withKill(judged(false, 'rescheduled against its policy', `its reschedule policy allows none${moved}`));
      return withKill(
        judged(fine, a.clientStatus === 'lost' ? 'replaced (node lost)' : 'rescheduled', `${state(a)}${moved}`),
      );
    });
}

/** An executor-kill that hit this alloc: its task's first end after the kill, and whether that was "complete, exit 0". */
function executorKill(
  e: ClusterEvidence,
  allocId: string,
  a: AllocSnap,
): { line: string; completeWithZero: boolean } | undefined {
  const turn = e.turns.find((t) => t.reboot.kind === 'executor-kill' && t.reboot.facts?.['executor.alloc'] === allocId);
  if (!turn) return undefined;
  const task = turn.reboot.facts?.['executor.task'] ?? '';
  const t = a.tasks[task];
  if (!t)
    return {
      line: `its executor was killed (task ${task}), the task is not in the alloc after`,
      completeWithZero: false,
    };
  const after = t.events.filter((ev) => ev.timeMs >= turn.reboot.requestedAt);
  const end = after.find((ev) => ev.type === 'Terminated');
  if (!end)
    return { line: `its executor was killed (task ${task}); no Terminated event after it`, completeWithZero: false };
  const code = exitCode(end);
  const next = after.slice(after.indexOf(end) + 1);
  const restarted = next.some((ev) => ev.type === 'Restarting' || ev.type === 'Started');
  const completeWithZero = code === '0' && !restarted && t.state === 'dead' && !t.failed;
  const how = restarted ? 'restarted after it' : `task ${t.state}${t.failed ? ' (failed)' : ''}`;
  return {
    line: `its executor was killed (task ${task}): Terminated with exit code ${code ?? '(none)'}${end.details['signal'] && end.details['signal'] !== '0' ? `, signal ${end.details['signal']}` : ''}, ${how}`,
    completeWithZero,
  };
}

/** The exit code a Terminated event carries (Details.exit_code), if any. */
function exitCode(ev: TaskEventRec): string | undefined {
  return ev.details['exit_code'];
}

/** Whether the run has a job of one of these types. */
export function hasJobOfTypes(e: Pick<ClusterEvidence, 'jobs'>, types: readonly JobType[]): boolean {
  return jobsOfTypes(e, types).length > 0;
}

/**
 * The evidence restricted to the allocs of jobs of these types, the expected count theirs only: the checks written
 * for one type (allocs-followed for services) judge only its allocs. Undefined when the run has no such job.
 */
export function viewOfTypes(e: ClusterEvidence, types: readonly JobType[]): ClusterEvidence | undefined {
  if (!e.jobs) return types.includes('service') ? e : undefined;
  const jobs = jobsOfTypes(e, types);
  if (!jobs.length) return undefined;
  const ids = new Set(jobs.map((j) => j.id));
  return {
    ...e,
    jobs,
    expectedAllocs: jobs.reduce((n, j) => n + j.expectedAllocs, 0),
    before: e.before.filter((a) => ids.has(a.jobId)),
    after: e.after.filter((a) => ids.has(a.jobId)),
  };
}

/** "2 allocs of system or batch jobs (judged by their own checks)", or "" when every alloc is of these types. */
export function othersLine(e: ClusterEvidence, types: readonly JobType[]): string {
  const others = e.before.filter((a) => !types.includes(jobTypeOf(e, a.jobId)));
  if (!others.length) return '';
  const kinds = [...new Set(others.map((a) => jobTypeOf(e, a.jobId)))].join(', ');
  return `${others.length} alloc${others.length === 1 ? '' : 's'} of ${kinds} jobs not judged here (system-allocs, batch-outcome and no-extra-alloc judge them)`;
}
