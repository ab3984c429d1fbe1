// bridge-exec-reboot: the seed procedure. Run a bridge-mode job (the shipped one, or your own with --job: any service job
// with bridge-mode groups, any count, several groups), wait until EVERY alloc is healthy, reboot the client host for real,
// wait until the job has settled with evidence newer than the reboot, then judge every alloc: restored in place,
// replaced (and why), or failed; its tasks started again; every mapped port answers; no duplicate-IP CNI error; unique
// addresses; no leaks; and each restored alloc whole (task mounts, namespaces, a restarted task's environment, exec,
// services, the agent's resources: lib/steps/whole-alloc-steps.ts). With --driver docker (a box with Docker) the shipped task is a docker container instead: the
// original GH-24292 report, where dockerd restarts Nomad's pause container at boot.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { AllocSnap, RebootEvidence, SettleRecord, TaskEventRec } from '../lib/model/evidence.js';
import { firstOf, type RebootRecord } from '../lib/model/lab.js';
import { STEP_IDS } from '../lib/model/run.js';
import { factsFromEvidence } from '../lib/checks/facts.js';
import { judgeAll } from '../lib/checks/define.js';
import { CLIENT_REBOOTED } from '../lib/checks/client-rebooted.js';
import { NODE_BACK } from '../lib/checks/node-back.js';
import { ALLOC_RESTORED } from '../lib/checks/alloc-restored.js';
import { TASK_RESTARTED } from '../lib/checks/task-restarted.js';
import { HTTP_REACHABLE } from '../lib/checks/http-reachable.js';
import { NO_DUPLICATE_IP } from '../lib/checks/no-duplicate-ip.js';
import { UNIQUE_IPS } from '../lib/checks/unique-ips.js';
import { NO_LEAKS } from '../lib/checks/no-leaks.js';
import { TASK_DIRS } from '../lib/checks/task-dirs.js';
import { TASK_NETNS } from '../lib/checks/task-netns.js';
import { TASK_ENV } from '../lib/checks/task-env.js';
import { ALLOC_EXEC } from '../lib/checks/alloc-exec.js';
import { SERVICES } from '../lib/checks/services.js';
import { AGENT_RESOURCES } from '../lib/checks/agent-resources.js';
import { defineScenario, noClusterTargets } from '../lib/run/scenario.js';
import { observe, recordAgentWarnings } from '../lib/steps/reboot-steps.js';
import { waitForLeader, waitForNodeReady } from '../lib/nomad/wait.js';
import { waitForBridgeClient } from '../lib/steps/client-ready.js';
import { toNodeSnap } from '../lib/nomad/parse.js';
import { jobInfo, jobProblems } from '../lib/parse/nomad-job.js';
import { disconnectFact, jobDisconnectPolicies, shortestLostAfterS } from '../lib/parse/job-disconnect.js';
import { timelineFromEvidence } from '../lib/steps/timeline.js';
import { checkJobInput, JOB_FIELD, jobLab, JOBS_TAKEN, varFile } from '../lib/steps/job-input.js';
import { allocNodes, probeAllocs, waitForReachable } from '../lib/steps/alloc-probes.js';
import { settleFact, waitForJobSettled } from '../lib/steps/job-settle.js';
import { awaitDeploymentBeforeFault, waitForJobHealthy } from '../lib/steps/job-steps.js';
import { buildDockerImage, DOCKER_BOX, DOCKER_IMAGE } from '../lib/cluster/docker-image.js';
import { DEFAULTS } from '../lib/config/schema.js';
import type { TaskDriver } from '../lib/model/kinds.js';
import { ConfigError, HarnessError } from '../lib/errors.js';
import { startEventRecorder, type EventRecorder } from '../lib/steps/event-recorder.js';
import { withTransientFailures } from '../lib/checks/transient.js';
import { pinToNode } from '../lib/steps/pin-job.js';
import { adjustForFault } from '../lib/checks/fault-expectations.js';
import {
  faultParams,
  faultProblems,
  rebootStepMs,
  recordFault,
  recordOneTarget,
  reregisters,
  waitForQuorumAgain,
} from '../lib/steps/fault-step.js';
import { faultEndsTasks, faultKind, faultOutcome, faultStepName } from '../lib/faults/registry.js';
import { durationSeconds } from '../lib/config/durations.js';
import { readClockOffset } from '../lib/lab/observe.js';
import type { ClockOffset } from '../lib/parse/host-observe.js';
import { deadlineIn, remaining } from '../lib/time/deadlines.js';
import { formatRestoreNotices, restoreNotices, streamNotices } from '../lib/steps/restore-latency.js';
import { observeTasksBefore, readWholeAlloc } from '../lib/steps/whole-alloc-steps.js';
import { readSentinels, SENTINEL_CHECKS } from '../lib/steps/sentinel-steps.js';

const JOB_FILES: Record<TaskDriver, string> = {
  exec: fileURLToPath(new URL('../jobs/bridge-exec-http.nomad.hcl', import.meta.url)),
  docker: fileURLToPath(new URL('../jobs/bridge-docker-http.nomad.hcl', import.meta.url)),
};
/** Placing a job: exec builds a chroot per alloc, 1.5-2.6 min for one alloc and ~4 min for three under emulation. */
const placeTimeoutMs = (n: number): number => (4 + 2 * n) * 60_000;
const short = (a: AllocSnap): string => `${a.name} ${a.id.slice(0, 8)}`;
/** Kept from the run's budget for the steps after the settle: the ports (3 min at most), observing, the teardown. */
const SETTLE_RESERVE_MS = 5 * 60_000;

/** The checks, in report order; each is pure over the evidence, its rules (explains, underFault) on it. */
export const CHECKS = [
  CLIENT_REBOOTED,
  NODE_BACK,
  ALLOC_RESTORED,
  TASK_RESTARTED,
  HTTP_REACHABLE,
  NO_DUPLICATE_IP,
  UNIQUE_IPS,
  NO_LEAKS,
  TASK_DIRS,
  TASK_NETNS,
  TASK_ENV,
  ALLOC_EXEC,
  SERVICES,
  AGENT_RESOURCES,
  ...SENTINEL_CHECKS,
];

export default defineScenario({
  name: 'bridge-exec-reboot',
  summary:
    'every alloc of a bridge-mode job (the shipped exec job, --driver docker, or your own --job) survives a real reboot of its client host (restored in place)',
  needsNomad: true,
  jobs: JOBS_TAKEN,
  checks: CHECKS,
  validate(config) {
    // The default box has no Docker; any other box is checked inside the VM (a clear error before the job runs).
    const docker =
      config.task.driver === 'docker' && config.lab.box === DEFAULTS.lab.box
        ? [
            {
              field: '--driver',
              value: 'docker',
              message: `needs a box with Docker; ${DEFAULTS.lab.box} has none`,
              fix: `build the Docker box once with \`npm run harness -- setup --docker\` and add --box ${DOCKER_BOX}`,
            },
          ]
        : [];
    // the fault kinds this scenario (a Nomad agent on the client) and the provider can do
    // Note: its settle, observations and whole-alloc reads follow one job on its one client
    const jobs =
      config.job.files.length > 1
        ? [
            {
              field: JOB_FIELD,
              value: config.job.files,
              message:
                "bridge-exec-reboot runs one job of yours (it follows one job's allocs on its one client); several jobs run together on rolling-reboot and server-reboot",
              fix: 'give --job once, or run rolling-reboot --job a.nomad.hcl --job b.nomad.hcl (--drain=false: no drain before the reboot)',
            },
          ]
        : [];
    return [
      ...docker,
      ...jobs,
      ...faultProblems('bridge-exec-reboot', config, { hasNomadAgent: true }),
      ...noClusterTargets('bridge-exec-reboot', config),
    ];
  },
  preflight: (config, tools) => checkJobInput(config, tools.convertJob),
  async run(ctx, env) {
    const runStartMs = Date.now();
    const { config } = env;
    const driver = config.task.driver;
    const own = config.job.files[0];
    const jobFile = own ?? JOB_FILES[driver];
    ctx.fact('task.driver', own ? undefined : driver);
    ctx.fact('job.file', own);
    const lab = await ctx.step('bring up the server and client VMs', (d) => env.upLab(ctx, d), {
      id: STEP_IDS.labUp,
      timeoutMs: 20 * 60_000,
    });
    const { nomadVersion } = await ctx.step(
      'install Nomad and start the agents',
      (d) => env.provisionNomad(ctx, lab, d),
      { id: STEP_IDS.install, timeoutMs: 10 * 60_000 },
    );
    ctx.fact('nomad.version', nomadVersion);
    // The client this scenario reboots: the first (the only one in a pair). Its node name is its slot name.
    const { name: clientName, machine: client } = firstOf(lab, 'client');
    recordOneTarget(ctx, lab, clientName);
    const server = firstOf(lab, 'server').machine;
    const nomad = await ctx.step(
      'connect to the Nomad API through the server VM',
      (d) => env.connectNomad(ctx, lab, d),
      { id: STEP_IDS.connect },
    );
    if (driver === 'docker') {
      const built = await ctx.step(
        `build the image ${DOCKER_IMAGE} inside the client VM (the lab has no registry)`,
        (d) => buildDockerImage(client, config.lab.box, d),
        { timeoutMs: 5 * 60_000 },
      );
      ctx.fact('docker.version', built.serverVersion);
      ctx.fact('docker.image', `${DOCKER_IMAGE} ${built.imageId}`);
    }

    // Note: the server's HTTP API may not answer yet right after the agents start (a real 1.9.7 run here got "socket
    // hang up" on the first request); the leader wait retries until it does.
    await ctx.step('wait for the Nomad server to elect a leader', (d) => waitForLeader(nomad, { deadline: d }), {
      id: STEP_IDS.nomadReady,
      timeoutMs: 3 * 60_000,
    });

    // The server parses the job (with the same variables the host's build checked it with before anything was created).
    const parsed = await ctx.step(
      'parse the job',
      async (d) => {
        const hcl = await readFile(jobFile, 'utf8');
        const job = await nomad.parseJob(hcl, { signal: d.signal, variables: varFile(config.job.vars) });
        const { info, problems } = jobInfo(job);
        const bad = [
          ...problems.map((message) => ({ message, fix: 'see the README, "Your own job"' })),
          ...(info ? jobProblems(info, jobLab(config)) : []),
        ];
        if (!info || bad.length) throw new ConfigError(bad.map((p) => ({ field: JOB_FIELD, value: jobFile, ...p })));
        return { hcl, job, info };
      },
      { id: STEP_IDS.jobParse, values: { 'job.file': own ?? `shipped (${driver})` } },
    );
    const { info } = parsed;
    ctx.fact('job.id', info.id);
    ctx.fact('job.groups', info.groups.map((g) => `${g.name}[${g.count}] ${g.mode}`).join(' '));
    const drivers = info.drivers.length ? info.drivers : [driver];
    // what each group does when the servers stop hearing the client, as this Nomad line reads the job
    const disconnect = jobDisconnectPolicies(info.groups, nomadVersion);
    ctx.fact('job.disconnect', disconnectFact(disconnect));

    const node = await ctx.step(
      "wait for a leader and the client node ready with the job's drivers healthy",
      async (d) => {
        await waitForLeader(nomad, { deadline: d });
        const n = await waitForBridgeClient(ctx, nomad, client, { nodeName: clientName, driver: drivers[0]! }, d);
        for (const other of drivers.slice(1))
          await waitForNodeReady(nomad, { nodeId: n.ID, driver: other }, { deadline: d });
        return toNodeSnap(n);
      },
      { id: STEP_IDS.nomadReady, timeoutMs: 5 * 60_000, values: { 'job.drivers': drivers.join(', ') } },
    );
    ctx.fact(`${clientName}.node_id`, node.id);
    // the agents are up and ready: a crash or a systemd restart of any of them from here on is the run's
    const agentsReadyMs = Date.now();

    // the shipped job's one alloc where this scenario's fault lands, on a lab of several clients
    const clients = Object.values(lab.machines).filter((m) => m.role === 'client').length;
    const toRegister = !own && clients > 1 ? pinToNode(parsed.job, clientName) : parsed.job;
    if (toRegister !== parsed.job)
      ctx.fact('job.pinned', `${clientName} (the shipped job on a lab of ${clients} clients)`);
    let recorder: EventRecorder | undefined;
    // the client's clock against ours, as first read after a fault that restarts the tasks
    let clientClock: ClockOffset | undefined;
    const jobId = await ctx.step(
      'register the job',
      async (d) => {
        // watch the job's allocs and the node through the event stream from now to the end of the run
        recorder = startEventRecorder(ctx, nomad, { jobId: parsed.job.ID, nodeIds: [node.id] });
        await nomad.registerJob(toRegister, parsed.hcl, { signal: d.signal });
        return parsed.job.ID;
      },
      { id: STEP_IDS.jobRegister, values: { 'job.id': info.id } },
    );

    const history: { events: Record<string, TaskEventRec[]> } = { events: {} };
    const lab0 = { memoryMb: config.lab.memoryMb, cpus: config.lab.cpus };
    const healthy: AllocSnap[] = await ctx.step(
      'wait until every alloc of the job runs and every mapped port answers',
      async (d) => {
        const allocs = await waitForJobHealthy(nomad, jobId, info.expectedAllocs, lab0, d);
        const nodes = await allocNodes(nomad, allocs, [node], d);
        await waitForReachable({ lab, allocs, nodes, kinds: info.probeKinds }, d);
        return allocs;
      },
      {
        id: STEP_IDS.jobRunning,
        timeoutMs: placeTimeoutMs(info.expectedAllocs),
        values: { 'job.expected_allocs': info.expectedAllocs },
      },
    );
    await awaitDeploymentBeforeFault(ctx, nomad, jobId);
    // The allocs the fault disrupts are those on the client it reboots; in a lab of several clients the others are
    // left alone (probed above from their own client), so they are not judged as restored in place.
    const watched = healthy.filter((a) => a.nodeId === node.id).map((a) => a.id);
    const elsewhere = healthy.filter((a) => a.nodeId !== node.id);
    if (elsewhere.length)
      ctx.fact('allocs.elsewhere', `${elsewhere.map(short).join(', ')}: on clients the fault leaves alone, not judged`);
    if (!watched.length)
      throw new HarnessError(
        `the job placed none of its ${healthy.length} allocs on ${clientName}, the client this scenario reboots: nothing to judge (give the job a constraint or spread that places an alloc there, or run rolling-reboot)`,
      );
    ctx.fact('alloc.id', watched[0]);
    ctx.fact('allocs.before', healthy.map((a) => `${short(a)}=${a.address ?? '?'}`).join(' '));

    const base = { nomad, lab, jobId, allocId: watched[0]!, nodeId: node.id, history };
    // Note: two reads of different things (the API and the CNI state; the task processes and mounts), side by side
    const [before, tasksBefore] = await Promise.all([
      ctx.step('observe before the reboot', (d) => observe({ ...base, label: 'before' }, d), {
        id: STEP_IDS.observeBefore,
      }),
      observeTasksBefore(ctx, lab, config),
    ]);
    ctx.artifact('alloc-before.json', JSON.stringify(before.alloc, null, 2));
    ctx.artifact('job-allocs-before.json', JSON.stringify(before.jobAllocs, null, 2));

    // --reboots N: reboot again while every alloc keeps being restored; the checks judge the last reboot (or the first
    // one after which an alloc was not restored), the leak check what is left after it.
    const count = config.reboot.count;
    const fault = {
      heartbeatGraceS: durationSeconds(config.nomad.heartbeatGrace),
      partitionForS: config.reboot.partitionForS,
      lostAfterS: shortestLostAfterS(disconnect),
    };
    const reboots: RebootRecord[] = [];
    let since = { index: 0, atMs: 0 };
    let settle: SettleRecord = { settled: false, reason: 'not waited', quietMs: 0 };
    for (let i = 1; i <= count; i++) {
      // Note: the fault's number, not "of N": another --reboots keeps the names of the faults both runs have
      const of = count > 1 ? ` #${i}` : '';
      // Evidence newer than the reboot: the node's status set again by the server, the allocs changed after this index.
      const [nodeBefore, allocsIndex] = await Promise.all([
        nomad.node(node.id).then((r) => r.body),
        nomad.jobAllocations(jobId).then((r) => r.index),
      ]);
      since = { index: Math.max(nodeBefore.ModifyIndex, allocsIndex), atMs: Date.now() };
      const r = await ctx.step(
        `${faultStepName(config.reboot.kind)}${of}`,
        (d) => lab.reboot(clientName, config.reboot.kind, { deadline: d, fault: faultParams(config) }),
        { id: STEP_IDS.fault, timeoutMs: rebootStepMs(config) },
      );
      reboots.push(r);
      recordFault(ctx, r, count > 1 ? `.${i}` : ''); // the fault's moments on the timeline, its facts
      since.atMs = r.requestedAt;
      // a kind that leaves the agent running (a partition shorter than heartbeat_grace, a lossy link) need not change
      // the node at all: only ready is awaited then; after the whole lab was off, a leader first
      if (faultKind(r.kind).wholeLab) await waitForQuorumAgain(ctx, nomad, of);
      const again = reregisters(r.kind)
        ? { statusUpdatedAfterS: nodeBefore.StatusUpdatedAt, modifiedAfterIndex: since.index }
        : {};
      await ctx.step(
        `wait for the client node to register again and be ready${of}`,
        (d) => waitForNodeReady(nomad, { nodeId: node.id, driver: drivers[0]!, ...again }, { deadline: d }),
        { id: STEP_IDS.nodeBack, timeoutMs: 5 * 60_000 },
      );
      // agent-kill and a short partition leave the tasks running (no restart expected); a partition past
      // heartbeat_grace ends in a replacement, which the settle rule waits for like any lost alloc's.
      const tasksRestart = faultOutcome(r.kind, fault).restartsTasks;
      const quietMs = config.reboot.settleQuietS * 1000;
      const confirmMs = config.reboot.settleConfirmS * 1000;
      // the client's clock against ours, read while the allocs come back (an emulated guest's clock drifts
      // over the tens of seconds the settle takes, so reading it afterwards blurs the notice latency)
      const clockRead = tasksRestart
        ? readClockOffset(client, deadlineIn(30_000, ctx.deadline)).catch(() => undefined)
        : undefined;
      const serverClockRead = tasksRestart
        ? readClockOffset(server, deadlineIn(30_000, ctx.deadline)).catch(() => undefined)
        : undefined;
      // A place with nothing known to come gets the window; a delayed reschedule Nomad holds gets the run's budget
      // (less what the steps after this one need).
      const windowMs = 5 * 60_000 + quietMs;
      const s = await ctx.step(
        `wait until the job has settled (every alloc restored, replaced or failed, and Nomad with nothing pending for it)${of}`,
        (d) =>
          waitForJobSettled(
            {
              nomad,
              jobId,
              watched,
              since,
              history,
              quietMs,
              confirmMs,
              windowMs,
              tasksRestart,
              onProgress: (line) => ctx.info(line),
            },
            d,
          ),
        {
          id: STEP_IDS.settle,
          timeoutMs: Math.max(windowMs, remaining(ctx.deadline) - SETTLE_RESERVE_MS),
          values: {
            'reboot.settle_quiet_s': config.reboot.settleQuietS,
            'reboot.settle_confirm_s': config.reboot.settleConfirmS,
          },
        },
      );
      settle = {
        settled: s.settled,
        reason: s.reason,
        quietMs: s.quietMs,
        ...(s.ending ? { ending: s.ending } : {}),
        ...(s.confirmMs !== undefined ? { confirmMs: s.confirmMs } : {}),
      };
      ctx.fact(count > 1 ? `job.settled.${i}` : 'job.settled', settleFact(s));
      // how soon after each alloc ran again (its tasks' Started, client clock corrected) the harness saw it
      const [clock, serverClock] = [await clockRead, await serverClockRead];
      clientClock ??= clock;
      if (clock && Object.keys(s.noticedAtMs).length > 0) {
        const tasks = Object.fromEntries(
          s.allocs.filter((a) => watched.includes(a.id)).map((a) => [a.id, Object.keys(a.tasks)]),
        );
        const viaStream = streamNotices(recorder!.events(), tasks, since.atMs, clock);
        const line = formatRestoreNotices(
          restoreNotices(s.allocs, s.noticedAtMs, since.atMs, clock, viaStream, serverClock),
          clock,
          serverClock,
        );
        if (line) ctx.fact(count > 1 ? `restore.noticed_after.${i}` : 'restore.noticed_after', line);
      }
      const restored =
        s.settled &&
        watched.every((id) =>
          s.allocs.some((a) => a.id === id && a.clientStatus === 'running' && a.desiredStatus === 'run'),
        );
      if (!restored) break;
      // Note: a restored server binds its port a moment after its task starts; wait for that before judging (a timeout is evidence).
      await ctx.step(
        `wait for every mapped port to answer after the reboot${of}`,
        async (d) => {
          const allocs = s.allocs.filter((a) => watched.includes(a.id));
          const nodes = await allocNodes(nomad, allocs, [], d);
          await waitForReachable({ lab, allocs, nodes, kinds: info.probeKinds }, d).catch((e: Error) =>
            ctx.fact(count > 1 ? `ports.after.${i}` : 'ports.after', `not answering: ${e.message.split('\n')[0]}`),
          );
        },
        { id: STEP_IDS.portsBack, timeoutMs: 3 * 60_000 },
      );
    }
    const reboot = reboots.at(-1)!;
    ctx.fact(`${clientName}.boot_id.before`, reboots[0]!.bootIdBefore);
    ctx.fact(`${clientName}.boot_id.after`, reboot.bootIdAfter);
    ctx.fact('reboot.seconds', ((reboot.backAt - reboot.requestedAt) / 1000).toFixed(1));
    if (count > 1) {
      ctx.fact('reboots', `${reboots.length} of ${count}`);
      for (const [i, r] of reboots.entries()) ctx.fact(`${clientName}.boot_id.after.${i + 1}`, r.bootIdAfter);
      for (const r of reboots.slice(0, -1)) {
        ctx.mark({
          atMs: r.requestedAt,
          lane: 'host',
          label: `${r.kind} reboot requested (earlier)`,
          detail: `boot_id ${r.bootIdBefore}`,
          severity: 'warn',
        });
        ctx.mark({
          atMs: r.backAt,
          lane: 'host',
          label: 'SSH back with a new boot_id',
          detail: `boot_id ${r.bootIdAfter}`,
          severity: r.bootIdAfter !== r.bootIdBefore ? 'ok' : 'fail',
        });
      }
    }

    const after = await ctx.step(
      'observe after the reboot and probe every mapped port',
      async (d) => {
        const obs = await observe({ ...base, label: 'after' }, d, { clientLog: true });
        return {
          ...obs,
          http: await probeAllocs(
            {
              lab,
              allocs: obs.jobAllocs,
              nodes: await allocNodes(nomad, obs.jobAllocs, obs.node ? [obs.node] : [], d),
              kinds: info.probeKinds,
            },
            d,
          ),
        };
      },
      { id: STEP_IDS.observeAfter },
    );
    ctx.artifact('alloc-after.json', JSON.stringify(after.alloc, null, 2));
    ctx.artifact('job-allocs-after.json', JSON.stringify(after.jobAllocs, null, 2));
    ctx.artifact('task-events.json', JSON.stringify(history.events, null, 2));
    ctx.artifact('client-nomad-journal.log', after.clientLog.join('\n'));
    ctx.artifact('node-after.json', JSON.stringify(after.node, null, 2));
    recordAgentWarnings(ctx, after.clientLog, reboots[0]!.requestedAt, clientName);

    const evidence: RebootEvidence = {
      jobId,
      taskName: Object.keys(healthy[0]?.tasks ?? {})[0] ?? 'web',
      allocId: watched[0]!,
      allocIds: watched,
      disruptionIndex: since.index,
      heartbeatGrace: config.nomad.heartbeatGrace,
      disconnect,
      settle,
      probeKinds: info.probeKinds,
      ...(info.groups.some((g) => g.mode === 'host')
        ? { hostGroups: info.groups.filter((g) => g.mode === 'host').map((g) => g.name) }
        : {}),
      tasksRestart: faultOutcome(reboot.kind, fault).restartsTasks,
      before,
      after,
      reboot,
      taskEvents: history.events,
      clientLog: after.clientLog,
    };
    for (const [k, v] of Object.entries(factsFromEvidence(evidence))) ctx.fact(k, v);
    for (const ev of timelineFromEvidence(evidence, runStartMs)) ctx.mark(ev);
    // An alloc that failed after the first fault and was restarted fails alloc-restored (event quoted); a task instance
    // the reboot itself ended is quoted as the fault's effect. The recorder stops first: the whole-alloc reads restart
    // a task on purpose, which is no failure after the fault.
    await recorder!.stop();
    evidence.whole = await readWholeAlloc(ctx, { nomad, lab, config, job: parsed.job, evidence, before: tasksBefore });
    ctx.artifact('whole-alloc.json', JSON.stringify(evidence.whole, null, 2));
    // every agent's journal and unit, what each fault was seen to cause, the servers' own state
    const transitions = recorder!.transitions();
    evidence.sentinels = await readSentinels(ctx, env, lab, {
      watchFromMs: agentsReadyMs,
      faults: reboots.map((r) => ({
        machine: clientName,
        role: 'client',
        record: r,
        hadAllocs: true,
        nodeStatuses: transitions
          .filter((t) => t.kind === 'node' && t.id === node.id && t.atMs >= r.requestedAt)
          .map((t) => t.to),
      })),
      servers: 'end of the run',
    });
    // agent-kill and partition are judged against what they make Nomad do (lib/checks/fault-expectations.ts)
    const judged = adjustForFault(CHECKS, judgeAll(CHECKS, evidence), evidence, fault);
    const first = reboots[0]!;
    const endsTasks = faultEndsTasks(first.kind, fault);
    const name = faultKind(first.kind).rebootsHost ? 'reboot' : first.kind;
    // Note: task events carry the client's clock (an emulated guest's runs seconds behind ours): the fault's moment
    // in that clock, less the reading's uncertainty, so a task the fault ended at once is not taken for one before it
    const sinceMs = first.requestedAt + (clientClock ? clientClock.offsetMs - clientClock.uncertaintyMs : 0);
    return withTransientFailures(judged, recorder!.transitions(), { sinceMs, endsTasks, name });
  },
});
