// The ground floor: the contracts between a scenario and the machines it runs on. Real implementations live in
// lib/vagrant + lib/ssh (lib/lab/vagrant/vagrant-lab.ts); integration tests hand scenarios stand-ins. Imports nothing outside.
import type { Deadline } from './deadline.js';

/** Result of one command, remote (Machine.exec) or local (lib/exec runCommand). */
export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface ExecOptions {
  deadline: Deadline;
  /** written to the command's stdin */
  stdin?: string | Buffer;
  /** run through `sudo -n` */
  sudo?: boolean;
  /** stream output lines to the logger (--verbose) */
  stream?: boolean;
}

/** A TCP forward from 127.0.0.1:localPort on the host to host:port as seen from the machine. */
export interface Tunnel {
  localPort: number;
  close(): Promise<void>;
}

/** One VM, reached over SSH only. `cmd` strings must be built with lib/shell/quote.ts. */
export interface Machine {
  /** logical role in the lab: "server" or "client" */
  readonly role: string;
  /** Vagrant machine name (contains the run id) */
  readonly name: string;
  exec(cmd: string, opts: ExecOptions): Promise<ExecResult>;
  upload(localPath: string, remotePath: string, opts: { deadline: Deadline; mode?: number }): Promise<void>;
  writeFile(remotePath: string, content: string | Buffer, opts: { deadline: Deadline; mode?: number }): Promise<void>;
  /** /proc/sys/kernel/random/boot_id, trimmed */
  bootId(opts: { deadline: Deadline }): Promise<string>;
  forward(remoteHost: string, remotePort: number, opts: { deadline: Deadline }): Promise<Tunnel>;
  /** drop cached connections (after a reboot) */
  disconnect(): Promise<void>;
}

import type { PowerOrder, RebootKind } from './kinds.js';
import type { FaultMark, RebootRecord } from './evidence.js';
export type { FaultMark, PowerOrder, RebootKind, RebootRecord };

/** How long the timed faults last (lib/faults/power-off.ts, partition.ts): power-off's off time, partition's cut. */
export interface FaultParams {
  offForMs?: number;
  partitionForMs?: number;
  /** link-flap: how many cuts, each down for flapDownForMs, then up for flapUpForMs */
  flapCount?: number;
  flapDownForMs?: number;
  flapUpForMs?: number;
  /** link-loss: percent of packets dropped toward the servers, delay added, for how long */
  lossPercent?: number;
  lossDelayMs?: number;
  lossForMs?: number;
  /** power-loss-all: which machines are powered on first */
  powerOrder?: PowerOrder;
}

/** A set of machines with a lifecycle. */
export interface Lab {
  readonly id: string;
  /**
   * by slot name (lib/model/topology.ts): "server" and "client" in a pair, else "server-1", "client-2"; each machine
   * keeps its role
   */
  readonly machines: Readonly<Record<string, Machine>>;
  /**
   * inject the fault `kind` on the machine of slot `name`: for kinds that reboot, wait until SSH answers with a new
   * boot_id; else until it is over
   */
  reboot(name: string, kind: RebootKind, opts: { deadline: Deadline; fault?: FaultParams }): Promise<RebootRecord>;
  /** text evidence about the lab (vagrant status, serial console log, …) keyed by file name */
  collectEvidence(opts: { deadline: Deadline }): Promise<Record<string, string>>;
  /** how a person reaches and removes the lab when it is kept (--keep) */
  describe(): string;
  destroy(opts: { deadline: Deadline }): Promise<void>;
}

/** A machine's 1-based index within its role, read from its slot name ("client-2" -> 2; "client" -> 1). Pure. */
function slotIndex(name: string): number {
  const m = /-(\d+)$/.exec(name);
  return m ? Number(m[1]) : 1;
}

/** The lab's machines of `role` with their slot names, in index order. Pure. */
export function namedMachinesOf(lab: Pick<Lab, 'machines'>, role: string): [string, Machine][] {
  return Object.entries(lab.machines)
    .filter(([, m]) => m.role === role)
    .sort(([a], [b]) => slotIndex(a) - slotIndex(b));
}

/** The lab's machines of `role` in index order (the first client is `machinesOf(lab, 'client')[0]`). Pure. */
export function machinesOf(lab: Pick<Lab, 'machines'>, role: string): Machine[] {
  return namedMachinesOf(lab, role).map(([, m]) => m);
}

/**
 * The first machine of `role` and its slot name ("client" in a pair, else "client-1"): the one a scenario written for a
 * pair means by "the client". Throws naming what the lab has when it has none (a scenario that brought up other roles).
 */
export function firstOf(lab: Pick<Lab, 'machines'>, role: string): { name: string; machine: Machine } {
  const first = namedMachinesOf(lab, role)[0];
  if (!first)
    throw new Error(`the lab has no ${role} machine (it has ${Object.keys(lab.machines).join(', ') || 'none'})`);
  return { name: first[0], machine: first[1] };
}
