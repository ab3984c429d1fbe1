// How a provider performs the fault kinds: a map from the registry's kind (lib/faults/registry.ts) to a performer, one
// per provider. The map is the provider's claim: the kinds it performs are its keys, so a claimed kind without a
// performer cannot be written. The performers every provider with a root shell shares are here.
import { HarnessError } from '../errors.js';
import { FAULTS } from '../faults/registry.js';
import type { Logger } from '../log/events.js';
import type { FaultParams, RebootKind, RebootRecord } from '../model/lab.js';
import { killAgent, partition } from '../ssh/disrupt.js';
import { rebootMachine, type Rebootable, type RebootOptions } from '../ssh/reboot.js';
import type { Deadline } from '../time/deadlines.js';

/** One machine of a lab as its performers see it: the machine and what the lab around it supplies. */
export interface FaultTarget {
  machine: Rebootable;
  logger?: Logger;
  /** the addresses the servers' agents bind (what a partition cuts the machine off from); none: a problem */
  serverAddresses(d: Deadline): Promise<string[]>;
  /** the lab's power controls and its not-back error for a reboot of `kind` */
  rebootOptions(kind: RebootKind, o: PerformOptions): RebootOptions;
}

export interface PerformOptions {
  deadline: Deadline;
  fault: FaultParams;
}

/** How one kind is done to one target. */
export type Performer = (t: FaultTarget, o: PerformOptions) => Promise<RebootRecord>;

/** A provider's performers: every kind of `K` has one (K: the kinds the provider claims). */
export type Performers<K extends RebootKind = RebootKind> = { readonly [k in K]: Performer };

/** Reboot the machine with `kind` and wait for a new boot id (lib/ssh/reboot.ts). */
export const rebootWith =
  (kind: RebootKind): Performer =>
  (t, o) =>
    rebootMachine(t.machine, kind, t.rebootOptions(kind, o));

/** The kinds a root shell in the machine is enough for. */
export const GUEST_PERFORMERS = {
  graceful: rebootWith('graceful'),
  panic: rebootWith('panic'),
  'agent-kill': (t, { deadline }) => killAgent(t.machine, { deadline, ...(t.logger ? { logger: t.logger } : {}) }),
  partition: async (t, { deadline, fault }) => {
    // Note: cut off from every server, or the client just goes on with another one of the cluster
    const servers = await t.serverAddresses(deadline);
    if (!servers.length)
      throw new HarnessError('partition: the lab has no server to cut the client off from', { exitCode: 2 });
    const lg = t.logger ? { logger: t.logger } : {};
    return partition(t.machine, servers, fault.partitionForMs ?? 30_000, { deadline, ...lg });
  },
} satisfies Performers<'graceful' | 'panic' | 'agent-kill' | 'partition'>;

/** The kinds of a performer map, in the registry's order. */
export function performedKinds(performers: Partial<Record<RebootKind, Performer>>): RebootKind[] {
  return FAULTS.names.filter((k) => performers[k] !== undefined);
}

/** Perform `kind` on `t` with the provider's map; a kind it has no performer for is a harness error (validated before). */
export async function perform(
  performers: Partial<Record<RebootKind, Performer>>,
  provider: string,
  kind: RebootKind,
  t: FaultTarget,
  o: PerformOptions,
): Promise<RebootRecord> {
  const p = performers[kind];
  if (!p) throw new HarnessError(`${kind}: lab.provider ${provider} does not perform it`, { exitCode: 70 });
  return p(t, o);
}
