// The fault kinds as a scenario uses them: refuse a kind the scenario or provider cannot do (before anything is
// created), the timed faults' durations from the config, and the fault's moments on the timeline and in the facts.
import type { HarnessConfig } from '../config/schema.js';
import type { ConfigProblem } from '../errors.js';
import { FAULTS, faultKind, faultKindProblems } from '../faults/registry.js';
import { faultOffer } from '../lab/providers.js';
import { namedMachinesOf, type FaultParams, type Lab, type RebootRecord } from '../model/lab.js';
import type { RunContext } from '../run/context.js';

/**
 * Problems with `config.reboot.kind` for this scenario (exit 2, nothing created): a kind it has no Nomad agent for.
 * What the provider cannot do is asked of the provider while the config is resolved (lib/lab/providers.ts).
 */
export function faultProblems(scenario: string, config: HarnessConfig, o: { hasNomadAgent: boolean }): ConfigProblem[] {
  const s = { name: scenario, hasNomadAgent: o.hasNomadAgent };
  return faultKindProblems(config.reboot.kind, s, faultOffer(config), FAULTS, 'scenario');
}

/** The durations of the timed faults, from the config. */
export function faultParams(config: HarnessConfig): FaultParams {
  return { offForMs: config.reboot.offForS * 1000, partitionForMs: config.reboot.partitionForS * 1000 };
}

/**
 * The reboot step's budget: the fault's own hold (power-off's off time, partition's cut) plus `reboot.deadline`, the
 * time the client may take to answer SSH with a new boot id afterwards (past it, exit 3 naming the last SSH
 * error and the serial console's tail).
 */
export function rebootStepMs(config: HarnessConfig): number {
  return (faultKind(config.reboot.kind).holdS(config.reboot) + config.reboot.deadlineS) * 1000;
}

/** Put the fault's own moments on the host lane and its facts in the properties. */
export function recordFault(ctx: RunContext, r: RebootRecord, suffix = ''): void {
  for (const m of r.marks ?? []) {
    const detail = m.detail ? { detail: m.detail } : {};
    ctx.mark({ atMs: m.atMs, lane: 'host', label: m.label, ...detail, severity: 'warn' });
  }
  for (const [k, v] of Object.entries(r.facts ?? {})) ctx.fact(`${k}${suffix}`, v);
  ctx.fact('reboot.expected', faultKind(r.kind).nomadExpected);
}

/**
 * A scenario that disrupts its one client names the lab and the target as a cluster run does (lib/scenario/
 * cluster-run.ts), as properties: `lab.topology` (the machines it brought up, servers+clients), `reboot.target` and
 * `fault.1.target` (the client's slot name: "client" in a pair, "client-1" in a cluster).
 */
export function recordOneTarget(ctx: RunContext, lab: Pick<Lab, 'machines'>, target: string): void {
  const count = (role: string) => namedMachinesOf(lab, role).length;
  ctx.fact('lab.topology', `${count('server')}+${count('client')}`);
  ctx.fact('reboot.target', target);
  ctx.fact('fault.1.target', `${target} (the scenario's client)`);
}
