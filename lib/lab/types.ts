// The contracts between a scenario and the machines it runs on. Real implementations live in
// lib/vagrant + lib/ssh (lib/lab/vagrant-lab.ts); integration tests hand scenarios stand-ins.
import type { Deadline } from '../run/deadline.js';
import type { RebootKind } from '../config/faults.js';

/** Result of one remote command. */
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

/** One VM, reached over SSH only. `cmd` strings must be built with lib/ssh/quote.ts. */
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

export type { RebootKind } from '../config/faults.js';

/** How long the timed faults last (lib/config/faults.ts): power-off's off time, partition's cut. */
export interface FaultParams {
  offForMs?: number;
  partitionForMs?: number;
}

/** A moment of a fault for the timeline (power off/on, partition applied/healed, agent killed/back). */
export interface FaultMark {
  atMs: number;
  label: string;
  detail?: string;
}

/** What a reboot (or another fault kind) observed. Times are wall-clock epoch milliseconds. */
export interface RebootRecord {
  machine: string;
  kind: RebootKind;
  bootIdBefore: string;
  bootIdAfter: string;
  /** when the reboot was requested */
  requestedAt: number;
  /** first time SSH answered with the new boot id (for kinds without a reboot: when the fault was over) */
  backAt: number;
  /** the moments of the fault in between, for the timeline */
  marks?: FaultMark[];
  /** facts for the report (e.g. agent pids before and after an agent-kill) */
  facts?: Record<string, string>;
}

/** A set of machines with a lifecycle. */
export interface Lab {
  readonly id: string;
  readonly machines: Readonly<Record<string, Machine>>;
  /** inject the fault `kind`: for kinds that reboot, wait until SSH answers with a new boot_id; else until it is over */
  reboot(role: string, kind: RebootKind, opts: { deadline: Deadline; fault?: FaultParams }): Promise<RebootRecord>;
  /** text evidence about the lab (vagrant status, serial console log, …) keyed by file name */
  collectEvidence(opts: { deadline: Deadline }): Promise<Record<string, string>>;
  /** how a person reaches and removes the lab when it is kept (--keep) */
  describe(): string;
  destroy(opts: { deadline: Deadline }): Promise<void>;
}
