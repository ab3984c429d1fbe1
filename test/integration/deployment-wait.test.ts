// The wait before a fault for the job's deployment (lib/steps/job-steps.ts waitForDeploymentDone) against the
// Nomad API STAND-IN (test/helpers/fake-nomad), not Nomad: it blocks on the deployment until Nomad ends it, returns
// how it ended (successful, failed, or none for a job without one), and names the deployment when its deadline passes.
import { performance } from 'node:perf_hooks';
import t from 'tap';
import { createNomad } from '../../lib/nomad/client.js';
import { createHttpTransport } from '../../lib/nomad/transport.js';
import { deadlineIn } from '../../lib/time/deadlines.js';
import { TimeoutError } from '../../lib/errors.js';
import { waitFor } from '../../lib/time/wait-for.js';
import { waitForDeploymentDone } from '../../lib/steps/job-steps.js';
import { startFakeNomad } from '../helpers/fake-nomad/index.js';
import { MIN_HEALTHY_STEPS } from '../helpers/fake-nomad/deployments.js';
import { WEB_JOB_HCL } from '../helpers/fake-nomad/sample-job.js';

const STEP_MS = 100;

async function started(t: { teardown(fn: () => unknown): void }, stepMs = STEP_MS) {
  const fake = await startFakeNomad({ timeline: 'restored', clientNodeName: 'nrh-abc-client', stepMs });
  t.teardown(() => fake.close());
  const nomad = createNomad({ transport: createHttpTransport({ addr: fake.addr }) });
  return { fake, nomad };
}

t.test('a running deployment: waited for until Nomad marks it successful, on blocking queries', async (t) => {
  // Note: slower stand-in steps here: the wait must start while the deployment still runs (it would otherwise just
  // read it done), and a loaded host once took longer than 5 steps of 100 ms between two reads. At 400 ms the
  // deployment runs 2 s before it ends; the wait starts as soon as it exists, not once the alloc runs.
  const step = 400;
  const { fake, nomad } = await started(t, step);
  const t0 = performance.now();
  await nomad.registerJob(await nomad.parseJob(WEB_JOB_HCL), WEB_JOB_HCL);
  await waitFor(
    'the deployment to start',
    async () =>
      (await nomad.jobDeployment('web')).body ? { done: true, value: true } : { done: false, reason: 'none' },
    { deadline: deadlineIn(10_000) },
  );
  const d = await waitForDeploymentDone(nomad, 'web', deadlineIn(60_000));
  const took = performance.now() - t0;
  t.match(d, { status: 'successful', statusDescription: 'Deployment completed successfully' });
  // the stand-in starts a task 2 steps after placing it, and its deployment ends min_healthy_time after that: a wait
  // that returned when the alloc ran (2 steps) would be under this floor; the stand-in's changes never run early (its
  // queue re-reads the clock when its timer fires)
  const floor = (2 + MIN_HEALTHY_STEPS) * step;
  t.ok(took >= floor, `ended min_healthy_time after the task started (${Math.round(took)} ms >= ${floor} ms)`);
  const reads = fake.requests.filter((r) => r.path === '/v1/job/web/deployment');
  t.ok(
    reads.some((q) => q.query.index && /^\d+ms$/.test(q.query.wait ?? '')),
    'blocked on the deployment with index + wait',
  );
  t.ok(reads.length <= 5, `no polling (${reads.length} reads, the set-up's included)`);
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
  const { fake, nomad } = await started(t);
  const hcl = WEB_JOB_HCL.replace('type = "service"', 'type = "batch"');
  await nomad.registerJob(await nomad.parseJob(hcl), hcl);
  // answered from its first read (no deployment), not after waiting: one read, no blocking query
  t.equal(await waitForDeploymentDone(nomad, 'web', deadlineIn(60_000)), undefined);
  const reads = fake.requests.filter((r) => r.path === '/v1/job/web/deployment');
  t.equal(reads.length, 1, 'answered at once: one read');
  t.notOk(reads[0]?.query.index, 'not a blocking query');
});

t.test('past its deadline: a TimeoutError naming the deployment and its state', async (t) => {
  // Note: slow stand-in steps (the deployment runs from 1 s to 11 s after the registration) and a 3 s deadline: the
  // wait's first read must answer before the deadline (a 60 ms one did not on a loaded host) and the deadline must
  // pass while the deployment still runs, with seconds of slack either way
  const step = 2000;
  const { nomad } = await started(t, step);
  await nomad.registerJob(await nomad.parseJob(WEB_JOB_HCL), WEB_JOB_HCL);
  await waitFor(
    'the deployment to start',
    async () =>
      (await nomad.jobDeployment('web')).body ? { done: true, value: true } : { done: false, reason: 'none' },
    { deadline: deadlineIn(10_000) },
  );
  const err = await waitForDeploymentDone(nomad, 'web', deadlineIn(3000)).catch((e: unknown) => e);
  t.type(err, TimeoutError);
  t.match(
    (err as Error).message,
    /Nomad to finish job "web"'s deployment.*deployment [0-9a-f]{8} running \("Deployment is running"\)/s,
  );
});
