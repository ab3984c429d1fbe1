// The run of a fault on a cluster, shared by rolling-reboot and server-reboot: bring the lab up, run a bridge-mode job
// (the shipped one spread over the clients, or the user's own), probe its ports through the live clients' host ports and watch the leader over the fault
// window, hit the target in waves (lib/scenario/cluster-steps.ts), then read every alloc and judge.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { CheckDef, CheckResult } from '../model/check.js';
import type { AllocSnap } from '../model/evidence.js';
import type { Lab } from '../model/lab.js';
import { LAB_HOST_VOLUME } from '../model/volumes.js';
import type { ClusterEvidence, FaultTurn, LeaderSeen, ProbeSeries } from '../model/cluster-evidence.js';
import { readMarkers, readVolumeMarkers } from './volume-steps.js';
import type { RunContext } from '../run/context.js';
import type { ScenarioEnv } from '../run/scenario.js';
import type { Nomad } from '../nomad/client.js';
import type { ApiJob } from '../nomad/api-types.js';
import { deadlineIn, sleep, type Deadline } from '../time/deadlines.js';
import { judgeAll } from '../checks/define.js';
import { electedAfter } from '../checks/leader.js';
import { probeTimeoutOf, seconds, serviceContinuity } from '../checks/continuity.js';
import { topologyLabel, type Topology } from '../model/topology.js';
import { resolveSchedule, scheduleText, stepConfig, type ResolvedStep } from '../faults/schedule.js';
import { readSchedule } from './fault-step.js';
import { targetText, targetTurns, type TargetSpec } from '../model/target.js';
import { ConfigError } from '../errors.js';
import { expectedAllocsOn, jobInfo, jobProblems, type JobInfo } from '../parse/nomad-job.js';
import type { JobType } from '../model/kinds.js';
import type { ProbeKinds } from '../checks/probe-kind.js';
import { CLUSTER_JOB_TYPES, JOB_FIELD, jobLab, varFile } from './job-input.js';
import { waitForLeader, waitForNodeReady } from '../nomad/wait.js';
import { durationSeconds } from '../config/fields.js';
import { waitForBridgeClient } from './client-ready.js';
import { awaitDeploymentBeforeFault, waitForJobHealthy } from './job-steps.js';
import { readJobAllocs, recordAgentWarnings } from './reboot-steps.js';
import { readAgentLog } from '../lab/observe.js';
import { labTopology, leaderMachine, machinesOfRole, runWave, serverAddresses, waves } from './cluster-steps.js';
import { seriesServices, seriesTargets, startProbeSeries } from './probe-series.js';
import { startLeaderWatch } from './leader-watch.js';
import { readSentinels, withoutJournalLines } from './sentinel-steps.js';

const JOB_FILE = fileURLToPath(new URL('../../jobs/bridge-exec-http-spread.nomad.hcl', import.meta.url));
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
  const lab = await ctx.step('bring up the lab', (d) => env.upLab(ctx, d), { timeoutMs: 20 * MIN });
  const topology = labTopology(lab);
  ctx.fact('lab.topology', topologyLabel(topology));
  ctx.fact('reboot.target', targetText(plan.target));
  ctx.fact('reboot.rolling', String(plan.rolling));
  ctx.fact('reboot.drain', String(plan.drain));
  const { nomadVersion } = await ctx.step(
    'install Nomad and start the agents',
    (d) => env.provisionNomad(ctx, lab, d),
    {
      timeoutMs: 10 * MIN,
    },
  );
  ctx.fact('nomad.version', nomadVersion);
  const nomad = await ctx.step('connect to the Nomad API', (d) => env.connectNomad(ctx, lab, d));
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
    { timeoutMs: 5 * MIN, values: { 'lab.client_machines': clients.join(', ') } },
  );
  const nodeNames = Object.fromEntries(Object.entries(nodeOf).map(([m, id]) => [id, m]));
  // the agents are up and ready: a crash or a systemd restart of any of them from here on is the run's
  const agentsReadyMs = Date.now();

  // the user's jobs as written (their variables from job.vars), or the shipped one with one alloc per client (at least
  // two, so that a drain has somewhere to move one while the other serves)
  const own = config.job.files;
  const files = own.length ? own : [JOB_FILE];
  const count = Math.max(2, clients.length);
  ctx.fact('job.file', own.length ? own.join(', ') : undefined);
  const several = files.length > 1;
  const jobs: ParsedJob[] = [];
  for (const file of files)
    jobs.push(
      await ctx.step(
        several ? `parse the job ${basename(file)}` : 'parse the job',
        async (d) => {
          const hcl = await readFile(file, 'utf8');
          const variables = own.length ? varFile(config.job.vars) : `count = ${count}\n`;
          const job = await nomad.parseJob(hcl, { signal: d.signal, variables });
          const { info, problems } = jobInfo(job);
          const bad = [
            ...problems.map((message) => ({ message, fix: 'see the README, "Your own job"' })),
            ...(info ? jobProblems(info, own.length ? jobLab(config) : {}, CLUSTER_JOB_TYPES('this scenario')) : []),
          ];
          if (!info || bad.length)
            throw new ConfigError(
              bad.map((p) => ({
                field: own.length ? JOB_FIELD : 'job',
                value: file,
                ...p,
                ...(own.length ? {} : { fix: 'the shipped job' }),
              })),
            );
          return { hcl, job, info, expected: expectedAllocsOn(info, clients.length) };
        },
        { values: own.length ? { 'job.file': file } : { 'job.count': count } },
      ),
    );
  const jobIds = jobs.map((j) => j.job.ID);
  const jobId = jobIds[0]!;
  const expectedAllocs = jobs.reduce((n, j) => n + j.expected, 0);
  ctx.fact('job.types', jobs.map((j) => `${j.job.ID}=${j.info.type}`).join(' '));
  // the clients were awaited with exec healthy; a job's other drivers (raw_exec, docker) must be healthy too
  const drivers = [...new Set(jobs.flatMap((j) => j.info.drivers))].filter((x) => x !== 'exec');
  if (drivers.length)
    await ctx.step(
      `wait for every client's ${drivers.join(', ')} driver healthy`,
      async (d) => {
        for (const id of Object.values(nodeOf))
          for (const driver of drivers) await waitForNodeReady(nomad, { nodeId: id, driver }, { deadline: d });
      },
      { timeoutMs: 3 * MIN },
    );
  const of = (j: ParsedJob): string => (several ? ` ${j.job.ID}` : '');
  for (const j of jobs)
    await ctx.step(`register the job${of(j)}`, (d) => nomad.registerJob(j.job, j.hcl, { signal: d.signal }), {
      values: { 'job.id': j.job.ID },
    });
  const lab0 = { memoryMb: config.lab.memoryMb, cpus: config.lab.cpus };
  const healthy: AllocSnap[] = [];
  for (const j of jobs)
    healthy.push(
      ...(await ctx.step(
        `wait until every alloc of the job${of(j)} runs`,
        (d) => waitForJobHealthy(nomad, j.job.ID, j.expected, lab0, d, { runsToEnd: runsToEnd(j.info.type) }),
        {
          timeoutMs: (4 + 2 * j.expected) * MIN,
          values: { 'job.expected_allocs': j.expected },
        },
      )),
    );
  for (const id of jobIds) await awaitDeploymentBeforeFault(ctx, nomad, id);
  // the allocs whose ephemeral disk is kept (sticky, migrate): what each task wrote to it before the fault
  const diskGroups = new Set(
    jobs.flatMap((j) =>
      j.info.groups.filter((g) => g.disk.sticky || g.disk.migrate).map((g) => `${j.job.ID}/${g.name}`),
    ),
  );
  const onDisk = (a: AllocSnap): boolean => diskGroups.has(`${a.jobId}/${a.taskGroup}`);
  // the allocs mounting the lab's host volume: what each task wrote there, read on its client
  const volumeGroups = new Set(
    jobs.flatMap((j) =>
      j.info.groups
        .filter((g) => g.volumes.some((v) => v.type === 'host' && v.source === LAB_HOST_VOLUME.name))
        .map((g) => `${j.job.ID}/${g.name}`),
    ),
  );
  const onVolume = (a: AllocSnap): boolean => volumeGroups.has(`${a.jobId}/${a.taskGroup}`);
  const volumeBefore = volumeGroups.size
    ? await ctx.step("read each host volume's marker before the fault", (d) =>
        readVolumeMarkers(lab, nodeNames, healthy.filter(onVolume), d, true),
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
        ),
      )
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
      const hostVolumes = j.info.groups
        .filter((g) => g.volumes.some((v) => v.type === 'host' && v.source === LAB_HOST_VOLUME.name))
        .map((g) => g.name);
      return {
        id: j.job.ID,
        expectedAllocs: j.expected,
        type: j.info.type as JobType,
        ...(noReschedule.length ? { noReschedule } : {}),
        ...(keptDisks.length ? { keptDisks } : {}),
        ...(hostVolumes.length ? { hostVolumes } : {}),
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
  };
  // Note: the journals' lines stay out of this artifact (the host evidence keeps each journal as a file of its own)
  ctx.artifact(
    'cluster-evidence.json',
    JSON.stringify({ ...evidence, sentinels: withoutJournalLines(sentinels) }, null, 2),
  );
  return judgeAll(checks, evidence);
}

/** A job as parsed by the server, with what the scenario reads of it. */
interface ParsedJob {
  hcl: string;
  job: ApiJob;
  info: JobInfo;
  /** the allocs it means to run on this lab (a system group: one per client) */
  expected: number;
}

/** A batch or sysbatch job's allocs run to an end: complete is as good as running. */
const runsToEnd = (type: string): boolean => type === 'batch' || type === 'sysbatch';

/**
 * The probe kinds of several jobs as one lookup by group (a series service is "<group>/<port>"): the jobs' groups
 * named alike share a row, the first job's kind winning. Pure.
 */
function mergedProbeKinds(jobs: readonly ParsedJob[]): ProbeKinds {
  const out: ProbeKinds = {};
  for (const j of jobs) for (const [g, k] of Object.entries(j.info.probeKinds)) out[g] = { ...k, ...out[g] };
  return out;
}

/** The probe series on the timeline: its window, and each gap as a bar. */
function markSeries(ctx: RunContext, s: ProbeSeries): void {
  const every = seconds(s.intervalMs);
  ctx.mark({
    atMs: s.startMs,
    lane: 'probe',
    label: `probing ${s.services.join(', ')} every ${every} (each probe waited for ${seconds(probeTimeoutOf(s))})`,
    severity: 'info',
  });
  for (const c of serviceContinuity(s)) {
    for (const g of c.gaps)
      ctx.mark({
        atMs: g.fromMs,
        untilMs: g.toMs,
        lane: 'probe',
        label: `${g.service}: no answer for ${seconds(g.lengthMs)}${g.open ? ' (never again)' : ''}`,
        detail: g.lastError,
        severity: 'fail',
      });
    for (const g of c.silences)
      ctx.mark({
        atMs: g.fromMs,
        untilMs: g.toMs,
        lane: 'probe',
        label: `${g.service}: no answer within ${seconds(probeTimeoutOf(s))} for ${seconds(g.lengthMs)} (no evidence of down)`,
        detail: g.lastError,
        severity: 'warn',
      });
    ctx.fact(
      `probe.${c.service}`,
      `answered at ${c.up} of ${c.ticks} ticks; gaps: ${c.gaps.map((g) => seconds(g.lengthMs)).join(', ') || 'none'}; silences: ${c.silences.map((g) => seconds(g.lengthMs)).join(', ') || 'none'}${c.slowestMs !== undefined ? `; slowest answer ${seconds(c.slowestMs)}` : ''}`,
    );
  }
  ctx.mark({ atMs: s.endMs, lane: 'probe', label: 'probing ended', severity: 'info' });
}

/** The leader across the fault of the server that led before (undefined when no turn hit it). */
async function leaderAcross(
  nomad: Nomad,
  old: string,
  turns: readonly FaultTurn[],
  observed: LeaderSeen['observed'],
  single: boolean,
  within: string,
  d: Deadline,
): Promise<LeaderSeen | undefined> {
  const hit = turns.find((t) => t.machine === old);
  if (!hit) return undefined;
  const elected = electedAfter(observed, old, single, hit.reboot.requestedAt, hit.reboot.backAt);
  // Note: Nomad's autopilot adds a returning server to Raft as a non-voter and promotes it once it has been healthy
  // for server_stabilization_time (10 s by default): the old leader is read until it is a voter, within REJOIN_MS
  const backAt = hit.reboot.backAt;
  const until = deadlineIn(REJOIN_MS, d);
  let seen = await oldLeaderState(nomad, old, d);
  while (!seen.rejoined && !until.signal.aborted) {
    await sleep(REJOIN_POLL_MS, until).catch(() => undefined);
    seen = await oldLeaderState(nomad, old, d);
  }
  const waited = seconds(Math.max(0, Date.now() - backAt));
  const oldState = seen.rejoined
    ? `${seen.state}, ${waited} after it was back`
    : `${seen.state} ${waited} after it was back (read for ${seconds(REJOIN_MS)})`;
  return {
    before: old,
    ...(elected ? { elected: elected.leader, electedAfterMs: elected.afterMs } : {}),
    boundMs: durationSeconds(within) * 1000,
    oldRejoined: seen.rejoined,
    oldState,
    single,
    observed: [...observed],
  };
}

/** How long the old leader is read until it is a Serf member and a Raft voter again, and how often. */
const REJOIN_MS = 2 * 60_000;
const REJOIN_POLL_MS = 1000;

/** The old leader as the cluster sees it now: Serf status and Raft membership, one line, and whether it rejoined. */
async function oldLeaderState(nomad: Nomad, old: string, d: Deadline): Promise<{ rejoined: boolean; state: string }> {
  const members = await nomad.members({ signal: d.signal }).then(
    (r) => r.body,
    () => [],
  );
  const member = members.find((m) => m.Name === old || m.Name.startsWith(`${old}.`));
  const raft = await nomad.raftConfiguration({ signal: d.signal }).then(
    (r) => r.body.Servers.find((s) => s.Node === old || s.Node.startsWith(`${old}.`)),
    (err: unknown) => (err instanceof Error ? err.message.split('\n')[0]! : String(err)),
  );
  const raftState =
    typeof raft === 'string'
      ? `raft configuration unreadable (${raft})`
      : raft
        ? raft.Voter
          ? 'a Raft voter'
          : 'a Raft non-voter'
        : 'no Raft peer';
  const rejoined = member?.Status === 'alive' && typeof raft === 'object' && raft?.Voter === true;
  return { rejoined, state: `Serf ${member ? member.Status : 'no member'}, ${raftState}` };
}

/** How long one machine's journal may take to read (a machine that never came back must not hold the run). */
const AGENT_LOG_READ_MS = 30_000;

/**
 * Each hit machine's agent WARN and ERROR lines since its first fault (facts and timeline events). Best effort: a
 * machine that does not answer gets `<machine>.agent.warnings` saying why, and the run goes on.
 */
async function agentWarningsOf(ctx: RunContext, lab: Lab, turns: readonly FaultTurn[], d: Deadline): Promise<void> {
  const since = new Map<string, number>();
  for (const t of turns) since.set(t.machine, Math.min(since.get(t.machine) ?? Infinity, t.reboot.requestedAt));
  for (const [machine, atMs] of since) {
    const m = lab.machines[machine];
    if (!m) continue;
    try {
      recordAgentWarnings(ctx, await readAgentLog(m, deadlineIn(AGENT_LOG_READ_MS, d)), atMs, machine);
    } catch (err) {
      ctx.fact(
        `${machine}.agent.warnings`,
        `not read: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
      );
    }
  }
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
