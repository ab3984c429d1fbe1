// The wait before a fault for the job's deployment (lib/scenario/job-steps.ts waitForDeploymentDone) against the
// Nomad API STAND-IN (test/helpers/fake-nomad), not Nomad: it blocks on the deployment until Nomad ends it, returns
// how it ended (successful, failed, or none for a job without one), and names the deployment when its deadline passes.
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { createNomad } from '../../lib/nomad/client.js';
import { createHttpTransport } from '../../lib/nomad/transport.js';
import { waitForAllocRunning } from '../../lib/nomad/wait.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { TimeoutError } from '../../lib/errors.js';
import { waitFor } from '../../lib/time/wait-for.js';
import { waitForDeploymentDone } from '../../lib/scenario/job-steps.js';
import { startFakeNomad } from '../helpers/fake-nomad/index.js';
import { MIN_HEALTHY_STEPS } from '../helpers/fake-nomad/deployments.js';
import { WEB_JOB_HCL } from '../helpers/fake-nomad/sample-job.js';

const STEP_MS = 100;

async function started(t: { teardown(fn: () => unknown): void }) {
  const fake = await startFakeNomad({ timeline: 'restored', clientNodeName: 'nrh-abc-client', stepMs: STEP_MS });
  t.teardown(() => fake.close());
  const nomad = createNomad({ transport: createHttpTransport({ addr: fake.addr }) });
  return { fake, nomad };
}

t.test('a running deployment: waited for until Nomad marks it successful, on blocking queries', async (t) => {
  const { fake, nomad } = await started(t);
  // Note: measured from the registration, not from "the alloc runs": a loaded machine can return from that wait
  // most of min_healthy_time after the task started. Timers only ever fire late, so this bound holds under load.
  const t0 = performance.now();
  await nomad.registerJob(await nomad.parseJob(WEB_JOB_HCL), WEB_JOB_HCL);
  await waitForAllocRunning(nomad, 'web', { deadline: deadlineIn(5000) });
  t.match(
    (await nomad.jobDeployment('web')).body,
    { Status: 'running' },
    'the alloc runs, its deployment does not end yet',
  );
  const d = await waitForDeploymentDone(nomad, 'web', deadlineIn(10_000));
  const took = performance.now() - t0;
  t.match(d, { status: 'successful', statusDescription: 'Deployment completed successfully' });
  // the stand-in starts a task 2 steps after placing it, and its deployment ends min_healthy_time after that
  const floor = (2 + MIN_HEALTHY_STEPS) * STEP_MS;
  t.ok(took >= floor, `ended min_healthy_time after the task started (${Math.round(took)} ms >= ${floor} ms)`);
  const reads = fake.requests.filter((r) => r.path === '/v1/job/web/deployment');
  t.ok(
    reads.some((q) => q.query.index && /^\d+ms$/.test(q.query.wait ?? '')),
    'blocked on the deployment with index + wait',
  );
  t.ok(reads.length <= 4, `no polling (${reads.length} reads)`);
});

t.test('a deployment that fails (a task that cannot start): returned as failed, not waited on', async (t) => {
  const { fake, nomad } = await started(t);
  fake.cluster.failStart.set('web.web[0]', 'failed to launch command with executor: permission denied');
  await nomad.registerJob(await nomad.parseJob(WEB_JOB_HCL), WEB_JOB_HCL);
  await waitFor(
    'the alloc to fail',
    async () => {
      const failed = (await nomad.jobAllocations('web')).body.some((a) => a.ClientStatus === 'failed');
      return failed ? { done: true, value: true } : { done: false, reason: 'not failed yet' };
    },
    { deadline: deadlineIn(5000) },
  );
  const d = await waitForDeploymentDone(nomad, 'web', deadlineIn(10_000));
  t.match(d, { status: 'failed', statusDescription: 'Failed due to unhealthy allocations' });
});

t.test('a batch job has no deployment: nothing to wait for', async (t) => {
  const { nomad } = await started(t);
  const hcl = WEB_JOB_HCL.replace('type = "service"', 'type = "batch"');
  await nomad.registerJob(await nomad.parseJob(hcl), hcl);
  const t0 = performance.now();
  t.equal(await waitForDeploymentDone(nomad, 'web', deadlineIn(10_000)), undefined);
  t.ok(performance.now() - t0 < 2000, 'answered at once');
});

t.test('past its deadline: a TimeoutError naming the deployment and its state', async (t) => {
  const { nomad } = await started(t);
  await nomad.registerJob(await nomad.parseJob(WEB_JOB_HCL), WEB_JOB_HCL);
  await waitForAllocRunning(nomad, 'web', { deadline: deadlineIn(5000) });
  const err = await waitForDeploymentDone(nomad, 'web', deadlineIn(60)).catch((e: unknown) => e);
  t.type(err, TimeoutError);
  t.match(
    (err as Error).message,
    /Nomad to finish job "web"'s deployment.*deployment [0-9a-f]{8} running \("Deployment is running"\)/s,
  );
});
