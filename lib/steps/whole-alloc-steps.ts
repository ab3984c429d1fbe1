// The steps that read a restored alloc whole (lib/checks: task-dirs, task-netns, task-env, alloc-exec, services,
// agent-resources): the tasks on the client before the fault, and after it the tasks again, the job's Nomad services,
// a window of the agent's resources, one task restarted per alloc, and an exec into every task. A read that fails is
// no verdict: its part is recorded as not read, with why, and the checks that need it say so (skipped).
import type {
  AllocSnap,
  ExecProbeRec,
  RebootEvidence,
  ServicesEvidence,
  TaskHostState,
  TaskRestartRec,
  WholeAllocEvidence,
} from '../model/evidence.js';
import { firstOf, type Lab } from '../model/lab.js';
import type { Nomad } from '../nomad/client.js';
import type { RunContext } from '../run/context.js';
import type { HarnessConfig } from '../config/schema.js';
import { deadlineIn, type Deadline } from '../time/deadlines.js';
import { waitFor } from '../time/wait-for.js';
import { TimeoutError } from '../errors.js';
import { readTemplate } from '../cluster/templates.js';
import { clientDirsOf } from '../cluster/parse-agent-config.js';
import { REMOTE } from '../cluster/provision.js';
import { execProbe, readAgentSamples, readTaskHost } from '../lab/task-host.js';
import { EXEC_PROBE_COMMAND } from '../parse/alloc-exec-output.js';
import { toAllocSnap } from '../nomad/parse.js';
import { restartProgress } from '../parse/task-restart.js';
import { nomadServicesOf, toAllocChecks, toServiceRegs } from '../parse/service-registrations.js';
import { classifyAll } from '../checks/alloc-outcome.js';
import { notInPlaceReason, runningTasksOf } from '../checks/whole-alloc.js';
import { allServicesUp } from '../checks/services.js';
import { logFacts } from '../checks/log-facts.js';

/** How long the job's services may take to be registered with passing checks: a few check intervals after the settle. */
const SERVICES_WAIT_MS = 2 * 60_000;
/** How long a restarted task may take to run again: its kill timeout (5 s by default) and a start. */
const RESTART_WAIT_MS = 2 * 60_000;
/** The deadline of one `alloc exec` probe inside the task; the SSH command gets a little more. */
const EXEC_TIMEOUT_S = 30;
/** A read of the tasks on the client: two commands over SSH. */
const HOST_READ_MS = 60_000;
/** The agent is sampled about this often within its window. */
const SAMPLE_EVERY_S = 5;
const EXEC_PROBE = EXEC_PROBE_COMMAND.join(' ');
const TASKS_READ = 'secrets/ and private/ mounts, processes, namespaces';

type Soft<T> = { value: T } | { error: string };

/** Where the client keeps its allocs: read from the agent config the harness renders (vms/templates/client.hcl). */
async function clientAllocDir(): Promise<string> {
  const dirs = clientDirsOf(await readTemplate('client.hcl'));
  // Note: Nomad's own default, for a template that ever stops setting data_dir.
  return dirs?.allocDir ?? '/var/lib/nomad/alloc';
}

/** Run `read`; a failure other than an interrupt becomes the reason it was not read. */
async function soft<T>(ctx: RunContext, read: () => Promise<T>): Promise<Soft<T>> {
  try {
    return { value: await read() };
  } catch (err) {
    const reason: unknown = ctx.deadline.signal.reason;
    if (ctx.deadline.signal.aborted && !(reason instanceof TimeoutError)) throw reason;
    return { error: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
  }
}

/** One read of the tasks on the client, as a step. */
function readTasksStep(ctx: RunContext, lab: Lab, allocDir: string, name: string): Promise<Soft<TaskHostState>> {
  const client = firstOf(lab, 'client').machine;
  return ctx.step(name, (d) => soft(ctx, () => readTaskHost(client, allocDir, d)), { timeoutMs: HOST_READ_MS });
}

/** The client's tasks before the fault (kinds that restore in place): the baseline task-dirs and task-env compare with. */
export async function observeTasksBefore(
  ctx: RunContext,
  lab: Lab,
  config: HarnessConfig,
): Promise<Soft<TaskHostState>> {
  const why = notInPlaceReason(config.reboot.kind);
  if (why) return { error: why };
  return readTasksStep(
    ctx,
    lab,
    await clientAllocDir(),
    `read the tasks on the client before the fault (${TASKS_READ})`,
  );
}

interface WholeAllocInput {
  nomad: Nomad;
  lab: Lab;
  config: HarnessConfig;
  /** the job as Nomad parsed it (its services) */
  job: unknown;
  /** the evidence so far: which allocs were restored, the observation after the fault */
  evidence: RebootEvidence;
  before: Soft<TaskHostState>;
}

/**
 * After the fault: wait for the services, read the tasks again and sample the agent, side by side (each only looks);
 * then restart one task per alloc, then exec into every task: in that order, because those disturb what the reads
 * look at (a restart starts new processes and the agent's fds with them, and an exec on an affected build can kill
 * the task's executor and the task with it). Quotes the client log's facts.
 */
export async function readWholeAlloc(ctx: RunContext, i: WholeAllocInput): Promise<WholeAllocEvidence> {
  const { config, lab } = i;
  const out: WholeAllocEvidence = { notRead: {} };
  for (const [k, v] of Object.entries(logFacts(i.evidence.clientLog))) ctx.fact(k, v);
  const outcomes = classifyAll(i.evidence);
  const restored = outcomes.flatMap((o) => (o.outcome === 'restored' && o.current ? [o.current] : []));
  const holders = outcomes.flatMap((o) => (o.current?.clientStatus === 'running' ? [o.current] : []));
  const services = ctx.step(
    "wait for the job's Nomad services to be registered with passing checks",
    (d) => readServices(i.nomad, i.job, holders, d),
    { timeoutMs: SERVICES_WAIT_MS + 30_000 },
  );
  const why = notInPlaceReason(config.reboot.kind);
  if (why) {
    out.services = await services;
    out.notRead = { host: why, restart: why, exec: why, agent: why };
    return out;
  }
  if ('error' in i.before) out.notRead.host = `before the fault: ${i.before.error}`;
  else out.before = i.before.value;
  const allocDir = await clientAllocDir();
  const [svc, after] = await Promise.all([
    services,
    readTasksStep(ctx, lab, allocDir, `read the restored tasks on the client (${TASKS_READ})`),
    sampleAgent(ctx, lab, config.reboot.resourcesWindowS, out),
  ]);
  out.services = svc;
  if ('value' in after) out.after = after.value;
  else out.notRead.host = after.error;
  if (!config.reboot.restartTask) out.notRead.restart = 'turned off (reboot.restart_task: false)';
  else {
    const timeoutMs = RESTART_WAIT_MS * Math.max(1, restored.length) + 30_000;
    out.restarts = await ctx.step(
      'restart one task per restored alloc through the API and wait until it runs again',
      (d) => restartOnePerAlloc(ctx, i.nomad, restored, d),
      { timeoutMs },
    );
    const r = await readTasksStep(ctx, lab, allocDir, "read the restarted tasks' environment on the client");
    if ('value' in r) out.afterRestart = r.value;
    else out.notRead.restart = `the tasks were restarted, but reading them failed: ${r.error}`;
  }
  out.exec = await execEveryTask(ctx, i, restored);
  return out;
}

/** `count` samples over the window, or why there are none (off, or the read failed). */
async function sampleAgent(ctx: RunContext, lab: Lab, windowS: number, out: WholeAllocEvidence): Promise<void> {
  if (windowS <= 0) {
    out.notRead.agent = 'turned off (reboot.resources_window: 0)';
    return;
  }
  const count = Math.max(2, Math.round(windowS / SAMPLE_EVERY_S) + 1);
  const intervalS = windowS / (count - 1);
  const client = firstOf(lab, 'client').machine;
  const r = await ctx.step(
    "sample the client agent's open fds and plugin processes",
    (d) => soft(ctx, () => readAgentSamples(client, count, intervalS, d)),
    { timeoutMs: windowS * 1000 + 60_000, values: { 'reboot.resources_window_s': windowS } },
  );
  if ('value' in r) out.agent = { samples: r.value, intervalS };
  else out.notRead.agent = r.error;
}

/** `alloc exec` into every running task of the restored allocs (read again: a restart may have ended one). */
async function execEveryTask(ctx: RunContext, i: WholeAllocInput, restored: AllocSnap[]): Promise<ExecProbeRec[]> {
  const now = await ctx.step('read the restored allocs again', (d) =>
    soft(ctx, () =>
      Promise.all(restored.map(async (a) => toAllocSnap((await i.nomad.allocation(a.id, { signal: d.signal })).body))),
    ),
  );
  const allocs = 'value' in now ? now.value : restored;
  const targets = allocs.flatMap((a) => runningTasksOf(a).map((task) => ({ allocId: a.id, task })));
  const server = firstOf(i.lab, 'server').machine;
  const token = i.config.nomad.token;
  // Note: a fixed name (the command and its deadline are in the evidence), so the JUnit case never changes with them
  const name = 'exec a no-op command into every restored task (alloc exec on the server)';
  return ctx.step(
    name,
    async (d) => {
      const probes: ExecProbeRec[] = [];
      for (const t of targets) {
        const o = { nomad: REMOTE.binary, ...t, timeoutS: EXEC_TIMEOUT_S, ...(token ? { token } : {}) };
        const r = await soft(ctx, () => execProbe(server, o, deadlineIn((EXEC_TIMEOUT_S + 15) * 1000, d)));
        const notRun = { ...t, command: EXEC_PROBE, ok: false, exitCode: undefined, durationMs: 0, output: '' };
        probes.push(
          'value' in r ? r.value : { ...notRun, output: `the probe did not run: ${'error' in r ? r.error : ''}` },
        );
      }
      return probes;
    },
    { timeoutMs: (EXEC_TIMEOUT_S + 20) * 1000 * Math.max(1, targets.length) },
  );
}

/** Restart the first running task of each alloc and wait for each to start again; a failure is that alloc's record. */
async function restartOnePerAlloc(
  ctx: RunContext,
  nomad: Nomad,
  allocs: AllocSnap[],
  d: Deadline,
): Promise<TaskRestartRec[]> {
  const out: TaskRestartRec[] = [];
  for (const a of allocs) {
    const task = runningTasksOf(a)[0];
    const requestedAtMs = Date.now();
    if (!task) {
      out.push({ allocId: a.id, task: '(none)', requestedAtMs, error: 'no running task to restart' });
      continue;
    }
    const taskOf = async (dd: Deadline) =>
      toAllocSnap((await nomad.allocation(a.id, { signal: dd.signal })).body).tasks[task];
    const r = await soft(ctx, async () => {
      const before = await taskOf(d);
      await nomad.restartTask(a.id, task, { signal: d.signal });
      ctx.mark({
        atMs: requestedAtMs,
        lane: 'alloc',
        label: `task ${task} restarted through the API`,
        detail: `alloc ${a.id.slice(0, 8)}`,
      });
      return waitFor(
        `task ${task} of alloc ${a.id.slice(0, 8)} to run again after its restart`,
        async (dd) => {
          const now = await taskOf(dd);
          const p = restartProgress(before, now);
          if (p.started) return { done: true, value: p.startedAtMs };
          return { done: false, reason: p.reason, terminal: now?.state === 'dead' };
        },
        { deadline: deadlineIn(RESTART_WAIT_MS, d) },
      );
    });
    out.push({ allocId: a.id, task, requestedAtMs, ...('value' in r ? { startedAtMs: r.value } : { error: r.error }) });
  }
  return out;
}

/** One reading of the job's services: every registration of each, every check of each holder, what failed to read. */
async function readServicesOnce(
  nomad: Nomad,
  declared: ServicesEvidence['declared'],
  holders: AllocSnap[],
  d: Deadline,
) {
  const errors: Record<string, string> = {};
  const note = (k: string) => (err: unknown) => {
    errors[k] = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    return [];
  };
  const q = { signal: d.signal };
  const names = [...new Set(declared.map((s) => s.name))];
  const regs = await Promise.all(
    names.map((n) => nomad.serviceRegistrations(n, q).then((r) => toServiceRegs(r.body), note(`service ${n}`))),
  );
  const checks = await Promise.all(
    holders.map((a) => nomad.allocChecks(a.id, q).then((r) => toAllocChecks(a.id, r.body), note(`checks of ${a.id}`))),
  );
  return { declared, registrations: regs.flat(), checks: checks.flat(), errors };
}

/**
 * Poll until every Nomad-native service of the job is registered for each alloc holding a slot with all its checks
 * passing, or the wait runs out: the last reading is the evidence either way (the check judges it).
 */
async function readServices(nomad: Nomad, job: unknown, holders: AllocSnap[], d: Deadline): Promise<ServicesEvidence> {
  const declared = nomadServicesOf(job);
  const t0 = Date.now();
  if (!declared.length || !holders.length)
    return { declared, registrations: [], checks: [], errors: {}, complete: true, waitedMs: 0 };
  let last = await readServicesOnce(nomad, declared, holders, d);
  await waitFor(
    'every Nomad service of the job registered with its checks passing',
    async (dd) => {
      last = await readServicesOnce(nomad, declared, holders, dd);
      if (allServicesUp(last, holders)) return { done: true, value: undefined };
      const passing = last.checks.filter((c) => c.status === 'success').length;
      return {
        done: false,
        reason: `${last.registrations.length} registrations, ${passing} of ${last.checks.length} checks passing`,
      };
    },
    { deadline: deadlineIn(SERVICES_WAIT_MS, d), intervals: [1000, 2000] },
  ).catch((err: unknown) => {
    if (!(err instanceof TimeoutError)) throw err;
  });
  return { ...last, complete: allServicesUp(last, holders), waitedMs: Date.now() - t0 };
}
