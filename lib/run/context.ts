// The run context a scenario talks to: named steps with deadlines, facts, artifacts and the cleanup stack.
import { performance } from 'node:perf_hooks';
import type { Logger } from '../log/events.js';
import type { ArtifactRef, StepId, StepRecord, TimelineEvent } from '../model/run.js';
import { TimeoutError, describeErr, formatMs } from '../errors.js';
import { CleanupStack } from './cleanup.js';
import { deadlineIn, type Deadline } from '../time/deadlines.js';

/** Default per-step ceiling; each step's deadline is also cut by the run budget. */
const DEFAULT_STEP_TIMEOUT_MS = 10 * 60_000;

/** What a run gave a step, by name; an undefined value is left out. */
type StepValues = Readonly<Record<string, string | number | undefined>>;

function valuesOf(values: StepValues): Record<string, string> | undefined {
  const out = Object.fromEntries(
    Object.entries(values).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)] as const])),
  );
  return Object.keys(out).length ? out : undefined;
}

/** A piece of evidence held until the run ends; the runner writes it (redacted) when artifacts are wanted. */
export interface PendingArtifact {
  name: string;
  content: string;
  caseName?: string;
}

/** Collects more evidence (logs, listings) when the run needs artifacts; called before teardown. */
type EvidenceCollector = (d: Deadline) => Promise<void>;

interface RunContextOptions {
  runId: string;
  scenario: string;
  logger: Logger;
  /** the whole run's deadline, aborted by signals too */
  deadline: Deadline;
}

/** Everything a scenario needs from the runner. */
export class RunContext {
  readonly runId: string;
  readonly scenario: string;
  readonly logger: Logger;
  readonly deadline: Deadline;
  readonly cleanup: CleanupStack;
  readonly steps: StepRecord[] = [];
  /** each recorded step's start order (steps may run side by side; the record keeps the order they started in) */
  private readonly started = new Map<StepRecord, number>();
  private nextStart = 0;
  readonly artifacts: ArtifactRef[] = [];
  readonly pendingArtifacts: PendingArtifact[] = [];
  readonly evidenceCollectors: { what: string; collect: EvidenceCollector }[] = [];
  readonly properties: Record<string, string> = {};
  readonly timeline: TimelineEvent[] = [];
  /** name of the step running now (for errors outside any step) */
  currentStep: string | undefined;
  private readonly t0 = performance.now();

  constructor(o: RunContextOptions) {
    this.runId = o.runId;
    this.scenario = o.scenario;
    this.logger = o.logger;
    this.deadline = o.deadline;
    this.cleanup = new CleanupStack(o.logger, () => this.elapsed());
  }

  /** Milliseconds since the run started (monotonic). */
  elapsed(): number {
    return performance.now() - this.t0;
  }

  /**
   * Run one named step with its own deadline (min of timeoutMs and the run budget); records it whatever happens.
   * `name` is the same in every run (a JUnit case's history follows it); what this run gave the step (a count, a
   * job's name, a quiet time) goes in `values`, shown beside the name on the console and in the case's output. `id`
   * (STEP_IDS, lib/model/run.ts) is what reports and bench/ find the step by, whatever its name says.
   */
  async step<T>(
    name: string,
    fn: (d: Deadline) => Promise<T>,
    {
      timeoutMs = DEFAULT_STEP_TIMEOUT_MS,
      values,
      id,
    }: { timeoutMs?: number; values?: StepValues; id?: StepId | (string & {}) } = {},
  ): Promise<T> {
    const startedAtMs = Date.now();
    const t = performance.now();
    const order = this.nextStart++;
    const vals = values === undefined ? undefined : valuesOf(values);
    const v = vals ? { values: vals } : {};
    const i = id === undefined ? {} : { id };
    // a value is a property of the run too (its key is a property name); a fact already recorded keeps its value
    for (const [k, x] of Object.entries(vals ?? {})) if (!(k in this.properties)) this.fact(k, x);
    this.currentStep = name;
    this.logger({ kind: 'step', t: this.elapsed(), phase: 'start', name, ...v });
    const d = deadlineIn(timeoutMs, this.deadline);
    try {
      // Note: a signal that came while the last step finished anyway stops the run here, before this step creates
      // anything (a step whose work never awaits the deadline would not notice it otherwise). The run budget running
      // out is not: a scenario may still judge what it saw (its step's own deadline has passed then).
      const reason: unknown = this.deadline.signal.reason;
      if (this.deadline.signal.aborted && !(reason instanceof TimeoutError)) throw reason;
      const value = await fn(d);
      const durationMs = performance.now() - t;
      this.record({ name, ...i, status: 'passed', startedAtMs, durationMs, ...v }, order);
      this.logger({ kind: 'step', t: this.elapsed(), phase: 'end', name, status: 'passed', durationMs, ...v });
      return value;
    } catch (err) {
      const durationMs = performance.now() - t;
      const { message, detail } = describeErr(err);
      this.record({ name, ...i, status: 'error', startedAtMs, durationMs, message, detail, ...v }, order);
      this.logger({
        kind: 'step',
        t: this.elapsed(),
        phase: 'end',
        name,
        ...v,
        status: 'error',
        durationMs,
        message: `${message} (after ${formatMs(durationMs)})`,
      });
      throw err;
    } finally {
      this.currentStep = undefined;
    }
  }

  /** Add a finished step before every recorded step that started after it. */
  private record(step: StepRecord, order: number): void {
    const at = this.steps.findIndex((s) => (this.started.get(s) ?? -1) > order);
    this.started.set(step, order);
    if (at < 0) this.steps.push(step);
    else this.steps.splice(at, 0, step);
  }

  /** Record a step that was deliberately not run, with the reason. */
  skipStep(name: string, reason: string, id?: StepId | (string & {})): void {
    const i = id === undefined ? {} : { id };
    const rec: StepRecord = { name, ...i, status: 'skipped', startedAtMs: Date.now(), durationMs: 0, message: reason };
    this.record(rec, this.nextStart++);
    this.logger({ kind: 'step', t: this.elapsed(), phase: 'end', name, status: 'skipped', message: reason });
  }

  /** Record a fact for the report's properties. */
  fact(name: string, value: string | number | undefined): void {
    if (value !== undefined && value !== '') this.properties[name] = String(value);
  }

  /** Keep a piece of evidence; the runner writes it under reports/<run-id>/ when artifacts are wanted. A later one of the same name replaces it. */
  artifact(name: string, content: string, caseName?: string): void {
    const i = this.pendingArtifacts.findIndex((a) => a.name === name);
    if (i >= 0) this.pendingArtifacts.splice(i, 1);
    this.pendingArtifacts.push(caseName === undefined ? { name, content } : { name, content, caseName });
  }

  /** Register a collector of extra evidence, run by the runner before teardown when artifacts are wanted. */
  onEvidence(what: string, collect: EvidenceCollector): void {
    this.evidenceCollectors.push({ what, collect });
  }

  /** Put an event on the run's timeline (HTML report). */
  mark(e: TimelineEvent): void {
    this.timeline.push(e);
  }

  /** Log a line of progress. */
  info(message: string): void {
    this.logger({ kind: 'info', t: this.elapsed(), message });
  }
}
