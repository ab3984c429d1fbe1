// Check: the allocs of the clients the fault did not hit neither moved nor restarted while the others were rebooted
// (a drain places the migrated allocs beside them; that must not disturb what already ran there).
import { defineCheck, needing } from './define.js';
import { judgement } from './result.js';
import type { AllocDetail, Judgement } from '../model/check.js';
import type { ClusterEvidence } from '../model/cluster-evidence.js';
import type { AllocSnap } from '../model/evidence.js';
import { machineOf, touchedNodes } from './across-nodes.js';
import { jobTypeOf } from './job-types.js';

export const UNTOUCHED_ALLOCS = defineCheck<ClusterEvidence>({
  id: 'untouched-allocs',
  title: 'Untouched clients undisturbed',
  passesWhen:
    'every service or system alloc on a client the fault did not hit still runs there as the same alloc, with no task started, restarted or stopped since the first fault',
  details:
    'every alloc of a service or system job that ran on a client the fault did not hit still runs there, as the same alloc, with no task started, restarted or stopped since the first fault (batch allocs run to their end: batch-outcome judges them)',
  judge: needing(
    untouchedAllocs,
    (e) => `no alloc ran on a client the fault left alone (hit: ${hitMachines(e)})`,
  )(judgeUntouched),
});

function judgeUntouched(mine: AllocSnap[], e: ClusterEvidence): Judgement {
  const sinceMs = Math.min(...e.turns.map((t) => t.drain?.requestedAt ?? t.reboot.requestedAt));
  const perAlloc: AllocDetail[] = mine.map((b) => {
    const a = e.after.find((x) => x.id === b.id);
    const where = machineOf(e, b.nodeId);
    const problems = !a
      ? ['not among the job allocs after the fault']
      : [
          ...(a.nodeId !== b.nodeId ? [`moved to ${machineOf(e, a.nodeId)}`] : []),
          ...(a.clientStatus !== 'running' || a.desiredStatus !== 'run'
            ? [`now ${a.clientStatus}/${a.desiredStatus}${a.desiredDescription ? ` (${a.desiredDescription})` : ''}`]
            : []),
          ...disturbed(b, a, sinceMs),
        ];
    return {
      allocId: b.id,
      name: b.name,
      status: problems.length ? 'failed' : 'passed',
      detail: problems.length ? `on ${where}: ${problems.join('; ')}` : `on ${where}: running throughout`,
      nodeBefore: where,
      nodeAfter: a ? machineOf(e, a.nodeId) : '(none)',
    };
  });
  const evidence = perAlloc.map((p) => `${p.allocId.slice(0, 8)} ${p.name} ${p.detail}`);
  const bad = perAlloc.filter((p) => p.status === 'failed');
  return bad.length
    ? judgement(
        'failed',
        `${bad.length} of ${mine.length} allocs of untouched clients were disturbed: ${bad[0]!.name} ${bad[0]!.detail}`,
        evidence,
        perAlloc,
      )
    : judgement(
        'passed',
        `${mine.length} alloc${mine.length === 1 ? '' : 's'} of untouched clients ran throughout`,
        evidence,
        perAlloc,
      );
}

/** The allocs that ran before the fault on clients it did not hit; undefined when there were none. */
function untouchedAllocs(e: ClusterEvidence): AllocSnap[] | undefined {
  const touched = touchedNodes(e);
  const mine = e.before.filter((b) => !touched.has(b.nodeId) && ['service', 'system'].includes(jobTypeOf(e, b.jobId)));
  return mine.length ? mine : undefined;
}

/** The machines the fault hit, for the skip message. */
function hitMachines(e: ClusterEvidence): string {
  return [...touchedNodes(e)].map((n) => machineOf(e, n)).join(', ') || 'none';
}

/** Task starts after the first fault began, and restarts counted since before it. Pure. */
function disturbed(before: AllocSnap, after: AllocSnap, sinceMs: number): string[] {
  const out: string[] = [];
  for (const [task, b] of Object.entries(before.tasks)) {
    const a = after.tasks[task];
    if (!a) {
      out.push(`task ${task} gone`);
      continue;
    }
    if (a.restarts > b.restarts) out.push(`task ${task} restarted ${a.restarts - b.restarts} time(s)`);
    const started = a.events.filter(
      (ev) => ev.timeMs >= sinceMs && ['Started', 'Restarting', 'Terminated', 'Killed'].includes(ev.type),
    );
    if (started.length) out.push(`task ${task}: ${started.map((ev) => ev.type).join(', ')} since the fault`);
    if (a.state !== 'running') out.push(`task ${task} is ${a.state}`);
  }
  return out;
}
