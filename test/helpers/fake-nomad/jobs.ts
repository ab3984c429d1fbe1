// Part of the Nomad API stand-in (not Nomad): job register and deregister as the server does them
// (job + eval at one index, the plan's allocs at the next, eval complete after).
import type { ApiJob, ApiJobDeregisterResponse, ApiJobRegisterResponse } from '../../../lib/nomad/api-types.js';
import type { Cluster } from './cluster.js';
import { nowNs, nowRfc3339, taskEvent } from './payloads.js';
import { startDeployment } from './deployments.js';
import { perNode, placeSystem } from './job-types.js';

/**
 * The job as the server stores and serves it (/v1/job/:id, Job events): the api-only job-level Migrate and Reschedule
 * (null in the parse output) are gone, each task has CSIPluginConfig (real 1.9.7 and 2.0.5 job.json vs jobs-parse.json).
 */
function storedJob(submitted: ApiJob): ApiJob {
  const { Migrate: _m, Reschedule: _r, ...job } = submitted as ApiJob & { Migrate?: unknown; Reschedule?: unknown };
  return {
    ...job,
    TaskGroups: job.TaskGroups?.map((g) => ({
      ...g,
      Tasks: g.Tasks?.map((t) => ({ CSIPluginConfig: null, ...t })),
    })),
  } as ApiJob;
}

/** POST /v1/jobs: store the job, create an eval, place allocs on the client node if it is ready. */
export function registerJob(c: Cluster, submitted: ApiJob): ApiJobRegisterResponse {
  // real getJobStatus: a system job is running from its registration on (JobRegistered/running), others pending
  const Status = submitted.Type === 'system' ? 'running' : 'pending';
  const job: ApiJob = { ...storedJob(submitted), Status, Stop: false, SubmitTime: nowNs(), Version: 0 };
  const old = c.jobs.get(job.ID);
  const jobIndex = c.commit(['jobs'], (idx) => {
    job.CreateIndex = old?.CreateIndex ?? idx;
    job.ModifyIndex = job.JobModifyIndex = idx;
    c.jobs.set(job.ID, job);
  });
  const ev = c.createEval(job, 'job-register', 'pending');
  c.later(0.5, () => {
    // Note: a re-registration keeps the running allocs (the stand-in does no other job updates)
    const liveAllocs = [...c.allocs.values()].filter((a) => a.JobID === job.ID && a.DesiredStatus === 'run');
    const live = liveAllocs.length > 0;
    const failures: Record<string, unknown> = {};
    // Note: system, sysbatch and batch jobs have no deployment
    if (!live && !['system', 'sysbatch', 'batch'].includes(job.Type ?? '')) startDeployment(c, job);
    if (perNode(job)) placeSystem(c, job, ev.ID);
    else if (!live && c.node.Status === 'ready') c.placeAllocs(job, ev.ID, [], new Set(), failures);
    // a scale-up: place the missing indexes, keep the running allocs (their names are job.group[index])
    const names = new Set(liveAllocs.map((a) => a.Name));
    const missing = (job.TaskGroups ?? []).some((g) =>
      Array.from({ length: g.Count }, (_, i) => `${job.ID}.${g.Name}[${i}]`).some((n) => !names.has(n)),
    );
    if (live && missing && !perNode(job) && c.node.Status === 'ready') c.placeAllocs(job, ev.ID, [], names, failures);
    const blocked = !live && !perNode(job) && c.node.Status !== 'ready';
    // a placement failure leaves a blocked eval behind (it places the rest once something changes on the node)
    // real v1.9.3: the blocked eval carries the same FailedTGAllocs (test/fixtures/nomad/real-1.9.3/placement-failure)
    const blockedEval = Object.keys(failures).length
      ? c.createEval(job, 'queued-allocs', 'blocked', { FailedTGAllocs: failures })
      : undefined;
    c.commit(['evals'], (idx) => {
      Object.assign(ev, { Status: 'complete', ModifyIndex: idx });
      // the eval whose plan created the deployment names it (real event streams: job-register EvaluationUpdated/complete)
      const dep = c.deployments.get(job.ID);
      if (dep && dep.JobModifyIndex === job.JobModifyIndex) Object.assign(ev, { DeploymentID: dep.ID });
      if (blocked)
        ev.FailedTGAllocs = Object.fromEntries(
          (job.TaskGroups ?? []).map((g) => [
            g.Name,
            {
              NodesEvaluated: 0,
              NodesFiltered: 0,
              NodesInPool: 1,
              NodesAvailable: { dc1: 0 },
              CoalescedFailures: g.Count - 1,
            },
          ]),
        );
      if (blockedEval) Object.assign(ev, { FailedTGAllocs: failures, BlockedEval: blockedEval.ID });
    });
  });
  return {
    EvalID: ev.ID,
    EvalCreateIndex: ev.CreateIndex,
    JobModifyIndex: jobIndex,
    Warnings: '',
    Index: ev.CreateIndex,
  };
}

/** DELETE /v1/job/:id: mark the job stopped (or remove it with purge) and stop its allocs. */
export function stopJob(c: Cluster, id: string, purge: boolean): ApiJobDeregisterResponse | undefined {
  const job = c.jobs.get(id);
  if (!job) return undefined;
  const jobIndex = c.commit(
    ['jobs'],
    (idx) => {
      if (purge) c.jobs.delete(id);
      else Object.assign(job, { Stop: true, Status: 'dead', ModifyIndex: idx, JobModifyIndex: idx });
    },
    'JobDeregistered',
  );
  const ev = c.createEval(job, 'job-deregister');
  for (const a of [...c.allocs.values()].filter((x) => x.JobID === id && x.DesiredStatus === 'run')) {
    c.updateAlloc(
      a.ID,
      (x) => Object.assign(x, { DesiredStatus: 'stop', DesiredDescription: 'alloc not needed due to job update' }),
      'PlanResult',
    );
    if (!c.agentUp) continue;
    c.later(1, () =>
      c.updateAlloc(a.ID, (x) => {
        for (const [t, st] of Object.entries(x.TaskStates ?? {})) {
          if (st.State === 'dead') continue;
          c.appendEvent(x, t, taskEvent('Killing', 'Sent interrupt. Waiting 5s before force killing'));
          c.appendEvent(x, t, taskEvent('Killed', 'Task successfully killed'));
          Object.assign(st, { State: 'dead', FinishedAt: nowRfc3339() });
        }
        if (x.ClientStatus === 'running' || x.ClientStatus === 'pending')
          Object.assign(x, { ClientStatus: 'complete', ClientDescription: 'All tasks have completed' });
      }),
    );
  }
  return { EvalID: ev.ID, EvalCreateIndex: ev.CreateIndex, JobModifyIndex: jobIndex };
}
