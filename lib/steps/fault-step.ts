// The fault kinds as a scenario uses them: refuse a kind the scenario or provider cannot do (before anything is
// created), the timed faults' durations from the config, and the fault's moments on the timeline and in the facts.
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { HarnessConfig } from '../config/schema.js';
import { decodeUtf8 } from '../config/text-file.js';
import {
  parseSchedule,
  resolveSchedule,
  stepConfig,
  type FaultSchedule,
  type PartialSchedule,
} from '../faults/schedule.js';
import type { ConfigProblem } from '../errors.js';
import { FAULTS, faultKind, faultKindProblems } from '../faults/registry.js';
import { nodeReregisters } from '../faults/define.js';
import type { MachineRole } from '../model/topology.js';
import type { RebootKind } from '../model/kinds.js';
import { targetText, type TargetSpec } from '../model/target.js';
import type { Nomad } from '../nomad/client.js';
import { waitForLeader } from '../nomad/wait.js';
import { faultOffer } from '../lab/providers.js';
import { namedMachinesOf, type FaultParams, type Lab, type RebootRecord } from '../model/lab.js';
import type { RunContext } from '../run/context.js';

/**
 * Problems with `config.reboot.kind` for this scenario (exit 2, nothing created): a kind it has no Nomad agent for, or
 * a kind aimed at servers only (leader-partition) in a run whose target is a client. `defaultRole`: what the scenario
 * hits without --target (a client, or the leader for server-reboot). What the provider cannot do is asked of the
 * provider while the config is resolved (lib/lab/providers.ts).
 */
export function faultProblems(
  scenario: string,
  config: HarnessConfig,
  o: {
    hasNomadAgent: boolean;
    defaultRole?: MachineRole;
    runsSchedules?: boolean;
    refuses?: (kind: string) => boolean;
  },
): ConfigProblem[] {
  const s = { name: scenario, hasNomadAgent: o.hasNomadAgent, ...(o.refuses ? { refuses: o.refuses } : {}) };
  const kind = faultKind(config.reboot.kind);
  const given = config.reboot.target;
  const role = targetRole(given) ?? o.defaultRole ?? 'client';
  const kinds = `${kind.name} is aimed at ${kind.roles.join(' or ')} machines`;
  const aimed: ConfigProblem[] =
    role === 'client' && !kind.roles.includes('client')
      ? [
          {
            field: '--reboot (reboot.kind)',
            value: kind.name,
            message: `${kinds}; ${given ? `the target ${targetText(given)} is a client` : `${scenario} aims its fault at a client`}`,
            fix:
              given && o.defaultRole === 'server'
                ? 'aim it at a server: leader, servers or server-N'
                : `run server-reboot --reboot ${kind.name}${kind.name === 'leader-partition' ? ' --servers 3' : ''}`,
          },
        ]
      : // a client's fault aimed at a server: the performer would find no alloc, no container, no route to cut
        role === 'server' && !kind.roles.includes('server') && o.defaultRole !== 'server'
        ? [
            {
              field: '--reboot (reboot.kind)',
              value: kind.name,
              message: `${kinds}; the target ${given ? targetText(given) : 'leader'} is a server`,
              fix: `aim it at a client (--target client-1 or clients), or give a kind a server takes: ${FAULTS.kinds
                .filter((k) => k.roles.includes('server') && !k.wholeLab)
                .map((k) => k.name)
                .join(', ')}`,
            },
          ]
        : [];
  const schedule: ConfigProblem[] =
    config.reboot.faults && !o.runsSchedules
      ? [
          {
            field: '--faults (reboot.faults)',
            value: config.reboot.faults,
            message: `${scenario} runs one fault; a schedule of several is run by the cluster scenarios`,
            fix: 'run rolling-reboot or server-reboot with --faults, or give --reboot',
          },
        ]
      : [];
  return [...faultKindProblems(config.reboot.kind, s, faultOffer(config), FAULTS, 'scenario'), ...aimed, ...schedule];
}

/** The schedule of `config.reboot.faults`, read and parsed, or its problems (a file that is not there, or bad). */
export function readSchedule(
  config: HarnessConfig,
  offered?: readonly string[],
):
  | { ok: true; schedule: FaultSchedule }
  | { ok: false; problems: ConfigProblem[]; parsed?: PartialSchedule }
  | undefined {
  const file = config.reboot.faults;
  if (!file) return undefined;
  let raw: unknown;
  try {
    const decoded = decodeUtf8(readFileSync(file), '--faults (reboot.faults)', file);
    if (!decoded.ok) return { ok: false, problems: [decoded.problem] };
    raw = parseYaml(decoded.text);
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    const problem = {
      field: '--faults (reboot.faults)',
      value: file,
      message: `cannot be read: ${why}${
        isAbsolute(file) ? '' : ` (a relative path is read from the working directory: ${resolve(file)})`
      }`,
      fix: 'give a readable YAML file',
    };
    return { ok: false, problems: [problem] };
  }
  return parseSchedule(raw, file, offered);
}

/** A scenario's own rule for one fault: what it refuses of a kind (absent: a step whose kind is wrong) and a target. */
type StepRule = (kind: RebootKind | undefined, target: TargetSpec | undefined) => ConfigProblem[];

/**
 * Problems with the schedule of `config.reboot.faults` for a scenario that runs schedules (exit 2, nothing created):
 * the file's own, each step's kind as `faultProblems` judges it with the step's options, its written targets on the
 * lab's topology, and the scenario's own `stepRule`; the steps that parsed (and the targets of those whose kind is
 * wrong) are judged even when others did not, so every problem comes at once, in the file's order. Each names the
 * file and the step; a fix that offers other kinds leaves out those `stepRule` refuses.
 */
export function scheduleProblems(
  scenario: string,
  config: HarnessConfig,
  o: { hasNomadAgent: boolean; defaultRole?: MachineRole; stepRule?: StepRule },
): ConfigProblem[] {
  const refuses = o.stepRule ? (k: string) => o.stepRule!(k as RebootKind, undefined).length > 0 : undefined;
  const r = readSchedule(config, refuses ? FAULTS.names.filter((k) => !refuses(k)) : undefined);
  if (!r) return [];
  const schedule = r.ok ? r.schedule : r.parsed;
  const own = r.ok ? [] : r.problems;
  if (!schedule) return own;
  const file = config.reboot.faults;
  const topology = { servers: config.lab.servers, clients: config.lab.clients };
  const res = resolveSchedule(schedule, topology, 0, { kind: 'leader' });
  const offer = {
    hasNomadAgent: o.hasNomadAgent,
    ...(o.defaultRole ? { defaultRole: o.defaultRole } : {}),
    ...(refuses ? { refuses } : {}),
  };
  const written = 'targets' in schedule ? schedule.targets : schedule.steps.map((s) => s.target);
  const kinds = written.flatMap((w, i) => {
    const step = schedule.steps[i];
    const target = asTarget(w);
    const mine = o.stepRule ? o.stepRule(step?.fault, target) : [];
    if (!step) return mine.map((p) => ({ ...p, field: `${file}: faults[${i}] ${p.field}` }));
    const base = stepConfig(config, { fault: step.fault, options: step.options });
    const c = { ...base, reboot: { ...base.reboot, ...(target ? { target } : {}) } };
    const s = { name: scenario, hasNomadAgent: o.hasNomadAgent, ...(refuses ? { refuses } : {}) };
    const lab = faultKindProblems(step.fault, s, faultOffer(c), FAULTS, 'lab');
    return [...lab, ...faultProblems(scenario, c, { ...offer, runsSchedules: true }), ...mine].map((p) => ({
      ...p,
      field: `${file}: faults[${i}] ${p.field}`,
    }));
  });
  const targets = res.ok ? [] : res.problems.map((p) => ({ ...p, field: `${file}: ${p.field}` }));
  // in the file's order: by step, the file's own problem of a step before what its kind or target cannot do
  const at = (p: ConfigProblem) => Number(/faults\[(\d+)\]/.exec(p.field)?.[1] ?? -1);
  return [...own, ...kinds, ...targets]
    .map((p, k) => ({ p, k }))
    .sort((a, b) => at(a.p) - at(b.p) || a.k - b.k)
    .map((x) => x.p);
}

/** A step's written target as --target would name it (any-client: clients, any-server: servers). Pure. */
function asTarget(
  t: { kind: 'pick'; word: 'any-client' | 'any-server' } | TargetSpec | undefined,
): TargetSpec | undefined {
  return t?.kind === 'pick' ? { kind: t.word === 'any-server' ? 'servers' : 'clients' } : t;
}

/** The role a --target names (leader and servers: a server), undefined for none. Pure. */
function targetRole(t: TargetSpec | undefined): MachineRole | undefined {
  if (!t) return undefined;
  if (t.kind === 'machine') return t.name.startsWith('server') ? 'server' : 'client';
  return t.kind === 'clients' ? 'client' : 'server';
}

/**
 * After a kind that hits every machine (power-loss-all): a leader again, i.e. the servers regained their quorum, read
 * until `deadline` (the wait names the last answer seen).
 */
export async function waitForQuorumAgain(ctx: RunContext, nomad: Nomad, of = ''): Promise<void> {
  await ctx.step(
    `wait for a leader again after every machine was off${of}`,
    (d) => waitForLeader(nomad, { deadline: d }),
    {
      timeoutMs: 5 * 60_000,
    },
  );
}

/** Does the client's node register again after `kind` (its status set anew): then the wait asks for it. */
export const reregisters = (kind: RebootKind): boolean => nodeReregisters(faultKind(kind));

/** The durations of the timed faults, from the config. */
export function faultParams(config: HarnessConfig): FaultParams {
  const r = config.reboot;
  return {
    offForMs: r.offForS * 1000,
    partitionForMs: r.partitionForS * 1000,
    flapCount: r.flapCount,
    flapDownForMs: r.flapDownForS * 1000,
    flapUpForMs: r.flapUpForS * 1000,
    lossPercent: r.lossPercent,
    lossDelayMs: r.lossDelayMs,
    lossForMs: r.lossForS * 1000,
    powerOrder: r.powerOrder,
  };
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
 * A scenario that disrupts its one client names the lab and the target as a cluster run does (lib/steps/
 * cluster-run.ts), as properties: `lab.topology` (the machines it brought up, servers+clients), `reboot.target` and
 * `fault.1.target` (the client's slot name: "client" in a pair, "client-1" in a cluster).
 */
export function recordOneTarget(ctx: RunContext, lab: Pick<Lab, 'machines'>, target: string): void {
  const count = (role: string) => namedMachinesOf(lab, role).length;
  ctx.fact('lab.topology', `${count('server')}+${count('client')}`);
  ctx.fact('reboot.target', target);
  ctx.fact('fault.1.target', `${target} (the scenario's client)`);
}
