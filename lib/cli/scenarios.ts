// The scenario registry: every scenario file, and the text of `reboot-harness list`.
import { ConfigError, type ConfigProblem } from '../errors.js';
import type { Scenario } from '../run/scenario.js';
import bridgeExecReboot from '../../scenarios/bridge-exec-reboot.js';
import cniIpamReboot from '../../scenarios/cni-ipam-reboot.js';
import upgradeInPlace from '../../scenarios/upgrade-in-place.js';
import rollingReboot from '../../scenarios/rolling-reboot.js';
import serverReboot from '../../scenarios/server-reboot.js';
import { loadScenarios } from '../scenario-api/load.js';
import { registryOf } from '../checks/registry.js';
import type { CheckDef } from '../model/check.js';

/** All scenarios, the default first. */
export const SCENARIOS: Scenario[] = [bridgeExecReboot, cniIpamReboot, upgradeInPlace, rollingReboot, serverReboot];

/** Every shipped check once: what the shipped scenarios list (a user scenario may name these by id). */
export const SHIPPED_CHECKS: readonly CheckDef[] = registryOf(SCENARIOS.map((s) => s.checks));

/** The shipped scenarios followed by the user's (`extra`, from --scenarios / scenarios_dir). */
export function allScenarios(extra: readonly Scenario[] = []): Scenario[] {
  return [...SCENARIOS, ...extra];
}

/** Look a scenario up by name among the shipped ones and `extra`; a usage error listing the names when none. */
export function findScenario(name: string, extra: readonly Scenario[] = []): Scenario {
  const all = allScenarios(extra);
  const s = all.find((x) => x.name === name);
  const fix = `use one of: ${all.map((x) => x.name).join(', ')} (reboot-harness list)`;
  if (!s) throw new ConfigError([{ field: 'scenario', value: name, message: 'is not a known scenario', fix }]);
  return s;
}

/** What a shipped scenario needs beyond --nomad (its validate() refuses a run without it). */
const NEEDS: Readonly<Record<string, string>> = {
  'upgrade-in-place': '--upgrade-to <build> (or --upgrade-mode restart-only)',
};

/** The flags a scenario cannot run without, as `list` names them. */
export function needsOf(s: Scenario): string[] {
  return [...(s.needsNomad ? ['--nomad <build>'] : []), ...(NEEDS[s.name] ? [NEEDS[s.name]!] : [])];
}

/** The human text of `reboot-harness list`; user scenarios say which file they came from. */
export function listText(extra: readonly Scenario[] = []): string {
  return allScenarios(extra)
    .map((s) => {
      const from = 'file' in s ? `  (from ${String(s.file)})` : '';
      const needs = needsOf(s);
      const head = `${s.name}${needs.length ? ` (needs ${needs.join(' and ')})` : ''}${from}`;
      const jobs = `  jobs: ${s.jobs ? `its shipped job, or yours with --job: ${s.jobs}` : 'its own (it refuses --job)'}`;
      return [head, `  ${s.summary}`, jobs, ...s.checks.map((c) => `  - ${c.id}: ${c.passesWhen}`)].join('\n');
    })
    .join('\n\n');
}

/** The user's scenarios from `dir` (no scenario when any file has a problem); names of shipped ones are taken. */
export async function loadUserScenarios(
  dir: string,
  field: string,
): Promise<{ extra: Scenario[]; problems: ConfigProblem[] }> {
  const { scenarios, problems } = await loadScenarios(dir, {
    reserved: SCENARIOS.map((s) => s.name),
    shippedChecks: SHIPPED_CHECKS,
    field,
  });
  return { extra: scenarios, problems };
}
