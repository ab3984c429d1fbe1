// Pure: where a harness run's time went, read from its JSON report (`--report-json`, summary.json): the harness's own
// time besides the reboot and the job's own start (step by step), the harness's share of restore.noticed_after (the
// run's property minus Nomad's part of it), and the settle's decision time (the settle step less the window it waits
// unchanged at the end). bench/floor.ts prints it for its cold and warm runs, or for report files given to it.

import { STEP_IDS, type StepId } from '../lib/model/run.js';
import { isStepOf, msOfSteps } from '../lib/report/step-id.js';

/** One step as the report holds it. */
interface StepRec {
  name: string;
  /** its STEP_IDS id (null or absent in reports from before steps had ids: stepIdOf reads their names) */
  id?: string | null;
  durationMs: number;
  /** the values the run gave the step (reports since step names stopped carrying them) */
  values?: Record<string, string>;
}

/** One restored alloc's notice: how long after its tasks' Started the harness saw it, and Nomad's part of that. */
export interface AllocNotice {
  name: string;
  totalMs: number;
  /** Started on the client to the server's record of it; absent when the run could not split it */
  nomadMs?: number;
  /** totalMs - nomadMs */
  harnessMs?: number;
}

/** The settle step(s): how long they took, the window each waited unchanged at its end, and the rest. */
export interface SettleFigures {
  stepMs: number;
  /** the confirmation window (`3s unchanged`) or, before the settle on Nomad's state, the quiet period */
  windowMs: number;
  window: 'confirmation window' | 'quiet period';
  /** stepMs - windowMs: until every place was decided (or, with a quiet period, until the last change) */
  decisionMs: number;
}

/** Where one run's time went. */
export interface RunFigures {
  label: string;
  outcome: string;
  warm: string;
  nomad: string;
  /** the whole run: the CLI's own measure (the session's durationMs), or the caller's wall clock */
  wallMs: number;
  rebootMs: number;
  jobStartMs: number;
  /** wallMs - rebootMs - jobStartMs */
  besidesMs: number;
  /** every step counted in besidesMs, largest first, and the CLI's time outside its steps */
  besides: StepRec[];
  outsideMs: number;
  notices: AllocNotice[];
  settle?: SettleFigures;
}

const REBOOT: readonly StepId[] = [STEP_IDS.fault];
/** The job's own start: its allocs running, then its deployment's min_healthy_time (the job's update block sets it). */
const JOB_START: readonly StepId[] = [STEP_IDS.jobRunning, STEP_IDS.jobDeployment];

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;

/** `web[0] 513 ms, web[1] 180 ms (…; of it Nomad's (…): 323 ms, ? )` -> one entry per alloc. */
export function parseNoticedAfter(text: string): AllocNotice[] {
  const head = text.split(' (')[0] ?? '';
  const totals = [...head.matchAll(/(\S+) (\d+) ms/g)].map((m) => ({ name: m[1]!, totalMs: Number(m[2]) }));
  const nomadPart = /of it Nomad's \([^)]*\): ([^)]*)\)$/.exec(text)?.[1] ?? '';
  const nomad = nomadPart ? nomadPart.split(', ').map((v) => /^(\d+) ms$/.exec(v.trim())?.[1]) : [];
  return totals.map((t, i) => {
    const n = nomad[i];
    return n === undefined ? t : { ...t, nomadMs: Number(n), harnessMs: t.totalMs - Number(n) };
  });
}

/**
 * The settle steps' figures; the window read from each step's values (`reboot.settle_confirm_s`), or, in a report
 * from before step names stopped carrying values, from its name (`; 3s unchanged)`, `; 20s without change)`).
 */
export function settleFigures(steps: readonly StepRec[]): SettleFigures | undefined {
  const settle = steps.filter(isStepOf([STEP_IDS.settle]));
  if (!settle.length) return undefined;
  let windowMs = 0;
  let window: SettleFigures['window'] = 'confirmation window';
  for (const s of settle) {
    const confirmS = s.values?.['reboot.settle_confirm_s'];
    if (confirmS !== undefined) {
      windowMs += Number(confirmS) * 1000;
      continue;
    }
    const m = /; (\d+(?:\.\d+)?)s (unchanged|without change)\)/.exec(s.name);
    if (!m) continue;
    windowMs += Number(m[1]) * 1000;
    if (m[2] === 'without change') window = 'quiet period';
  }
  const stepMs = settle.reduce((n, s) => n + s.durationMs, 0);
  return { stepMs, windowMs, window, decisionMs: Math.max(0, stepMs - windowMs) };
}

/**
 * The figures of the first run of a report (`{runs: [...]}` or one run); `wallMs` from the caller when it timed the
 * process, else the session's own durationMs. Throws naming what the document lacks.
 */
export function runFigures(doc: unknown, label: string, wallMs?: number): RunFigures {
  const root = obj(doc);
  const run = obj(Array.isArray(root?.['runs']) ? (root['runs'] as unknown[])[0] : root);
  if (!run || !Array.isArray(run['steps']))
    throw new Error(
      `${label}: not a harness JSON report (expected {"runs": [{"steps": [...]}]}, as --report-json writes)`,
    );
  const steps = (run['steps'] as unknown[])
    .map(obj)
    .filter((s): s is Obj => !!s)
    .map((s) => {
      const values = obj(s['values']) as Record<string, string> | undefined;
      const id = typeof s['id'] === 'string' ? { id: s['id'] } : {};
      return {
        name: String(s['name'] ?? ''),
        ...id,
        durationMs: Number(s['durationMs'] ?? 0),
        ...(values ? { values } : {}),
      };
    });
  const props = (obj(run['properties']) ?? {}) as Record<string, string>;
  const wall = wallMs ?? Number(root?.['durationMs'] ?? run['durationMs'] ?? 0);
  const rebootMs = msOfSteps(steps, REBOOT, (s) => s.durationMs);
  const jobStartMs = msOfSteps(steps, JOB_START, (s) => s.durationMs);
  const besides = steps
    .filter((s) => !isStepOf(REBOOT)(s) && !isStepOf(JOB_START)(s))
    .sort((a, b) => b.durationMs - a.durationMs);
  const outsideMs = wall - steps.reduce((n, s) => n + s.durationMs, 0);
  const notice = props['restore.noticed_after'];
  const settle = settleFigures(steps);
  return {
    label,
    outcome: String(run['outcome'] ?? '?'),
    warm: props['lab.warm'] ?? '?',
    nomad: props['nomad.version'] ?? '?',
    wallMs: wall,
    rebootMs,
    jobStartMs,
    besidesMs: wall - rebootMs - jobStartMs,
    besides,
    outsideMs,
    notices: notice ? parseNoticedAfter(notice) : [],
    ...(settle ? { settle } : {}),
  };
}

const secs = (ms: number | undefined): string => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);
const msOf = (ms: number | undefined): string => (ms === undefined ? '—' : `${ms} ms`);
const cell = (s: string): string => s.replaceAll('|', '\\|');

/** Markdown: one column per run (cold, warm): the figures, then each run's steps besides the reboot and the job. */
export function figuresMarkdown(runs: readonly RunFigures[]): string {
  const col = (f: (r: RunFigures) => string) => runs.map(f).join(' | ');
  const notices = (f: (n: AllocNotice) => string) => (r: RunFigures) =>
    r.notices.length ? r.notices.map((n) => `${n.name} ${f(n)}`).join(', ') : 'not recorded';
  const settle = (f: (s: SettleFigures) => string) => (r: RunFigures) => (r.settle ? f(r.settle) : 'no settle step');
  const rows = [
    `| figure | ${col((r) => cell(r.label))} |`,
    `| --- | ${col(() => '---')} |`,
    `| run | ${col((r) => cell(`${r.outcome}; Nomad ${r.nomad}; lab.warm ${r.warm}`))} |`,
    `| whole run | ${col((r) => secs(r.wallMs))} |`,
    `| the reboot (Nomad's and the guest's) | ${col((r) => secs(r.rebootMs))} |`,
    `| the job's own start | ${col((r) => secs(r.jobStartMs))} |`,
    `| **the harness's own time besides those** (warm goal: < 30 s) | ${col((r) => `**${secs(r.besidesMs)}**`)} |`,
    `| restore.noticed_after | ${col(notices((n) => msOf(n.totalMs)))} |`,
    `| of it Nomad's (the task's Started to the server's record) | ${col(notices((n) => msOf(n.nomadMs)))} |`,
    `| **of it the harness's** (goal: < 100 ms) | ${col(notices((n) => `**${msOf(n.harnessMs)}**`))} |`,
    `| settle step | ${col(settle((s) => secs(s.stepMs)))} |`,
    `| of it the window at its end | ${col(settle((s) => `${secs(s.windowMs)} (${s.window})`))} |`,
    `| **the settle's decision time** | ${col(settle((s) => `**${secs(s.decisionMs)}**`))} |`,
  ];
  const stepTables = runs.map((r) =>
    [
      `| ${cell(r.label)}: step besides the reboot and the job's own start | time |`,
      '| --- | --- |',
      ...r.besides.map((s) => `| ${cell(s.name)} | ${secs(s.durationMs)} |`),
      `| the CLI outside its steps | ${secs(r.outsideMs)} |`,
      `| total | ${secs(r.besidesMs)} |`,
    ].join('\n'),
  );
  return [rows.join('\n'), ...stepTables].join('\n\n');
}
