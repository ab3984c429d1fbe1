// Warm reruns, the pure half: what a warm lab's snapshot depends on (its key, and the part of it a plan knows: the
// affinity by which the pool keeps cells that could share one warm lab in one slot), the name of its directory, and
// whether a run starts warm, creates the snapshot, or runs cold. No I/O.
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { HarnessConfig } from '../../config/schema.js';
import { configTopology } from '../../config/topology.js';
import { topologyLabel, type Topology } from '../../model/topology.js';
import { buildKey, type PlannedCell } from '../../plan/session-plan.js';

/** Prefix of a warm lab's directory under lab.work_dir (and of its machine names): `warm-<key>`. */
export const WARM_PREFIX = 'warm-';
/** The libvirt snapshot every domain of a warm lab carries. */
export const WARM_SNAPSHOT = 'nrh-warm';
/** The file in a warm lab's directory that records its key, inputs and snapshot. */
export const WARM_STATE_FILE = 'warm.json';

/** Everything that shapes the VMs and what is installed on them before a scenario starts; equal inputs, equal key. */
export interface WarmInputs {
  provider: string;
  /** lab.work_dir: two work dirs never share a warm lab (its domain names derive from the key) */
  workDir: string;
  box: string;
  /** the added box's version and image (size and mtime): a re-added box is a different box */
  boxId: string;
  /** the roles the scenario brings up (its machines are those roles' slots of the topology) */
  roles: readonly string[];
  /** lab.servers + lab.clients, e.g. "1+1", "3+2": other slots, addresses and agent configs */
  topology: string;
  driver: string;
  cpus: number;
  memoryMb: number;
  tbCacheMb: number;
  cpuModel: string;
  privateSubnet: string;
  managementSubnet: string;
  /** sha256 of vms/Vagrantfile */
  vagrantfile: string;
  /** Nomad installed and started before the snapshot (scenarios that need Nomad); absent for the others */
  nomad?: {
    /** sha256 of the build */
    sha256: string;
    heartbeatGrace: string;
    /** sha256 of the agent templates (server.hcl, client.hcl, nomad.service) */
    templates: string;
    /** the clients run raw_exec (a job of the run uses it); absent: off */
    rawExec?: boolean;
  };
}

/** Object keys sorted at every level, so equal inputs serialise the same. Pure. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    const sorted = entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${sorted.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The lab settings a warm lab's VMs are made from: one list for the key's inputs and for the pool's affinity. Pure. */
export function warmLabSettings(lab: HarnessConfig['lab']) {
  return {
    provider: lab.provider,
    workDir: resolve(lab.workDir),
    box: lab.box,
    cpus: lab.cpus,
    memoryMb: lab.memoryMb,
    tbCacheMb: lab.tbCacheMb,
    cpuModel: lab.cpuModel,
    privateSubnet: lab.privateSubnet,
    managementSubnet: lab.managementSubnet,
  };
}

/**
 * The part of a warm lab's key the config decides, before anything is read from the host or hashed: the lab settings,
 * the topology and, when Nomad is installed before the snapshot, its heartbeat_grace. The key's inputs
 * (lib/lab/vagrant/vagrant-warm.ts warmInputsFor) and the plan's affinity are both made from it. Pure.
 */
export function warmConfigInputs(
  config: Pick<HarnessConfig, 'lab' | 'nomad'>,
  o: { topology?: Topology; nomad: boolean },
) {
  return {
    settings: { ...warmLabSettings(config.lab), topology: topologyLabel(o.topology ?? configTopology(config)) },
    heartbeatGrace: o.nomad ? config.nomad.heartbeatGrace : undefined,
  };
}

/**
 * Cells that could share a warm lab: the key's inputs as the plan knows them (warmConfigInputs, with the Nomad
 * builds by spec instead of their sha256). The pool keeps equal ones in one slot, whose subnets are part of the key.
 * Pure.
 */
export function warmAffinity(cell: Pick<PlannedCell, 'config' | 'builds'>): string {
  const builds = cell.builds.map((b) => [b.role, buildKey(b)]);
  return canonical([warmConfigInputs(cell.config, { nomad: builds.length > 0 }), builds]);
}

/** The snapshot key: 16 hex digits of the sha256 of the canonical inputs (a provider's own, WarmInputs for Vagrant). Pure. */
export function warmKey(inputs: object): string {
  return createHash('sha256').update(canonical(inputs)).digest('hex').slice(0, 16);
}

/** The warm lab's id: its directory name under lab.work_dir and the prefix of its machine names. Pure. */
export function warmLabId(key: string): string {
  return `${WARM_PREFIX}${key}`;
}

/** What is known about a key's warm lab before the run decides. */
export type WarmLabState =
  | { kind: 'none' }
  | { kind: 'ready'; snapshotAtMs: number }
  /** a directory without a usable snapshot: a creation that never finished, or domains/snapshots gone */
  | { kind: 'broken'; why: string };

/** How the run gets its lab. */
export type WarmDecision =
  | { mode: 'cold'; reason: string }
  | { mode: 'create'; reason: string; rebuild?: string }
  | { mode: 'reuse'; reason: string; ageS: number };

/** Why a provider without snapshot/restore (LabProvider.snapshots) never has a warm lab. Pure. */
export function noWarmLab(provider: string): string {
  return `lab.provider ${provider} cannot keep a warm lab: it has no snapshot/restore`;
}

/** Decide warm or cold. Pure: the setting, the provider's snapshots, --keep, the lock and the lab's state decide. */
export function decideWarm(o: {
  warm: boolean;
  provider: string;
  /** the provider has snapshot/restore (LabProvider.snapshots) */
  snapshots: boolean;
  keep: boolean | 'on-failure';
  /** another process holds the key's lock (its pid); undefined when this run holds it */
  lockedBy?: string;
  state: WarmLabState;
  nowMs: number;
}): WarmDecision {
  if (!o.warm) return { mode: 'cold', reason: 'lab.warm is off (--fresh): a fresh lab, no snapshot used or made' };
  if (!o.snapshots) return { mode: 'cold', reason: `${noWarmLab(o.provider)}; this run goes cold` };
  // Note: --keep on-failure may keep the lab too, and a warm lab is parked, not kept: such a run goes cold as well.
  if (o.keep === 'on-failure')
    return { mode: 'cold', reason: "--keep on-failure may keep this run's own VMs; the warm lab is not used" };
  if (o.keep) return { mode: 'cold', reason: "--keep keeps this run's own VMs; the warm lab is not used" };
  if (o.lockedBy !== undefined)
    return { mode: 'cold', reason: `the warm lab of this key is in use by ${o.lockedBy}; this run goes cold` };
  if (o.state.kind === 'ready') {
    const ageS = Math.max(0, Math.round((o.nowMs - o.state.snapshotAtMs) / 1000));
    return { mode: 'reuse', reason: `reverting to the snapshot taken ${ageS} s ago`, ageS };
  }
  if (o.state.kind === 'broken')
    return { mode: 'create', reason: 'rebuilding the warm lab cold, then taking its snapshot', rebuild: o.state.why };
  return { mode: 'create', reason: 'no snapshot for this key yet: a cold lab, then its snapshot' };
}

/** What a warm lab's record is compared with: the same inputs as they are on the host now. */
export interface WarmCurrent {
  /** the added box's identity now (boxIdentity), by box name */
  boxId: string;
  /** sha256 of the recorded build file now; 'missing' when the file is gone; undefined when the lab has no Nomad */
  buildSha256?: string;
  vagrantfile: string;
  templates: string;
}

/** Why a warm lab can never be used again (its box, build, Vagrantfile or templates changed or are gone). Pure. */
export function staleReasons(inputs: WarmInputs, now: WarmCurrent): string[] {
  const out: string[] = [];
  if (now.boxId !== inputs.boxId) out.push(`box ${inputs.box} changed (${inputs.boxId} -> ${now.boxId})`);
  if (now.vagrantfile !== inputs.vagrantfile) out.push('vms/Vagrantfile changed');
  if (inputs.nomad) {
    if (now.buildSha256 === 'missing') out.push('its Nomad build file is gone');
    else if (now.buildSha256 !== inputs.nomad.sha256) out.push('its Nomad build file changed');
    if (now.templates !== inputs.nomad.templates) out.push('the agent templates changed');
  }
  return out;
}

/** Whether a lab created at `createdAtMs` is older than `olderThanS` seconds at `nowMs`. Pure. */
export function olderThan(createdAtMs: number, olderThanS: number, nowMs: number): boolean {
  return nowMs - createdAtMs > olderThanS * 1000;
}
