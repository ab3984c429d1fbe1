// Pure: the network config Nomad's bridge mode hands the CNI bridge plugin (nomad-reference.md 4.1).
import { CNI_DATA_DIRS, NOMAD_CNI_NETWORK } from '../checks/cni-state.js';

/** Nomad's defaults: network name (also the state sub-directory), bridge interface, subnet. */
export const NOMAD_NETWORK = { name: NOMAD_CNI_NETWORK, bridge: 'nomad', subnet: '172.26.64.0/20' } as const;

export interface BridgeConfigOptions {
  /** host-local dataDir; undefined = the plugin default (/var/lib/cni/networks), exactly like Nomad <= 1.9.3 */
  dataDir?: string;
  subnet?: string;
  bridge?: string;
  cniVersion?: string;
}

/** The `bridge` entry of Nomad's conflist as a standalone network config (what the plugin reads on stdin). */
export function bridgeNetConfig(o: BridgeConfigOptions = {}): Record<string, unknown> {
  const ipam: Record<string, unknown> = {
    type: 'host-local',
    ranges: [[{ subnet: o.subnet ?? NOMAD_NETWORK.subnet }]],
    routes: [{ dst: '0.0.0.0/0' }],
  };
  if (o.dataDir !== undefined) ipam.dataDir = o.dataDir;
  return {
    cniVersion: o.cniVersion ?? '0.4.0',
    name: NOMAD_NETWORK.name,
    type: 'bridge',
    bridge: o.bridge ?? NOMAD_NETWORK.bridge,
    ipMasq: true,
    isGateway: true,
    forceAddress: true,
    hairpinMode: false,
    ipam,
  };
}

/** The host-local state directory a config uses: <dataDir>/<network name>. */
export function stateDirOf(dataDir: string | undefined): string {
  return `${(dataDir ?? CNI_DATA_DIRS.persistent).replace(/\/+$/, '')}/${NOMAD_NETWORK.name}`;
}
