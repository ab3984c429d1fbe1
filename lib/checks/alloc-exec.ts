// Check: `alloc exec` of a trivial command into every task of every restored alloc works after the fault (an executor
// that died with the agent it was attached to answers "plugin is shut down", and may take its task with it). Pure.
import { defineCheck } from './define.js';
import { oneLine } from './result.js';
import { perTask, runningTasksOf, type TaskLine } from './whole-alloc.js';
import { EXEC_PROBE_COMMAND } from '../parse/alloc-exec-output.js';
import type { AllocSnap, ExecProbeRec, RebootEvidence } from '../model/evidence.js';
import type { Judgement } from '../model/check.js';

export const ALLOC_EXEC = defineCheck<RebootEvidence>({
  id: 'alloc-exec',
  title: 'Exec into restored tasks',
  passesWhen:
    'after the reboot or agent restart `nomad alloc exec` of `exit 0` exits 0 for every running task of every restored alloc',
  details:
    "after the reboot (or agent restart) `nomad alloc exec -task <t> <alloc> /bin/sh -c 'exit 0'` (Nomad's exec stream, run on the server VM with a deadline) exits 0 for every running task of every restored alloc. Real 1.9.7 after an agent restart: \"failed to exec into task: plugin is shut down\", and the task's executor died (GH-27825, fixed in 2.0.0). Skipped for a partition",
  judge: checkAllocExec,
});

/** Passes when every exec probe into a running task of a restored alloc exited 0 before its deadline. */
export function checkAllocExec(e: RebootEvidence): Judgement {
  return perTask(e, 'exec', {
    head: () => [
      `\`nomad alloc exec -i=false -t=false -task <task> <alloc> ${EXEC_PROBE_COMMAND.join(' ')}\` on the server, after the restart of one task per alloc`,
    ],
    tasks: (a, probes) => judgeAlloc(probes, a),
    passed: 'answered an exec',
  });
}

/** Every running task of one alloc: its exec probe, which must have exited 0. */
function judgeAlloc(all: ExecProbeRec[], a: AllocSnap): TaskLine[] {
  const probes = all.filter((p) => p.allocId === a.id);
  return runningTasksOf(a).map((task) => {
    const p = probes.find((x) => x.task === task);
    if (!p) return { task, ok: false, line: 'not probed' };
    const took = `${(p.durationMs / 1000).toFixed(1)}s`;
    if (p.ok) return { task, ok: true, line: `${p.command} exited 0 in ${took}` };
    const code = p.exitCode === undefined ? 'did not finish' : `exited ${p.exitCode}`;
    return { task, ok: false, line: `${p.command} ${code} after ${took}: ${oneLine(p.output) || '(no output)'}` };
  });
}
