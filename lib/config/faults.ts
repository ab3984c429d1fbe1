// Pure: the fault kinds (`--reboot <kind>`, `reboot.kind`, matrix axis `reboot`): what each does to the client, what
// Nomad is expected to do, what a provider must offer for it, and which scenarios can run it. The README table and the
// checks' expectations come from here, so they cannot drift apart.
import type { ConfigProblem } from '../errors.js';

import { REBOOT_KINDS, type RebootKind } from '../model/kinds.js';

export { REBOOT_KINDS };
export type { RebootKind };

/** What a kind needs: a shell in the guest, the hypervisor's power controls, a Nomad agent to kill or cut off. */
export type FaultNeed = 'guest' | 'power-reset' | 'power-off' | 'nomad-agent';

/** One row of the table. */
export interface FaultKind {
  kind: RebootKind;
  /** one line: what the harness does */
  does: string;
  /** one line: what Nomad is expected to do (README) */
  nomadExpected: string;
  /** the host reboots: its boot_id must change */
  rebootsHost: boolean;
  needs: readonly FaultNeed[];
}

/** The table. */
export const FAULT_KINDS: Readonly<Record<RebootKind, FaultKind>> = {
  graceful: {
    kind: 'graceful',
    rebootsHost: true,
    needs: ['guest'],
    does: '`systemctl reboot` in the guest (services stop in order)',
    nomadExpected:
      'the client restores its allocs in place at boot (new tasks, same alloc IDs); ' +
      'the node stays ready within heartbeat_grace',
  },
  hard: {
    kind: 'hard',
    rebootsHost: true,
    needs: ['power-reset'],
    does:
      "the hypervisor's reset button (`virsh reset`, `VBoxManage controlvm reset`): " +
      'no shutdown, unflushed writes lost',
    nomadExpected: 'as graceful; state the agent had not written to disk is gone',
  },
  panic: {
    kind: 'panic',
    rebootsHost: true,
    needs: ['guest'],
    does:
      '`sysctl kernel.panic=5 kernel.sysrq=1`, then `echo c > /proc/sysrq-trigger`: ' +
      'a kernel panic, the guest reboots itself 5 s later',
    nomadExpected: 'as hard: restore in place after the boot',
  },
  'power-off': {
    kind: 'power-off',
    rebootsHost: true,
    needs: ['power-off'],
    does:
      'power off (`virsh destroy`, `VBoxManage controlvm poweroff`), wait `reboot.off_for`, ' +
      'power on (`virsh start`, `VBoxManage startvm`)',
    nomadExpected:
      'as hard; if the host stays off longer than heartbeat_grace the node is marked down ' +
      "and its allocs are replaced, unless the group's disconnect { lost_after } outlasts it: then they go " +
      'unknown and are restored in place',
  },
  'agent-kill': {
    kind: 'agent-kill',
    rebootsHost: false,
    needs: ['guest', 'nomad-agent'],
    does:
      '`systemctl kill -s SIGKILL --kill-whom=main nomad`: the agent dies, ' +
      'systemd restarts it (Restart=on-failure); no host reboot',
    nomadExpected:
      'the control case: the agent re-attaches to the running tasks; same allocs, tasks NOT restarted, ' +
      'boot_id unchanged (must pass on every build from 1.9.4)',
  },
  partition: {
    kind: 'partition',
    rebootsHost: false,
    needs: ['guest', 'nomad-agent'],
    does:
      "iptables on the client drops traffic to and from the server's private IP on ports 4646/4647 " +
      'for `reboot.partition_for`, then heals; the host keeps running',
    nomadExpected:
      'shorter than heartbeat_grace: nothing changes (tasks keep running); ' +
      'longer: the node is marked down, its allocs lost and replaced once it is back; ' +
      "within the group's disconnect { lost_after } (max_client_disconnect before 1.10): the node is " +
      'disconnected, its allocs unknown, then running again in place (tasks not restarted)',
  },
};

/**
 * The fault step's name: "reboot the client (graceful)" for a kind that reboots the host, "disrupt the client
 * (partition)" for one that does not. One name per kind, never a value, so a step's CI history stays in one case.
 */
export function faultStepName(kind: RebootKind): string {
  return `${FAULT_KINDS[kind].rebootsHost ? 'reboot' : 'disrupt'} the client (${kind})`;
}

/** How long a partition held, the server's heartbeat_grace and the job's lost_after (its shortest), in seconds. */
export interface FaultDurations {
  partitionForS?: number;
  heartbeatGraceS?: number;
  /** the job's disconnect lost_after (0 or absent: allocs are lost as soon as the node is marked down) */
  lostAfterS?: number;
}

/** Does this kind restart the tasks (a host reboot kills them; an agent restart or partition does not)? */
export function faultRestartsTasks(kind: RebootKind, o: FaultDurations = {}): boolean {
  if (FAULT_KINDS[kind].rebootsHost) return true;
  return kind === 'partition' && expectReplacement(kind, o);
}

/**
 * Is the watched alloc expected to be replaced rather than restored: a partition longer than heartbeat_grace, plus the
 * job's lost_after when it keeps its allocs through a disconnect (then shorter ones reconnect in place)?
 */
export function expectReplacement(kind: RebootKind, d: FaultDurations): boolean {
  return kind === 'partition' && (d.partitionForS ?? 0) > (d.heartbeatGraceS ?? Infinity) + (d.lostAfterS ?? 0);
}

/** What a lab provider can do to its machines. */
export interface ProviderFaults {
  name: string;
  powerReset: boolean;
  powerOff: boolean;
}

/** The Vagrant providers, both with power controls (ssh: a reset only with lab.hard_reset_command). */
export const PROVIDER_FAULTS: Readonly<Record<string, ProviderFaults>> = {
  libvirt: { name: 'libvirt', powerReset: true, powerOff: true },
  virtualbox: { name: 'virtualbox', powerReset: true, powerOff: true },
};

/** What a scenario offers the faults. */
export interface ScenarioFaults {
  name: string;
  hasNomadAgent: boolean;
}

/**
 * Problems with running `kind` in scenario `scenario` on `provider`: a kind the provider cannot do, or one needing a
 * Nomad agent in a scenario without one. Checked before anything is created (exit 2).
 */
export function faultKindProblems(kind: RebootKind, scenario: ScenarioFaults, p: ProviderFaults): ConfigProblem[] {
  const f = FAULT_KINDS[kind];
  const problems: ConfigProblem[] = [];
  const can = REBOOT_KINDS.filter((k) => missing(FAULT_KINDS[k], scenario, p).length === 0);
  for (const need of missing(f, scenario, p)) {
    const agent = `${scenario.name} runs no Nomad agent to ${kind === 'partition' ? 'cut off' : 'kill'}`;
    const power = `provider ${p.name} has no ${need === 'power-off' ? 'power off/on' : 'power reset'}`;
    const why = need === 'nomad-agent' ? agent : power;
    const fix = `use one of: ${can.join(', ')}`;
    problems.push({ field: '--reboot (reboot.kind)', value: kind, message: `cannot be done here: ${why}`, fix });
  }
  return problems;
}

function missing(f: FaultKind, scenario: ScenarioFaults, p: ProviderFaults): FaultNeed[] {
  const lacks: Record<FaultNeed, boolean> = {
    guest: false,
    'nomad-agent': !scenario.hasNomadAgent,
    'power-reset': !p.powerReset,
    'power-off': !p.powerOff,
  };
  return f.needs.filter((n) => lacks[n]);
}
