// server-reboot-example (an example of a user scenario, docs/scenarios.md; the shipped server-reboot grew out of it): reboot the SERVER host instead of the client.
// A bridge-mode exec job runs on the client; the server host reboots for real. Proves that the server comes back
// (new boot id), elects itself leader again, the client node stays ready, and the client's alloc keeps running and
// serving through it: same alloc, no task restart, HTTP answering on its bridge address while the server was away.
import { readFile } from 'node:fs/promises';
import {
  defineCheck,
  defineScenario,
  judgeAll,
  httpProbe,
  readJobAllocs,
  sleep,
  toNodeSnap,
  waitFor,
  waitForAllocRunning,
  waitForBridgeClient,
  waitForHttp,
  JOBS,
  TimeoutError,
  type AllocSnap,
  type Deadline,
  type Lab,
  type Nomad,
  type NodeSnap,
  type RebootRecord,
} from 'nomad-reboot-harness/scenario';

/** Everything the checks decide from, collected by run() below. */
export interface ServerRebootEvidence {
  /** the server host's reboot: boot ids before and after, when it was asked and when SSH answered again */
  reboot: RebootRecord;
  /** the leader after the reboot, or why none was seen before the deadline */
  leaderAfter: { leader: string } | { error: string };
  allocBefore: AllocSnap;
  allocAfter: AllocSnap | undefined;
  /** HTTP from the client to the alloc's bridge address, made while the server host was rebooting */
  probesDuring: { atMs: number; ok: boolean; detail: string }[];
  nodeAfter: NodeSnap | undefined;
}

/** Task events that mean a task stopped or started again. */
const RESTART_EVENTS = new Set(['Started', 'Restarting', 'Terminated', 'Killing', 'Killed', 'Failed Restoring Task']);

const ALLOC_KEPT_RUNNING = defineCheck<ServerRebootEvidence>({
  id: 'alloc-kept-running',
  title: 'alloc kept running',
  passesWhen: 'the same alloc is running after the reboot, with no task restarted or started again since it began',
  judge: (e) => keptRunning(e),
});

const SERVED_THROUGH_REBOOT = defineCheck<ServerRebootEvidence>({
  id: 'served-through-reboot',
  title: 'served through the reboot',
  passesWhen: "every HTTP probe from the client to the alloc's bridge address answered while the server was away",
  judge: ({ probesDuring: p }) => {
    const bad = p.filter((x) => !x.ok);
    const lines = p.map((x) => `${new Date(x.atMs).toISOString()} ${x.ok ? 'answered' : 'FAILED'} ${x.detail}`);
    if (!p.length) return { status: 'failed', message: 'no probe made while the server rebooted', evidence: [] };
    return bad.length
      ? { status: 'failed', message: `${bad.length} of ${p.length} probes got no answer`, evidence: lines }
      : { status: 'passed', message: `${p.length} of ${p.length} probes answered`, evidence: lines };
  },
});

const NODE_STAYED_READY = defineCheck<ServerRebootEvidence>({
  id: 'node-stayed-ready',
  title: 'client node stayed ready',
  passesWhen: 'the client node is ready after the reboot and was not marked down (no missed-heartbeat event)',
  judge: ({ nodeAfter: n, reboot }) => {
    if (!n) return { status: 'failed', message: 'the client node could not be read after the reboot', evidence: [] };
    // Note: node event timestamps have whole seconds
    const since = reboot.requestedAt - 1000;
    const missed = n.events.filter((ev) => /heartbeat missed/i.test(ev.message) && Date.parse(ev.timestamp) > since);
    const evidence = [`status ${n.status}`, ...missed.map((ev) => `${ev.timestamp} ${ev.message}`)];
    if (missed.length) return { status: 'failed', message: 'the node was marked down during the reboot', evidence };
    return n.status === 'ready'
      ? { status: 'passed', message: 'ready, never marked down', evidence }
      : { status: 'failed', message: `node is ${n.status}`, evidence };
  },
});

const SERVER_REBOOTED = defineCheck<ServerRebootEvidence>({
  id: 'server-rebooted',
  title: 'server rebooted',
  passesWhen: 'the server host answers with a new boot_id',
  judge: ({ reboot: r }) => ({
    status: r.bootIdAfter && r.bootIdAfter !== r.bootIdBefore ? 'passed' : 'failed',
    message: r.bootIdAfter !== r.bootIdBefore ? 'new boot_id after the reboot' : 'boot_id unchanged: no reboot',
    evidence: [
      `boot_id before ${r.bootIdBefore}`,
      `boot_id after ${r.bootIdAfter}`,
      `SSH back after ${((r.backAt - r.requestedAt) / 1000).toFixed(1)}s`,
    ],
  }),
});

/** Without a leader the alloc and the node cannot be read (run() below): their checks fail because this one did. */
const LEADER_ELECTED = defineCheck<ServerRebootEvidence>({
  id: 'leader-elected',
  title: 'leader elected again',
  passesWhen: '/v1/status/leader names a leader after the reboot',
  judge: ({ leaderAfter: l }) =>
    'leader' in l
      ? { status: 'passed', message: `leader ${l.leader}`, evidence: [`leader ${l.leader}`] }
      : { status: 'failed', message: `no leader after the reboot: ${l.error}`, evidence: [l.error] },
  explains: [
    { checks: [ALLOC_KEPT_RUNNING], when: (e) => 'error' in e.leaderAfter && !e.allocAfter },
    { checks: [NODE_STAYED_READY], when: (e) => 'error' in e.leaderAfter && !e.nodeAfter },
  ],
});

/** The checks, in report order; each is pure over the evidence (test/unit/example-server-reboot.test.ts). */
export const CHECKS = [SERVER_REBOOTED, LEADER_ELECTED, ALLOC_KEPT_RUNNING, SERVED_THROUGH_REBOOT, NODE_STAYED_READY];

function keptRunning({ allocBefore: b, allocAfter: a, reboot }: ServerRebootEvidence) {
  if (!a) return { status: 'failed' as const, message: `alloc ${b.id} is gone after the reboot`, evidence: [] };
  const restarts = Object.entries(a.tasks).flatMap(([task, st]) => {
    const before = b.tasks[task]?.restarts ?? 0;
    const events = st.events.filter((ev) => ev.timeMs >= reboot.requestedAt && RESTART_EVENTS.has(ev.type));
    return [
      ...(st.restarts !== before ? [`${task}: restarts ${before} -> ${st.restarts}`] : []),
      ...events.map((ev) => `${task}: ${new Date(ev.timeMs).toISOString()} ${ev.type}: ${ev.message}`),
    ];
  });
  const evidence = [`alloc ${a.id} client=${a.clientStatus}`, ...restarts];
  if (a.clientStatus !== 'running') {
    return { status: 'failed' as const, message: `alloc is ${a.clientStatus}`, evidence };
  }
  if (restarts.length) return { status: 'failed' as const, message: 'a task stopped or started again', evidence };
  return { status: 'passed' as const, message: 'same alloc running, no task restarted', evidence };
}

/** Node name of the client (the lab sets each VM's hostname to its role). */
const CLIENT = 'client';
const MIN = 60_000;
/** Pause between HTTP probes while the server reboots. */
const PROBE_EVERY_MS = 2000;

export default defineScenario({
  name: 'server-reboot-example',
  summary: "the SERVER host reboots; the leader comes back and the client's bridge alloc keeps running and serving",
  needsNomad: true,
  checks: CHECKS,
  async run(ctx, env) {
    const lab = await ctx.step('bring up the server and client VMs', (d) => env.upLab(ctx, d), {
      timeoutMs: 20 * MIN,
    });
    const { nomadVersion } = await ctx.step(
      'install Nomad and start the agents',
      (d) => env.provisionNomad(ctx, lab, d),
      { timeoutMs: 10 * MIN },
    );
    ctx.fact('nomad.version', nomadVersion);
    const nomad = await ctx.step('connect to the Nomad API', (d) => env.connectNomad(ctx, lab, d));
    const node = await ctx.step(
      'wait for a leader and the client node ready',
      async (d) => {
        await waitForLeaderOrError(nomad, d, true);
        const client = lab.machines[CLIENT]!;
        return toNodeSnap(await waitForBridgeClient(ctx, nomad, client, { nodeName: CLIENT, driver: 'exec' }, d));
      },
      { timeoutMs: 5 * MIN },
    );
    const jobId = await ctx.step('register the bridge exec HTTP job', async (d) => {
      const hcl = await readFile(JOBS.bridgeExecHttp, 'utf8');
      const job = await nomad.parseJob(hcl, { signal: d.signal });
      await nomad.registerJob(job, hcl, { signal: d.signal });
      return job.ID;
    });
    const allocBefore = await ctx.step(
      'wait for the alloc to run and answer HTTP',
      async (d) => {
        const stub = await waitForAllocRunning(nomad, jobId, { deadline: d });
        const alloc = (await readJobAllocs(nomad, jobId, d)).find((a) => a.id === stub.ID)!;
        await waitForHttp(lab, alloc, node, d);
        return alloc;
      },
      { timeoutMs: 5 * MIN },
    );
    ctx.fact('alloc.id', allocBefore.id);

    const { reboot, probesDuring } = await ctx.step(
      `reboot the server (${env.config.reboot.kind})`,
      async (d) => {
        const done = new AbortController();
        const probing = probeWhile(lab, `http://${allocBefore.address}:80/`, done.signal, d);
        try {
          const reboot = await lab.reboot('server', env.config.reboot.kind, { deadline: d });
          return { reboot, probesDuring: await stop(done, probing) };
        } catch (err) {
          await stop(done, probing);
          throw err;
        }
      },
      { timeoutMs: 10 * MIN },
    );
    ctx.fact('server.boot_id.before', reboot.bootIdBefore);
    ctx.fact('server.boot_id.after', reboot.bootIdAfter);
    ctx.mark({ atMs: reboot.requestedAt, lane: 'host', label: 'server reboot requested', severity: 'warn' });
    ctx.mark({ atMs: reboot.backAt, lane: 'host', label: 'server SSH back with a new boot_id', severity: 'ok' });

    const leaderAfter = await ctx.step('wait for a leader again', (d) => waitForLeaderOrError(nomad, d, false), {
      timeoutMs: 5 * MIN,
    });
    const after = await ctx.step('observe the client node and the alloc', async (d) => {
      if ('error' in leaderAfter) return { alloc: undefined, node: undefined };
      const n = toNodeSnap((await nomad.node(node.id, { signal: d.signal })).body);
      return { node: n, alloc: (await readJobAllocs(nomad, jobId, d)).find((a) => a.id === allocBefore.id) };
    });
    ctx.artifact('alloc-after.json', JSON.stringify(after.alloc ?? null, null, 2));
    return judgeAll(CHECKS, {
      reboot,
      leaderAfter,
      allocBefore,
      allocAfter: after.alloc,
      probesDuring,
      nodeAfter: after.node,
    });
  },
});

/** A leader, polling /v1/status/leader (it does not block); the API is unreachable while the server boots. */
async function waitForLeaderOrError(
  nomad: Nomad,
  d: Deadline,
  strict: boolean,
): Promise<ServerRebootEvidence['leaderAfter']> {
  try {
    const leader = await waitFor(
      'a Nomad leader',
      async (dd) => {
        const { body } = await nomad.leader({ signal: dd.signal });
        if (body) return { done: true, value: body };
        return { done: false, reason: 'no leader elected yet (/v1/status/leader is "")' };
      },
      { deadline: d, intervals: [250, 500, 1000, 2000] },
    );
    return { leader };
  } catch (err) {
    // Note: before the reboot no leader is an infrastructure error; after it, it is what the check judges.
    if (strict || (d.signal.aborted && !(d.signal.reason instanceof TimeoutError))) throw err;
    return { error: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
  }
}

/** Probe `url` from the client every PROBE_EVERY_MS until `stop` fires; each probe is recorded. */
async function probeWhile(lab: Lab, url: string, stopSignal: AbortSignal, d: Deadline) {
  const out: ServerRebootEvidence['probesDuring'] = [];
  while (!stopSignal.aborted && !d.signal.aborted) {
    const atMs = Date.now();
    const p = await httpProbe(lab.machines[CLIENT]!, url, d).catch((err: Error) => ({
      ok: false,
      status: undefined,
      error: err.message,
    }));
    out.push({ atMs, ok: p.ok, detail: p.ok ? `${url} -> ${p.status}` : `${url}: ${p.error}` });
    await sleep(PROBE_EVERY_MS, { at: d.at, signal: AbortSignal.any([d.signal, stopSignal]) }).catch(() => undefined);
  }
  return out;
}

async function stop<T>(done: AbortController, probing: Promise<T>): Promise<T> {
  done.abort();
  return probing;
}
