// The job after a disruption: wait until it has settled (its allocs, evals and deployment quiet for a while) with
// evidence newer than the disruption, and say how it ended.
import type {
  AllocSnap,
  DeploymentSnap,
  EvalSnap,
  SettleEnding,
  SettleRecord,
  TaskEventRec,
} from '../model/evidence.js';
import type { Nomad, ReadQuery } from '../nomad/client.js';
import { mergeTaskEvents, toAllocSnap, toDeploymentSnap, toEvalSnap } from '../nomad/parse.js';
import { MAX_BLOCK_MS } from '../nomad/wait.js';
import { EXIT, HarnessError, TimeoutError } from '../errors.js';
import { remaining, sleep, type Deadline } from '../time/deadlines.js';
import {
  clockOf,
  jobSettleState,
  settleDecision,
  settleEndMs,
  viewFingerprint,
  type DelayedReschedule,
  type Disruption,
} from './settle.js';

/** A task-event history shared by the steps of one run (Nomad keeps only the last 10 events per task). */
interface History {
  events: Record<string, TaskEventRec[]>;
}

export interface SettleInput {
  nomad: Nomad;
  jobId: string;
  /** the allocs healthy before the disruption */
  watched: string[];
  since: Disruption;
  history: History;
  /**
   * once every judged place is decided but Nomad still holds something for the job (a blocked eval, a deployment that
   * stays active): the longest wait while nothing changes
   */
  quietMs: number;
  /** once Nomad has nothing pending: how long the view must stay unchanged; default the shorter of 3 s and quietMs */
  confirmMs?: number;
  /**
   * how long the wait goes on for a place that is not decided while nothing is known to come (from the start, and
   * again from a delayed reschedule's time); default: until the deadline, which then bounds delayed reschedules too
   */
  windowMs?: number;
  /** false when the fault leaves the tasks running (agent-kill, a short partition): no restart is awaited */
  tasksRestart?: boolean;
  /** progress lines: a delayed reschedule Nomad holds (waited for, or not), and waiting on Nomad's other pending work */
  onProgress?: (line: string) => void;
}

/** How the settle wait ended, with the last view of the job. */
type SettleResult = SettleRecord & {
  allocs: AllocSnap[];
  /** when each judged place was first seen restored (Unix ms) */
  noticedAtMs: Record<string, number>;
  /** the delayed reschedules Nomad held for judged places during the wait */
  reschedules: DelayedReschedule[];
};

/** The `job.settled` fact: "yes", or why not, then the wait's last line. */
export function settleFact(s: SettleRecord): string {
  const how = s.settled
    ? 'yes'
    : s.ending === 'beyond-budget'
      ? "no (Nomad reschedules after the run's budget)"
      : 'no (deadline)';
  return `${how}: ${s.reason}`;
}

/** Default confirmation window: the two reads (allocs, then evals) of one view are a few ms apart, never seconds. */
const DEFAULT_SETTLE_CONFIRM_MS = 3000;
/** Kept back from the deadline so the last read ends before the deadline aborts it. */
const SETTLE_MARGIN_MS = 250;

/** One view of the job: its allocs (full), then its evaluations and latest deployment, with each read's index. */
interface JobView {
  allocs: AllocSnap[];
  evals: EvalSnap[];
  deployment: DeploymentSnap | undefined;
  index: { allocs: number; evals: number; deployment: number };
}

// Note: the evals and the deployment are read after the allocs (an eval that changed an alloc in the view is then in the
// list too), those two at once.
async function readJobView(nomad: Nomad, jobId: string, d: Deadline): Promise<JobView> {
  const stubs = await nomad.jobAllocations(jobId, { signal: d.signal });
  const allocs = await Promise.all(
    stubs.body.map(async (s) => toAllocSnap((await nomad.allocation(s.ID, { signal: d.signal })).body)),
  );
  const [evals, dep] = await Promise.all([
    nomad.jobEvaluations(jobId, { signal: d.signal }),
    nomad.jobDeployment(jobId, { signal: d.signal }),
  ]);
  return {
    allocs,
    evals: evals.body.map(toEvalSnap),
    deployment: dep.body ? toDeploymentSnap(dep.body) : undefined,
    index: { allocs: stubs.index, evals: evals.index, deployment: dep.index },
  };
}

/**
 * Block until the job's allocs, evaluations or deployment change after the view's indexes, or until `untilMs`: three
 * blocking queries, the first to see a change ends the others. An error ends the wait too (the next read reports it).
 */
async function nextChange(
  nomad: Nomad,
  jobId: string,
  index: JobView['index'],
  untilMs: number,
  d: Deadline,
): Promise<void> {
  const ms = Math.min(untilMs - Date.now(), remaining(d) - SETTLE_MARGIN_MS, MAX_BLOCK_MS);
  if (ms < 1) return;
  const ctl = new AbortController();
  const signal = AbortSignal.any([d.signal, ctl.signal]);
  // Note: Nomad adds up to wait/16 of jitter to a blocking query
  const wait = `${Math.max(1, Math.floor((ms * 16) / 17))}ms`;
  const q = (i: number): ReadQuery => ({ index: Math.max(1, i), wait, signal });
  const changed =
    (was: number) =>
    (r: { index: number }): boolean =>
      r.index !== was;
  const calls = [
    nomad.jobAllocations(jobId, q(index.allocs)).then(changed(index.allocs)),
    nomad.jobEvaluations(jobId, q(index.evals)).then(changed(index.evals)),
    nomad.jobDeployment(jobId, q(index.deployment)).then(changed(index.deployment)),
  ];
  try {
    await new Promise<void>((resolve) => {
      let open = calls.length;
      for (const c of calls)
        c.then(
          (yes) => (yes || --open === 0) && resolve(),
          () => resolve(),
        );
    });
  } finally {
    ctl.abort();
  }
}

/**
 * Wait until the job has settled after the disruption (lib/steps/settle.ts): every judged place decided with
 * evidence newer than the disruption and Nomad with nothing pending for the job, then the view unchanged for the
 * confirmation window. Blocks on Nomad's indexes between reads, never on a fixed sleep. A delayed reschedule inside the
 * budget is waited for; one after it ends the wait unsettled, named. Every place decided but Nomad still holding
 * something: ends once nothing changed for the quiet period. When the deadline (or the window, with nothing known to
 * come) is reached first, returns settled=false with the last state (the verdict then calls what is still changing
 * "unknown"). Never "the first read after the node is back".
 */
export async function waitForJobSettled(i: SettleInput, d: Deadline): Promise<SettleResult> {
  const confirmMs = i.confirmMs ?? Math.min(i.quietMs, DEFAULT_SETTLE_CONFIRM_MS);
  const startMs = Date.now();
  const budgetEndMs = startMs + Math.max(0, remaining(d) - SETTLE_MARGIN_MS);
  let endMs = i.windowMs === undefined ? budgetEndMs : Math.min(budgetEndMs, startMs + i.windowMs);
  // When each judged place was first seen settled (Unix ms): the restore-notice latency (lib/steps/restore-latency.ts)
  const noticedAtMs: Record<string, number> = {};
  const reschedules = new Map<string, DelayedReschedule>();
  const told = new Map<string, string>();
  const tell = (key: string, line: string): void => {
    if (told.get(key) !== line) i.onProgress?.(line);
    told.set(key, line);
  };
  let fingerprint = '';
  let unchangedSinceMs = startMs;
  let view: JobView | undefined;
  let lastReason = 'no read yet';
  let errors = 0;
  const end = (settled: boolean, ending: SettleEnding, reason: string): SettleResult => {
    const waited =
      ending === 'deadline'
        ? []
        : [...reschedules.values()]
            .filter((r) => !r.beyondBudget && r.atMs !== undefined)
            .sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
    const note = waited.length
      ? `; waited for Nomad's delayed reschedule of ${waited.map((r) => `${r.name} (${clockOf(r.atMs!)}, follow-up eval ${r.evalId.slice(0, 8)})`).join(', ')}`
      : '';
    return {
      settled,
      reason: `${reason}${note}`,
      quietMs: i.quietMs,
      confirmMs,
      ending,
      allocs: view?.allocs ?? [],
      noticedAtMs,
      reschedules: [...reschedules.values()],
    };
  };
  for (;;) {
    try {
      view = await readJobView(i.nomad, i.jobId, d);
      errors = 0;
    } catch (err) {
      if (d.signal.aborted && !(d.signal.reason instanceof TimeoutError)) throw d.signal.reason;
      if (err instanceof HarnessError && err.exitCode === EXIT.USAGE) throw err;
      if (!d.signal.aborted)
        lastReason = `${lastReason.replace(/; then error: .*$/, '')}; then error: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
      if (Date.now() >= endMs || d.signal.aborted) return end(false, 'deadline', lastReason);
      await sleep(Math.min(2000, 100 * 2 ** ++errors, Math.max(0, endMs - Date.now())), d).catch(() => undefined);
      continue;
    }
    i.history.events = mergeTaskEvents(i.history.events, view.allocs);
    const nowMs = Date.now();
    const state = jobSettleState(view.allocs, i.watched, i.since, {
      tasksRestart: i.tasksRestart ?? true,
      evals: view.evals,
      deployment: view.deployment,
      nowMs,
      budgetEndMs,
    });
    for (const s of state.slots) if (s.settled && s.currentId === s.allocId) noticedAtMs[s.allocId] ??= nowMs;
    for (const s of state.slots) {
      if (!s.reschedule) continue;
      reschedules.set(`${s.reschedule.allocId}/${s.reschedule.evalId}`, s.reschedule);
      tell(`${s.reschedule.allocId}/${s.reschedule.evalId}`, s.description);
    }
    const fp = viewFingerprint(view.allocs, view.evals, view.deployment);
    if (fp !== fingerprint) [fingerprint, unchangedSinceMs] = [fp, nowMs];
    endMs = settleEndMs(state, endMs, i.windowMs ?? budgetEndMs - startMs, budgetEndMs);
    const decision = settleDecision(state, { nowMs, unchangedSinceMs, confirmMs, quietMs: i.quietMs });
    if (decision.done) return end(decision.settled, decision.ending, decision.reason);
    lastReason = decision.reason;
    if (state.decided && state.pending.length)
      tell(
        'quiet',
        `every judged alloc's place is decided; Nomad still holds for the job: ${state.pending.join('; ')}: waiting while it changes, for up to ${i.quietMs / 1000}s without change`,
      );
    if (nowMs >= endMs) return end(false, 'deadline', lastReason);
    await nextChange(i.nomad, i.jobId, view.index, Math.min(endMs, decision.wakeAtMs ?? Infinity), d).catch(
      () => undefined,
    );
  }
}
