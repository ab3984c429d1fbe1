// Part of the Nomad API stand-in (not Nomad): a service job's deployment as Nomad's deployment watcher drives it. The
// scheduler creates it with the job's first placement ("Deployment is running"); once every live alloc of the job has
// run for min_healthy_time (here MIN_HEALTHY_STEPS steps) it is successful, and an alloc that fails first fails it
// (nomad@v1.9.7:nomad/structs/structs.go DeploymentStatusDescription*).
import { randomUUID as uuid } from 'node:crypto';
import type { ApiDeployment, ApiJob } from '../../../lib/nomad/api-types.js';
import type { Cluster } from './cluster.js';

/** The stand-in's min_healthy_time, in steps (Nomad's default is 10 s; health_check = "task_states"). */
export const MIN_HEALTHY_STEPS = 3;

/** The scheduler placed a new service job: its deployment starts (batch and system jobs have none). */
export function startDeployment(c: Cluster, job: ApiJob): void {
  if ((job.Type ?? 'service') !== 'service') return;
  c.commit(['deployments'], (idx) => {
    c.deployments.set(job.ID, {
      ID: uuid(),
      Namespace: job.Namespace ?? 'default',
      JobID: job.ID,
      JobVersion: typeof job.Version === 'number' ? job.Version : 0,
      Status: 'running',
      StatusDescription: 'Deployment is running',
      CreateIndex: idx,
      ModifyIndex: idx,
    });
  });
}

/** An alloc of the job started or failed: fail the running deployment, or mark it successful once all stay healthy. */
export function deploymentProgress(c: Cluster, jobId: string): void {
  const d = c.deployments.get(jobId);
  if (!d || d.Status !== 'running') return;
  const live = () => [...c.allocs.values()].filter((a) => a.JobID === jobId && a.DesiredStatus === 'run');
  const end = (Status: string, StatusDescription: string) =>
    c.commit(['deployments'], (idx) => Object.assign(d, { Status, StatusDescription, ModifyIndex: idx }));
  if (live().some((a) => a.ClientStatus === 'failed')) {
    end('failed', 'Failed due to unhealthy allocations');
    return;
  }
  if (!live().every((a) => a.ClientStatus === 'running')) return;
  c.later(MIN_HEALTHY_STEPS, () => {
    if (d.Status === 'running' && live().length && live().every((a) => a.ClientStatus === 'running'))
      end('successful', 'Deployment completed successfully');
  });
}
