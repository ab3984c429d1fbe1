// Snapshot/restore, the trait a lab provider declares to get warm labs (LabProvider.snapshots, lib/lab/provider.ts):
// everything the warm-lab code (warm-lab.ts) asks of a provider's machines. The libvirt provider implements it with
// libvirt snapshots (lib/lab/vagrant/vagrant-warm.ts); a provider without it runs cold and refuses lab.warm.
import type { Lab } from '../../model/lab.js';
import type { Deadline } from '../../time/deadlines.js';

/** The end of a warm lab's run instead of destroying its machines: handed the provider's destroy of them. */
export interface WarmTeardown {
  what: string;
  fn(destroy: () => Promise<void>): Promise<void>;
}

/**
 * One warm lab's machines (named `<id>-<slot>`, kept under `dir`) as a provider with snapshot/restore handles them:
 * everything the warm-lab code (lib/lab/warm/warm-lab.ts) asks of a provider.
 */
export interface SnapshotMachines {
  /** what keeps the machines from being restored to snapshot `name` (a machine, its snapshot, a network gone), if any */
  missing(name: string, d: Deadline): Promise<string | undefined>;
  /** bring the machines up cold; `teardown` is registered as the run's end in place of destroying them */
  up(teardown: WarmTeardown, d: Deadline): Promise<Lab>;
  /** the lab of machines that exist already (to be restored); `teardown` as for up */
  attach(teardown: WarmTeardown): Promise<Lab>;
  /** revert every machine to snapshot `name` (they run afterwards; their clocks are the snapshot's) */
  restore(name: string, d: Deadline): Promise<void>;
  /** snapshot every running machine as `name`, together (the same guest moment on each) */
  take(name: string, d: Deadline): Promise<void>;
  /** delete the machines' snapshots, each as far as it goes (a machine may be gone) */
  drop(d: Deadline): Promise<void>;
  /** shut the machines off, their snapshots kept: nothing runs between runs */
  park(d: Deadline): Promise<void>;
  /** remove the whole warm lab (snapshots, machines, its directory): before it is rebuilt */
  remove(d: Deadline): Promise<void>;
}

/** Where a warm lab lives: its id (`warm-<key>`, the prefix of its machines' names) and its directory. */
export interface WarmAt {
  id: string;
  dir: string;
}

/**
 * What a provider declares when it can snapshot and restore its running machines: the machines of a warm lab, made
 * from what its `up` knows (C: its own context, e.g. the lab spec).
 */
export interface LabSnapshots<C = never> {
  machines(c: C, at: WarmAt): SnapshotMachines;
}
