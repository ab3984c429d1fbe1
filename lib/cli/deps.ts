// What the CLI needs from the outside world: real effects in lib/cli/real-deps.ts (lib/cli/entry.ts hands them to
// main()), stand-ins in tests.
import type { DestroySweep } from './destroy.js';
import type { HostCapacity } from '../lab/provider.js';
import type { ExitCode, ConfigProblem } from '../errors.js';
import type { HarnessConfig } from '../config/schema.js';
import type { Logger } from '../log/events.js';
import type { BuildInfo } from '../model/session.js';
import type { BuildRef } from '../plan/session-plan.js';
import type { ScenarioEnv } from '../run/scenario.js';
import type { JobConverter } from '../cluster/job-convert.js';

/** What the CLI needs from the outside world; tests hand in stand-ins (a stand-in lab and Nomad). */
export interface CliDeps {
  env: Record<string, string | undefined>;
  cwd: string;
  out: (s: string) => void;
  err: (s: string) => void;
  isTTY: boolean;
  /** the scenario environment: real VMs (lib/session/real-env.ts) or stand-ins */
  makeEnv: (
    config: HarnessConfig,
    runId: string,
    logger: Logger,
    scenario: { needsNomad: boolean; roles?: readonly string[] },
  ) => ScenarioEnv;
  /**
   * before a run: make sure the lab host is ready; may re-run the CLI inside the lab's network namespace and return its
   * exit code. `subnets`: every lab subnet the runs will use (default: the config's two), each guarded by a host-stack blackhole.
   */
  prepareHost?: (
    config: HarnessConfig,
    argv: string[],
    logger: Logger,
    subnets?: readonly string[],
  ) => Promise<ExitCode | undefined>;
  /** what the host offers a lab (its available memory), read before anything exists; absent = nothing checked */
  hostFacts?: () => Promise<HostCapacity>;
  /** lab.provider ssh: problems found before any host is reached (keys, the CNI plugins to upload), built here */
  hostsPreflight?: (config: HarnessConfig, logger: Logger) => Promise<ConfigProblem[]>;
  /** the build layer (lib/builds via lib/session/builds.ts); without it a spec is a path, checked by checkBinary */
  builds?: BuildLayer;
  /** checks a Nomad build given as a path before anything is created (ConfigError naming `field`) */
  checkBinary?: (path: string, field?: string) => Promise<void>;
  /** what `<build> version` says, for a build given as a path (stand-ins answer it); absent = not asked */
  buildVersion?: (path: string) => Promise<{ version?: string; revision?: string }>;
  /** parses the user's job file on the host before anything is created (default: the Nomad build's `job run -output`) */
  convertJob?: JobConverter;
  /** `out`: the console's redacting stdout (main's), which its report goes through like every command's */
  doctor?: (config: HarnessConfig, json: boolean, out: (text: string) => void) => Promise<ExitCode>;
  destroy?: (
    config: HarnessConfig,
    ids: string[],
    all: boolean,
    logger: Logger,
    stopHost: boolean,
    /** --warm, --stale, --older-than (lib/cli/destroy.ts) */
    sweep?: DestroySweep,
  ) => Promise<ExitCode>;
  /** `config`: where the lab host goes (netns, subnets), as run would put it */
  /** `out`: the console's redacting stdout, which its progress lines go through like every command's */
  setup?: (o: {
    force: boolean;
    docker: boolean;
    config?: HarnessConfig;
    out: (text: string) => void;
  }) => Promise<ExitCode>;
  signalSource?: NodeJS.EventEmitter;
  /**
   * Where a promise rejected with no handler, or an exception nothing caught, is told ('unhandledRejection',
   * 'uncaughtException': the process, in the real CLI): such an error (a user scenario's background work) is told
   * redacted and the command goes on to its teardown.
   */
  rejectionSource?: NodeJS.EventEmitter;
  /**
   * Given (the real CLI: it sets the process's exit code), such an error that comes after the command ended (a user
   * scenario's timer that fires once its run returned) is told the same redacted way and the exit code becomes this
   * one; without it the listeners go with the command and Node's own handler would print it unredacted and exit 1.
   */
  lateStrayExit?: (code: number) => void;
}

/** Resolving the builds a plan names: every problem of every spec first (nothing downloaded), then one by one. */
export interface BuildLayer {
  check(refs: readonly BuildRef[], config: HarnessConfig, logger: Logger): Promise<ConfigProblem[]>;
  resolve(ref: BuildRef, config: HarnessConfig, logger: Logger, signal?: AbortSignal): Promise<BuildInfo>;
}
