// The steps of a fault on a cluster: the lab's machines by role, the leader read back to its machine when its turn
// starts, and the turns of the target run in waves (one turn per wave when rolling, else one wave of them all):
// drain each client of the wave, fault the wave's machines at once, wait for each back (its node ready, a leader
// again), mark the drained nodes eligible, and wait until the job has settled before the next wave.
import { namedMachinesOf, type Lab } from '../model/lab.js';
import { STEP_IDS } from '../model/run.js';
import type { AllocSnap, TaskEventRec } from '../model/evidence.js';
import type { FaultTurn } from '../model/cluster-evidence.js';
import type { RebootKind } from '../model/kinds.js';
import type { Nomad } from '../nomad/client.js';
import type { RunContext } from '../run/context.js';
import type { HarnessConfig } from '../config/schema.js';
import type { Deadline } from '../time/deadlines.js';
import { HarnessError, TimeoutError } from '../errors.js';
import { topologyOf, type MachineRole, type Topology } from '../model/topology.js';
import { resolveLeader, targetText, type TargetSpec, type TargetTurn } from '../model/target.js';
import { drainNode, markEligible } from '../nomad/drain.js';
import { waitForLeader, waitForNodeReady } from '../nomad/wait.js';
import { faultKind, faultOutcome } from '../faults/registry.js';
import { durationSeconds } from '../config/durations.js';
import { faultParams, rebootStepMs, recordFault, reregisters, waitForQuorumAgain } from './fault-step.js';
import { readJobAllocs } from './reboot-steps.js';
import { waitForJobHealthy } from './job-steps.js';
import { waitForJobSettled } from './job-settle.js';

/** The lab's topology, read from its machine names. */
export function labTopology(lab: Pick<Lab, 'machines'>): Topology {
  const names = Object.keys(lab.machines);
  const t = topologyOf(names);
  if (!t) throw new HarnessError(`the lab's machines (${names.join(', ')}) are no topology of servers and clients`);
  return t;
}

/** The names of the lab's machines of one role, in index order. */
export function machinesOfRole(lab: Pick<Lab, 'machines'>, role: MachineRole): string[] {
  return namedMachinesOf(lab, role).map(([name]) => name);
}

/** Each server machine's addresses (`hostname -I`): the leader's RPC address is one of them. */
export async function serverAddresses(lab: Pick<Lab, 'machines'>, d: Deadline): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const name of machinesOfRole(lab, 'server')) {
    const r = await lab.machines[name]!.exec('hostname -I', { deadline: d }).catch(() => undefined);
    out[name] = r && r.code === 0 ? r.stdout.trim().split(/\s+/).filter(Boolean) : [];
  }
  return out;
}

/**
 * The server machine that leads now: /v1/status/leader read back through the Serf members (a member's node name is
 * its machine's), else through the machines' own addresses.
 */
export async function leaderMachine(
  nomad: Nomad,
  lab: Pick<Lab, 'machines'>,
  d: Deadline,
  addresses: Record<string, string[]> = {},
) {
  const leader = await waitForLeader(nomad, { deadline: d });
  const members = (await nomad.members({ signal: d.signal })).body;
  const r = resolveLeader(leader, members, machinesOfRole(lab, 'server'), addresses);
  if ('error' in r) throw new HarnessError(`the leader's machine: ${r.error}`);
  return { ...r, address: leader };
}

/** The waves a target makes: one per turn when rolling, else one of all. Pure. */
export function waves(turns: readonly TargetTurn[], rolling: boolean): TargetTurn[][] {
  return rolling ? turns.map((t) => [t]) : turns.length ? [[...turns]] : [];
}

interface ClusterFaultInput {
  ctx: RunContext;
  lab: Lab;
  nomad: Nomad;
  config: HarnessConfig;
  target: TargetSpec;
  drain: boolean;
  /** the jobs run, each with the allocs it means to run (batch and sysbatch: `runsToEnd`, complete counts) */
  jobs: readonly { id: string; expectedAllocs: number; runsToEnd?: boolean }[];
  /** task driver the client nodes must have healthy again */
  driver: string;
  /** client machine -> its Nomad node ID */
  nodeOf: Record<string, string>;
  /** the machines under the fault right now (the probe series reads it) */
  down: Set<string>;
  /** each server machine's addresses (the leader read back when Serf names do not match machine names) */
  serverAddresses?: Record<string, string[]>;
  /** task events seen while settling, by alloc */
  history: { events: Record<string, TaskEventRec[]> };
}

/** Run one wave: drains, the faults at once, each machine back, eligible again, the job settled. */
/** A wave's turns; `broken` says why the job did not come back whole after it (the roll stops there). */
export async function runWave(
  i: ClusterFaultInput,
  wave: readonly TargetTurn[],
  n: number,
): Promise<{ turns: FaultTurn[]; broken?: string }> {
  const { ctx, lab, nomad, config } = i;
  const kind: RebootKind = config.reboot.kind;
  const of = ` (wave ${n})`;
  // the leader is whoever leads when its turn starts
  const machines = await Promise.all(
    wave.map(async (t) => {
      if (t.kind === 'machine') return { machine: t.name, role: t.role, targetedAs: targetText(i.target) };
      const l = await ctx.step(`find the leader${of}`, (d) => leaderMachine(nomad, lab, d, i.serverAddresses), {
        timeoutMs: 3 * 60_000,
      });
      ctx.info(`the leader is ${l.name} (${l.how})`);
      return { machine: l.name, role: 'server' as const, targetedAs: 'leader', resolvedHow: l.how };
    }),
  );
  const turns: FaultTurn[] = [];
  for (const m of machines) {
    const nodeId = m.role === 'client' ? i.nodeOf[m.machine] : undefined;
    const drain =
      nodeId && i.drain
        ? await ctx.step(
            `drain ${m.machine}'s node${of}`,
            (d) =>
              drainNode(nomad, nodeId, config.reboot.drainDeadlineS * 1000, {
                deadline: d,
                onReason: (r) => ctx.info(r),
              }),
            { timeoutMs: config.reboot.drainDeadlineS * 1000 + 2 * 60_000 },
          )
        : undefined;
    if (drain) {
      ctx.mark({ atMs: drain.requestedAt, lane: 'node', label: `${m.machine}: drain requested`, severity: 'info' });
      ctx.mark({ atMs: drain.doneAt, lane: 'node', label: `${m.machine}: drain ${drain.status}`, severity: 'ok' });
    }
    turns.push({
      ...m,
      ...(nodeId ? { nodeId } : {}),
      ...(drain
        ? {
            drain: {
              nodeId: drain.nodeId,
              requestedAt: drain.requestedAt,
              doneAt: drain.doneAt,
              status: drain.status,
              allocsOnNode: drain.allocsOnNode,
            },
          }
        : {}),
      reboot: { machine: m.machine, kind, bootIdBefore: '', bootIdAfter: '', requestedAt: 0, backAt: 0 },
    });
  }
  // what the settle waits for: the allocs still on the wave's clients, and evidence newer than this index
  const before = (await Promise.all(i.jobs.map((j) => readJobAllocs(nomad, j.id, ctx.deadline)))).flat();
  // a kind that hits the whole lab (power-loss-all) hits every client, whatever the target
  const wholeLab = faultKind(kind).wholeLab === true;
  const hit = new Set(wholeLab ? Object.values(i.nodeOf) : turns.flatMap((t) => (t.nodeId ? [t.nodeId] : [])));
  const watched = before.filter((a) => hit.has(a.nodeId) && a.desiredStatus === 'run' && a.clientStatus === 'running');
  const nodesBefore = new Map(
    await Promise.all(
      [...hit].map(async (id) => [id, (await nomad.node(id, { signal: ctx.deadline.signal })).body] as const),
    ),
  );
  const indexes = await Promise.all(i.jobs.map(async (j) => (await nomad.jobAllocations(j.id)).index));
  const since = { index: Math.max(...indexes), atMs: Date.now() };
  const downNow = wholeLab ? Object.keys(lab.machines) : turns.map((t) => t.machine);
  for (const m of downNow) i.down.add(m);
  const names = turns.map((t) => t.machine).join(', ');
  const records = await ctx.step(
    `${faultKind(kind).rebootsHost ? 'reboot' : 'disrupt'} ${names} (${kind})${of}`,
    (d) =>
      Promise.all(turns.map((t) => lab.reboot(t.machine, kind, { deadline: d, fault: faultParams(config) }))).finally(
        () => {
          for (const m of downNow) if (lab.machines[m]?.role === 'server') i.down.delete(m);
        },
      ),
    { id: STEP_IDS.fault, timeoutMs: rebootStepMs(config) },
  );
  turns.forEach((t, k) => {
    t.reboot = records[k]!;
    recordFault(ctx, t.reboot, `.${t.machine}`);
    const [before, after] = [t.reboot.bootIdBefore, t.reboot.bootIdAfter];
    const host = { lane: 'host' as const, machine: t.machine };
    ctx.mark({
      ...host,
      atMs: t.reboot.requestedAt,
      label: `${kind} reboot requested`,
      detail: `boot_id ${before}`,
      severity: 'warn',
    });
    ctx.mark({
      ...host,
      atMs: t.reboot.backAt,
      label: 'back',
      detail: `boot_id ${after}`,
      severity: after !== before ? 'ok' : 'fail',
    });
  });
  since.atMs = Math.min(...records.map((r) => r.requestedAt));
  if (wholeLab) await waitForQuorumAgain(ctx, nomad, of);
  else if (turns.some((t) => t.role === 'server'))
    await ctx.step(`wait for a leader again${of}`, (d) => waitForLeader(nomad, { deadline: d }), {
      timeoutMs: 5 * 60_000,
    });
  // every client the fault hit: the wave's, or every client of the lab after a whole-lab fault
  const untargeted = wholeLab
    ? Object.entries(i.nodeOf)
        .filter(([m]) => !turns.some((t) => t.machine === m))
        .map(([machine, nodeId]) => ({ machine, nodeId, drain: undefined }))
    : [];
  for (const t of [...turns.filter((x) => x.nodeId), ...untargeted]) {
    const nb = nodesBefore.get(t.nodeId!)!;
    const again = reregisters(kind) ? { statusUpdatedAfterS: nb.StatusUpdatedAt, modifiedAfterIndex: since.index } : {};
    await ctx.step(
      `wait for ${t.machine}'s node to register again and be ready${of}`,
      (d) => waitForNodeReady(nomad, { nodeId: t.nodeId!, driver: i.driver, ...again }, { deadline: d }),
      { id: STEP_IDS.nodeBack, timeoutMs: 5 * 60_000 },
    );
    i.down.delete(t.machine);
    if (t.drain) {
      await ctx.step(`mark ${t.machine}'s node eligible again${of}`, (d) =>
        markEligible(nomad, t.nodeId!, { deadline: d }),
      );
      t.eligibleAt = Date.now();
      ctx.mark({ atMs: t.eligibleAt, lane: 'node', label: `${t.machine}: eligible again`, severity: 'ok' });
    }
  }
  const broken = await settle(i, watched, since, n);
  return { turns, ...(broken ? { broken } : {}) };
}

/**
 * Wait until the allocs the wave's clients held are decided (when any were), then until each job runs whole; the
 * first job that does not is why the roll stops.
 */
async function settle(
  i: ClusterFaultInput,
  watched: readonly AllocSnap[],
  since: { index: number; atMs: number },
  n: number,
): Promise<string | undefined> {
  const { ctx, nomad, config } = i;
  const several = i.jobs.length > 1;
  const fault = {
    heartbeatGraceS: durationSeconds(config.nomad.heartbeatGrace),
    partitionForS: config.reboot.partitionForS,
  };
  for (const j of i.jobs) {
    const mine = watched.filter((a) => a.jobId === j.id).map((a) => a.id);
    if (!mine.length) continue;
    const s = await ctx.step(
      `wait until the allocs of the wave ${n} clients${several ? ` of the job ${j.id}` : ''} are restored, replaced or failed`,
      (d) =>
        waitForJobSettled(
          {
            nomad,
            jobId: j.id,
            watched: mine,
            since,
            history: i.history,
            quietMs: config.reboot.settleQuietS * 1000,
            confirmMs: config.reboot.settleConfirmS * 1000,
            windowMs: 5 * 60_000,
            tasksRestart: faultOutcome(config.reboot.kind, fault).restartsTasks,
            onProgress: (line) => ctx.info(line),
          },
          d,
        ),
      { id: STEP_IDS.settle, timeoutMs: 10 * 60_000 },
    );
    ctx.fact(`job.settled.wave.${n}${several ? `.${j.id}` : ''}`, s.settled ? 'settled' : `not settled: ${s.reason}`);
  }
  const lab0 = { memoryMb: config.lab.memoryMb, cpus: config.lab.cpus };
  // Note: a job that does not come back whole is evidence, not a broken run: the roll stops and the checks judge it
  for (const j of i.jobs) {
    const broken = await ctx.step(
      `wait until every alloc of the job${several ? ` ${j.id}` : ''} runs again (wave ${n})`,
      (d) =>
        waitForJobHealthy(nomad, j.id, j.expectedAllocs, lab0, d, { runsToEnd: !!j.runsToEnd }).then(
          () => undefined,
          (err: unknown) => {
            if (ctx.deadline.signal.aborted && !(ctx.deadline.signal.reason instanceof TimeoutError)) throw err;
            const why = err instanceof Error ? err.message.split('\n')[0]! : String(err);
            ctx.fact(`job.whole.wave.${n}${several ? `.${j.id}` : ''}`, `no: ${why}`);
            return several ? `job ${j.id}: ${why}` : why;
          },
        ),
      { id: STEP_IDS.jobRunning, timeoutMs: 10 * 60_000, values: { 'job.expected_allocs': j.expectedAllocs } },
    );
    if (broken) return broken;
  }
  return undefined;
}
