// rolling-reboot: the kured pattern on a lab of any size. A bridge-mode job spread over the clients runs; every client
// (or --target) is in turn drained (the job's migrate block applies), rebooted for real, waited for, and marked
// eligible again, the next only once the job runs whole again. Meanwhile every mapped port is probed through the
// host ports of the live clients at a fixed interval. Judged: every target hit, every alloc followed across nodes
// (migrated by the drain, restored, replaced and why), the untouched clients' allocs undisturbed, and the service's
// gaps against reboot.max_gap. In a 1+1 lab it is today's reboot with a drain first.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { AllocSnap } from '../lib/model/evidence.js';
import type { ClusterEvidence, FaultTurn, ProbeSeries } from '../lib/model/cluster-evidence.js';
import { defineScenario, execDriverOnly, shippedJobOnly, singleRebootOnly } from '../lib/run/scenario.js';
import { judgeAll } from '../lib/checks/define.js';
import { TARGETS_HIT } from '../lib/checks/targets-hit.js';
import { ALLOCS_FOLLOWED } from '../lib/checks/allocs-followed.js';
import { UNTOUCHED_ALLOCS } from '../lib/checks/untouched-allocs.js';
import { SERVICE_CONTINUITY } from '../lib/checks/service-continuity.js';
import { topologyLabel } from '../lib/model/topology.js';
import { targetText, targetTurns, type TargetSpec } from '../lib/model/target.js';
import { ConfigError } from '../lib/errors.js';
import { jobInfo, jobProblems } from '../lib/parse/nomad-job.js';
import { waitForLeader } from '../lib/nomad/wait.js';
import { waitForBridgeClient } from '../lib/scenario/client-ready.js';
import { waitForJobHealthy } from '../lib/scenario/job-steps.js';
import { readJobAllocs } from '../lib/scenario/reboot-steps.js';
import { faultProblems } from '../lib/scenario/faults.js';
import { durationSeconds } from '../lib/config/fields.js';
import { labTopology, machinesOfRole, runWave, waves } from '../lib/scenario/cluster-steps.js';
import { seriesServices, seriesTargets, startProbeSeries } from '../lib/scenario/probe-series.js';

const JOB_FILE = fileURLToPath(new URL('../jobs/bridge-exec-http-spread.nomad.hcl', import.meta.url));
const MIN = 60_000;

export const CHECKS = [TARGETS_HIT, ALLOCS_FOLLOWED, UNTOUCHED_ALLOCS, SERVICE_CONTINUITY];

/** rolling-reboot's own defaults: every client, one at a time, drained. */
export function rollingPlan(config: { reboot: { target?: TargetSpec; rolling?: boolean; drain?: boolean } }) {
  return {
    target: config.reboot.target ?? ({ kind: 'clients' } as TargetSpec),
    rolling: config.reboot.rolling ?? true,
    drain: config.reboot.drain ?? true,
  };
}

export default defineScenario({
  name: 'rolling-reboot',
  summary:
    'every client in turn (or --target) drained, rebooted for real and made eligible again, the next once the job runs whole; the service probed throughout',
  needsNomad: true,
  checks: CHECKS,
  validate: (config) => [
    ...singleRebootOnly('rolling-reboot', config),
    ...execDriverOnly('rolling-reboot', config),
    ...shippedJobOnly('rolling-reboot', config),
    ...faultProblems('rolling-reboot', config, { hasNomadAgent: true }),
  ],
  async run(ctx, env) {
    const { config } = env;
    const plan = rollingPlan(config);
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
    // Note: each machine's Nomad node name is its hostname, which the lab sets to the machine's slot name
    const nodeOf = await ctx.step(
      `wait for a leader and every client node ready (${clients.join(', ')})`,
      async (d) => {
        await waitForLeader(nomad, { deadline: d });
        const out: Record<string, string> = {};
        for (const c of clients)
          out[c] = (await waitForBridgeClient(ctx, nomad, lab.machines[c]!, { nodeName: c, driver: 'exec' }, d)).ID;
        return out;
      },
      { timeoutMs: 5 * MIN },
    );
    const nodeNames = Object.fromEntries(Object.entries(nodeOf).map(([m, id]) => [id, m]));

    // one alloc per client (at least two, so that a drain has somewhere to move one while the other serves)
    const count = Math.max(2, clients.length);
    const parsed = await ctx.step(`parse the job (count ${count})`, async (d) => {
      const hcl = await readFile(JOB_FILE, 'utf8');
      const job = await nomad.parseJob(hcl, { signal: d.signal, variables: `count = ${count}\n` });
      const { info, problems } = jobInfo(job);
      const bad = [...problems, ...(info ? jobProblems(info).map((p) => p.message) : [])];
      if (!info || bad.length)
        throw new ConfigError(
          bad.map((message) => ({ field: 'job', value: JOB_FILE, message, fix: 'the shipped job' })),
        );
      return { hcl, job, info };
    });
    const { info } = parsed;
    const jobId = parsed.job.ID;
    await ctx.step(`register job "${jobId}"`, (d) => nomad.registerJob(parsed.job, parsed.hcl, { signal: d.signal }));
    const lab0 = { memoryMb: config.lab.memoryMb, cpus: config.lab.cpus };
    const healthy: AllocSnap[] = await ctx.step(
      `wait until every alloc of the job (${info.expectedAllocs}) runs`,
      (d) => waitForJobHealthy(nomad, jobId, info.expectedAllocs, lab0, d),
      { timeoutMs: (4 + 2 * info.expectedAllocs) * MIN },
    );
    ctx.fact(
      'allocs.before',
      healthy.map((a) => `${a.name} ${a.id.slice(0, 8)}@${nodeNames[a.nodeId] ?? a.nodeId.slice(0, 8)}`).join(' '),
    );
    const disruptionIndex = (await nomad.jobAllocations(jobId)).index;

    // the probe series runs from just before the first fault until the last wave has settled
    const down = new Set<string>();
    const addresses = new Map<string, string>();
    for (const id of Object.values(nodeOf)) {
      const n = (await nomad.node(id)).body;
      const ip = n.Attributes?.['unique.network.ip-address'];
      if (ip) addresses.set(id, ip);
    }
    const services = seriesServices(healthy, info.probeKinds);
    const series = services.length
      ? startProbeSeries({
          lab,
          intervalMs: durationSeconds(config.reboot.probeInterval) * 1000,
          services,
          down: () => down,
          deadline: ctx.deadline,
          targets: async (d) =>
            seriesTargets(
              await readJobAllocs(nomad, jobId, d),
              info.probeKinds,
              (id) => nodeNames[id] ?? id.slice(0, 8),
              (id) => addresses.get(id),
            ),
        })
      : undefined;

    const turns: FaultTurn[] = [];
    let recorded: ProbeSeries | undefined;
    const history = { events: {} };
    const input = {
      ctx,
      lab,
      nomad,
      config,
      target: plan.target,
      drain: plan.drain,
      jobId,
      expectedAllocs: info.expectedAllocs,
      driver: 'exec',
      nodeOf,
      down,
      history,
    };
    try {
      for (const [k, wave] of waves(targetTurns(plan.target, topology), plan.rolling).entries()) {
        const r = await runWave(input, wave, k + 1);
        turns.push(...r.turns);
        if (r.broken) {
          ctx.info(`the roll stops after wave ${k + 1}: ${r.broken}`);
          break;
        }
      }
    } finally {
      if (series) {
        recorded = await series.stop();
        ctx.artifact('probe-series.json', JSON.stringify(recorded, null, 2));
      }
    }
    turns.forEach((t, k) => {
      ctx.fact(`fault.${k + 1}.target`, `${t.machine} (${t.targetedAs}${t.resolvedHow ? `: ${t.resolvedHow}` : ''})`);
    });
    const after = await ctx.step('read every alloc of the job', (d) => readJobAllocs(nomad, jobId, d));
    ctx.artifact('job-allocs-after.json', JSON.stringify(after, null, 2));
    const evidence: ClusterEvidence = {
      topology: topologyLabel(topology),
      jobId,
      expectedAllocs: info.expectedAllocs,
      nodeNames,
      turns,
      disruptionIndex,
      before: healthy,
      after,
      drain: plan.drain,
      maxGapMs: config.reboot.maxGapS * 1000,
      ...(recorded ? { series: recorded } : {}),
    };
    ctx.artifact('cluster-evidence.json', JSON.stringify(evidence, null, 2));
    return judgeAll(CHECKS, evidence);
  },
});
