// What a scenario is: a name, what it checks, and a script that reads like the manual procedure.
import type { CheckDef, CheckResult } from '../model/check.js';
import type { Lab } from '../model/lab.js';
import type { Nomad } from '../nomad/client.js';
import type { HarnessConfig } from '../config/schema.js';
import type { ConfigProblem } from '../errors.js';
import type { Deadline } from '../time/deadlines.js';
import type { RunContext } from './context.js';
import type { JobConverter } from '../cluster/job-convert.js';

/** How a scenario gets its machines and its Nomad: real VMs in a run, stand-ins in integration tests. */
export interface ScenarioEnv {
  config: HarnessConfig;
  /** bring up the lab (registers its teardown on ctx.cleanup before creating anything); default roles: server and client */
  upLab(ctx: RunContext, d: Deadline, opts?: { roles?: string[] }): Promise<Lab>;
  /** install the Nomad build and start the agents; returns what `nomad version` said */
  provisionNomad(ctx: RunContext, lab: Lab, d: Deadline): Promise<{ nomadVersion: string }>;
  /** a Nomad API client that reaches the server agent (through an SSH tunnel in a real run) */
  connectNomad(ctx: RunContext, lab: Lab, d: Deadline): Promise<Nomad>;
  /**
   * a Nomad API client per server machine (by slot name), each reaching that server's own agent, for reads answered
   * from each server's own state (servers-agree). Optional: without it the servers are not compared.
   */
  connectServers?(ctx: RunContext, lab: Lab, d: Deadline): Promise<Record<string, Nomad>>;
  /**
   * swap the Nomad binary of one machine to `binary` and restart its agent WITHOUT draining (in-place upgrade);
   * returns what the new `nomad version` said. Optional: only the upgrade scenarios need it.
   */
  upgradeNomad?(
    ctx: RunContext,
    lab: Lab,
    role: string,
    binary: string,
    d: Deadline,
  ): Promise<{ nomadVersion: string }>;
}

export interface Scenario {
  name: string;
  summary: string;
  /** false for scenarios that need no Nomad binary */
  needsNomad: boolean;
  /**
   * the machines it brings up with env.upLab (default server and client); with lab.provider: ssh only these need a
   * lab.hosts entry
   */
  roles?: readonly ('server' | 'client')[];
  /**
   * what `--job` (job.file) takes here, as `list` says it (job types and network modes); absent: the scenario runs its
   * own job and refuses --job
   */
  jobs?: string;
  /** the check objects it judges, in report order (each registered once: lib/checks/registry.ts, or the user's own) */
  checks: readonly CheckDef[];
  /** problems with the config this scenario needs beyond the common keys (e.g. a second build); checked before anything is created */
  validate?(config: HarnessConfig): ConfigProblem[];
  /**
   * an input it needs beyond a build that the config lacks (e.g. a second build), in words; `run --all` then skips it
   * with this reason, as it skips a Nomad scenario without a build (validate() still names the problem for a run of it alone)
   */
  missingInput?(config: HarnessConfig): string | undefined;
  /** problems that need a tool to find (e.g. Nomad parsing the user's job on the host); also before anything is created */
  preflight?(config: HarnessConfig, tools: { convertJob: JobConverter }): Promise<ConfigProblem[]>;
  run(ctx: RunContext, env: ScenarioEnv): Promise<CheckResult[]>;
}

/** Identity helper that gives scenario files a typed default export. */
export function defineScenario(s: Scenario): Scenario {
  return s;
}

/** A problem when --reboots N (> 1) is given to a scenario that reboots once. */
export function singleRebootOnly(scenario: string, config: HarnessConfig): ConfigProblem[] {
  return config.reboot.count > 1
    ? [
        {
          field: '--reboots',
          value: config.reboot.count,
          message: `applies to bridge-exec-reboot only; ${scenario} reboots the client once`,
          fix: 'drop --reboots (reboot.count), or run bridge-exec-reboot',
        },
      ]
    : [];
}

/** A problem when --driver docker is given to a scenario whose job is exec only. */
export function execDriverOnly(scenario: string, config: HarnessConfig): ConfigProblem[] {
  return config.task.driver !== 'exec'
    ? [
        {
          field: '--driver',
          value: config.task.driver,
          message: `applies to bridge-exec-reboot only; ${scenario} runs exec tasks`,
          fix: 'drop --driver (task.driver), or run bridge-exec-reboot --driver docker',
        },
      ]
    : [];
}

/** A problem when --job (job.file) is given to a scenario that runs its own job. */
function shippedJobOnly(scenario: string, config: HarnessConfig): ConfigProblem[] {
  return config.job.files.length
    ? [
        {
          field: 'job.file (--job)',
          value: config.job.files.length === 1 ? config.job.files[0] : config.job.files,
          message: `applies to bridge-exec-reboot, rolling-reboot and server-reboot; ${scenario} runs its own job`,
          fix: 'drop --job (job.file), or run bridge-exec-reboot, rolling-reboot or server-reboot with --job <file>',
        },
      ]
    : [];
}

/** Both limits of a scenario that reboots once with exec tasks, and its own job. */
export function singleRebootExecOnly(scenario: string, config: HarnessConfig): ConfigProblem[] {
  return [
    ...singleRebootOnly(scenario, config),
    ...execDriverOnly(scenario, config),
    ...shippedJobOnly(scenario, config),
  ];
}

/** A problem for each of --target, --rolling and --drain given to a scenario that hits one machine its own way. */
export function noClusterTargets(scenario: string, config: HarnessConfig): ConfigProblem[] {
  const r = config.reboot;
  const given: [string, unknown][] = [
    ['reboot.target (--target)', r.target && (r.target.kind === 'machine' ? r.target.name : r.target.kind)],
    ['reboot.rolling (--rolling)', r.rolling],
    ['reboot.drain (--drain)', r.drain],
  ];
  return given
    .filter(([, v]) => v !== undefined)
    .map(([field, value]) => ({
      field,
      value,
      message: `applies to rolling-reboot and server-reboot; ${scenario} disrupts its one client itself and judges its allocs restored in place (a drain would move them away first)`,
      fix: `drop it, or run rolling-reboot (clients, drained, one at a time; --job takes your job there too) or server-reboot (servers)`,
    }));
}
