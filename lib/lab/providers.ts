// The registry of lab providers, keyed by lab.provider.
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
