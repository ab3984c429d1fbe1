// The user's own jobs (--job, repeatable; job.file or job.files + job.vars): checked before anything is created (Nomad's
// build parses it on the host; the scenario needs a job of a type it judges that runs once registered, drivers the box
// has and static ports the clients can hold), and read again at run time through the server.
import { access } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { HarnessConfig } from '../config/schema.js';
import type { ConfigProblem } from '../errors.js';
import type { JobConverter } from '../cluster/job-convert.js';
import { jobInfo, jobProblems, SERVICE_ONLY, type JobLab, type JobTypesTaken } from '../parse/nomad-job.js';
import { DEFAULTS } from '../config/schema.js';
import { DOCKER_BOX } from '../cluster/docker-image.js';
import { LAB_HOST_VOLUME } from '../model/volumes.js';

/** What --job takes on bridge-exec-reboot, as `list` says it (lib/parse/nomad-job.ts jobProblems refuses the rest). */
export const JOBS_TAKEN =
  'service jobs with bridge-mode groups, host-mode groups (probed on their host port; the bridge-only checks skip them) or both; exec, raw_exec or docker (the Docker box) tasks; not system, batch, sysbatch (rolling-reboot and server-reboot take them), periodic or parameterized';

/** The job types the cluster scenarios (rolling-reboot, server-reboot) judge. */
export const CLUSTER_JOB_TYPES = (scenario: string): JobTypesTaken => ({
  scenario,
  types: ['service', 'system', 'sysbatch', 'batch'],
  dynamicVolumes: true,
});

/** What --job takes on the cluster scenarios, as `list` says it. */
export const CLUSTER_JOBS_TAKEN =
  'service (bridge or host networking), system, sysbatch and batch jobs, several at once; exec, raw_exec or docker (the Docker box) tasks; kept ephemeral disks (sticky, migrate), the lab host volume "reboot-harness" and dynamic host volumes (Nomad 1.10+: any other host volume name, created on every client with the mkdir plugin) judged by volume-data and volume-state; not periodic or parameterized, nor CSI volumes';

/** How config problems about the job name their field. */
export const JOB_FIELD = 'job.file (--job)';

/** HCL variables as a var-file (what /v1/jobs/parse takes as Variables): strings quoted, numbers and booleans bare. */
export function varFile(vars: Record<string, string | number | boolean>): string {
  return Object.keys(vars)
    .sort()
    .map((k) => {
      const v = vars[k]!;
      return `${k} = ${typeof v === 'string' ? JSON.stringify(v) : String(v)}\n`;
    })
    .join('');
}

/**
 * What is wrong with the job input without asking a tool (the CLI asks this with the input's other problems, before
 * any build is resolved): variables without a file, a file with a driver variant, a file that cannot be read.
 */
export async function jobFileProblems(config: HarnessConfig, cwd = process.cwd()): Promise<ConfigProblem[]> {
  const files = config.job.files;
  if (!files.length) {
    return Object.keys(config.job.vars).length
      ? [
          {
            field: 'job.vars',
            value: config.job.vars,
            message: 'are variables for job.file, which is not set',
            fix: 'set job.file (--job) too, or drop job.vars',
          },
        ]
      : [];
  }
  if (config.task.driver !== 'exec') {
    return [
      {
        field: JOB_FIELD,
        value: files.length === 1 ? files[0] : files,
        message: `cannot be combined with --driver ${config.task.driver} (that variant runs its own job)`,
        fix: 'drop --driver; your job names its own task drivers',
      },
    ];
  }
  const out: ConfigProblem[] = [];
  for (const [k, file] of files.entries()) {
    if (files.indexOf(file) !== k) {
      out.push({
        field: JOB_FIELD,
        value: file,
        message: 'is given twice',
        fix: 'give each job file once',
      });
      continue;
    }
    try {
      await access(resolve(cwd, file));
    } catch (err) {
      out.push({
        field: JOB_FIELD,
        value: file,
        // A relative path is read from the working directory, which a user running from another folder may not expect.
        message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})${
          isAbsolute(file) ? '' : ` (a relative path is read from the working directory: ${resolve(cwd, file)})`
        }`,
        fix: 'give the path of an existing .nomad.hcl file',
      });
    }
  }
  return out;
}

/**
 * Every problem with the user's job at once: unreadable, Nomad cannot parse it, a type the scenario does not judge, a
 * service job with nothing to probe, periodic or parameterized, a driver the box lacks, a static port on more allocs
 * than clients.
 */
export async function checkJobInput(
  config: HarnessConfig,
  convert: JobConverter,
  taken: JobTypesTaken = SERVICE_ONLY,
): Promise<ConfigProblem[]> {
  const files = config.job.files;
  const first = await jobFileProblems(config);
  if (!files.length || first.length) return first;
  // Note: without a build on the command line (compare, matrix) the server parses the job at run time instead.
  if (!config.nomadBinary) return [];
  const out: ConfigProblem[] = [];
  const ids = new Map<string, string>();
  for (const file of files) {
    const r = await convert({ nomadBinary: config.nomadBinary, file, vars: config.job.vars });
    if (!r.ok) {
      out.push({
        field: JOB_FIELD,
        value: file,
        message: `Nomad cannot parse it: ${r.message}`,
        fix: 'fix the job file at the place Nomad names (or its variables in job.vars)',
      });
      continue;
    }
    const { info, problems } = jobInfo(r.job);
    out.push(
      ...problems.map((p) => ({
        field: JOB_FIELD,
        value: file,
        message: p,
        fix: 'write reboot_harness_probe_<port label> = "http", "tcp" or "none"',
      })),
    );
    if (!info) continue;
    out.push(...jobProblems(info, jobLab(config), taken).map((p) => ({ field: JOB_FIELD, value: file, ...p })));
    const twin = ids.get(info.id);
    if (twin)
      out.push({
        field: JOB_FIELD,
        value: file,
        message: `job "${info.id}" is also the job of ${twin}: registering it again would update that job, not run a second one`,
        fix: 'give each job its own name (job "<name>")',
      });
    ids.set(info.id, file);
  }
  return out;
}

/**
 * What the config's lab offers a job before it exists: its clients, and the drivers of the boxes the harness builds
 * (the default box runs exec, and raw_exec when a job uses it: the clients enable it then; Docker absent; the Docker box
 * adds docker). Existing hosts (lab.provider: ssh) and other boxes are asked once the lab is up.
 */
export function jobLab(config: Pick<HarnessConfig, 'lab'>): JobLab {
  const drivers =
    config.lab.provider === 'ssh'
      ? undefined
      : config.lab.box === DEFAULTS.lab.box
        ? ['exec', 'raw_exec']
        : config.lab.box === DOCKER_BOX
          ? ['exec', 'raw_exec', 'docker']
          : undefined;
  // every client the harness installs declares the lab's host volume (vms/templates/client.hcl)
  return {
    clients: config.lab.clients,
    hostVolumes: [LAB_HOST_VOLUME.name],
    ...(drivers ? { drivers, box: config.lab.box } : {}),
  };
}
