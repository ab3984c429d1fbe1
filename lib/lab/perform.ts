// How a provider performs the fault kinds: a map from the registry's kind (lib/faults/registry.ts) to a performer, one
// per provider. The map is the provider's claim: the kinds it performs are its keys, so a claimed kind without a
// performer cannot be written. The performers every provider with a root shell shares are here.
import { HarnessError } from '../errors.js';
import { FAULTS } from '../faults/registry.js';
import type { Logger } from '../log/events.js';
import type { FaultParams, RebootKind, RebootRecord } from '../model/lab.js';
import { killAgent, partition } from '../ssh/disrupt.js';
import { leaderPartition, linkFlap, linkLoss } from '../ssh/disrupt-link.js';
import { killExecutor, restartDocker } from '../ssh/disrupt-process.js';
import { powerLossAll, type PoweredMachine } from '../ssh/power-all.js';
import { rebootMachine, type Rebootable, type RebootOptions } from '../ssh/reboot.js';
import type { Deadline } from '../time/deadlines.js';

/** One machine of a lab as its performers see it: the machine and what the lab around it supplies. */
export interface FaultTarget {
  machine: Rebootable;
  logger?: Logger;
  /** the addresses the servers' agents bind (what a partition cuts the machine off from); none: a problem */
  serverAddresses(d: Deadline): Promise<string[]>;
  /** the addresses the agents of every other machine of the lab bind (what a leader partition cuts it off from) */
  peerAddresses(d: Deadline): Promise<string[]>;
  /** the lab's power controls and its not-back error for a reboot of `kind` */
  rebootOptions(kind: RebootKind, o: PerformOptions): RebootOptions;
  /** every machine of the lab with its power controls (a lab that has them: power-loss-all) */
  everyMachine?(o: PerformOptions): PoweredMachine[];
}

interface PerformOptions {
  deadline: Deadline;
  fault: FaultParams;
}

/** How one kind is done to one target. */
type Performer = (t: FaultTarget, o: PerformOptions) => Promise<RebootRecord>;

/** A provider's performers: every kind of `K` has one (K: the kinds the provider claims). */
export type Performers<K extends RebootKind = RebootKind> = { readonly [k in K]: Performer };

/** Reboot the machine with `kind` and wait for a new boot id (lib/ssh/reboot.ts). */
export const rebootWith =
  (kind: RebootKind): Performer =>
  (t, o) =>
    rebootMachine(t.machine, kind, t.rebootOptions(kind, o));

/** The servers' addresses, or a harness error naming the kind that needs them (a lab without a server). */
async function serversOf(t: FaultTarget, kind: RebootKind, deadline: Deadline): Promise<string[]> {
  // Note: cut off from every server, or the client just goes on with another one of the cluster
  const servers = await t.serverAddresses(deadline);
  if (!servers.length)
    throw new HarnessError(`${kind}: the lab has no server to cut the client off from`, { exitCode: 2 });
  return servers;
}

const lg = (t: FaultTarget) => (t.logger ? { logger: t.logger } : {});

/** The kinds a root shell in the machine is enough for. */
export const GUEST_PERFORMERS = {
  graceful: rebootWith('graceful'),
  panic: rebootWith('panic'),
  'agent-kill': (t, { deadline }) => killAgent(t.machine, { deadline, ...lg(t) }),
  'executor-kill': (t, { deadline }) => killExecutor(t.machine, { deadline, ...lg(t) }),
  'docker-restart': (t, { deadline }) => restartDocker(t.machine, { deadline, ...lg(t) }),
  partition: async (t, { deadline, fault }) =>
    partition(t.machine, await serversOf(t, 'partition', deadline), fault.partitionForMs ?? 30_000, {
      deadline,
      ...lg(t),
    }),
  'leader-partition': async (t, { deadline, fault }) => {
    const peers = await t.peerAddresses(deadline);
    if (!peers.length)
      throw new HarnessError('leader-partition: the lab has no other machine to cut the leader off', { exitCode: 2 });
    return leaderPartition(t.machine, peers, fault.partitionForMs ?? 30_000, { deadline, ...lg(t) });
  },
  'link-flap': async (t, { deadline, fault }) =>
    linkFlap(t.machine, await serversOf(t, 'link-flap', deadline), {
      deadline,
      count: fault.flapCount ?? 3,
      downMs: fault.flapDownForMs ?? 5000,
      upMs: fault.flapUpForMs ?? 5000,
      ...lg(t),
    }),
  'link-loss': async (t, { deadline, fault }) =>
    linkLoss(t.machine, await serversOf(t, 'link-loss', deadline), {
      deadline,
      lossPercent: fault.lossPercent ?? 30,
      delayMs: fault.lossDelayMs ?? 200,
      forMs: fault.lossForMs ?? 60_000,
      ...lg(t),
    }),
} satisfies Performers<
  | 'graceful'
  | 'panic'
  | 'agent-kill'
  | 'executor-kill'
  | 'docker-restart'
  | 'partition'
  | 'leader-partition'
  | 'link-flap'
  | 'link-loss'
>;

/** Every machine of the lab powered off at once, then on in `fault.powerOrder` (the lab's power controls). */
export const powerLossAllPerformer: Performer = async (t, o) => {
  if (!t.everyMachine)
    throw new HarnessError('power-loss-all: this lab has no power controls for its machines', { exitCode: 70 });
  return powerLossAll(t.machine.name, t.everyMachine(o), {
    deadline: o.deadline,
    offForMs: o.fault.offForMs ?? 10_000,
    order: o.fault.powerOrder ?? 'servers-first',
    ...lg(t),
  });
};

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
