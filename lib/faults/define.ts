// Pure: what a fault kind is. One object per kind (lib/faults/<kind>.ts), registered once (registry.ts); the option
// table and --help, docs/faults.md, the matrix axis, the checks' outcome rule and the providers' dispatch read it.
import type { Field } from '../config/fields.js';
import type { HarnessConfig } from '../config/schema.js';
import type { MachineRole } from '../model/topology.js';

/**
 * What a kind needs of the lab: the names a provider declares it has (its `capabilities`). `guest-shell`: a root
 * shell in the machine (every provider); `power-reset` and `power-off`: the machine's power controls;
 * `power-off-all`: every machine of the lab powered off at the same moment, then on in a chosen order.
 */
export type LabCapability = 'guest-shell' | 'power-reset' | 'power-off' | 'power-off-all';
/** Why a kind cannot be done under a config, and what to set for it (no fix: nothing makes it possible). */
export interface Refusal {
  reason: string;
  fix?: string;
}

/**
 * What the fault must have caused, as data: a run whose fault did not cause it proved nothing (another helper judges
 * it). `when: 'past-heartbeat-grace'`: only when the fault held longer than the server's heartbeat_grace.
 */
export type VacuityProof =
  | { what: 'boot-id'; changes: boolean }
  | { what: 'agent-restarted' }
  | { what: 'node-status'; becomes: 'down' | 'disconnected'; when?: 'past-heartbeat-grace' }
  | { what: 'mark'; label: string };

/** How long a timed fault held, the server's heartbeat_grace and the job's lost_after (its shortest), in seconds. */
export interface FaultDurations {
  partitionForS?: number;
  heartbeatGraceS?: number;
  /** the job's disconnect lost_after (0 or absent: allocs are lost as soon as the node is marked down) */
  lostAfterS?: number;
}

/** What Nomad is expected to do after the fault: the rule the checks judge by. */
export interface FaultOutcome {
  /** the watched alloc is replaced rather than restored */
  replaced: boolean;
  /** the tasks start again (a host reboot kills them; a replacement starts new ones) */
  restartsTasks: boolean;
  /** the client restores its allocs in place (after a boot, or an agent that reattaches to running tasks) */
  restoresInPlace: boolean;
  /** for a kind that leaves the host up: one line saying why the checks expect what they do */
  why?: string;
}

/** One fault kind, everything about it but how each provider performs it (that is the provider's, keyed by name). */
export interface FaultKindDef<N extends string = string> {
  name: N;
  /** one line: what the harness does (docs/faults.md, list) */
  doc: string;
  /** one line: what Nomad is expected to do (docs/faults.md, the run's `reboot.expected` property) */
  nomadExpected: string;
  /** the host reboots: its boot_id must change */
  rebootsHost: boolean;
  /** what the lab must offer for it (checked against the provider's capabilities before anything exists) */
  needs: readonly LabCapability[];
  /** it acts on the machine's Nomad agent (a scenario without one cannot run it) */
  needsNomadAgent: boolean;
  /** the roles it can be aimed at */
  roles: readonly MachineRole[];
  /** its own options: configuration keys of the table (lib/config/table.ts lists them after `reboot.kind`) */
  options: readonly Field[];
  /** how long it holds the machine down or cut off before the wait for it to come back starts, in seconds */
  holdS(reboot: HarnessConfig['reboot']): number;
  /** what it must have caused (data) */
  proves: readonly VacuityProof[];
  /** what Nomad is expected to do after it */
  outcome(d: FaultDurations): FaultOutcome;
  /**
   * it hits every machine of the lab at once, whatever the target (the scenario then waits for a leader and every
   * client node after it)
   */
  wholeLab?: boolean;
  /** other kinds' options it reads too (leader-partition: reboot.partition_for), by their harness.yaml key */
  reads?: readonly string[];
  /** what about this config it cannot run with (a task driver, a server count), each with its fix */
  refuses?(config: HarnessConfig): Refusal[];
}

/** A kind, checked for the shape a registry needs (a name in lower-case words, a doc line each). */
export function defineFaultKind<const N extends string>(def: FaultKindDef<N>): FaultKindDef<N> {
  if (!/^[a-z][a-z0-9-]*$/.test(def.name)) throw new Error(`fault kind ${JSON.stringify(def.name)}: not a kind name`);
  if (!def.doc.trim() || !def.nomadExpected.trim()) throw new Error(`fault kind ${def.name}: doc lines are required`);
  return def;
}

/** The outcome of every kind that reboots the host: the client restores its allocs in place after the boot. */
export const REBOOT_OUTCOME = (): FaultOutcome => ({ replaced: false, restartsTasks: true, restoresInPlace: true });

/**
 * Does the client's node register again after `k` (its status set anew by the server): after a new boot or a restarted
 * agent; a kind that leaves the agent running (a partition, a lossy link, a killed executor) need not change the node.
 */
export function nodeReregisters(k: Pick<FaultKindDef, 'proves'>): boolean {
  return k.proves.some((p) => (p.what === 'boot-id' && p.changes) || p.what === 'agent-restarted');
}

/** No hold: the wait for the machine starts as soon as the fault is triggered. */
export const NO_HOLD = (): number => 0;
