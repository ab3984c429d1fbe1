// Check: every restored task's secrets/ and private/ directories are a tmpfs of their own after the fault, as they were
// before it (a task's secrets, e.g. what a template renders there, must never land on the client's disk). Pure.
import { defineCheck } from './define.js';
import { iso } from './result.js';
import { perTask, tasksOf, type TaskLine } from './whole-alloc.js';
import { isOwnTmpfs, TMPFS_TASK_DIRS } from '../parse/task-dir-mounts.js';
import type { AllocSnap, RebootEvidence, TaskDirMount } from '../model/evidence.js';
import type { Judgement } from '../model/check.js';

export const TASK_DIRS = defineCheck<RebootEvidence>({
  id: 'task-dirs',
  title: 'Task directories on tmpfs',
  passesWhen:
    'after the reboot or agent restart every task of every restored alloc has `secrets/` and `private/` each on a tmpfs of its own, as before it',
  details:
    "after the reboot (or agent restart) every task of every restored alloc has `secrets/` and `private/` each on a tmpfs of its own (`findmnt` on the client), as before it. Real 1.9.7 after a simulated reboot: both on the root ext4 with the template's file in it (GH-28345, fixed in 2.0.5). Skipped for a partition",
  judge: checkTaskDirs,
});

/** Passes when each task's secrets/ and private/ are their own tmpfs after the fault wherever they were before it. */
export function checkTaskDirs(e: RebootEvidence): Judgement {
  return perTask(e, 'host', {
    head: (after) => [
      `alloc dir on the client: ${after.allocDir} (read ${iso(e.whole?.before?.atMs)} and ${iso(after.atMs)})`,
      `directories found after: ${after.taskDirs.length}, of them their own tmpfs: ${after.taskDirs.filter(isOwnTmpfs).length}`,
    ],
    tasks: (a) => tasksOf(a).map((t) => judgeTask(e, a, t)),
    passed: 'have secrets/ and private/ on a tmpfs of their own',
  });
}

/** "tmpfs (size=1024k)" or "ext4 of / (/dev/vda)": where a directory lives, in a few words. */
function where(m: TaskDirMount | undefined): string {
  if (!m) return 'not found';
  if (isOwnTmpfs(m)) return `its own tmpfs (${m.options.split(',').find((o) => o.startsWith('size=')) ?? m.options})`;
  return `${m.fstype || '?'} of ${m.target || '?'} (${m.source || '?'})`;
}

/** One task: each of its two directories, after against before. */
function judgeTask(e: RebootEvidence, a: AllocSnap, task: string): TaskLine {
  const find = (ms: TaskDirMount[] | undefined, dir: string) =>
    ms?.find((m) => m.allocId === a.id && m.task === task && m.dir === dir);
  const parts = TMPFS_TASK_DIRS.map((dir) => {
    const before = find(e.whole?.before?.taskDirs, dir);
    const after = find(e.whole?.after?.taskDirs, dir);
    // Note: a directory that was no tmpfs of its own before (a client not running as root) is only asked to stay so.
    const expected = before ? isOwnTmpfs(before) : true;
    const ok = !!after && (!expected || isOwnTmpfs(after));
    const was = before ? `before: ${where(before)}` : 'before: not read';
    return { ok, text: `${dir}/ ${where(after)} (${was})` };
  });
  return { task, ok: parts.every((p) => p.ok), line: parts.map((p) => p.text).join('; ') };
}
