// Pure builders of the remote commands that run vms/cni/cni-probe.sh on a VM.
import { quote } from '../shell/quote.js';
import { bridgeNetConfig, type BridgeConfigOptions } from './config.js';

/** Where the probe script is installed on the VM (not /tmp: it is cleaned at boot, and the probe runs after a reboot). */
export const CNI_PROBE_REMOTE_PATH = '/usr/local/lib/nomad-reboot-harness/cni-probe.sh';

interface ProbeCall {
  /** command line (run with sudo) */
  cmd: string;
  /** network config JSON for the plugin's stdin */
  stdin: string;
}

/**
 * CNI ADD of `containerId` into netns `netns` with Nomad's bridge config (no IP is requested: what Nomad does on
 * restore), or DEL of it (releases its host-local reservation).
 */
export function cniCall(
  op: 'add' | 'del',
  containerId: string,
  netns: string,
  cfg: BridgeConfigOptions = {},
  script = CNI_PROBE_REMOTE_PATH,
): ProbeCall {
  return {
    cmd: `${quote(script)} ${op} ${quote(containerId)} ${quote(netns)}`,
    stdin: JSON.stringify(bridgeNetConfig(cfg)),
  };
}

/** Remove the probe's netns, the given state dirs and the "nomad" bridge: a clean slate before (and after) a scenario. */
export function cniResetCommand(netns: string, stateDirs: readonly string[], script = CNI_PROBE_REMOTE_PATH): string {
  return [quote(script), 'reset', quote(netns), ...stateDirs.map(quote)].join(' ');
}
