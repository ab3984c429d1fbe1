// Pure: the registry of fault kinds. Adding a kind is its file (lib/faults/<kind>.ts) and one line in SHIPPED below
// (and its name in lib/model/kinds.ts, the ground floor's vocabulary, so that tsc names every table still missing it).
// Everything that lists, validates, documents or dispatches kinds reads the registry.
import type { ConfigProblem } from '../errors.js';
import type { Field } from '../config/fields.js';
import { REBOOT_KINDS, type RebootKind } from '../model/kinds.js';
import { AGENT_KILL } from './agent-kill.js';
import { DOCKER_RESTART } from './docker-restart.js';
import { EXECUTOR_KILL } from './executor-kill.js';
import { LEADER_PARTITION } from './leader-partition.js';
import { LINK_FLAP } from './link-flap.js';
import { LINK_LOSS } from './link-loss.js';
import { POWER_LOSS_ALL } from './power-loss-all.js';
import type { FaultDurations, FaultKindDef, FaultOutcome, LabCapability, Refusal } from './define.js';
import type { HarnessConfig } from '../config/schema.js';
import { GRACEFUL } from './graceful.js';
import { HARD } from './hard.js';
import { PANIC } from './panic.js';
import { PARTITION } from './partition.js';
import { POWER_OFF } from './power-off.js';

/** A registry: the kinds in docs order, each name once. */
export interface FaultRegistry<N extends string = string> {
  readonly kinds: readonly FaultKindDef<N>[];
  readonly names: readonly N[];
  /** the kind of `name`; throws for a name the registry does not have (the config parser refuses those first) */
  get(name: N): FaultKindDef<N>;
  /** every kind's own options (configuration keys), in the registry's order */
  readonly options: readonly Field[];
}

/** A registry of `kinds` (names unique, option keys unique). */
export function faultRegistry<N extends string>(kinds: readonly FaultKindDef<N>[]): FaultRegistry<N> {
  const byName = new Map<string, FaultKindDef<N>>();
  for (const k of kinds) {
    if (byName.has(k.name)) throw new Error(`fault kind ${k.name} is registered twice`);
    byName.set(k.name, k);
  }
  const options = kinds.flatMap((k) => k.options);
  const keys = options.map((o) => o.yaml);
  const twice = keys.find((y, i) => keys.indexOf(y) !== i);
  if (twice) throw new Error(`fault option ${twice} is declared by two kinds`);
  return {
    kinds,
    names: kinds.map((k) => k.name),
    options,
    get(name) {
      const k = byName.get(name);
      if (!k) throw new Error(`no fault kind ${JSON.stringify(name)} (have ${[...byName.keys()].join(', ')})`);
      return k;
    },
  };
}

/** Every shipped kind, in the order the docs list them. One line per kind. */
const SHIPPED = {
  graceful: GRACEFUL,
  hard: HARD,
  panic: PANIC,
  'power-off': POWER_OFF,
  'power-loss-all': POWER_LOSS_ALL,
  'agent-kill': AGENT_KILL,
  'executor-kill': EXECUTOR_KILL,
  'docker-restart': DOCKER_RESTART,
  partition: PARTITION,
  'leader-partition': LEADER_PARTITION,
  'link-flap': LINK_FLAP,
  'link-loss': LINK_LOSS,
} satisfies { [K in RebootKind]: FaultKindDef<K> };

/** The shipped registry (docs order: REBOOT_KINDS). */
export const FAULTS: FaultRegistry<RebootKind> = faultRegistry(REBOOT_KINDS.map((k) => SHIPPED[k]));

/** The kind `name` of the shipped registry. */
export const faultKind = (name: RebootKind): FaultKindDef<RebootKind> => SHIPPED[name];

/**
 * The fault step's name: "reboot the client (graceful)" for a kind that reboots the host, "disrupt the client
 * (partition)" for one that does not. One name per kind, never a value, so a step's CI history stays in one case.
 */
export function faultStepName(kind: RebootKind): string {
  return `${faultKind(kind).rebootsHost ? 'reboot' : 'disrupt'} the client (${kind})`;
}

/**
 * Whether `kind` itself ends the running task instances (a reboot, a killed executor, a restarted Docker daemon): their
 * Terminated event is then the fault's doing, and the restart that follows is what the rule expects, not a failed
 * restore.
 */
export function faultEndsTasks(kind: RebootKind, d: FaultDurations = {}): boolean {
  return faultKind(kind).rebootsHost || faultKind(kind).outcome(d).restartsTasks;
}

/** What Nomad is expected to do after `kind` (the checks' rule). */
export function faultOutcome(kind: RebootKind, d: FaultDurations = {}): FaultOutcome {
  return faultKind(kind).outcome(d);
}

/** Why a lab lacks a capability under this config, and what to set for it (no fix: nothing makes it possible). */
export type Lack = Refusal;

/** What a lab offers the faults: the kinds its provider performs, and the capabilities it lacks under this config. */
export interface LabOffer {
  /** the provider's name, as `lab.provider` gives it */
  provider: string;
  /** the kinds it has a performer for */
  performs: readonly string[];
  /** each capability it lacks under this config (absent: it has it) */
  lacks: Partial<Record<LabCapability, Lack>>;
  /** the config, for the kinds that refuse some of it (a task driver, a server count); absent: not asked */
  config?: HarnessConfig;
}

/** What a scenario offers the faults. */
interface ScenarioOffer {
  name: string;
  hasNomadAgent: boolean;
  /** the kinds the scenario refuses by its own rules (left out of a fix's "use one of") */
  refuses?: (kind: string) => boolean;
}

/** Why `k` cannot be done by this lab and scenario (empty: it can), each reason with the side it comes from. */
function cannot(k: FaultKindDef, scenario: ScenarioOffer, lab: LabOffer): (Lack & { of: 'lab' | 'scenario' })[] {
  const out: (Lack & { of: 'lab' | 'scenario' })[] = [];
  const lacks = k.needs.flatMap((n) => (lab.lacks[n] ? [lab.lacks[n]] : []));
  const provider = `lab.provider ${lab.provider} cannot do ${k.name}`;
  for (const l of lacks) out.push({ ...l, reason: `${provider}: ${l.reason}`, of: 'lab' });
  if (!lacks.length && !lab.performs.includes(k.name))
    out.push({ reason: `${provider}: it has no performer for it`, of: 'lab' });
  if (lab.config && k.refuses) for (const r of k.refuses(lab.config)) out.push({ ...r, of: 'lab' });
  if (k.needsNomadAgent && !scenario.hasNomadAgent) {
    const verb = k.rebootsHost
      ? 'reboot'
      : /partition|link/.test(k.name)
        ? 'cut off'
        : k.name.endsWith('kill')
          ? 'kill'
          : 'disrupt';
    out.push({ reason: `${scenario.name} runs no Nomad agent to ${verb}`, of: 'scenario' });
  }
  return out;
}

/**
 * Problems with running `kind` in `scenario` on `lab`: a kind the provider does not perform or lacks a capability
 * for (with its fix), or one needing a Nomad agent in a scenario without one. Checked before anything is created
 * (exit 2); the fix names the kinds that can be done here. `of` keeps the lab's or the scenario's reasons only (the
 * lab's are asked while the config is resolved, for every scenario; the scenario's by the scenario).
 */
export function faultKindProblems<N extends string>(
  kind: N,
  scenario: ScenarioOffer,
  lab: LabOffer,
  registry: FaultRegistry<N>,
  of: 'lab' | 'scenario' | 'both' = 'both',
): ConfigProblem[] {
  const can = registry.kinds
    .filter((k) => cannot(k, scenario, lab).length === 0 && !scenario.refuses?.(k.name))
    .map((k) => k.name);
  const others = `use one of: ${can.join(', ')}`;
  const reasons = cannot(registry.get(kind), scenario, lab).filter((r) => of === 'both' || r.of === of);
  return reasons.map(({ reason, fix }) => ({
    field: '--reboot (reboot.kind)',
    value: kind,
    message: `cannot be done here: ${reason}`,
    fix: fix ? `${fix}, or ${others}` : others,
  }));
}
