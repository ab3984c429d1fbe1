// Pure: which shipped step a recorded step is (its STEP_IDS id), for readers that sum steps by kind (bench/, the
// bisect report). A step records its id; a report written before steps had ids is read by the names its steps had
// then, through the one table below, so old reports and fixtures still give the same figures.
import { STEP_IDS, type StepId } from '../model/run.js';

/** A recorded step as readers hold it; `id` is null in a JSON report for a step without one. */
type Step = { name: string; id?: string | null };

/** The names the shipped steps had in reports from before steps carried ids (JSON `id` absent or null). */
const NAMES_BEFORE_IDS: readonly (readonly [RegExp, StepId])[] = [
  [/^bring up the (lab|server and client VMs|client VM)\b/, STEP_IDS.labUp],
  [/^install Nomad\b/, STEP_IDS.install],
  [/^connect to the Nomad API\b/, STEP_IDS.connect],
  [/^(wait for a leader and (every|the) client node|wait for the Nomad server to elect a leader)/, STEP_IDS.nomadReady],
  [/^parse the job\b/, STEP_IDS.jobParse],
  [/^register (the )?job\b/, STEP_IDS.jobRegister],
  [/^wait until every alloc of the job\b/, STEP_IDS.jobRunning],
  [/^wait for Nomad to finish the job's deployment/, STEP_IDS.jobDeployment],
  [/^observe before\b/, STEP_IDS.observeBefore],
  [/^(reboot|disrupt) the client\b/, STEP_IDS.fault],
  [/^wait for the client node to register again\b/, STEP_IDS.nodeBack],
  [/^wait until the job has settled\b/, STEP_IDS.settle],
  [/^wait for every mapped port to answer after\b/, STEP_IDS.portsBack],
  [/^observe after\b/, STEP_IDS.observeAfter],
  [/^teardown$/, STEP_IDS.teardown],
];

/** A step's id: the one it recorded, else (an older report) the one its name had; undefined for any other step. */
function stepIdOf(step: Step): string | undefined {
  if (typeof step.id === 'string') return step.id;
  return NAMES_BEFORE_IDS.find(([re]) => re.test(step.name))?.[1];
}

/** A predicate: is a step one of `ids`. */
export const isStepOf =
  (ids: readonly StepId[]) =>
  (step: Step): boolean =>
    ids.includes(stepIdOf(step) as StepId);

/** The summed duration of the steps whose id is one of `ids`, each step's duration read by `ms`. */
export function msOfSteps<S extends Step>(steps: readonly S[], ids: readonly StepId[], ms: (s: S) => number): number {
  return steps.filter(isStepOf(ids)).reduce((n, s) => n + ms(s), 0);
}
