// The ground floor: the record of one scenario run (one attempt of a cell). Reporters turn it into JUnit, JSON, HTML.
import type { Verdict } from './check.js';
import type { RunKnownIssues } from './known-issue.js';

type StepStatus = 'passed' | 'failed' | 'error' | 'skipped';

/**
 * The stable ids of the steps reports and bench/ look for: a step's name may change its words or carry a wave, a
 * target or a job's name, its id does not. Every repetition of a step (per wave, per target, per job) has the same id,
 * so a reader sums them. A step no reader looks for needs none.
 */
export const STEP_IDS = {
  /** bring up the machines (a warm lab: revert its snapshot) */
  labUp: 'lab-up',
  /** install Nomad and start the agents */
  install: 'install',
  /** connect to the Nomad API */
  connect: 'connect',
  /** wait for a leader and the client node(s) ready */
  nomadReady: 'nomad-ready',
  jobParse: 'job-parse',
  jobRegister: 'job-register',
  /** wait until every alloc of the job runs (and its ports answer), before the fault or after a wave */
  jobRunning: 'job-running',
  /** wait for Nomad to finish the job's deployment */
  jobDeployment: 'job-deployment',
  observeBefore: 'observe-before',
  /** the fault itself (reboot, agent-kill, partition, ...) until the host answers again */
  fault: 'fault',
  /** wait for the client node to register again */
  nodeBack: 'node-back',
  /** wait until the job has settled on Nomad's state */
  settle: 'settle',
  /** wait for every mapped port to answer after the fault */
  portsBack: 'ports-back',
  observeAfter: 'observe-after',
  teardown: 'teardown',
} as const;

export type StepId = (typeof STEP_IDS)[keyof typeof STEP_IDS];

export interface StepRecord {
  name: string;
  /** stable across runs and wordings (STEP_IDS for the shipped steps, any plain id for a user scenario's); absent for steps no reader looks for */
  id?: string;
  status: StepStatus;
  /** wall clock, Unix ms */
  startedAtMs: number;
  durationMs: number;
  /** one line */
  message?: string;
  /** longer text (stack, last output) */
  detail?: string;
  /**
   * the values this run gave the step (a count, a job's name, a quiet time): kept out of `name`, so a step's JUnit
   * case keeps one name whatever the values, and shown beside the name on the console and in the case's output
   */
  values?: Record<string, string>;
}

/** A step's values as one line, "key value; key value", or '' when it has none. Pure. */
export function stepValuesText(values: Readonly<Record<string, string>> | undefined): string {
  return Object.entries(values ?? {})
    .map(([k, v]) => `${k} ${v}`)
    .join('; ');
}

export interface ArtifactRef {
  /** short name, e.g. "alloc-after.json" */
  name: string;
  /** path as written, relative to the working directory */
  path: string;
  /** the step or check it belongs to (JUnit case name); undefined = the whole run */
  caseName?: string;
}

/** passed: every check met its expectation; failed: a check did not; error: the run broke first. */
export type RunOutcome = 'passed' | 'failed' | 'error';

/** One point on the run's timeline (HTML report): what happened when, on which lane. */
export interface TimelineEvent {
  /** wall clock, Unix ms */
  atMs: number;
  /**
   * host = the VM itself (reboot, boot ids), node = Nomad node status, alloc = alloc/task events, probe = the service's
   * probe series, step = harness steps
   */
  lane: 'host' | 'node' | 'alloc' | 'probe' | 'step';
  label: string;
  detail?: string;
  severity?: 'info' | 'ok' | 'warn' | 'fail';
  /** host lane: the machine it happened on; the timeline then gives each machine a lane of its own */
  machine?: string;
  /** wall clock, Unix ms: the end of something that lasted (a probe gap), drawn as a bar */
  untilMs?: number;
}

export interface RunRecord {
  runId: string;
  scenario: string;
  /** JUnit suite name, `<scenario>@<build>[/<axis>=<value>...]` (lib/plan/names.ts): stable per matrix cell */
  suiteName: string;
  hostname: string;
  startedAtMs: number;
  durationMs: number;
  /** facts: versions, addresses, boot ids, state dirs */
  properties: Record<string, string>;
  steps: StepRecord[];
  verdicts: Verdict[];
  artifacts: ArtifactRef[];
  /** what happened around the reboot, for the HTML timeline (may be empty) */
  timeline: TimelineEvent[];
  /** infrastructure error that ended the run early */
  error?: { message: string; detail?: string; step?: string };
  interrupted?: boolean;
  outcome: RunOutcome;
  /** the known-issue table applied to this run after judging: fix states and loud findings (lib/known-issues) */
  knownIssues?: RunKnownIssues;
}
