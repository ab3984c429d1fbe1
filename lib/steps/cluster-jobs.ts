// The jobs of a cluster run: the user's own (each parsed by the servers and checked for what the scenario can judge)
// or the shipped spread job, registered, and awaited until every alloc runs (a batch or sysbatch alloc: or has run to
// its end), on every client whose other drivers the jobs use are healthy too. A system or sysbatch job is expected
// where Nomad placed it while the lab was healthy (a constraint may keep it off some clients), not on every client.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AllocSnap } from '../model/evidence.js';
import { STEP_IDS } from '../model/run.js';
import type { RunContext } from '../run/context.js';
import type { ScenarioEnv } from '../run/scenario.js';
import type { Nomad } from '../nomad/client.js';
import type { ApiAllocListStub, ApiEvaluation, ApiJob } from '../nomad/api-types.js';
import type { Deadline } from '../time/deadlines.js';
import { waitFor } from '../time/wait-for.js';
import { blockingProbe } from '../nomad/wait.js';
import { ConfigError } from '../errors.js';
import { expectedAllocsOn, jobInfo, jobProblems, type JobInfo } from '../parse/nomad-job.js';
import type { ProbeKinds } from '../checks/probe-kind.js';
import { CLUSTER_JOB_TYPES, JOB_FIELD, jobLab, varFile } from './job-input.js';
import { waitForNodeReady } from '../nomad/wait.js';
import { waitForJobHealthy } from './job-steps.js';
import { SYSTEM_ALLOCS } from '../checks/system-allocs.js';
import { BATCH_OUTCOME } from '../checks/batch-outcome.js';
import { NO_EXTRA_ALLOC } from '../checks/no-extra-alloc.js';
import { VOLUME_DATA, VOLUME_STATE } from '../checks/volume-data.js';
import { dynamicVolumeNames } from '../parse/nomad-job.js';
import { LAB_HOST_VOLUME, type DynamicVolume } from '../model/volumes.js';
import { createDynamicVolumes } from './volume-steps.js';

/** The checks of what a cluster run's jobs promise by type and of their volumes, in report order (every cluster scenario). */
export const JOB_CHECKS = [SYSTEM_ALLOCS, BATCH_OUTCOME, NO_EXTRA_ALLOC, VOLUME_DATA, VOLUME_STATE] as const;

const JOB_FILE = fileURLToPath(new URL('../../jobs/bridge-exec-http-spread.nomad.hcl', import.meta.url));
const MIN = 60_000;

/** A job as parsed by the server, with what the scenario reads of it. */
interface ParsedJob {
  hcl: string;
  job: ApiJob;
  info: JobInfo;
  /** the allocs it means to run on this lab (a system group: one per client) */
  expected: number;
}

/** A system or sysbatch job: one alloc on each node Nomad finds feasible. */
const perNode = (type: string): boolean => type === 'system' || type === 'sysbatch';

/**
 * Pure: the node of each alloc a per-node job holds once Nomad has evaluated it (every eval of the job past pending; a
 * blocked one waits for capacity that may never come, so what is placed then is the placement), undefined before.
 */
export function settledPlacements(
  evals: readonly Pick<ApiEvaluation, 'Status'>[],
  allocs: readonly Pick<ApiAllocListStub, 'DesiredStatus' | 'NodeID'>[],
): string[] | undefined {
  if (!evals.length || evals.some((e) => e.Status === 'pending')) return undefined;
  return allocs.filter((a) => a.DesiredStatus === 'run').map((a) => a.NodeID);
}

/** Wait until Nomad has evaluated the per-node job; the node of each alloc it placed. */
async function waitForPlacements(nomad: Nomad, jobId: string, d: Deadline): Promise<string[]> {
  const probe = blockingProbe(
    (q) => nomad.jobEvaluations(jobId, q),
    async (evals, dd) => {
      const nodes = settledPlacements(evals, (await nomad.jobAllocations(jobId, { signal: dd.signal })).body);
      return nodes ? { done: true as const, value: nodes } : { done: false as const, reason: 'an eval is pending' };
    },
  );
  return waitFor(`Nomad to place job "${jobId}"`, probe, { deadline: d, intervals: [50] });
}

/** The lab machine of a node ID (its ID's start when it is none). */
const machineOfNode = (nodeOf: Readonly<Record<string, string>>, id: string): string =>
  Object.entries(nodeOf).find(([, n]) => n === id)?.[0] ?? id.slice(0, 8);

/** A batch or sysbatch job's allocs run to an end: complete is as good as running. */
export const runsToEnd = (type: string): boolean => type === 'batch' || type === 'sysbatch';

/**
 * The probe kinds of several jobs as one lookup by group (a series service is "<group>/<port>"): the jobs' groups
 * named alike share a row, the first job's kind winning. Pure.
 */
export function mergedProbeKinds(jobs: readonly ParsedJob[]): ProbeKinds {
  const out: ProbeKinds = {};
  for (const j of jobs) for (const [g, k] of Object.entries(j.info.probeKinds)) out[g] = { ...k, ...out[g] };
  return out;
}

/** The jobs as registered and running, with what the rest of the run reads of them. */
interface ClusterJobs {
  jobs: ParsedJob[];
  jobIds: string[];
  jobId: string;
  expectedAllocs: number;
  several: boolean;
  healthy: AllocSnap[];
  /** the dynamic host volumes created for the jobs, one per name and client */
  volumes: DynamicVolume[];
}

/** Parse, register and await every job of the run (`nodeOf`: each client machine's node ID). */
export async function setUpClusterJobs(
  ctx: RunContext,
  env: ScenarioEnv,
  nomad: Nomad,
  nodeOf: Readonly<Record<string, string>>,
): Promise<ClusterJobs> {
  const { config } = env;
  const clients = Object.keys(nodeOf);
  // the user's jobs as written (their variables from job.vars), or the shipped one with one alloc per client (at least
  // two, so that a drain has somewhere to move one while the other serves)
  const own = config.job.files;
  const files = own.length ? own : [JOB_FILE];
  const count = Math.max(2, clients.length);
  ctx.fact('job.file', own.length ? own.join(', ') : undefined);
  const several = files.length > 1;
  const jobs: ParsedJob[] = [];
  for (const file of files)
    jobs.push(
      await ctx.step(
        several ? `parse the job ${basename(file)}` : 'parse the job',
        async (d) => {
          const hcl = await readFile(file, 'utf8');
          const variables = own.length ? varFile(config.job.vars) : `count = ${count}\n`;
          const job = await nomad.parseJob(hcl, { signal: d.signal, variables });
          const { info, problems } = jobInfo(job);
          const bad = [
            ...problems.map((message) => ({ message, fix: 'see the README, "Your own job"' })),
            ...(info ? jobProblems(info, own.length ? jobLab(config) : {}, CLUSTER_JOB_TYPES('this scenario')) : []),
          ];
          if (!info || bad.length)
            throw new ConfigError(
              bad.map((p) => ({
                field: own.length ? JOB_FIELD : 'job',
                value: file,
                ...p,
                ...(own.length ? {} : { fix: 'the shipped job' }),
              })),
            );
          return { hcl, job, info, expected: expectedAllocsOn(info, clients.length) };
        },
        { id: STEP_IDS.jobParse, values: own.length ? { 'job.file': file } : { 'job.count': count } },
      ),
    );
  const jobIds = jobs.map((j) => j.job.ID);
  const jobId = jobIds[0]!;
  // a host volume the jobs ask for that the lab's clients do not declare is a dynamic one (1.10+; the parse refused it
  // on an older line): created on every client before the jobs, so that Nomad can place each group on any of them
  const volumes: DynamicVolume[] = [];
  const names = [...new Set(jobs.flatMap((j) => dynamicVolumeNames(j.info, [LAB_HOST_VOLUME.name])))];
  for (const name of names)
    volumes.push(
      ...(await ctx.step(
        `create the dynamic host volume "${name}" on every client (mkdir plugin)`,
        (d) => createDynamicVolumes(ctx, nomad, name, Object.values(nodeOf), d),
        // the mkdir plugin answers at once; the client reports the directory in its next fingerprint (seconds)
        { values: { 'volume.name': name }, timeoutMs: 2 * MIN * Object.keys(nodeOf).length },
      )),
    );
  if (volumes.length)
    ctx.fact(
      'volumes.dynamic',
      volumes.map((v) => `${v.name} ${v.id.slice(0, 8)}@${machineOfNode(nodeOf, v.nodeId)}`).join(' '),
    );
  ctx.fact('job.types', jobs.map((j) => `${j.job.ID}=${j.info.type}`).join(' '));
  // the clients were awaited with exec healthy; a job's other drivers (raw_exec, docker) must be healthy too
  const drivers = [...new Set(jobs.flatMap((j) => j.info.drivers))].filter((x) => x !== 'exec');
  if (drivers.length)
    await ctx.step(
      `wait for every client's ${drivers.join(', ')} driver healthy`,
      async (d) => {
        for (const id of Object.values(nodeOf))
          for (const driver of drivers) await waitForNodeReady(nomad, { nodeId: id, driver }, { deadline: d });
      },
      { timeoutMs: 3 * MIN },
    );
  const of = (j: ParsedJob): string => (several ? ` ${j.job.ID}` : '');
  for (const j of jobs)
    await ctx.step(`register the job${of(j)}`, (d) => nomad.registerJob(j.job, j.hcl, { signal: d.signal }), {
      id: STEP_IDS.jobRegister,
      values: { 'job.id': j.job.ID },
    });
  // a per-node job is expected where Nomad placed it: a constraint (node name, pool, datacenter, an attribute) may keep
  // it off some clients, and those hold no place the fault could lose
  const machineOf = Object.fromEntries(Object.entries(nodeOf).map(([m, id]) => [id, m]));
  for (const j of jobs.filter((x) => perNode(x.info.type))) {
    const nodes = await ctx.step(`wait for Nomad to place the ${j.info.type} job${of(j)}`, async (d) => {
      const placed = await waitForPlacements(nomad, j.job.ID, d);
      const names = [...new Set(placed.map((n) => machineOf[n] ?? n.slice(0, 8)))].sort();
      ctx.fact(`job.placed.${j.job.ID}`, names.join(', ') || 'none');
      // bad input found only once the servers placed the job: the step fails naming the job and the fix, before any fault
      if (!placed.length)
        throw new ConfigError([
          {
            field: own.length ? JOB_FIELD : 'job',
            value: own.length ? (own[jobs.indexOf(j)] ?? j.job.ID) : j.job.ID,
            message: `the ${j.info.type} job "${j.job.ID}" was placed on no client of the lab (${clients.join(', ')}): its constraints or node pool match none`,
            fix: 'loosen its constraint blocks (or its node_pool, datacenters) so that at least one client meets them',
          },
        ]);
      return placed;
    });
    j.expected = nodes.length;
  }
  const expectedAllocs = jobs.reduce((n, j) => n + j.expected, 0);
  const lab0 = { memoryMb: config.lab.memoryMb, cpus: config.lab.cpus };
  const healthy: AllocSnap[] = [];
  for (const j of jobs)
    healthy.push(
      ...(await ctx.step(
        `wait until every alloc of the job${of(j)} runs`,
        (d) => waitForJobHealthy(nomad, j.job.ID, j.expected, lab0, d, { runsToEnd: runsToEnd(j.info.type) }),
        {
          id: STEP_IDS.jobRunning,
          timeoutMs: (4 + 2 * j.expected) * MIN,
          values: { 'job.expected_allocs': j.expected },
        },
      )),
    );
  return { jobs, jobIds, jobId, expectedAllocs, several, healthy, volumes };
}
