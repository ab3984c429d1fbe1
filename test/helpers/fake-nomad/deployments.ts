// Part of the Nomad API stand-in (not Nomad): a service job's deployment as Nomad's deployment watcher drives it. The
// scheduler creates it with the job's first placement ("Deployment is running"); once every live alloc of the job has
// run for min_healthy_time (here MIN_HEALTHY_STEPS steps) it is successful, and an alloc that fails first fails it
// (nomad@v1.9.7:nomad/structs/structs.go DeploymentStatusDescription*).
import { randomUUID as uuid } from 'node:crypto';
import type { ApiDeployment, ApiJob } from '../../../lib/nomad/api-types.js';
import type { Cluster } from './cluster.js';
import { SYSTEM_DEPLOYMENTS_SINCE, lineAtLeast } from './lines.js';
import { nowNs } from './payloads.js';

/** A deployment with the rest of the real key set (the harness reads only the ApiDeployment part). */
export type StandInDeployment = ApiDeployment & {
  TaskGroups: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
};

/** A group's progress_deadline default (10 m), as the real deployments carry it. */
const PROGRESS_DEADLINE_NS = 600e9;

/** The stand-in's min_healthy_time, in steps (Nomad's default is 10 s; health_check = "task_states"). */
export const MIN_HEALTHY_STEPS = 3;

/** The scheduler placed a new service job (or a system job, 1.11+): its deployment starts (batch jobs have none). */
export function startDeployment(c: Cluster, job: ApiJob): void {
  const type = job.Type ?? 'service';
  if (type !== 'service' && !(type === 'system' && lineAtLeast(c.version, SYSTEM_DEPLOYMENTS_SINCE))) return;
  // the key set and order of a real Deployment (1.9.7 and 2.0.5 captures: /v1/deployment/:id, /v1/job/:id/deployment)
  const groups = Object.fromEntries(
    (job.TaskGroups ?? []).map((g) => [
      g.Name,
      {
        AutoRevert: false,
        AutoPromote: false,
        ProgressDeadline: PROGRESS_DEADLINE_NS,
        RequireProgressBy: new Date(Date.now() + PROGRESS_DEADLINE_NS / 1e6).toISOString(),
        Promoted: false,
        PlacedCanaries: null,
        DesiredCanaries: 0,
        DesiredTotal: g.Count,
        PlacedAllocs: g.Count,
        HealthyAllocs: 0,
        UnhealthyAllocs: 0,
      },
    ]),
  );
  // the scheduler's plan creates it: Deployment PlanResult/running (1.10.5-2.0.5 event captures)
  c.commit(
    ['deployments'],
    (idx) => {
      c.deployments.set(job.ID, {
        ID: uuid(),
        Namespace: job.Namespace ?? 'default',
        JobID: job.ID,
        JobVersion: typeof job.Version === 'number' ? job.Version : 0,
        JobModifyIndex: job.JobModifyIndex ?? idx,
        JobSpecModifyIndex: job.JobModifyIndex ?? idx,
        JobCreateIndex: job.CreateIndex ?? idx,
        IsMultiregion: false,
        TaskGroups: groups,
        Status: 'running',
        StatusDescription: 'Deployment is running',
        EvalPriority: job.Priority ?? 50,
        CreateIndex: idx,
        ModifyIndex: idx,
        CreateTime: nowNs(),
        ModifyTime: nowNs(),
      });
    },
    'PlanResult',
  );
}

/** An alloc of the job started or failed: fail the running deployment, or mark it successful once all stay healthy. */
export function deploymentProgress(c: Cluster, jobId: string): void {
  const d = c.deployments.get(jobId);
  if (d?.Status !== 'running') return;
  const live = () => [...c.allocs.values()].filter((a) => a.JobID === jobId && a.DesiredStatus === 'run');
  // Real Nomad: the client's alloc update (health set) counts the alloc in the deployment, an AllocationUpdated event of
  // the still running deployment; then an unhealthy alloc makes the deployment watcher fail it (DeploymentStatusUpdate)
  // and a healthy one makes the scheduler's next plan mark it successful (PlanResult), as the 1.10.5-2.0.5 event
  // captures show. Never a DeploymentStatusUpdate for running or successful.
  const end = (Status: string, StatusDescription: string, health: 'HealthyAllocs' | 'UnhealthyAllocs') => {
    c.commit(
      ['deployments'],
      (idx) => {
        for (const [name, g] of Object.entries(d.TaskGroups ?? {}))
          g[health] = live().filter(
            (a) => a.TaskGroup === name && (health === 'UnhealthyAllocs') === (a.ClientStatus === 'failed'),
          ).length;
        Object.assign(d, { ModifyIndex: idx, ModifyTime: nowNs() });
      },
      'AllocationUpdated',
    );
    c.commit(
      ['deployments'],
      (idx) => Object.assign(d, { Status, StatusDescription, ModifyIndex: idx, ModifyTime: nowNs() }),
      Status === 'failed' ? 'DeploymentStatusUpdate' : 'PlanResult',
    );
  };
  if (live().some((a) => a.ClientStatus === 'failed')) {
    end('failed', 'Failed due to unhealthy allocations', 'UnhealthyAllocs');
    return;
  }
  if (!live().every((a) => a.ClientStatus === 'running')) return;
  c.later(MIN_HEALTHY_STEPS, () => {
    if (d.Status === 'running' && live().length && live().every((a) => a.ClientStatus === 'running'))
      end('successful', 'Deployment completed successfully', 'HealthyAllocs');
  });
}
