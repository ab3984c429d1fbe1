// Runs one scenario end to end: context, signals, expectations, evidence, teardown, RunRecord. Never throws for a run that broke.
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { CheckInfo, CheckResult } from '../model/check.js';
import { applyExpectations } from '../checks/verdict.js';
import { skippedResult } from '../checks/result.js';
import type { HarnessConfig } from '../config/schema.js';
import { HarnessError, describeErr, formatMs } from '../errors.js';
import type { CleanupFailure } from './cleanup.js';
import type { Logger } from '../log/events.js';
import { STEP_IDS, type RunRecord } from '../model/run.js';
import { outcomeOf } from '../report/outcome.js';
import { RunContext } from './context.js';
import { deadlineIn, type Deadline } from '../time/deadlines.js';
import type { Scenario, ScenarioEnv } from './scenario.js';
import { writeArtifacts } from './artifacts.js';
import { settleRun } from './settle.js';

/** Budget for collecting evidence and for tearing down, taken outside the run budget so a timed-out run still cleans up. */
const EVIDENCE_BUDGET_MS = 3 * 60_000;
const TEARDOWN_BUDGET_MS = 5 * 60_000;

interface RunOptions {
  runId: string;
  scenario: Scenario;
  env: ScenarioEnv;
  config: HarnessConfig;
  logger: Logger;
  /** aborted by SIGINT/SIGTERM */
  signal: AbortSignal;
  /** name of the JUnit suite (matrix cell); defaults to the scenario name */
  suiteName?: string;
  /** where this run's artifacts go: <reports.dir>/<runId> */
  artifactDir: string;
}

/** Run the scenario and always return a record: checks judged against expectations, or the error that stopped the run. */
export async function runScenario(o: RunOptions): Promise<{ record: RunRecord; kept: string[] }> {
  const startedAtMs = Date.now();
  const t0 = performance.now();
  const runDeadline = deadlineIn(o.config.timeoutS * 1000, linked(o.signal));
  const secrets = o.config.nomad.token ? [o.config.nomad.token] : [];
  const ctx = new RunContext({
    runId: o.runId,
    scenario: o.scenario.name,
    logger: o.logger,
    deadline: runDeadline,
  });
  ctx.fact('run.id', o.runId);
  ctx.fact('scenario', o.scenario.name);
  ctx.fact('reboot.kind', o.config.reboot.kind);
  ctx.fact('lab.provider', o.config.lab.provider);
  ctx.fact('lab.box', o.config.lab.box);
  ctx.fact('lab.private_subnet', o.config.lab.privateSubnet);
  ctx.fact('lab.management_subnet', o.config.lab.managementSubnet);
  ctx.fact('nomad.heartbeat_grace', o.config.nomad.heartbeatGrace);

  let results: CheckResult[] = [];
  let error: RunRecord['error'];
  try {
    results = await settleRun(() => o.scenario.run(ctx, o.env), {
      who: scenarioWho(o.scenario),
      deadline: runDeadline,
      signal: o.signal,
      budget: `--timeout ${formatMs(o.config.timeoutS * 1000)}`,
    });
  } catch (err) {
    const reason = o.signal.aborted ? o.signal.reason : err;
    error = describeError(reason, ctx.currentStep ?? lastErroredStep(ctx));
  }
  const interrupted = o.signal.aborted;
  const judged = withDefinitions(
    results,
    o.scenario,
    error &&
      (interrupted
        ? `not reached: the run was interrupted${error.step ? ` in step "${error.step}"` : ''}`
        : `not reached: the run broke${error.step ? ` in step "${error.step}"` : ''}: ${error.message}`),
  );
  const verdicts = applyExpectations(judged, {
    scenario: o.config.expect.scenario,
    perCheck: o.config.expect.perCheck,
  });
  const outcome = outcomeOf(verdicts, error, interrupted);

  const wantArtifacts =
    o.config.reports.artifacts === 'always' || (o.config.reports.artifacts === 'on-failure' && outcome !== 'passed');
  if (wantArtifacts && ctx.evidenceCollectors.length) {
    const d = deadlineIn(EVIDENCE_BUDGET_MS);
    // Note: the collectors read different things (the hosts over SSH, the lab's own files and consoles) and write
    // artifacts of their own names, so they run at once; all of them end before the teardown destroys what they read.
    await Promise.all(
      ctx.evidenceCollectors.map(async (c) => {
        try {
          await c.collect(d);
        } catch (err) {
          o.logger({
            kind: 'warn',
            t: ctx.elapsed(),
            message: `evidence (${c.what}) not collected: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
          });
        }
      }),
    );
  }

  const kept = await teardown(ctx, keepsLab(o.config.keep, outcome));

  if (wantArtifacts)
    ctx.artifacts.push(...(await writeArtifacts(o.artifactDir, ctx.pendingArtifacts, secrets, o.logger)));

  const record: RunRecord = {
    runId: o.runId,
    scenario: o.scenario.name,
    suiteName: o.suiteName ?? o.scenario.name,
    hostname: hostname(),
    startedAtMs,
    durationMs: performance.now() - t0,
    properties: ctx.properties,
    steps: ctx.steps,
    verdicts,
    artifacts: ctx.artifacts,
    timeline: ctx.timeline,
    outcome: outcomeOf(verdicts, error ?? firstTeardownError(ctx), interrupted),
    ...(error ? { error } : {}),
    ...(interrupted ? { interrupted } : {}),
  };
  return { record, kept };
}

/**
 * Every result under its check's one definition (title from the scenario's list, so a real run and a skipped one name
 * a check alike), in the order of the scenario's list, then any result the list does not declare; when the run broke
 * or was interrupted, the checks it never reached are listed as skipped with why.
 */
function withDefinitions(
  results: readonly CheckResult[],
  scenario: { checks: readonly CheckInfo[] },
  notReached: string | undefined,
): CheckResult[] {
  const declared = scenario.checks.flatMap((c) => {
    const own = results.filter((r) => r.id === c.id).map((r) => ({ ...r, title: c.title }));
    if (own.length || notReached === undefined) return own;
    return [skippedResult(c, notReached)];
  });
  const ids = new Set(scenario.checks.map((c) => c.id));
  return [...declared, ...results.filter((r) => !ids.has(r.id))];
}

/** The scenario as its errors name it: a user scenario with its file, a shipped one by name. */
function scenarioWho(s: Scenario): string {
  const file = (s as { file?: unknown }).file;
  return typeof file === 'string' ? `scenario ${s.name} (${file})` : `scenario ${s.name}`;
}

function describeError(err: unknown, step: string | undefined): NonNullable<RunRecord['error']> {
  return { ...describeErr(err), ...(step ? { step } : {}) };
}

function lastErroredStep(ctx: RunContext): string | undefined {
  return [...ctx.steps].reverse().find((s) => s.status === 'error')?.name;
}

function firstTeardownError(ctx: RunContext): RunRecord['error'] {
  const s = ctx.steps.find((x) => x.name === TEARDOWN_STEP && x.status === 'error');
  return s ? { message: s.message ?? 'teardown failed', step: s.name } : undefined;
}

/** Whether the lab stays after the run: --keep always; --keep on-failure when the run did not meet its expectations. */
function keepsLab(keep: boolean | 'on-failure', outcome: RunRecord['outcome']): boolean {
  return keep === 'on-failure' ? outcome !== 'passed' : keep;
}

/** Name of the step that records the teardown (its time is in the run record like any step's). */
const TEARDOWN_STEP = 'teardown';

/**
 * Run the cleanup stack (or, with --keep, only the entries that free this process's handles) as the step
 * "teardown": its duration goes into the record and the console; failures make it an error. Returns what was kept.
 */
async function teardown(ctx: RunContext, keep: boolean): Promise<string[]> {
  const startedAtMs = Date.now();
  const t0 = performance.now();
  ctx.logger({ kind: 'step', t: ctx.elapsed(), phase: 'start', name: TEARDOWN_STEP });
  const kept = keep ? await ctx.cleanup.release() : [];
  const failures = keep ? [] : await cleanupWithin(ctx, TEARDOWN_BUDGET_MS);
  const durationMs = performance.now() - t0;
  const why = (e: unknown) => (e instanceof Error ? e.message : String(e));
  const msgs = failures.map((f) => `teardown "${f.what}" failed: ${why(f.error)}`);
  if (msgs.length) {
    const more = msgs.length > 1 ? ` (and ${msgs.length - 1} more)` : '';
    const message = `${msgs[0]!.split('\n')[0]!}${more}`;
    ctx.steps.push({
      name: TEARDOWN_STEP,
      id: STEP_IDS.teardown,
      status: 'error',
      startedAtMs,
      durationMs,
      message,
      detail: msgs.join('\n'),
    });
    const t = ctx.elapsed();
    ctx.logger({ kind: 'step', t, phase: 'end', name: TEARDOWN_STEP, status: 'error', durationMs, message });
  } else if (keep) {
    const message = `--keep: the lab is kept (reboot-harness login ${ctx.runId}); only this process's own connections were closed`;
    ctx.steps.push({ name: TEARDOWN_STEP, id: STEP_IDS.teardown, status: 'skipped', startedAtMs, durationMs, message });
    ctx.logger({ kind: 'step', t: ctx.elapsed(), phase: 'end', name: TEARDOWN_STEP, status: 'skipped', message });
  } else {
    ctx.steps.push({ name: TEARDOWN_STEP, id: STEP_IDS.teardown, status: 'passed', startedAtMs, durationMs });
    ctx.logger({ kind: 'step', t: ctx.elapsed(), phase: 'end', name: TEARDOWN_STEP, status: 'passed', durationMs });
  }
  return kept;
}

/** A deadline-less parent for the run budget that is aborted with the signal. */
function linked(signal: AbortSignal): Deadline {
  return { at: Number.POSITIVE_INFINITY, signal };
}

/** Run the cleanup stack, giving up (and saying so) after `ms`. */
async function cleanupWithin(ctx: RunContext, ms: number): Promise<CleanupFailure[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CleanupFailure[]>((resolve) => {
    timer = setTimeout(
      () =>
        resolve([
          {
            what: `teardown (${ctx.cleanup.pending().join(', ')})`,
            error: new HarnessError(
              `teardown did not finish within ${formatMs(ms)}; run "reboot-harness destroy ${ctx.runId}"`,
            ),
          },
        ]),
      ms,
    );
  });
  try {
    return await Promise.race([ctx.cleanup.run(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
