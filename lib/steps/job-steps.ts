// The whole job up to a disruption: wait until every alloc is healthy (or say why it cannot be) and until its
// deployment is done; alloc-probes.ts probes the allocs' ports and job-settle.ts waits for the job after the disruption.
import type { AllocSnap, DeploymentSnap } from '../model/evidence.js';
import { STEP_IDS } from '../model/run.js';
import type { ApiAllocListStub } from '../nomad/api-types.js';
import type { Nomad } from '../nomad/client.js';
import { toDeploymentSnap } from '../nomad/parse.js';
import { placementFailureMessage, type ApiAllocMetric, type LabSize } from '../parse/placement.js';
import { blockingProbe } from '../nomad/wait.js';
import { TimeoutError } from '../errors.js';
import { deadlineIn, type Deadline } from '../time/deadlines.js';
import type { RunContext } from '../run/context.js';
import { waitFor, type Probe } from '../time/wait-for.js';
import { deploymentActive, deploymentLine } from './settle.js';
import { readJobAllocs } from './reboot-steps.js';

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
  // A batch alloc a drain stopped without placing another (Nomad 1.11+: MigrateDisablePlacement) ended where it ran:
  // it holds its place as one that ran to its end does; nothing will run it again
  const endedInPlace = (a: ApiAllocListStub): boolean =>
    !!o.runsToEnd && a.DesiredStatus !== 'run' && ranToEnd(a) && !a.NextAllocation;
  const judge = async (allocs: ApiAllocListStub[], dd: Deadline): Promise<Probe<ApiAllocListStub[]>> => {
    const live = allocs.filter((a) => a.DesiredStatus === 'run' || endedInPlace(a));
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
    { id: STEP_IDS.jobDeployment, timeoutMs: DEPLOYMENT_WAIT_MS + 10_000 },
  );
}

/** One probe of one port: HTTP GET or a TCP connect, from the machine of slot `from` to host:port. */
