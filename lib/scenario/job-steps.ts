// The whole job across a disruption: wait until every alloc is healthy (or say why it cannot be), probe every mapped
// port of every alloc, and wait until the job has settled after the disruption with evidence newer than it.
import type {
  AllocSnap,
  DeploymentSnap,
  EvalSnap,
  HttpProbe,
  NodeSnap,
  SettleEnding,
  SettleRecord,
  TaskEventRec,
} from '../model/evidence.js';
import { probeKindOf, type ProbeKinds } from '../checks/probe-kind.js';
import { firstOf, type Lab } from '../model/lab.js';
import { httpProbe, tcpProbe } from '../lab/observe.js';
import type { ApiAllocListStub } from '../nomad/api-types.js';
import type { Nomad, ReadQuery } from '../nomad/client.js';
import { mergeTaskEvents, toAllocSnap, toDeploymentSnap, toEvalSnap, toNodeSnap } from '../nomad/parse.js';
import { placementFailureMessage, type ApiAllocMetric, type LabSize } from '../parse/placement.js';
import { blockingProbe, MAX_BLOCK_MS } from '../nomad/wait.js';
import { EXIT, HarnessError, TimeoutError } from '../errors.js';
import { deadlineIn, remaining, sleep, type Deadline } from '../time/deadlines.js';
import type { RunContext } from '../run/context.js';
import { waitFor, type Probe } from '../time/wait-for.js';
import {
  clockOf,
  deploymentActive,
  deploymentLine,
  jobSettleState,
  settleDecision,
  settleEndMs,
  viewFingerprint,
  type DelayedReschedule,
  type Disruption,
} from './settle.js';
import { readJobAllocs } from './reboot-steps.js';

/** A task-event history shared by the steps of one run (Nomad keeps only the last 10 events per task). */
interface History {
  events: Record<string, TaskEventRec[]>;
}

/** "task web dead (last events: A / B / C)" for every task of an alloc. */
function taskLine(a: ApiAllocListStub): string {
  return Object.entries(a.TaskStates ?? {})
    .map(([n, t]) => {
      const evs = (t.Events ?? [])
        .slice(-3)
        .map((e) => `${e.Type}: ${e.DisplayMessage || e.Message || ''}`)
        .join(' / ');
      return `task ${n} ${t.State}${evs ? ` (last events: ${evs})` : ''}`;
    })
    .join('; ');
}

/** One line per alloc with its last events, for a job that never became healthy. */
function describeJobAllocs(allocs: ApiAllocListStub[]): string {
  return allocs
    .map((a) => {
      const desired = a.DesiredStatus !== 'run' ? `/${a.DesiredStatus}` : '';
      return `${a.Name} ${a.ID.slice(0, 8)} ${a.ClientStatus}${desired}: ${taskLine(a) || 'no task state'}`;
    })
    .join('; ');
}

const healthy = (a: ApiAllocListStub): boolean =>
  a.ClientStatus === 'running' && Object.values(a.TaskStates ?? {}).every((t) => t.State === 'running');
/** A batch or sysbatch alloc that ran to its end: as good as running (its tasks finished, none failed). */
const ranToEnd = (a: ApiAllocListStub): boolean =>
  a.ClientStatus === 'complete' && Object.values(a.TaskStates ?? {}).every((t) => t.State === 'dead' && !t.Failed);
const ENDED = new Set(['failed', 'lost', 'complete']);

/** Nomad's placement failure for the job when it has a blocked eval and an eval with FailedTGAllocs; else undefined. */
async function placementFailure(nomad: Nomad, jobId: string, lab: LabSize, d: Deadline): Promise<string | undefined> {
  const evals = (await nomad.evaluations({ signal: d.signal })).body.filter((e) => e.JobID === jobId);
  const failed = evals
    .filter((e) => e.FailedTGAllocs && Object.keys(e.FailedTGAllocs).length)
    .sort((a, b) => b.ModifyIndex - a.ModifyIndex)[0];
  if (!failed || !evals.some((e) => e.Status === 'blocked')) return undefined;
  return placementFailureMessage(jobId, failed.FailedTGAllocs as Record<string, ApiAllocMetric>, lab);
}

/**
 * Wait until every alloc the job asks for (`expected`) runs with every task running (for a batch or sysbatch job
 * `runsToEnd`: or has run to its end); returns them as full allocs. Fails at once when an alloc failed (naming each
 * alloc and its last events) or Nomad could not place the job (its placement failure and the flag that fixes it): both
 * before any reboot, never as a verdict.
 */
export async function waitForJobHealthy(
  nomad: Nomad,
  jobId: string,
  expected: number,
  lab: LabSize,
  d: Deadline,
  o: { runsToEnd?: boolean } = {},
): Promise<AllocSnap[]> {
  const good = (a: ApiAllocListStub): boolean => healthy(a) || (!!o.runsToEnd && ranToEnd(a));
  const judge = async (allocs: ApiAllocListStub[], dd: Deadline): Promise<Probe<ApiAllocListStub[]>> => {
    const live = allocs.filter((a) => a.DesiredStatus === 'run');
    const ok = live.filter(good);
    if (ok.length >= expected && live.length === ok.length) return { done: true, value: ok };
    const state = `${ok.length} of ${expected} allocs healthy; ${describeJobAllocs(allocs) || 'no alloc yet'}`;
    if (live.some((a) => ENDED.has(a.ClientStatus) && !good(a)))
      return { done: false, terminal: true, reason: `job "${jobId}" never became healthy: ${state}` };
    const unplaced = live.length < expected ? await placementFailure(nomad, jobId, lab, dd) : undefined;
    return unplaced ? { done: false, terminal: true, reason: unplaced } : { done: false, reason: state };
  };
  const probe = blockingProbe((q) => nomad.jobAllocations(jobId, q), judge);
  const ok = await waitFor(`every alloc of job "${jobId}" (${expected}) running`, probe, {
    deadline: d,
    intervals: [50],
  });
  const ids = new Set(ok.map((a) => a.ID));
  return (await readJobAllocs(nomad, jobId, d)).filter((a) => ids.has(a.id));
}

/**
 * Wait until Nomad is done with the job's latest deployment (successful, failed or cancelled), so a fault does not
 * land inside `min_healthy_time` and the settle after it does not wait for a deployment that began before it. Returns
 * how it ended (undefined: the job has no deployment, as batch and system jobs). Blocks on the deployments table.
 */
export async function waitForDeploymentDone(
  nomad: Nomad,
  jobId: string,
  d: Deadline,
): Promise<DeploymentSnap | undefined> {
  const probe = blockingProbe(
    (q) => nomad.jobDeployment(jobId, q),
    (body): Probe<DeploymentSnap | undefined> => {
      const dep = body ? toDeploymentSnap(body) : undefined;
      return dep && deploymentActive(dep.status)
        ? { done: false, reason: deploymentLine(dep) }
        : { done: true, value: dep };
    },
  );
  return waitFor(`Nomad to finish job "${jobId}"'s deployment`, probe, { deadline: d, intervals: [50] });
}

/** How long a run waits for the job's deployment before a fault: past it, the fault comes anyway (said on the console). */
const DEPLOYMENT_WAIT_MS = 3 * 60_000;

/**
 * The step before a fault: wait for Nomad to finish the job's deployment, and record how it ended
 * (`job.deployment.before`). A deployment that failed, or still runs after DEPLOYMENT_WAIT_MS, does not stop the run
 * (its allocs run; the checks judge what the fault does to them): the console says so.
 */
export async function awaitDeploymentBeforeFault(ctx: RunContext, nomad: Nomad, jobId: string): Promise<void> {
  await ctx.step(
    "wait for Nomad to finish the job's deployment",
    async (d) => {
      let how: string;
      try {
        const dep = await waitForDeploymentDone(nomad, jobId, deadlineIn(DEPLOYMENT_WAIT_MS, d));
        how = dep ? deploymentLine(dep) : 'none (the job has no deployment)';
        if (dep && dep.status !== 'successful') ctx.info(`the job's ${how} before the fault; the fault comes anyway`);
      } catch (err) {
        if (!(err instanceof TimeoutError) || ctx.deadline.signal.aborted) throw err;
        how = `still active after ${DEPLOYMENT_WAIT_MS / 1000}s: ${err.message.split('\n')[0]}`;
        ctx.info(`the job's deployment is ${how}; the fault comes anyway`);
      }
      ctx.fact('job.deployment.before', how);
    },
    { timeoutMs: DEPLOYMENT_WAIT_MS + 10_000 },
  );
}

/** One probe of one port: HTTP GET or a TCP connect, from the machine of slot `from` to host:port. */
async function probeOne(
  lab: Lab,
  from: string,
  kind: 'http' | 'tcp',
  host: string,
  port: number,
  d: Deadline,
): Promise<HttpProbe> {
  const m = lab.machines[from]!;
  const p = kind === 'http' ? await httpProbe(m, `http://${host}:${port}/`, d) : await tcpProbe(m, host, port, d);
  return { ...p, from };
}

/**
 * The machine (slot name) an alloc runs on: its node's name, which the lab sets to the machine's slot name. A lab
 * with one client needs no node to say it; in a larger one an alloc on a node no machine carries has none (each
 * client has its own bridge subnet, so asking another client would probe some other alloc or nothing). Pure.
 */
export function machineOfAlloc(
  lab: Pick<Lab, 'machines'>,
  alloc: Pick<AllocSnap, 'nodeId'>,
  nodes: readonly NodeSnap[],
): string | undefined {
  const name = nodes.find((n) => n.id === alloc.nodeId)?.name;
  if (name && lab.machines[name]) return name;
  const clients = Object.keys(lab.machines).filter((n) => lab.machines[n]!.role === 'client');
  return clients.length === 1 ? clients[0] : undefined;
}

/**
 * Probe every mapped port of one alloc (but those the job marks `none`): its bridge address from the client it runs
 * on (a bridge address answers only there), its host port (on that node's address) from the first server.
 */
export async function probeAllocPorts(
  lab: Lab,
  alloc: AllocSnap,
  nodes: readonly NodeSnap[],
  kinds: ProbeKinds | undefined,
  d: Deadline,
): Promise<HttpProbe[]> {
  const out: HttpProbe[] = [];
  const tag = (p: HttpProbe, port: string, target: 'bridge' | 'host-port', kind: 'http' | 'tcp'): HttpProbe => ({
    ...p,
    allocId: alloc.id,
    port,
    target,
    kind,
  });
  const node = nodes.find((n) => n.id === alloc.nodeId);
  const on = machineOfAlloc(lab, alloc, nodes);
  const server = firstOf(lab, 'server').name;
  const unprobed = (from: string, url: string, error: string): HttpProbe => ({
    from,
    url,
    ok: false,
    status: undefined,
    error,
  });
  for (const m of alloc.ports) {
    const kind = probeKindOf(kinds, alloc.taskGroup, m.label);
    if (kind === 'none') continue;
    if (alloc.address) {
      const url = `${alloc.address}:${m.to}`;
      const p = on
        ? await probeOne(lab, on, kind, alloc.address, m.to, d)
        : unprobed('client', url, `its node ${alloc.nodeId.slice(0, 8)} is no machine of the lab`);
      out.push(tag(p, m.label, 'bridge', kind));
    }
    const hostIp = m.hostIp || node?.attributes['unique.network.ip-address'];
    const noHost = unprobed(server, `(host port ${m.value})`, 'no host address for the mapped port');
    out.push(tag(hostIp ? await probeOne(lab, server, kind, hostIp, m.value, d) : noHost, m.label, 'host-port', kind));
  }
  return out;
}

/**
 * What a probe of the job's ports covers: these allocs on this lab, the nodes they run on (each alloc is probed from
 * its own node's machine), the probe kinds the job asks.
 */
interface AllocsProbe {
  lab: Lab;
  allocs: AllocSnap[];
  nodes: readonly NodeSnap[];
  kinds: ProbeKinds | undefined;
}

/** Probe every running alloc's ports once. */
export async function probeAllocs({ lab, allocs, nodes, kinds }: AllocsProbe, d: Deadline): Promise<HttpProbe[]> {
  const out: HttpProbe[] = [];
  for (const a of allocs.filter((x) => x.clientStatus === 'running'))
    out.push(...(await probeAllocPorts(lab, a, nodes, kinds, d)));
  return out;
}

/** The nodes the allocs run on, as Nomad has them now (`known` ones are not read again; a node gone is left out). */
export async function allocNodes(
  nomad: Nomad,
  allocs: readonly AllocSnap[],
  known: readonly NodeSnap[],
  d: Deadline,
): Promise<NodeSnap[]> {
  const out = [...known];
  for (const id of new Set(allocs.map((a) => a.nodeId))) {
    if (out.some((n) => n.id === id)) continue;
    const n = await nomad.node(id, { signal: d.signal }).then(
      (r) => toNodeSnap(r.body),
      () => undefined,
    );
    if (n) out.push(n);
  }
  return out;
}

/** Poll until every probe of every given alloc answers (a server takes a moment to bind after its task starts). */
export async function waitForReachable(p: AllocsProbe, d: Deadline): Promise<HttpProbe[]> {
  const n = p.allocs.length;
  const what = `every mapped port of ${n} alloc${n === 1 ? '' : 's'} to answer (bridge address and host port)`;
  return waitFor(
    what,
    async (dd) => {
      const probes = await probeAllocs(p, dd);
      const bad = probes
        .filter((p) => !p.ok)
        .map((p) => `${p.allocId?.slice(0, 8)} ${p.port} ${p.from} -> ${p.url}: ${p.error}`);
      return bad.length === 0 ? { done: true, value: probes } : { done: false, reason: bad.join('; ') };
    },
    { deadline: d, intervals: [500, 1000, 2000] },
  );
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
 * Wait until the job has settled after the disruption (lib/scenario/settle.ts): every judged place decided with
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
  // When each judged place was first seen settled (Unix ms): the restore-notice latency (lib/scenario/restore-latency.ts)
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
