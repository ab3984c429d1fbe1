// The ground floor: the kinds a run is made of (reboots, drivers, upgrade modes, artifact policies). Imports nothing.

/**
 * Every fault kind's name, in the order docs/faults.md lists them: the ground floor's vocabulary. Each is one object in
 * lib/faults/<kind>.ts, registered in lib/faults/registry.ts (tsc fails while a name here has no object there).
 */
export const REBOOT_KINDS = [
  'graceful',
  'hard',
  'panic',
  'power-off',
  'power-loss-all',
  'agent-kill',
  'executor-kill',
  'docker-restart',
  'partition',
  'leader-partition',
  'link-flap',
  'link-loss',
] as const;
/** How the client is disrupted. */
export type RebootKind = (typeof REBOOT_KINDS)[number];
/** task driver of bridge-exec-reboot's job: exec (the seed procedure) or docker (GH-24292, a box with Docker) */
export type TaskDriver = 'exec' | 'docker';
export const TASK_DRIVERS: readonly TaskDriver[] = ['exec', 'docker'];
/** upgrade-in-place variants: swap the build; restart on the same build (control case); swap, then reboot the host */
export type UpgradeMode = 'upgrade' | 'restart-only' | 'upgrade-then-reboot';
export const UPGRADE_MODES: readonly UpgradeMode[] = ['upgrade', 'restart-only', 'upgrade-then-reboot'];
export type ArtifactsPolicy = 'on-failure' | 'always' | 'never';
/** where host-local keeps its state: on disk (Nomad <= 1.9.3) or on tmpfs (Nomad >= 1.9.4); lib/cni/config.ts has the dirs */
export type CniStateMode = 'persistent' | 'tmpfs';
/** power-loss-all: which machines come back first (servers, clients) or all at once */
export type PowerOrder = 'servers-first' | 'clients-first' | 'together';
export const POWER_ORDERS: readonly PowerOrder[] = ['servers-first', 'clients-first', 'together'];
/** Nomad's job types: each is judged by what Nomad promises for it (lib/checks/job-types.ts). */
export const JOB_TYPES = ['service', 'system', 'batch', 'sysbatch'] as const;
export type JobType = (typeof JOB_TYPES)[number];
