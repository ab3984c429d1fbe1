// What a plan is: the cells of a session, the builds they install and the session around them, as data that the
// planners (run.ts, compare.ts, matrix.ts) build once and the executor and the reports read; with the two rules every
// reader of a plan shares (a build's key, a cell's config in a parallel slot).
import type { ConfigProblem } from '../errors.js';
import type { CheckInfo } from '../model/check.js';
import type { RepeatOf, Rerun, SessionReport } from '../model/session.js';
import type { HarnessConfig } from '../config/schema.js';
import type { LabConfigRules } from '../config/validate.js';
import { shiftSubnet, type Cell } from '../matrix/expand.js';
import type { Side } from './names.js';

/** What the planner needs of a scenario (lib/run/scenario.ts Scenario fits). */
export interface PlannableScenario {
  name: string;
  needsNomad: boolean;
  /** the machines it brings up; default server and client */
  roles?: readonly string[];
  checks: readonly CheckInfo[];
  validate?(config: HarnessConfig): ConfigProblem[];
  missingInput?(config: HarnessConfig): string | undefined;
}

/** A build a cell installs: its spec as given, where it was given (relative paths), and the field it came from. */
export interface BuildRef {
  field: string;
  /** a path, a release version (1.9.7, latest) or a source tree (git:<dir>[@<ref>]); lib/builds resolves it */
  spec: string;
  /** the folder relative paths in the spec are taken from (the cwd; a matrix file's folder) */
  cwd: string;
  role: 'nomad' | 'upgrade-to';
}

/** One key per distinct build (the same spec from the same folder is resolved once). */
export const buildKey = (b: Pick<BuildRef, 'spec' | 'cwd'>): string => `${b.cwd}\u0000${b.spec}`;

/** One cell of the session: a scenario, its config and where it sits in the session. */
export interface PlannedCell {
  /** stable address: the matrix cell name (what --cell takes), or the scenario name (and side) */
  key: string;
  scenario: string;
  /** the config values that make this cell a variant, e.g. ["reboot=hard"]; part of the suite name */
  variant: string[];
  /** compare: which build this cell runs */
  side?: Side;
  /** the matrix's nomad entry name, when a matrix names the build */
  buildLabel?: string;
  /** false for compare's before build: shown, not judged for the exit code */
  counts: boolean;
  /** a visible skip: the cell is reported with every check skipped for this reason */
  skip?: string;
  /** run --repeat N: which attempt of N this cell is (its suite is `<suite>#<attempt>`), judged with its group */
  repeat?: RepeatOf;
  /** how the cell is re-run when it misses its expectations (repro.sh) */
  rerun: Rerun;
  /** the cell's config (the base subnets; configInSlot gives a parallel slot its own pair) */
  config: HarnessConfig;
  /** report properties known before the run (matrix axes, compare side) */
  properties: Record<string, string>;
  builds: BuildRef[];
}

export type PlanCommand = 'run' | 'compare' | 'matrix';

/** The schema name of `--plan`'s output: the plan as JSON, which parses back to the same plan. */
export const PLAN_JSON_SCHEMA = 'nomad-reboot-harness/plan@1';

export interface Plan {
  command: PlanCommand;
  cells: PlannedCell[];
  /** the session's common config: reports, output, keep, lab host (netns), secrets */
  base: HarnessConfig;
  parallel: number;
  budgetMb: number | undefined;
  retryInfra: boolean;
  /** every distinct build of every cell */
  builds: BuildRef[];
  /** every lab subnet a cell may use (each guarded by a host-stack blackhole) */
  subnets: string[];
  matrix?: { file: string; path: string; shard: string; cellsInMatrix: number; all: Cell[] };
  /**
   * the two cells (by key) whose verdicts are set side by side; their suites are named by the two builds' versions
   * (or before/after), and a build compared with itself is warned about
   */
  comparison?: { before: string; after: string };
  /** the session's report folder under the reports dir: `<prefix><first run id>`, or `<prefix><fallback>` */
  reportFolder: { prefix: string; fallback: string };
  /** what the input still does but should not (an expectation under a renamed check's old id); the CLI prints them */
  warnings: string[];
  /** what the session report says of the plan besides its suites (a matrix shard: its file and share) */
  report?: Pick<SessionReport, 'matrix'>;
  /**
   * properties every run record carries after its cell's own: `fixed` as they are, and `attempt` names the one that
   * records which attempt of the cell the run was (a matrix shard's `matrix.attempt`)
   */
  runProperties?: { attempt?: string; fixed: Record<string, string> };
}

export interface PlanInput {
  command: PlanCommand;
  positionals: readonly string[];
  /** option values by long name */
  values: Record<string, unknown>;
  /** harness.yaml, parsed, when there is one */
  harness?: { data: unknown; name: string };
  /** the matrix file, parsed (matrix only); `dir` resolves its relative build paths */
  matrixFile?: { data: unknown; name: string; path: string; dir: string };
  env: Record<string, string | undefined>;
  cwd: string;
  scenarios: readonly PlannableScenario[];
  /** the lab providers' own rules of the config (lib/lab/providers.ts `labConfigRules`; the CLI hands them down) */
  labRules?: LabConfigRules;
  /** a config's memory per machine beyond its guest (lib/lab/providers.ts `vmOverheadMb`); absent: none */
  vmOverheadMb?: (config: HarnessConfig) => number;
}

/**
 * A cell's config in a parallel slot: slot 0 keeps its subnets, slot k > 0 gets a pair of its own (shifted by k), so
 * cells that run at once never share a lab network. Pure; the plan holds only slot 0.
 */
export function configInSlot(config: HarnessConfig, slot: number): HarnessConfig {
  if (slot <= 0) return config;
  const c = structuredClone(config);
  c.lab.privateSubnet = shiftSubnet(config.lab.privateSubnet, slot) ?? config.lab.privateSubnet;
  c.lab.managementSubnet = shiftSubnet(config.lab.managementSubnet, slot) ?? config.lab.managementSubnet;
  return c;
}
