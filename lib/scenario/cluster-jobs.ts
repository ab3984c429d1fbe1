// The jobs of a cluster run: the user's own (each parsed by the servers and checked for what the scenario can judge)
// or the shipped spread job, registered, and awaited until every alloc runs (a batch or sysbatch alloc: or has run to
// its end), on every client whose other drivers the jobs use are healthy too.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AllocSnap } from '../model/evidence.js';
import type { RunContext } from '../run/context.js';
import type { ScenarioEnv } from '../run/scenario.js';
import type { Nomad } from '../nomad/client.js';
import type { ApiJob } from '../nomad/api-types.js';
import { ConfigError } from '../errors.js';
import { expectedAllocsOn, jobInfo, jobProblems, type JobInfo } from '../parse/nomad-job.js';
import type { ProbeKinds } from '../checks/probe-kind.js';
import { CLUSTER_JOB_TYPES, JOB_FIELD, jobLab, varFile } from './job-input.js';
import { waitForNodeReady } from '../nomad/wait.js';
import { waitForJobHealthy } from './job-steps.js';

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
        { values: own.length ? { 'job.file': file } : { 'job.count': count } },
      ),
    );
  const jobIds = jobs.map((j) => j.job.ID);
  const jobId = jobIds[0]!;
  const expectedAllocs = jobs.reduce((n, j) => n + j.expected, 0);
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
      values: { 'job.id': j.job.ID },
    });
  const lab0 = { memoryMb: config.lab.memoryMb, cpus: config.lab.cpus };
  const healthy: AllocSnap[] = [];
  for (const j of jobs)
    healthy.push(
      ...(await ctx.step(
        `wait until every alloc of the job${of(j)} runs`,
        (d) => waitForJobHealthy(nomad, j.job.ID, j.expected, lab0, d, { runsToEnd: runsToEnd(j.info.type) }),
        {
          timeoutMs: (4 + 2 * j.expected) * MIN,
          values: { 'job.expected_allocs': j.expected },
        },
      )),
    );
  return { jobs, jobIds, jobId, expectedAllocs, several, healthy };
}
