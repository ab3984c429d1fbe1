// bridge-exec-reboot: the seed procedure. Run a non-Docker bridge job, wait until it is healthy,
// reboot the client host for real, then check the alloc was restored in place, the task restarted,
// its port answers and no duplicate-IP CNI error happened. With --driver docker (a box with Docker) the
// task is a docker container instead: the original GH-24292 report, where dockerd restarts Nomad's pause
// container at boot and the restore must notice that its network namespace has lost its CNI setup.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { AllocSnap, RebootEvidence, TaskEventRec } from '../lib/checks/types.js';
import type { RebootRecord } from '../lib/lab/types.js';
import { rebootChecks, factsFromEvidence } from '../lib/checks/reboot.js';
import { defineScenario } from '../lib/run/scenario.js';
import { REBOOT_CHECKS, observe, settleAfterReboot, waitForHttp } from '../lib/scenario/reboot-steps.js';
import { waitForLeader, waitForNodeReady, waitForAllocRunning } from '../lib/nomad/wait.js';
import { waitForBridgeClient } from '../lib/scenario/client-ready.js';
import { toNodeSnap } from '../lib/nomad/parse.js';
import { timelineFromEvidence } from '../lib/scenario/timeline.js';
import { buildDockerImage, DOCKER_BOX, DOCKER_IMAGE } from '../lib/cluster/docker-image.js';
import { DEFAULTS, type TaskDriver } from '../lib/config/schema.js';
import { startEventRecorder, type EventRecorder } from '../lib/scenario/event-recorder.js';
import { withTransientFailures } from '../lib/checks/transient.js';
import { adjustForFault } from '../lib/checks/fault-expectations.js';
import { faultParams, faultProblems, recordFault } from '../lib/scenario/faults.js';
import { expectReplacement, faultRestartsTasks } from '../lib/config/faults.js';
import { durationSeconds } from '../lib/config/fields.js';

const JOB_FILES: Record<TaskDriver, string> = {
  exec: fileURLToPath(new URL('../jobs/bridge-exec-http.nomad.hcl', import.meta.url)),
  docker: fileURLToPath(new URL('../jobs/bridge-docker-http.nomad.hcl', import.meta.url)),
};
/** Nomad's node name is the VM's hostname, which the lab sets to the role. */
const CLIENT_NODE_NAME = 'client';

export default defineScenario({
  name: 'bridge-exec-reboot',
  summary: 'a bridge-mode exec job (or docker: --driver docker) serving HTTP survives a real reboot of its client host (restored in place)',
  needsNomad: true,
  checks: REBOOT_CHECKS,
  validate(config) {
    // The default box has no Docker; any other box is checked inside the VM (a clear error before the job runs).
    const docker = config.task.driver === 'docker' && config.lab.box === DEFAULTS.lab.box
      ? [{ field: '--driver', value: 'docker', message: `needs a box with Docker; ${DEFAULTS.lab.box} has none`, fix: `build the Docker box once with \`bash vms/build-box.sh --docker\` and add --box ${DOCKER_BOX}` }]
      : [];
    return [...docker, ...faultProblems('bridge-exec-reboot', config, { hasNomadAgent: true })];
  },
  async run(ctx, env) {
    const runStartMs = Date.now();
    const driver = env.config.task.driver;
    ctx.fact('task.driver', driver);
    const lab = await ctx.step('bring up the server and client VMs', (d) => env.upLab(ctx, d), { timeoutMs: 20 * 60_000 });
    const { nomadVersion } = await ctx.step('install Nomad and start the agents', (d) => env.provisionNomad(ctx, lab, d), { timeoutMs: 10 * 60_000 });
    ctx.fact('nomad.version', nomadVersion);
    const nomad = await ctx.step('connect to the Nomad API through the server VM', (d) => env.connectNomad(ctx, lab, d));
    if (driver === 'docker') {
      const built = await ctx.step(`build the image ${DOCKER_IMAGE} inside the client VM (the lab has no registry)`, (d) => buildDockerImage(lab.machines['client']!, env.config.lab.box, d), { timeoutMs: 5 * 60_000 });
      ctx.fact('docker.version', built.serverVersion);
      ctx.fact('docker.image', `${DOCKER_IMAGE} ${built.imageId}`);
    }

    const node = await ctx.step(`wait for a leader and the client node ready with ${driver} healthy`, async (d) => {
      await waitForLeader(nomad, { deadline: d });
      return toNodeSnap(await waitForBridgeClient(ctx, nomad, lab.machines['client']!, { nodeName: CLIENT_NODE_NAME, driver }, d));
    }, { timeoutMs: 5 * 60_000 });
    ctx.fact('client.node_id', node.id);

    let recorder: EventRecorder | undefined;
    const jobId = await ctx.step(`register the bridge ${driver} HTTP job`, async (d) => {
      const hcl = await readFile(JOB_FILES[driver], 'utf8');
      const job = await nomad.parseJob(hcl, { signal: d.signal });
      // issue 15: watch the job's allocs and the node through the event stream from now to the end of the run
      recorder = startEventRecorder(ctx, nomad, { jobId: job.ID, nodeIds: [node.id] });
      await nomad.registerJob(job, hcl, { signal: d.signal });
      return job.ID;
    });

    const history: { events: Record<string, TaskEventRec[]> } = { events: {} };
    const running: AllocSnap = await ctx.step('wait for the alloc to run and answer HTTP', async (d) => {
      const stub = await waitForAllocRunning(nomad, jobId, { deadline: d });
      const obs = await observe({ label: 'healthy', nomad, lab, jobId, allocId: stub.ID, nodeId: node.id, history }, d);
      await waitForHttp(lab, obs.alloc!, node, d);
      return obs.alloc!;
    }, { timeoutMs: 5 * 60_000 });
    ctx.fact('alloc.id', running.id);

    const base = { nomad, lab, jobId, allocId: running.id, nodeId: node.id, history };
    const before = await ctx.step('observe before the reboot', (d) => observe({ ...base, label: 'before' }, d));
    ctx.artifact('alloc-before.json', JSON.stringify(before.alloc, null, 2));

    // --reboots N: reboot again while the alloc keeps being restored; the checks judge the last reboot (or the first
    // one after which the alloc was not restored), the leak check what is left after it.
    const count = env.config.reboot.count;
    const fault = { heartbeatGraceS: durationSeconds(env.config.nomad.heartbeatGrace), partitionForS: env.config.reboot.partitionForS };
    const reboots: RebootRecord[] = [];
    let lastSettled = '';
    for (let i = 1; i <= count; i++) {
      const of = count > 1 ? ` (${i} of ${count})` : '';
      const sinceIndex = (await nomad.node(node.id)).body.ModifyIndex;
      const r = await ctx.step(`reboot the client (${env.config.reboot.kind})${of}`, (d) => lab.reboot('client', env.config.reboot.kind, { deadline: d, fault: faultParams(env.config) }), { timeoutMs: 10 * 60_000 });
      reboots.push(r);
      recordFault(ctx, r, count > 1 ? `.${i}` : ''); // issue 15: the fault's moments on the timeline, its facts
      // issue 15: a partition need not change the node at all (shorter than heartbeat_grace): only ready is awaited then
      const again = r.kind === 'partition' ? {} : { updatedSinceS: Math.floor(r.requestedAt / 1000), modifiedAfterIndex: sinceIndex };
      await ctx.step(`wait for the client node to register again and be ready${of}`, (d) =>
        waitForNodeReady(nomad, { nodeId: node.id, driver, ...again }, { deadline: d }), { timeoutMs: 5 * 60_000 });
      const how = { tasksRestart: faultRestartsTasks(r.kind, fault), awaitReplacement: expectReplacement(r.kind, fault) };
      const settled = await ctx.step(`wait for the alloc to be restored, replaced or failed${of}`, (d) => settleAfterReboot({ ...base, reboot: r, ...how }, d), { timeoutMs: 5 * 60_000 });
      ctx.fact(count > 1 ? `alloc.settled.${i}` : 'alloc.settled', settled);
      lastSettled = settled;
      if (!settled.startsWith('restored')) break;
      await ctx.step(`wait for HTTP to answer after the reboot${of}`, async (d) => {
        const obs = await observe({ ...base, label: 'restored' }, d, { probeHttp: false });
        if (obs.alloc) await waitForHttp(lab, obs.alloc, node, d).catch((e: Error) => ctx.fact(count > 1 ? `http.after.${i}` : 'http.after', `not answering: ${e.message.split('\n')[0]}`));
      }, { timeoutMs: 3 * 60_000 });
    }
    const reboot = reboots.at(-1)!;
    ctx.fact('client.boot_id.before', reboots[0]!.bootIdBefore);
    ctx.fact('client.boot_id.after', reboot.bootIdAfter);
    ctx.fact('reboot.seconds', ((reboot.backAt - reboot.requestedAt) / 1000).toFixed(1));
    if (count > 1) {
      ctx.fact('reboots', `${reboots.length} of ${count}`);
      ctx.fact('alloc.settled', lastSettled);
      reboots.forEach((r, i) => ctx.fact(`client.boot_id.after.${i + 1}`, r.bootIdAfter));
      for (const r of reboots.slice(0, -1)) {
        ctx.mark({ atMs: r.requestedAt, lane: 'host', label: `${r.kind} reboot requested (earlier)`, detail: `boot_id ${r.bootIdBefore}`, severity: 'warn' });
        ctx.mark({ atMs: r.backAt, lane: 'host', label: 'SSH back with a new boot_id', detail: `boot_id ${r.bootIdAfter}`, severity: r.bootIdAfter !== r.bootIdBefore ? 'ok' : 'fail' });
      }
    }

    const after = await ctx.step('observe after the reboot', (d) => observe({ ...base, label: 'after' }, d, { clientLog: true }));
    ctx.artifact('alloc-after.json', JSON.stringify(after.alloc, null, 2));
    ctx.artifact('job-allocs-after.json', JSON.stringify(after.jobAllocs, null, 2));
    ctx.artifact('task-events.json', JSON.stringify(history.events, null, 2));
    ctx.artifact('client-nomad-journal.log', after.clientLog.join('\n'));
    ctx.artifact('node-after.json', JSON.stringify(after.node, null, 2));

    const evidence: RebootEvidence = {
      jobId, taskName: 'web', allocId: running.id, before: before, after: after, reboot,
      taskEvents: history.events, clientLog: after.clientLog,
    };
    for (const [k, v] of Object.entries(factsFromEvidence(evidence))) ctx.fact(k, v);
    for (const ev of timelineFromEvidence(evidence, runStartMs)) ctx.mark(ev);
    // issue 15: an alloc that failed after the first reboot and was restarted fails alloc-restored (event quoted)
    await recorder!.stop();
    // issue 15: agent-kill and partition are judged against what they make Nomad do (lib/checks/fault-expectations.ts)
    const judged = adjustForFault(rebootChecks(evidence), evidence, fault);
    return withTransientFailures(judged, recorder!.transitions(), reboots[0]!.requestedAt);
  },
});
