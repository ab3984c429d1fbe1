// power-loss-all over a lab's power controls (lib/faults/power-loss-all.ts says what it is): every machine powered off
// at the same moment, held off, then powered on group by group in the chosen order, each group awaited (SSH with a
// new boot id) before the next is powered on.
import { HarnessError, type TimeoutError } from '../errors.js';
import type { FaultMark, PowerOrder, RebootRecord } from '../model/lab.js';
import type { MachineRole } from '../model/topology.js';
import type { Logger } from '../log/events.js';
import { sleep, type Deadline } from '../time/deadlines.js';
import { waitForNewBootId, type Rebootable } from './reboot.js';

/** One machine of the lab with its power controls. */
export interface PoweredMachine {
  role: MachineRole;
  machine: Rebootable;
  powerOff(): Promise<void>;
  powerOn(): Promise<void>;
  /** the error for a machine not back by the deadline (the lab adds its serial console) */
  notBack?: (err: TimeoutError) => Promise<Error>;
}

interface PowerAllOptions {
  deadline: Deadline;
  offForMs: number;
  order: PowerOrder;
  logger?: Logger;
  probeMs?: number;
}

/** The groups powered on one after the other: servers then clients, clients then servers, or all at once. Pure. */
export function powerOnGroups<M extends { role: MachineRole }>(machines: readonly M[], order: PowerOrder): M[][] {
  const of = (r: MachineRole) => machines.filter((m) => m.role === r);
  const groups =
    order === 'together'
      ? [[...machines]]
      : order === 'servers-first'
        ? [of('server'), of('client')]
        : [of('client'), of('server')];
  return groups.filter((g) => g.length > 0);
}

/**
 * Power every machine off at once, keep them off for `offForMs`, power them on group by group (each group back with
 * new boot ids before the next); the record is `target`'s, with every machine's moments on the timeline.
 */
export async function powerLossAll(
  target: string,
  machines: readonly PoweredMachine[],
  o: PowerAllOptions,
): Promise<RebootRecord> {
  const { deadline } = o;
  const t = machines.find((m) => m.machine.name === target);
  if (!t)
    throw new HarnessError(
      `power-loss-all: no machine ${target} among ${machines.map((m) => m.machine.name).join(', ')}`,
      { exitCode: 70 },
    );
  const before = new Map(
    await Promise.all(machines.map(async (m) => [m.machine.name, await m.machine.bootId({ deadline })] as const)),
  );
  const names = (ms: readonly PoweredMachine[]) => ms.map((m) => m.machine.name).join(', ');
  const requestedAt = Date.now();
  await Promise.all(machines.map((m) => m.powerOff()));
  const marks: FaultMark[] = [
    {
      atMs: requestedAt,
      label: 'every machine powered off',
      detail: `${names(machines)} for ${(o.offForMs / 1000).toFixed(0)} s (reboot.off_for); then ${o.order}`,
    },
  ];
  await Promise.all(machines.map((m) => m.machine.disconnect().catch(() => undefined)));
  // Note: a deliberate hold (the outage under test), not a poll
  await sleep(o.offForMs, deadline);
  const after = new Map<string, string>();
  const backAtOf: Record<string, string> = {};
  for (const group of powerOnGroups(machines, o.order)) {
    await Promise.all(group.map((m) => m.powerOn()));
    marks.push({ atMs: Date.now(), label: 'powered on', detail: names(group) });
    await Promise.all(
      group.map(async (m) => {
        const id = await waitForNewBootId(m.machine, before.get(m.machine.name)!, {
          deadline,
          ...(o.logger ? { logger: o.logger } : {}),
          ...(o.probeMs ? { probeMs: o.probeMs } : {}),
          ...(m.notBack ? { notBack: m.notBack } : {}),
        });
        after.set(m.machine.name, id);
        backAtOf[m.machine.name] = ((Date.now() - requestedAt) / 1000).toFixed(1);
      }),
    );
    marks.push({ atMs: Date.now(), label: 'back with new boot ids', detail: names(group) });
  }
  const facts: Record<string, string> = {
    'power_loss_all.order': o.order,
    'power_loss_all.machines': names(machines),
    ...Object.fromEntries(Object.entries(backAtOf).map(([n, s]) => [`power_loss_all.back_s.${n}`, s])),
  };
  return {
    machine: target,
    kind: 'power-loss-all',
    bootIdBefore: before.get(target)!,
    bootIdAfter: after.get(target)!,
    requestedAt,
    backAt: Date.now(),
    marks,
    facts,
  };
}
