// The registry of lab providers, keyed by lab.provider. Adding a provider: its folder under lib/lab (one object
// implementing LabProvider, lib/lab/provider.ts), one line in SHIPPED below, and its name in PROVIDER_NAMES
// (lib/config/schema.ts: the config's vocabulary, which tsc holds to this table).
import { PROVIDER_NAMES, type HarnessConfig, type ProviderName } from '../config/schema.js';
import type { ConfigAt, LabConfigRules } from '../config/validate.js';
import type { ConfigProblem } from '../errors.js';
import { FAULTS, faultKindProblems, type FaultRegistry, type LabOffer } from '../faults/registry.js';
import type { LabProvider } from './provider.js';
import { SSH } from './ssh/ssh-provider.js';
import { LIBVIRT, VIRTUALBOX } from './vagrant/vagrant-provider.js';
import { noWarmLab } from './warm/warm-key.js';

/** A registry: the providers, each name once. */
interface ProviderRegistry<N extends string = string> {
  readonly providers: readonly LabProvider<N>[];
  /** the provider of `name`; throws for one the registry does not have (the config parser refuses those first) */
  get(name: string): LabProvider<N>;
}

/** A registry of `providers` (names unique). */
export function providerRegistry<N extends string>(providers: readonly LabProvider<N>[]): ProviderRegistry<N> {
  const byName = new Map<string, LabProvider<N>>();
  for (const p of providers) {
    if (byName.has(p.name)) throw new Error(`lab provider ${p.name} is registered twice`);
    byName.set(p.name, p);
  }
  return {
    providers,
    get(name) {
      const p = byName.get(name);
      if (!p) throw new Error(`no lab provider ${JSON.stringify(name)} (have ${[...byName.keys()].join(', ')})`);
      return p;
    },
  };
}

/** Every shipped provider. One line per provider. */
const SHIPPED = {
  libvirt: LIBVIRT,
  virtualbox: VIRTUALBOX,
  ssh: SSH,
} satisfies { [K in ProviderName]: LabProvider<K> };

export const LAB_PROVIDERS: Readonly<Record<ProviderName, LabProvider>> = SHIPPED;

/** The shipped registry, in PROVIDER_NAMES order. */
export const PROVIDERS: ProviderRegistry<ProviderName> = providerRegistry(PROVIDER_NAMES.map((n) => SHIPPED[n]));

/** The provider of `lab.provider`. */
export function providerFor(config: { lab: { provider: ProviderName } }): LabProvider {
  return LAB_PROVIDERS[config.lab.provider];
}

/** Host memory one machine of the configured lab takes beyond its guest memory (its provider's hypervisor). */
export function vmOverheadMb(config: Pick<HarnessConfig, 'lab'>): number {
  return providerFor(config).capabilities.vmOverheadMb?.(config.lab) ?? 0;
}

/** What provider `p` offers the fault kinds under this config (its performers and what it lacks). */
export function faultOfferOf(p: LabProvider<string>, config: HarnessConfig): LabOffer {
  return { provider: p.name, performs: p.capabilities.faults, lacks: p.capabilities.lacks(config), config };
}

/** What the configured provider offers the fault kinds under this config. */
export const faultOffer = (config: HarnessConfig): LabOffer => faultOfferOf(providerFor(config), config);

/**
 * lab.warm given true for a provider without snapshot/restore (its `snapshots`): a problem, not a silent cold run. The
 * default (true) only means "warm when the provider can", so it says nothing here.
 */
function warmProblems(p: LabProvider<string>, providers: ProviderRegistry, config: HarnessConfig, at: ConfigAt) {
  const given = at.givenBy('lab.warm');
  if (p.snapshots || !config.lab.warm || given === undefined) return [];
  const can = providers.providers.filter((q) => q.snapshots).map((q) => q.name);
  const problem: ConfigProblem = {
    field: given,
    value: true,
    message: noWarmLab(p.name),
    fix: `leave lab.warm out or set it false (a cold lab each run)${can.length ? `, or use lab.provider ${can.join(' or ')}` : ''}`,
  };
  return [problem];
}

/**
 * The configured provider's own rules of the config, its warm labs, and whether it can do reboot.kind (its capabilities; what a
 * scenario lacks, e.g. a Nomad agent, the scenario says): what the CLI hands the resolver (lib/config sits below
 * lib/lab). Of any registries, so a test can hand it its own.
 */
export function labConfigRulesOf(providers: ProviderRegistry, faults: FaultRegistry = FAULTS): LabConfigRules {
  return (config, at) => {
    const p = providers.get(config.lab.provider);
    const scenario = { name: config.scenario, hasNomadAgent: true };
    return [
      ...p.validateConfig(config, at),
      ...warmProblems(p, providers, config, at),
      ...faultKindProblems(config.reboot.kind, scenario, faultOfferOf(p, config), faults, 'lab'),
    ];
  };
}

/** The shipped providers' and fault kinds' rules of the config. */
export const labConfigRules: LabConfigRules = labConfigRulesOf(PROVIDERS);
