// upgrade-in-place: the GH-25093 collision. Start the cluster on build A, run 3 bridge allocs, swap the client's
// binary to build B and restart its agent WITHOUT draining, then scale to 6 allocs and check that no two share an
// address, that host-local state agrees with the live allocs, and that the state moved to tmpfs (1.9.7's migration).
import { readSentinels, SENTINEL_CHECKS, type FaultRun } from '../lib/steps/sentinel-steps.js';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { AllocSnap, RebootEvidence, TaskEventRec } from '../lib/model/evidence.js';
import type { CheckResult } from '../lib/model/check.js';
import { judgeAll } from '../lib/checks/define.js';
import { skippedResult } from '../lib/checks/result.js';
import { reservationsOf } from '../lib/checks/cni-state.js';
import { UNIQUE_IPS_AFTER_UPGRADE } from '../lib/checks/unique-ips-after-upgrade.js';
import { STATE_AGREES } from '../lib/checks/state-agrees.js';
import { STATE_MIGRATED } from '../lib/checks/state-migrated.js';
import { CLIENT_REBOOTED } from '../lib/checks/client-rebooted.js';
import { ALLOC_RESTORED } from '../lib/checks/alloc-restored.js';
import { TASK_RESTARTED } from '../lib/checks/task-restarted.js';
import { HTTP_REACHABLE } from '../lib/checks/http-reachable.js';
import { NO_DUPLICATE_IP } from '../lib/checks/no-duplicate-ip.js';
import { observe, recordAgentWarnings } from '../lib/steps/reboot-steps.js';
import { jobInfo } from '../lib/parse/nomad-job.js';
import { awaitDeploymentBeforeFault } from '../lib/steps/job-steps.js';
import { probeAllocs, waitForReachable } from '../lib/steps/alloc-probes.js';
import { settleFact, waitForJobSettled } from '../lib/steps/job-settle.js';
import { readCniState } from '../lib/cluster/evidence.js';
import { renderCniListing } from '../lib/cluster/parse-cni-listing.js';
import { HarnessError } from '../lib/errors.js';
import { readAgentLog, readHostNetns } from '../lib/lab/observe.js';
import { firstOf, type Lab } from '../lib/model/lab.js';
import { STEP_IDS, type StepId } from '../lib/model/run.js';
import type { ApiAllocListStub } from '../lib/nomad/api-types.js';
import type { Nomad } from '../lib/nomad/client.js';
import { toAllocSnap, toNodeSnap } from '../lib/nomad/parse.js';
import { blockingProbe, describeAllocStub, waitForLeader } from '../lib/nomad/wait.js';
import { waitForBridgeClient } from '../lib/steps/client-ready.js';
import type { Deadline } from '../lib/time/deadlines.js';
import { defineScenario, noClusterTargets, singleRebootExecOnly } from '../lib/run/scenario.js';
import { waitFor } from '../lib/time/wait-for.js';
import { FAULTS, faultKind } from '../lib/faults/registry.js';
import type { HarnessConfig } from '../lib/config/schema.js';
import type { ConfigProblem } from '../lib/errors.js';
import { faultParams, faultProblems, rebootStepMs, recordOneTarget } from '../lib/steps/fault-step.js';

const JOB_FILE = fileURLToPath(new URL('../jobs/bridge-exec-http-multi.nomad.hcl', import.meta.url));
/** Allocs running on build A, and after the scale-up on build B (the new ones are where collisions show). */
const COUNT_BEFORE = 3;

/** Without a build to upgrade to (and not the restart-only control case) there is nothing to upgrade: why, in words. */
function missingUpgradeTarget(config: HarnessConfig): string | undefined {
  return config.upgrade.mode === 'restart-only' || config.upgradeTo
    ? undefined
    : 'no build to upgrade to given (--upgrade-to / NOMAD_UPGRADE_TO, or --upgrade-mode restart-only)';
}
const COUNT_AFTER = 6;
const LIVE = new Set(['running', 'pending']);
/**
 * How long placing allocs may take: exec builds a chroot per alloc (copying /bin, /lib, /usr, …), which took
 * 1.5-2.6 min for one alloc and 3m50s for three at once under QEMU software emulation here.
 */
const placeTimeoutMs = (n: number): number => (4 + 2 * n) * 60_000;

/** Wait until the job has `n` running allocs; a failed one (reschedule attempts = 0) means it never will. */
function waitForRunning(nomad: Nomad, jobId: string, n: number, d: Deadline): Promise<number> {
  return waitFor(
    `${n} running allocs of job "${jobId}"`,
    blockingProbe(
      (q) => nomad.jobAllocations(jobId, q),
      (allocs) => {
        const live = allocs.filter((a) => a.DesiredStatus === 'run');
        const running = live.filter((a) => a.ClientStatus === 'running').length;
        const failed = live.find((a) => a.ClientStatus === 'failed' || a.ClientStatus === 'lost');
        if (running >= n) return { done: true, value: running };
        return {
          done: false,
          reason: `${running}/${n} running${failed ? `; ${describeAllocStub(failed)}` : ''}`,
          terminal: !!failed,
        };
      },
    ),
    { deadline: d, intervals: [50] },
  );
}

/**
 * After the scale-up: wait until `n` allocs of the job have settled, running or failed (a new alloc failing its network
 * setup is evidence for the checks, not a reason to stop); returns the failed ones.
 */
function waitForSettled(nomad: Nomad, jobId: string, n: number, d: Deadline): Promise<ApiAllocListStub[]> {
  return waitFor(
    `${n} allocs of job "${jobId}" to run or fail`,
    blockingProbe(
      (q) => nomad.jobAllocations(jobId, q),
      (allocs) => {
        const live = allocs.filter((a) => a.DesiredStatus === 'run' || a.ClientStatus === 'failed');
        const running = live.filter((a) => a.ClientStatus === 'running').length;
        const failed = live.filter((a) => a.ClientStatus === 'failed' || a.ClientStatus === 'lost');
        if (running + failed.length >= n) return { done: true, value: failed };
        return {
          done: false,
          reason: `${running} running, ${failed.length} failed, ${live.length - running - failed.length} pending of ${n}`,
        };
      },
    ),
    { deadline: d, intervals: [50] },
  );
}

/** What the node looked like just before a restart or reboot: the evidence after it must be newer. */
interface NodeSince {
  index: number;
  /** StatusUpdatedAt (Unix seconds, the server's clock) read just before */
  statusUpdatedAt: number;
}

/**
 * Wait until the node registered again after `since` and is ready with exec: a ModifyIndex past the one read just before,
 * and a StatusUpdatedAt the server set after the one read just before (a restarting client registers as initializing,
 * then ready). The server's own clock on both sides: the node staying "ready" within heartbeat_grace is no evidence.
 */
function waitForNodeBack(nomad: Nomad, nodeId: string, since: NodeSince, d: Deadline): Promise<unknown> {
  return waitFor(
    `node ${nodeId.slice(0, 8)} to register again and be ready`,
    blockingProbe(
      (q) => nomad.node(nodeId, q),
      (n) => {
        const again = n.ModifyIndex > since.index && n.StatusUpdatedAt > since.statusUpdatedAt;
        const exec = n.Drivers?.['exec'];
        if (again && n.Status === 'ready' && exec?.Detected && exec.Healthy) return { done: true, value: n };
        return {
          done: false,
          reason: `status=${n.Status}, status set at ${n.StatusUpdatedAt} (before: ${since.statusUpdatedAt})${again ? '' : ' (not re-registered yet)'}`,
        };
      },
    ),
    { deadline: d, intervals: [50] },
  );
}

async function nodeAllocs(nomad: Nomad, nodeId: string, d: Deadline): Promise<AllocSnap[]> {
  return (await nomad.nodeAllocations(nodeId, { signal: d.signal })).body
    .map(toAllocSnap)
    .filter((a) => LIVE.has(a.clientStatus) && a.desiredStatus === 'run');
}

async function registerWithCount(nomad: Nomad, count: number, d: Deadline): Promise<string> {
  const hcl = await readFile(JOB_FILE, 'utf8');
  const job = await nomad.parseJob(hcl, { signal: d.signal, variables: `count = ${count}\n` });
  await nomad.registerJob(job, hcl, { signal: d.signal });
  return job.ID;
}

const addresses = (allocs: AllocSnap[]): string =>
  allocs.map((a) => `${a.id.slice(0, 8)}=${a.address ?? '?'}`).join(' ');

/** The checks of the upgrade and the scale-up, in report order. */
export const UPGRADE_CHECKS = [UNIQUE_IPS_AFTER_UPGRADE, STATE_AGREES, STATE_MIGRATED];
/** The reboot scenario's checks of one reboot's restore, reused here (upgrade-then-reboot), with the same rules. */
export const RESTORE_CHECKS = [CLIENT_REBOOTED, ALLOC_RESTORED, TASK_RESTARTED, HTTP_REACHABLE, NO_DUPLICATE_IP];
const skipRestore = (why: string): CheckResult[] => RESTORE_CHECKS.map((c) => skippedResult(c, why));

/** upgrade-then-reboot needs a kind that reboots the host (agent-kill and partition do not). */
function upgradeFaultProblems(config: HarnessConfig): ConfigProblem[] {
  if (config.upgrade.mode !== 'upgrade-then-reboot') return [];
  const kind = config.reboot.kind;
  const own = faultKind(kind).rebootsHost
    ? []
    : [
        {
          field: '--reboot (reboot.kind)',
          value: kind,
          message: 'does not reboot the host, which --upgrade-mode upgrade-then-reboot needs',
          fix: `use one of: ${FAULTS.kinds
            .filter((k) => k.rebootsHost)
            .map((k) => k.name)
            .join(', ')}`,
        },
      ];
  return [...own, ...faultProblems('upgrade-in-place', config, { hasNomadAgent: true })];
}

export default defineScenario({
  name: 'upgrade-in-place',
  summary:
    'upgrading a client in place (no drain) keeps bridge alloc IPs unique and migrates host-local state (GH-25093)',
  needsNomad: true,
  checks: [...UPGRADE_CHECKS, ...RESTORE_CHECKS, ...SENTINEL_CHECKS],
  validate(config) {
    const once = [
      ...singleRebootExecOnly('upgrade-in-place', config),
      ...upgradeFaultProblems(config),
      ...noClusterTargets('upgrade-in-place', config),
    ];
    if (!missingUpgradeTarget(config)) return once;
    return [
      ...once,
      {
        field: '--upgrade-to',
        value: undefined,
        message: 'is required by scenario upgrade-in-place (the build the client is upgraded to)',
        fix: 'pass --upgrade-to ./nomad-1.9.7, set NOMAD_UPGRADE_TO or upgrade_to in harness.yaml; or --upgrade-mode restart-only for the control case',
      },
    ];
  },
  missingInput: missingUpgradeTarget,
  async run(ctx, env) {
    const { mode } = env.config.upgrade;
    const target = mode === 'restart-only' ? env.config.nomadBinary : env.config.upgradeTo;
    if (!target)
      return [...UPGRADE_CHECKS, ...RESTORE_CHECKS, ...SENTINEL_CHECKS].map((c) =>
        skippedResult(c, 'no build to upgrade to (--upgrade-to / NOMAD_UPGRADE_TO)'),
      );
    if (!env.upgradeNomad)
      throw new HarnessError('this environment cannot upgrade Nomad in place (ScenarioEnv.upgradeNomad is missing)');
    const upgrade = env.upgradeNomad.bind(env);
    ctx.fact('upgrade.mode', mode);
    ctx.fact('upgrade.to', target);

    const faults: FaultRun[] = [];
    const lab: Lab = await ctx.step('bring up the server and client VMs', (d) => env.upLab(ctx, d), {
      id: STEP_IDS.labUp,
      timeoutMs: 20 * 60_000,
    });
    const { nomadVersion } = await ctx.step(
      'install Nomad (build A) and start the agents',
      (d) => env.provisionNomad(ctx, lab, d),
      { id: STEP_IDS.install, timeoutMs: 10 * 60_000 },
    );
    ctx.fact('nomad.version.before', nomadVersion);
    // The client this scenario upgrades and reboots: the first (the only one in a pair); its node name is its slot name.
    const { name: clientName, machine: client } = firstOf(lab, 'client');
    const nomad = await ctx.step(
      'connect to the Nomad API through the server VM',
      (d) => env.connectNomad(ctx, lab, d),
      { id: STEP_IDS.connect },
    );
    const node = await ctx.step(
      'wait for a leader and the client node ready with exec healthy',
      async (d) => {
        await waitForLeader(nomad, { deadline: d });
        return toNodeSnap(await waitForBridgeClient(ctx, nomad, client, { nodeName: clientName, driver: 'exec' }, d));
      },
      { id: STEP_IDS.nomadReady, timeoutMs: 5 * 60_000 },
    );
    // the agents are up and ready: a crash or a systemd restart of any of them from here on is the run's
    const agentsReadyMs = Date.now();

    const jobId = await ctx.step(
      `run the bridge job with ${COUNT_BEFORE} allocs`,
      async (d) => {
        const id = await registerWithCount(nomad, COUNT_BEFORE, d);
        await waitForRunning(nomad, id, COUNT_BEFORE, d);
        return id;
      },
      { timeoutMs: placeTimeoutMs(COUNT_BEFORE) },
    );
    await awaitDeploymentBeforeFault(ctx, nomad, jobId);
    const before = await ctx.step('record alloc addresses and host-local state before the upgrade', async (d) => {
      const allocs = await nodeAllocs(nomad, node.id, d);
      const cni = await readCniState(client, { deadline: d });
      ctx.artifact('allocs-before.json', JSON.stringify(allocs, null, 2));
      ctx.artifact('cni-state-before.txt', renderCniListing(cni));
      return { allocs, cni };
    });
    ctx.fact('allocs.before', addresses(before.allocs));

    const nodeSince = async (): Promise<NodeSince> => {
      const n = (await nomad.node(node.id)).body;
      return {
        index: Math.max(n.ModifyIndex, (await nomad.jobAllocations(jobId)).index),
        statusUpdatedAt: n.StatusUpdatedAt,
      };
    };
    const restartOf = async <T>(
      what: string,
      act: (d: Deadline) => Promise<T>,
      timeoutMs = 10 * 60_000,
      id?: StepId,
    ): Promise<{ value: T; since: NodeSince }> => {
      const since = await nodeSince();
      const value = await ctx.step(what, act, { timeoutMs, ...(id ? { id } : {}) });
      await ctx.step(
        'wait for the client node to register again and be ready',
        (d) => waitForNodeBack(nomad, node.id, since, d),
        { id: STEP_IDS.nodeBack, timeoutMs: 5 * 60_000 },
      );
      return { value, since };
    };
    await restartOf(
      mode === 'restart-only'
        ? 'restart the client agent on the same build (no drain)'
        : 'swap the client to build B and restart its agent (no drain)',
      async (d) => {
        const r = await upgrade(ctx, lab, clientName, target, d);
        ctx.fact('nomad.version.after', r.nomadVersion);
      },
    );
    let restore = skipRestore(`only in --upgrade-mode upgrade-then-reboot (this run: ${mode})`);
    if (mode === 'upgrade-then-reboot') {
      // Every alloc's restore after the reboot, judged by the reboot scenario's own check objects.
      await ctx.step(
        `wait for the ${COUNT_BEFORE} allocs to run on build B before the reboot`,
        (d) => waitForRunning(nomad, jobId, COUNT_BEFORE, d),
        { timeoutMs: placeTimeoutMs(COUNT_BEFORE) },
      );
      const history: { events: Record<string, TaskEventRec[]> } = { events: {} };
      const watched = (await nodeAllocs(nomad, node.id, ctx.deadline))
        .filter((a) => a.jobId === jobId)
        .map((a) => a.id);
      const base = { nomad, lab, jobId, allocId: watched[0]!, nodeId: node.id, history };
      const obsBefore = await ctx.step('observe before the reboot', (d) => observe({ ...base, label: 'before' }, d), {
        id: STEP_IDS.observeBefore,
      });
      recordOneTarget(ctx, lab, clientName);
      const { value: reboot, since } = await restartOf(
        `reboot the client (${env.config.reboot.kind})`,
        (d) => lab.reboot(clientName, env.config.reboot.kind, { deadline: d, fault: faultParams(env.config) }),
        rebootStepMs(env.config),
        STEP_IDS.fault,
      );
      faults.push({ machine: clientName, role: 'client', record: reboot, hadAllocs: true });
      const quietMs = env.config.reboot.settleQuietS * 1000;
      const disruption = { index: since.index, atMs: reboot.requestedAt };
      const confirmMs = env.config.reboot.settleConfirmS * 1000;
      const settled = await ctx.step(
        'wait until the job has settled after the reboot (Nomad with nothing pending for it)',
        (d) => waitForJobSettled({ nomad, jobId, watched, since: disruption, history, quietMs, confirmMs }, d),
        {
          id: STEP_IDS.settle,
          timeoutMs: placeTimeoutMs(COUNT_BEFORE) + quietMs,
          values: {
            'reboot.settle_quiet_s': env.config.reboot.settleQuietS,
            'reboot.settle_confirm_s': env.config.reboot.settleConfirmS,
          },
        },
      );
      ctx.fact('job.settled', settleFact(settled));
      const kinds = jobInfo(await nomad.job(jobId).then((r) => r.body)).info?.probeKinds;
      const running = settled.allocs.filter((a) => watched.includes(a.id) && a.clientStatus === 'running');
      await ctx.step(
        'wait for every mapped port to answer after the reboot',
        (d) =>
          waitForReachable({ lab, allocs: running, nodes: obsBefore.node ? [obsBefore.node] : [], kinds }, d).catch(
            (e: Error) => ctx.fact('ports.after', `not answering: ${e.message.split('\n')[0]}`),
          ),
        { id: STEP_IDS.portsBack, timeoutMs: 3 * 60_000 },
      );
      const obsAfter = await ctx.step(
        'observe after the reboot and probe every mapped port',
        async (d) => {
          const o = await observe({ ...base, label: 'after' }, d, { clientLog: true });
          return {
            ...o,
            http: await probeAllocs({ lab, allocs: o.jobAllocs, nodes: o.node ? [o.node] : [], kinds }, d),
          };
        },
        { id: STEP_IDS.observeAfter },
      );
      ctx.artifact('job-allocs-after-reboot.json', JSON.stringify(obsAfter.jobAllocs, null, 2));
      recordAgentWarnings(ctx, obsAfter.clientLog, reboot.requestedAt, clientName);
      const evidence: RebootEvidence = {
        jobId,
        taskName: 'web',
        allocId: watched[0]!,
        allocIds: watched,
        disruptionIndex: since.index,
        heartbeatGrace: env.config.nomad.heartbeatGrace,
        settle: settled,
        probeKinds: kinds,
        before: obsBefore,
        after: obsAfter,
        reboot,
        taskEvents: history.events,
        clientLog: obsAfter.clientLog,
      };
      restore = judgeAll(RESTORE_CHECKS, evidence);
      const moved = watched
        .map(
          (id) => [obsBefore.jobAllocs.find((a) => a.id === id), obsAfter.jobAllocs.find((a) => a.id === id)] as const,
        )
        .filter(([b, a]) => b?.address && a?.address && b.address !== a.address)
        .map(([b, a]) => `${b!.id.slice(0, 8)} ${b!.address} -> ${a!.address}`);
      if (moved.length) ctx.fact('allocs.addresses_changed_by_reboot', moved.join('; '));
    } else {
      await ctx.step(
        `wait for the ${COUNT_BEFORE} allocs to run again`,
        (d) => waitForRunning(nomad, jobId, COUNT_BEFORE, d),
        { timeoutMs: placeTimeoutMs(COUNT_BEFORE) },
      );
    }

    await ctx.step(
      `scale the job to ${COUNT_AFTER} allocs`,
      async (d) => {
        await registerWithCount(nomad, COUNT_AFTER, d);
        const failed = await waitForSettled(nomad, jobId, COUNT_AFTER, d);
        if (failed.length) ctx.fact('allocs.failed_after_scale_up', failed.map((a) => describeAllocStub(a)).join('; '));
      },
      { timeoutMs: placeTimeoutMs(COUNT_AFTER - COUNT_BEFORE) },
    );
    const after = await ctx.step(
      'record alloc addresses, host-local state and the client log after the scale-up',
      async (d) => {
        const allocs = await nodeAllocs(nomad, node.id, d);
        const cni = await readCniState(client, { deadline: d });
        // Note: after upgrade-then-reboot the migration ("migrated CNI state") happened in the previous boot; cite both.
        const log =
          mode === 'upgrade-then-reboot'
            ? [...(await readAgentLog(client, d, { boot: '-1' })), ...(await readAgentLog(client, d))]
            : await readAgentLog(client, d);
        const hostNetns = await readHostNetns(client, d);
        ctx.artifact('allocs-after.json', JSON.stringify(allocs, null, 2));
        ctx.artifact('client-netns-after.json', JSON.stringify(hostNetns, null, 2));
        ctx.artifact('cni-state-after.txt', renderCniListing(cni));
        ctx.artifact('client-nomad-journal.log', log.join('\n'));
        return { allocs, cni, log, hostNetns };
      },
    );
    ctx.fact('allocs.after', addresses(after.allocs));
    for (const l of after.cni)
      ctx.fact(
        `cni.reservations.after:${l.dir}`,
        l.exists ? [...reservationsOf(l).keys()].sort().join(' ') || '(none)' : '(missing)',
      );
    const sentinels = await readSentinels(ctx, env, lab, {
      watchFromMs: agentsReadyMs,
      faults,
      servers: 'end of the run',
    });
    return [
      ...judgeAll(UPGRADE_CHECKS, {
        mode,
        before: before.allocs,
        after: after.allocs,
        cniAfter: after.cni,
        clientLog: after.log,
        hostNetns: after.hostNetns,
      }),
      ...restore,
      ...judgeAll(SENTINEL_CHECKS, { sentinels }),
    ];
  },
});
