// The registry of lab providers, keyed by lab.provider. Adding a provider: its folder under lib/lab and one line here.
import type { HarnessConfig } from '../config/schema.js';
import type { LabConfigRules } from '../config/validate.js';
import { FAULTS, faultKindProblems, type LabOffer } from '../faults/registry.js';
import type { LabProvider, ProviderName } from './provider.js';
import { SSH } from './ssh/ssh-provider.js';
import { LIBVIRT, VIRTUALBOX } from './vagrant/vagrant-provider.js';

export const LAB_PROVIDERS: Readonly<Record<ProviderName, LabProvider>> = {
  libvirt: LIBVIRT,
  virtualbox: VIRTUALBOX,
  ssh: SSH,
};

/** The provider of `lab.provider`. */
export function providerFor(config: { lab: { provider: ProviderName } }): LabProvider {
  return LAB_PROVIDERS[config.lab.provider];
}

/** What the configured provider offers the fault kinds under this config (its performers and what it lacks). */
export function faultOffer(config: HarnessConfig): LabOffer {
  const p = providerFor(config);
  return { provider: p.name, performs: p.capabilities.faults, lacks: p.capabilities.lacks(config) };
}

/**
 * The configured provider's own rules of the config, and whether it can do reboot.kind (its capabilities; what a
 * scenario lacks, e.g. a Nomad agent, the scenario says): what the CLI hands the resolver (lib/config sits below lib/lab).
 */
export const labConfigRules: LabConfigRules = (config, at) => [
  ...providerFor(config).validateConfig(config, at),
  ...faultKindProblems(
    config.reboot.kind,
    { name: config.scenario, hasNomadAgent: true },
    faultOffer(config),
    FAULTS,
    'lab',
  ),
];
