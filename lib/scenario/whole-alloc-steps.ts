// The steps that read a restored alloc whole (lib/checks: task-dirs, task-netns, task-env, alloc-exec, services,
// agent-resources): the tasks on the client before the fault, and after it the tasks again, the job's Nomad services,
// a window of the agent's resources, one task restarted per alloc, and an exec into every task. A read that fails is
// no verdict: its part is recorded as not read, with why, and the checks that need it say so (skipped).
import type { AllocSnap, RebootEvidence, TaskHostState, TaskRestartRec, WholeAllocEvidence, WholeAllocPart } from '../model/evidence.js';
import type { Lab } from '../model/lab.js';
import type { Nomad } from '../nomad/client.js';
import type { RunContext } from '../run/context.js';
import type { HarnessConfig } from '../config/schema.js';
import { deadlineIn, type Deadline } from '../run/deadline.js';
import { waitFor } from '../run/wait.js';
import { TimeoutError } from '../errors.js';
import { readTemplate } from '../cluster/templates.js';
import { clientDirsOf } from '../cluster/parse-agent-config.js';
import { REMOTE } from '../cluster/provision.js';
import { execProbe, readAgentSamples, readTaskHost } from '../lab/task-host.js';
import { EXEC_PROBE_COMMAND } from '../lab/parse-alloc-exec.js';
import { toAllocSnap } from '../nomad/parse.js';
import { restartProgress } from '../nomad/parse-restart.js';
import { nomadServicesOf, toAllocChecks, toServiceRegs } from '../nomad/parse-services.js';
import { classifyAll } from '../checks/alloc-outcome.js';
import { notInPlaceReason, runningTasksOf } from '../checks/whole-alloc.js';
import { logFacts } from '../checks/log-facts.js';

/** How long the job's services may take to be registered with passing checks: a few check intervals after the settle. */
export const SERVICES_WAIT_MS = 2 * 60_000;
/** How long a restarted task may take to run again: its kill timeout (5 s by default) and a start. */
export const RESTART_WAIT_MS = 2 * 60_000;
/** The deadline of one `alloc exec` probe inside the task; the SSH command gets a little more. */
export const EXEC_TIMEOUT_S = 30;
/** The agent is sampled about this often within its window. */
const SAMPLE_EVERY_S = 5;

/** Where the client keeps its allocs: read from the agent config the harness renders (vms/templates/client.hcl). */
export async function clientAllocDir(): Promise<string> {
  const dirs = clientDirsOf(await readTemplate('client.hcl'));
  // Note: Nomad's own default, for a template that ever stops setting data_dir.
  return dirs?.allocDir ?? '/var/lib/nomad/alloc';
}

/** Run `read`; a failure other than an interrupt becomes the reason it was not read. */
async function soft<T>(ctx: RunContext, read: () => Promise<T>): Promise<{ value: T } | { error: string }> {
  try {
    return { value: await read() };
  } catch (err) {
    const reason: unknown = ctx.deadline.signal.reason;
    if (ctx.deadline.signal.aborted && !(reason instanceof TimeoutError)) throw reason;
    return { error: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
  }
}

/** The client's tasks before the fault (for kinds that restore in place): the baseline task-dirs and task-env compare with. */
export async function observeTasksBefore(ctx: RunContext, lab: Lab, config: HarnessConfig): Promise<TaskHostState | { error: string }> {
  const why = notInPlaceReason(config.reboot.kind);
  if (why) return { error: why };
  const allocDir = await clientAllocDir();
  const r = await ctx.step('read the tasks on the client before the fault (secrets/ and private/ mounts, processes, namespaces)', (d) =>
    soft(ctx, () => readTaskHost(lab.machines['client']!, allocDir, d)), { timeoutMs: 60_000 });
  return 'value' in r ? r.value : r;
}

export interface WholeAllocInput {
  nomad: Nomad;
  lab: Lab;
  config: HarnessConfig;
  /** the job as Nomad parsed it (its services) */
  job: unknown;
  /** the evidence so far: which allocs were restored, the observation after the fault */
  evidence: RebootEvidence;
  before: TaskHostState | { error: string };
}

/**
 * After the fault: read the tasks again, wait for the services, sample the agent, restart one task per alloc, exec into
 * every task; in that order, because the later ones disturb the earlier ones' subject (a restart starts new processes,
 * and an exec on an affected build can kill the task's executor and the task with it). Quotes the client log's facts.
 */
export async function readWholeAlloc(ctx: RunContext, i: WholeAllocInput): Promise<WholeAllocEvidence> {
  const { config } = i;
  const notRead: Partial<Record<WholeAllocPart, string>> = {};
  const out: WholeAllocEvidence = { notRead };
  for (const [k, v] of Object.entries(logFacts(i.evidence.clientLog))) ctx.fact(k, v);
  const outcomes = classifyAll(i.evidence);
  const restored = outcomes.flatMap((o) => (o.outcome === 'restored' && o.current ? [o.current] : []));
  const holders = outcomes.flatMap((o) => (o.current?.clientStatus === 'running' ? [o.current] : []));
  out.services = await ctx.step("wait for the job's Nomad services to be registered with passing checks", (d) =>
    readServices(i.nomad, i.job, holders, d), { timeoutMs: SERVICES_WAIT_MS + 30_000 });
  const why = notInPlaceReason(config.reboot.kind);
  if (why) {
    for (const part of ['host', 'restart', 'exec', 'agent'] as const) notRead[part] = why;
    return out;
  }
  if ('error' in i.before) notRead.host = `before the fault: ${i.before.error}`;
  else out.before = i.before;
  const client = i.lab.machines['client']!;
  const allocDir = await clientAllocDir();
  const after = await ctx.step('read the restored tasks on the client (secrets/ and private/ mounts, processes, namespaces)', (d) =>
    soft(ctx, () => readTaskHost(client, allocDir, d)), { timeoutMs: 60_000 });
  if ('value' in after) out.after = after.value;
  else notRead.host = after.error;
  const windowS = config.reboot.resourcesWindowS;
  if (windowS <= 0) notRead.agent = 'turned off (reboot.resources_window: 0)';
  else {
    const count = Math.max(2, Math.round(windowS / SAMPLE_EVERY_S) + 1);
    const intervalS = windowS / (count - 1);
    const r = await ctx.step(`sample the client agent's open fds and plugin processes for ${windowS}s`, (d) =>
      soft(ctx, () => readAgentSamples(client, count, intervalS, d)), { timeoutMs: windowS * 1000 + 60_000 });
    if ('value' in r) out.agent = { samples: r.value, intervalS };
    else notRead.agent = r.error;
  }
  if (!config.reboot.restartTask) notRead.restart = 'turned off (reboot.restart_task: false)';
  else {
    out.restarts = await ctx.step('restart one task per restored alloc through the API and wait until it runs again', (d) =>
      restartOnePerAlloc(ctx, i.nomad, restored, d), { timeoutMs: RESTART_WAIT_MS * Math.max(1, restored.length) + 30_000 });
    const r = await ctx.step("read the restarted tasks' environment on the client", (d) => soft(ctx, () => readTaskHost(client, allocDir, d)), { timeoutMs: 60_000 });
    if ('value' in r) out.afterRestart = r.value;
    else notRead.restart = `the tasks were restarted, but reading them failed: ${r.error}`;
  }
  const now = await ctx.step('read the restored allocs again', (d) => soft(ctx, () => Promise.all(restored.map(async (a) => toAllocSnap((await i.nomad.allocation(a.id, { signal: d.signal })).body)))));
  const targets = ('value' in now ? now.value : restored).flatMap((a) => runningTasksOf(a).map((task) => ({ allocId: a.id, task })));
  out.exec = await ctx.step(`exec ${EXEC_PROBE_COMMAND.join(' ')} into every restored task (alloc exec on the server, ${EXEC_TIMEOUT_S}s each)`, async (d) => {
    const probes = [];
    for (const t of targets) {
      const r = await soft(ctx, () => execProbe(i.lab.machines['server']!, { nomad: REMOTE.binary, ...t, timeoutS: EXEC_TIMEOUT_S, ...(config.nomad.token ? { token: config.nomad.token } : {}) }, deadlineIn((EXEC_TIMEOUT_S + 15) * 1000, d)));
      probes.push('value' in r ? r.value : { ...t, command: EXEC_PROBE_COMMAND.join(' '), ok: false, exitCode: undefined, durationMs: 0, output: `the probe did not run: ${r.error}` });
    }
    return probes;
  }, { timeoutMs: (EXEC_TIMEOUT_S + 20) * 1000 * Math.max(1, targets.length) });
  return out;
}

/** Restart the first running task of each alloc and wait for each to start again; a failure is that alloc's record. */
async function restartOnePerAlloc(ctx: RunContext, nomad: Nomad, allocs: AllocSnap[], d: Deadline): Promise<TaskRestartRec[]> {
  const out: TaskRestartRec[] = [];
  for (const a of allocs) {
    const task = runningTasksOf(a)[0];
    if (!task) {
      out.push({ allocId: a.id, task: '(none)', requestedAtMs: Date.now(), error: 'no running task to restart' });
      continue;
    }
    const requestedAtMs = Date.now();
    const r = await soft(ctx, async () => {
      const before = toAllocSnap((await nomad.allocation(a.id, { signal: d.signal })).body).tasks[task];
      await nomad.restartTask(a.id, task, { signal: d.signal });
      ctx.mark({ atMs: requestedAtMs, lane: 'alloc', label: `task ${task} restarted through the API`, detail: `alloc ${a.id.slice(0, 8)}` });
      return waitFor(`task ${task} of alloc ${a.id.slice(0, 8)} to run again after its restart`, async (dd) => {
        const now = toAllocSnap((await nomad.allocation(a.id, { signal: dd.signal })).body).tasks[task];
        const p = restartProgress(before, now);
        return p.started ? { done: true, value: p.startedAtMs } : { done: false, reason: p.reason, terminal: now?.state === 'dead' };
      }, { deadline: deadlineIn(RESTART_WAIT_MS, d) });
    });
    out.push({ allocId: a.id, task, requestedAtMs, ...('value' in r ? { startedAtMs: r.value } : { error: r.error }) });
  }
  return out;
}

/**
 * Poll until every Nomad-native service of the job is registered for each alloc holding a slot with all its checks
 * passing, or the wait runs out: the last reading is the evidence either way (the check judges it).
 */
async function readServices(nomad: Nomad, job: unknown, holders: AllocSnap[], d: Deadline): Promise<NonNullable<WholeAllocEvidence['services']>> {
  const declared = nomadServicesOf(job);
  const t0 = Date.now();
  const read = async (dd: Deadline) => {
    const errors: Record<string, string> = {};
    const note = (k: string) => (err: unknown) => void (errors[k] = err instanceof Error ? err.message.split('\n')[0]! : String(err));
    const names = [...new Set(declared.map((s) => s.name))];
    const regs = (await Promise.all(names.map((n) => nomad.serviceRegistrations(n, { signal: dd.signal }).then((r) => toServiceRegs(r.body), (err) => (note(`service ${n}`)(err), []))))).flat();
    const checks = (await Promise.all(holders.map((a) => nomad.allocChecks(a.id, { signal: dd.signal }).then((r) => toAllocChecks(a.id, r.body), (err) => (note(`checks of ${a.id}`)(err), []))))).flat();
    const complete = holders.every((a) => declared.filter((s) => s.group === a.taskGroup).every((s) => {
      const mine = checks.filter((c) => c.allocId === a.id && c.service === s.name);
      return regs.some((r) => r.service === s.name && r.allocId === a.id) && mine.length >= s.checks.length && mine.every((c) => c.status === 'success');
    }));
    return { declared, registrations: regs, checks, errors, complete, waitedMs: Date.now() - t0 };
  };
  if (!declared.length || !holders.length) return { declared, registrations: [], checks: [], errors: {}, complete: true, waitedMs: 0 };
  let last = await read(d);
  const until = deadlineIn(SERVICES_WAIT_MS, d);
  await waitFor('every Nomad service of the job registered with its checks passing', async (dd) => {
    last = await read(dd);
    return last.complete ? { done: true, value: undefined } : { done: false, reason: `${last.registrations.length} registrations, ${last.checks.filter((c) => c.status === 'success').length} of ${last.checks.length} checks passing` };
  }, { deadline: until, intervals: [1000, 2000] }).catch((err: unknown) => {
    if (!(err instanceof TimeoutError)) throw err;
  });
  return { ...last, waitedMs: Date.now() - t0 };
}
