// Pure helpers the whole-alloc checks share: which fault kinds restore allocs in place on the client, which allocs are
// judged (the restored ones; a replaced or failed alloc is alloc-restored's to judge), and one result shape for all.
import { faultOutcome } from '../faults/registry.js';
import { allocLabel, classifyAll } from './alloc-outcome.js';
import { judgement } from './result.js';
import type {
  AllocSnap,
  ExecProbeRec,
  RebootEvidence,
  TaskHostState,
  TaskRestartRec,
  WholeAllocEvidence,
  WholeAllocPart,
} from '../model/evidence.js';
import type { AllocDetail, Judgement } from '../model/check.js';
import type { RebootKind } from '../model/kinds.js';

/**
 * Does the client restore its allocs in place after this kind: a host reboot (the tasks start again from the client's
 * state) or an agent restart (the agent reattaches to running tasks)? A partition leaves the agent and its tasks alone.
 */
function restoresInPlace(kind: RebootKind): boolean {
  return faultOutcome(kind).restoresInPlace;
}

/** Why the host-side whole-alloc checks do not apply to this kind; undefined when they do. */
export function notInPlaceReason(kind: RebootKind): string | undefined {
  if (restoresInPlace(kind)) return undefined;
  return `${kind} restores nothing on the client (the agent and its tasks keep running; a long one replaces the allocs)`;
}

/** One alloc the whole-alloc checks judge: restored in place (with its state after the fault), or why not. */
interface JudgedAlloc {
  allocId: string;
  name: string;
  /** the alloc after the fault when it was restored in place */
  restored?: AllocSnap;
  /** why it is not judged here (replaced, failed, unknown) */
  skip?: string;
}

/** Every watched alloc: restored ones to judge, the others with the reason alloc-restored gives. */
function judgedAllocs(e: RebootEvidence): JudgedAlloc[] {
  return classifyAll(e).map((o) =>
    o.outcome === 'restored' && o.current
      ? { allocId: o.allocId, name: o.name, restored: o.current }
      : { allocId: o.allocId, name: o.name, skip: `not restored in place (${o.outcome}; judged by alloc-restored)` },
  );
}

/** The task names of an alloc, sorted (Nomad's TaskStates is a map). */
export function tasksOf(a: AllocSnap): string[] {
  return Object.keys(a.tasks).sort();
}

/** The alloc's running tasks, sorted: the ones with processes to find (a finished prestart task has none). */
export function runningTasksOf(a: AllocSnap): string[] {
  return tasksOf(a).filter((t) => a.tasks[t]!.state === 'running');
}

/** One task's line in a check: passed or not, and what was seen. */
export interface TaskLine {
  task: string;
  ok: boolean;
  line: string;
}

/** Why a part of the whole-alloc read is missing, or undefined when it was read. */
export function notRead(e: RebootEvidence, part: WholeAllocPart, present: boolean): string | undefined {
  if (present) return undefined;
  return e.whole?.notRead[part] ?? 'not read in this run (a record from before these checks)';
}

/** The parts of the whole-alloc read a per-task check judges from, with what each holds. */
interface PerTaskParts {
  /** the client's task processes, namespaces and directories after the fault */
  host: TaskHostState;
  /** the task restarted through the API after the fault, one per restored alloc */
  restart: TaskRestartRec[];
  /** the exec probes into every running task */
  exec: ExecProbeRec[];
}

/** Where each part is in the read, and what a skip says when it is missing. */
const PARTS: {
  [K in keyof PerTaskParts]: { of: (w: WholeAllocEvidence) => PerTaskParts[K] | undefined; missing: string };
} = {
  host: { of: (w) => w.after, missing: "the client's tasks were not read after the fault" },
  restart: { of: (w) => w.restarts, missing: 'no task was restarted' },
  exec: { of: (w) => w.exec, missing: 'no exec probe ran' },
};

/** How a per-task whole-alloc check judges, given the part of the whole-alloc read it needs (`P`). */
interface PerTask<P> {
  /** the evidence lines above the allocs' */
  head: (part: P) => string[];
  /** the task lines of one restored alloc */
  tasks: (a: AllocSnap, part: P) => TaskLine[];
  /** what every task did, when all passed ("answered an exec") */
  passed: string;
  /** why a restored alloc is not judged here (its group has nothing this check looks at), or undefined */
  skip?: (a: AllocSnap) => string | undefined;
}

/**
 * The judgement of a per-alloc, per-task check over the part `needs` of the whole-alloc read: skipped, saying why,
 * when the fault does not restore in place or the part was not read; else failed when a task failed, passed when one
 * was judged and none failed, skipped when no alloc was restored in place.
 */
export function perTask<K extends keyof PerTaskParts>(
  e: RebootEvidence,
  needs: K,
  how: PerTask<PerTaskParts[K]>,
): Judgement {
  const why = notInPlaceReason(e.reboot.kind);
  if (why) return judgement('skipped', why, []);
  const part = e.whole ? PARTS[needs].of(e.whole) : undefined;
  if (!part) return judgement('skipped', `${PARTS[needs].missing}: ${notRead(e, needs, false)}`, []);
  const evidence = [...how.head(part)];
  const perAlloc: AllocDetail[] = [];
  let bad = 0;
  let tasks = 0;
  let first = '';
  /** the first reason of this check's own for not judging a restored alloc */
  let skippedHere = '';
  for (const j of judgedAllocs(e)) {
    const label = allocLabel(j);
    if (!j.restored) {
      perAlloc.push({ allocId: j.allocId, name: j.name, status: 'skipped', detail: j.skip! });
      evidence.push(`${label}: skipped: ${j.skip}`);
      continue;
    }
    const skip = how.skip?.(j.restored);
    if (skip) {
      skippedHere ||= skip;
      perAlloc.push({ allocId: j.allocId, name: j.name, status: 'skipped', detail: skip });
      evidence.push(`${label}: skipped: ${skip}`);
      continue;
    }
    const lines = how.tasks(j.restored, part);
    const failed = lines.filter((l) => !l.ok);
    tasks += lines.length;
    bad += failed.length;
    evidence.push(`${label}:`, ...lines.map((l) => `  ${l.ok ? 'ok  ' : 'FAIL'} task ${l.task}: ${l.line}`));
    const detail =
      (failed.length ? failed : lines).map((l) => `task ${l.task}: ${l.line}`).join('; ') || 'no task seen';
    if (failed.length && !first) first = `${label}: ${detail}`;
    perAlloc.push({
      allocId: j.allocId,
      name: j.name,
      status: failed.length || !lines.length ? 'failed' : 'passed',
      detail,
    });
  }
  const judged = perAlloc.filter((p) => p.status !== 'skipped').length;
  if (!judged)
    return judgement(
      'skipped',
      skippedHere
        ? `no alloc is judged here: ${skippedHere}${perAlloc.length > 1 ? ' (and the others as the evidence says)' : ''}`
        : 'no alloc was restored in place, so none is judged here (see alloc-restored)',
      evidence,
      perAlloc,
    );
  const badAllocs = perAlloc.filter((p) => p.status === 'failed').length;
  const allocs = `${judged} restored alloc${judged === 1 ? '' : 's'}`;
  if (badAllocs)
    return judgement(
      'failed',
      `${badAllocs} of ${allocs} failed (${bad} of ${tasks} tasks); first: ${first}`,
      evidence,
      perAlloc,
    );
  return judgement(
    'passed',
    `all ${tasks} task${tasks === 1 ? '' : 's'} of ${allocs} ${how.passed}`,
    evidence,
    perAlloc,
  );
}
