// Flags only some scenarios read. Given to a session none of whose scenarios reads them they would be ignored without
// a word (`--upgrade-to` on bridge-exec-reboot ran the scenario without upgrading anything), so they are refused.
import type { ConfigProblem } from '../errors.js';
import type { Scenario } from '../run/scenario.js';
import { SCENARIOS } from './scenarios.js';

interface ScenarioFlag {
  /** whether a shipped scenario reads this flag's value */
  uses(s: Scenario): boolean;
  /** who does, for the message */
  who: string;
}

const upgrade: ScenarioFlag = { uses: (s) => s.name === 'upgrade-in-place', who: 'upgrade-in-place' };
const nomad: ScenarioFlag = { uses: (s) => s.needsNomad, who: 'the scenarios that install Nomad' };
const FLAGS: Record<string, ScenarioFlag> = {
  'upgrade-to': upgrade,
  'upgrade-mode': upgrade,
  nomad,
  'nomad-binary': nomad,
};

/**
 * A problem per flag on the command line that no scenario of the session reads. A user scenario may read any key, so
 * a session with one refuses nothing. A session that installs builds of its own (compare: --before/--after) leaves
 * --nomad and --nomad-binary to its planner.
 */
export function unusedFlagProblems(
  values: Record<string, unknown>,
  scenarios: readonly Scenario[],
  o: { installsItsBuilds: boolean },
): ConfigProblem[] {
  if (!scenarios.length || scenarios.some((s) => !SCENARIOS.includes(s))) return [];
  const names = scenarios.map((s) => s.name).join(', ');
  return Object.entries(FLAGS).flatMap(([flag, f]) => {
    if (values[flag] === undefined || scenarios.some((s) => f.uses(s))) return [];
    if (o.installsItsBuilds && f === nomad) return [];
    return [
      {
        field: `--${flag}`,
        value: values[flag],
        message: `is not used by ${names} (only by ${f.who}), so it would be ignored`,
        fix: `drop --${flag}, or run ${f === upgrade ? 'upgrade-in-place' : 'a scenario that installs Nomad'}`,
      },
    ];
  });
}
