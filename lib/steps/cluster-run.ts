// The run of a fault on a cluster, shared by rolling-reboot and server-reboot: bring the lab up, run a bridge-mode job
// (the shipped one spread over the clients, or the user's own), probe its ports through the live clients' host ports
// and watch the leader over the fault window, hit the target in waves (lib/steps/cluster-steps.ts), then read every
// alloc and judge.
import { randomInt } from 'node:crypto';
import type { CheckDef, CheckResult } from '../model/check.js';
import { STEP_IDS } from '../model/run.js';
import type { AllocSnap } from '../model/evidence.js';
import { LAB_HOST_VOLUME } from '../model/volumes.js';
import type { ClusterEvidence, FaultTurn, LeaderSeen, ProbeSeries } from '../model/cluster-evidence.js';
import { readMarkers, readVolumeMarkers, readVolumeStates, volumeDir } from './volume-steps.js';
import { hostVolumeOfGroups } from '../parse/nomad-job.js';
import type { RunContext } from '../run/context.js';
import type { ScenarioEnv } from '../run/scenario.js';
import { sleep } from '../time/deadlines.js';
import { judgeAll } from '../checks/define.js';
import { topologyLabel, type Topology } from '../model/topology.js';
import { resolveSchedule, scheduleText, stepConfig, type ResolvedStep } from '../faults/schedule.js';
import { readSchedule } from './fault-step.js';
import { targetText, targetTurns, type TargetSpec } from '../model/target.js';
import { ConfigError } from '../errors.js';
import type { JobType } from '../model/kinds.js';
import { waitForLeader } from '../nomad/wait.js';
import { durationSeconds } from '../config/durations.js';
import { waitForBridgeClient } from './client-ready.js';
import { awaitDeploymentBeforeFault } from './job-steps.js';
import { readJobAllocs } from './reboot-steps.js';
import { labTopology, leaderMachine, machinesOfRole, runWave, serverAddresses, waves } from './cluster-steps.js';
import { seriesServices, seriesTargets, startProbeSeries } from './probe-series.js';
import { startLeaderWatch } from './leader-watch.js';
import { readSentinels, readServersAfterFault, withoutJournalLines } from './sentinel-steps.js';
import { mergedProbeKinds, runsToEnd, setUpClusterJobs } from './cluster-jobs.js';
import type { ServersRead } from '../model/sentinels.js';

import { leaderAcross, REJOIN_MS } from './leader-across.js';
import { agentWarningsOf, markSeries } from './cluster-records.js';
const MIN = 60_000;
/** How often the leader is asked during the fault window. */
const LEADER_EVERY_MS = 1000;

/** What to hit and how: resolved from the config and the scenario's own defaults. */
export interface ClusterPlan {
  target: TargetSpec;
  rolling: boolean;
  drain: boolean;
}

export async function runClusterFault(
  ctx: RunContext,
  env: ScenarioEnv,
  plan: ClusterPlan,
  checks: readonly CheckDef<ClusterEvidence>[],
): Promise<CheckResult[]> {
  const { config } = env;
  const lab = await ctx.step('bring up the lab', (d) => env.upLab(ctx, d), { id: STEP_IDS.labUp, timeoutMs: 20 * MIN });
  const topology = labTopology(lab);
  ctx.fact('lab.topology', topologyLabel(topology));
  ctx.fact('reboot.target', targetText(plan.target));
  ctx.fact('reboot.rolling', String(plan.rolling));
  ctx.fact('reboot.drain', String(plan.drain));
  const { nomadVersion } = await ctx.step(
    'install Nomad and start the agents',
    (d) => env.provisionNomad(ctx, lab, d),
    { id: STEP_IDS.install, timeoutMs: 10 * MIN },
  );
  ctx.fact('nomad.version', nomadVersion);
  const nomad = await ctx.step('connect to the Nomad API', (d) => env.connectNomad(ctx, lab, d), {
    id: STEP_IDS.connect,
  });
  const clients = machinesOfRole(lab, 'client');
  const servers = machinesOfRole(lab, 'server');
  // Note: each machine's Nomad node name is its hostname, which the lab sets to the machine's slot name
  const nodeOf = await ctx.step(
    'wait for a leader and every client node ready',
    async (d) => {
      await waitForLeader(nomad, { deadline: d });
      const out: Record<string, string> = {};
      for (const c of clients)
        out[c] = (await waitForBridgeClient(ctx, nomad, lab.machines[c]!, { nodeName: c, driver: 'exec' }, d)).ID;
      return out;
    },
    { id: STEP_IDS.nomadReady, timeoutMs: 5 * MIN, values: { 'lab.client_machines': clients.join(', ') } },
  );
  const nodeNames = Object.fromEntries(Object.entries(nodeOf).map(([m, id]) => [id, m]));
  // the agents are up and ready: a crash or a systemd restart of any of them from here on is the run's
  const agentsReadyMs = Date.now();

  const { jobs, jobIds, jobId, expectedAllocs, several, healthy, volumes } = await setUpClusterJobs(
    ctx,
    env,
    nomad,
    nodeOf,
  );
  for (const id of jobIds) await awaitDeploymentBeforeFault(ctx, nomad, id);
  // the allocs whose ephemeral disk is kept (sticky, migrate): what each task wrote to it before the fault
  const diskGroups = new Set(
    jobs.flatMap((j) =>
      j.info.groups.filter((g) => g.disk.sticky || g.disk.migrate).map((g) => `${j.job.ID}/${g.name}`),
    ),
  );
  const onDisk = (a: AllocSnap): boolean => diskGroups.has(`${a.jobId}/${a.taskGroup}`);
  // the allocs mounting a host volume (the lab's static one, or a dynamic one created for the jobs): what each task
  // wrote there, read on its client in the directory of that node's volume
  const judged = [LAB_HOST_VOLUME.name, ...new Set(volumes.map((v) => v.name))];
  const volumeGroups = new Map(
    jobs.flatMap((j) =>
      Object.entries(hostVolumeOfGroups(j.info, judged)).map(([g, name]) => [`${j.job.ID}/${g}`, name] as const),
    ),
  );
  const volumeOf = (a: AllocSnap): string | undefined => volumeGroups.get(`${a.jobId}/${a.taskGroup}`);
  const onVolume = (a: AllocSnap): boolean => volumeOf(a) !== undefined;
  const dirOf = (a: AllocSnap): string => volumeDir(volumes, volumeOf(a) ?? LAB_HOST_VOLUME.name, a.nodeId);
  const volumeBefore = volumeGroups.size
    ? await ctx.step("read each host volume's marker before the fault", (d) =>
        readVolumeMarkers(lab, nodeNames, healthy.filter(onVolume), d, true, dirOf),
      )
    : undefined;
  const markersBefore = diskGroups.size
    ? await ctx.step("read each kept disk's marker before the fault", (d) =>
        readMarkers(nomad, healthy.filter(onDisk), d, true),
      )
    : undefined;
  ctx.fact(
    'allocs.before',
    healthy.map((a) => `${a.name} ${a.id.slice(0, 8)}@${nodeNames[a.nodeId] ?? a.nodeId.slice(0, 8)}`).join(' '),
  );
  const disruptionIndex = Math.max(
    ...(await Promise.all(jobIds.map(async (id) => (await nomad.jobAllocations(id)).index))),
  );
  // one fault of reboot.kind on the plan's target, or the steps of a schedule (reboot.faults), each on its own
  const steps = planSteps(ctx, config, plan, topology);
  const turnsPlanned = steps.flatMap((s) => targetTurns(s.target, topology));
  const hitsServers = turnsPlanned.some((t) => t.kind === 'leader' || t.role === 'server');
  const addresses0 = hitsServers
    ? await ctx.step("read the server machines' addresses", (d) => serverAddresses(lab, d))
    : {};
  const leaderBefore = hitsServers
    ? await ctx.step('find the leader before the fault', (d) => leaderMachine(nomad, lab, d, addresses0))
    : undefined;
  if (leaderBefore) ctx.fact('leader.before', `${leaderBefore.name} (${leaderBefore.address})`);

  // the probe series and the leader watch run from just before the first fault until the last wave has settled
  const down = new Set<string>();
  const addresses = new Map<string, string>();
  for (const id of Object.values(nodeOf)) {
    const ip = (await nomad.node(id)).body.Attributes?.['unique.network.ip-address'];
    if (ip) addresses.set(id, ip);
  }
  const kinds = mergedProbeKinds(jobs);
  // a batch or sysbatch alloc ends by itself: the series probes what is meant to keep answering
  const endless = new Set(jobs.filter((j) => !runsToEnd(j.info.type)).map((j) => j.job.ID));
  const services = seriesServices(
    healthy.filter((a) => endless.has(a.jobId)),
    kinds,
  );
  const series = services.length
    ? startProbeSeries({
        lab,
        intervalMs: durationSeconds(config.reboot.probeInterval) * 1000,
        services,
        down: () => down,
        deadline: ctx.deadline,
        targets: async (d) =>
          seriesTargets(
            (await Promise.all([...endless].map((id) => readJobAllocs(nomad, id, d)))).flat(),
            kinds,
            (id) => nodeNames[id] ?? id.slice(0, 8),
            (id) => addresses.get(id),
          ),
      })
    : undefined;
  const watch = leaderBefore
    ? startLeaderWatch({
        lab,
        intervalMs: Math.min(LEADER_EVERY_MS, durationSeconds(config.reboot.probeInterval) * 1000),
        members: (await nomad.members()).body,
        servers,
        addresses: addresses0,
        down: () => down,
        deadline: ctx.deadline,
      })
    : undefined;

  const turns: FaultTurn[] = [];
  const serversAfterFaults: ServersRead[] = [];
  let recorded: ProbeSeries | undefined;
  let observed: LeaderSeen['observed'] = [];
  const input = {
    ctx,
    lab,
    nomad,
    config,
    target: plan.target,
    drain: plan.drain,
    jobs: jobs.map((j) => ({ id: j.job.ID, expectedAllocs: j.expected, runsToEnd: runsToEnd(j.info.type) })),
    driver: 'exec',
    nodeOf,
    down,
    serverAddresses: addresses0,
    history: { events: {} },
  };
  try {
    let n = 0;
    run: for (const [i, step] of steps.entries()) {
      const c = stepConfig(config, step);
      for (const wave of waves(targetTurns(step.target, topology), plan.rolling)) {
        const r = await runWave({ ...input, config: c, target: step.target }, wave, ++n);
        turns.push(...r.turns);
        const hitServers = r.turns.filter((t) => t.role === 'server').map((t) => t.machine);
        if (hitServers.length && servers.length > 1) {
          const read = await readServersAfterFault(
            ctx,
            env,
            lab,
            `after ${c.reboot.kind} of ${hitServers.join(', ')} (wave ${n})`,
          );
          if (read) serversAfterFaults.push(read);
        }
        if (r.broken) {
          ctx.info(`the roll stops after wave ${n}: ${r.broken}`);
          break run;
        }
      }
      if (step.waitS && i < steps.length - 1)
        // Note: a deliberate pause the schedule asks for between two faults, not a poll
        await ctx.step(
          `wait ${step.waitS}s before fault ${i + 2} (the schedule's)`,
          (d) => sleep(step.waitS * 1000, d),
          {
            timeoutMs: step.waitS * 1000 + MIN,
          },
        );
    }
  } finally {
    if (series) {
      recorded = await series.stop();
      ctx.artifact('probe-series.json', JSON.stringify(recorded, null, 2));
      markSeries(ctx, recorded);
    }
    if (watch) {
      observed = await watch.stop();
      ctx.artifact('leader-observed.json', JSON.stringify(observed, null, 2));
    }
  }
  turns.forEach((t, k) => {
    ctx.fact(`fault.${k + 1}.target`, `${t.machine} (${t.targetedAs}${t.resolvedHow ? `: ${t.resolvedHow}` : ''})`);
  });
  const after = await ctx.step(several ? 'read every alloc of every job' : 'read every alloc of the job', async (d) =>
    (await Promise.all(jobIds.map((id) => readJobAllocs(nomad, id, d)))).flat(),
  );
  ctx.artifact('job-allocs-after.json', JSON.stringify(after, null, 2));
  const liveAfter = (a: AllocSnap): boolean =>
    a.desiredStatus === 'run' && ['running', 'complete'].includes(a.clientStatus);
  const volumeAfter = volumeBefore
    ? await ctx.step("read each host volume's marker after the fault", (d) =>
        readVolumeMarkers(
          lab,
          nodeNames,
          after.filter((a) => onVolume(a) && liveAfter(a)),
          d,
          false,
          dirOf,
        ),
      )
    : undefined;
  // the host volume itself on each node that ran or runs an alloc mounting it: declared and ready (volume-state)
  const volumeStates = volumeBefore
    ? await ctx.step("read the host volume's state on each node that mounted it", async (d) => {
        const out = [];
        for (const name of new Set(volumeGroups.values())) {
          const on = (a: AllocSnap): boolean => volumeOf(a) === name;
          const nodes = [
            ...new Set([...healthy.filter(on), ...after.filter((a) => on(a) && liveAfter(a))].map((a) => a.nodeId)),
          ];
          out.push(...(await readVolumeStates(nomad, nodes, name, d, volumes)));
        }
        return out;
      })
    : undefined;
  const markersAfter = markersBefore
    ? await ctx.step("read each kept disk's marker after the fault", (d) =>
        readMarkers(
          nomad,
          after.filter(
            (a) => onDisk(a) && a.desiredStatus === 'run' && ['running', 'complete'].includes(a.clientStatus),
          ),
          d,
          false,
        ),
      )
    : undefined;
  if (turns.length)
    await ctx.step("read the Nomad agent's own warnings on each machine the fault hit", (d) =>
      agentWarningsOf(ctx, lab, turns, d),
    );
  const leader = leaderBefore
    ? await ctx.step(
        'read the old leader back in the cluster (until a Raft voter again)',
        (d) =>
          leaderAcross(nomad, leaderBefore.name, turns, observed, servers.length === 1, config.reboot.leaderWithin, d),
        { timeoutMs: REJOIN_MS + MIN },
      )
    : undefined;
  if (leader?.elected)
    ctx.fact('leader.after', `${leader.elected} after ${((leader.electedAfterMs ?? 0) / 1000).toFixed(1)}s`);
  const sentinels = await readSentinels(ctx, env, lab, {
    watchFromMs: agentsReadyMs,
    faults: turns.map((t) => ({
      machine: t.machine,
      role: t.role,
      record: t.reboot,
      // a drained client's allocs moved away before its fault: it has nothing of the job to restore (nor has a client
      // whose only allocs had run to their end: complete batch allocs are not restored)
      hadAllocs:
        t.role === 'client' && !t.drain && healthy.some((a) => a.nodeId === t.nodeId && a.clientStatus === 'running'),
    })),
    servers: 'end of the run',
    serversAfterFaults,
  });
  const evidence: ClusterEvidence = {
    topology: topologyLabel(topology),
    jobId,
    expectedAllocs,
    jobs: jobs.map((j) => {
      const noReschedule = j.info.groups.filter((g) => g.noReschedule).map((g) => g.name);
      const keptDisks = j.info.groups
        .filter((g) => g.disk.sticky || g.disk.migrate)
        .map((g) => ({ group: g.name, ...g.disk }));
      const volumeNames = hostVolumeOfGroups(j.info, judged);
      const hostVolumes = Object.keys(volumeNames);
      return {
        id: j.job.ID,
        expectedAllocs: j.expected,
        type: j.info.type as JobType,
        ...(noReschedule.length ? { noReschedule } : {}),
        ...(keptDisks.length ? { keptDisks } : {}),
        ...(hostVolumes.length ? { hostVolumes, volumeNames } : {}),
      };
    }),
    nodeNames,
    turns,
    targeted: turnsPlanned.map((x) => (x.kind === 'leader' ? 'leader' : x.name)),
    disruptionIndex,
    before: healthy,
    after,
    drain: plan.drain,
    maxGapMs: config.reboot.maxGapS * 1000,
    ...(recorded ? { series: recorded } : {}),
    ...(leader ? { leader } : {}),
    sentinels,
    ...(markersBefore && markersAfter ? { markers: { before: markersBefore, after: markersAfter } } : {}),
    ...(volumeBefore && volumeAfter ? { volumeMarkers: { before: volumeBefore, after: volumeAfter } } : {}),
    ...(volumeStates ? { volumeStates } : {}),
  };
  // Note: the journals' lines stay out of this artifact (the host evidence keeps each journal as a file of its own)
  ctx.artifact(
    'cluster-evidence.json',
    JSON.stringify({ ...evidence, sentinels: withoutJournalLines(sentinels) }, null, 2),
  );
  return judgeAll(checks, evidence);
}

/**
 * What the run hits, step by step: one fault of reboot.kind on the plan's target, or the schedule of reboot.faults
 * with its picks resolved by the seed (--seed, else the file's, else a new one), recorded as `faults.seed` and
 * `faults.schedule` so that `--seed` replays it.
 */
function planSteps(
  ctx: RunContext,
  config: ScenarioEnv['config'],
  plan: ClusterPlan,
  topology: Topology,
): ResolvedStep[] {
  const read = readSchedule(config);
  if (!read)
    return [{ fault: config.reboot.kind, target: plan.target, chosen: 'the run’s target', options: {}, waitS: 0 }];
  if (!read.ok) throw new ConfigError(read.problems);
  const seed = config.reboot.seed ?? read.schedule.seed ?? randomInt(0, 2 ** 32);
  const r = resolveSchedule(read.schedule, topology, seed, plan.target);
  if (!r.ok) throw new ConfigError(r.problems);
  ctx.fact('faults.seed', String(seed));
  ctx.fact('faults.schedule', scheduleText(r.steps));
  ctx.info(`the fault schedule (seed ${seed}; --seed ${seed} replays it):\n${scheduleText(r.steps)}`);
  return r.steps;
}
