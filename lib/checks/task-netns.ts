// Check: every process of every restored task is in its alloc's network namespace, and the address the API gives the
// alloc is configured in that namespace (a task left in a namespace Nomad replaced answers nothing at that address).
import { defineCheck } from './define.js';
import { perTask, runningTasksOf, type TaskLine } from './whole-alloc.js';
import type { AllocSnap, NetnsRec, RebootEvidence, TaskHostState } from '../model/evidence.js';
import type { Judgement } from '../model/check.js';

export const TASK_NETNS = defineCheck<RebootEvidence>({
  id: 'task-netns',
  title: "Tasks in the alloc's network namespace",
  passesWhen:
    "after the reboot or agent restart every process of every restored alloc's tasks is in the alloc's network namespace, which holds the alloc's address",
  details:
    "after the reboot (or agent restart) every process of every task of every restored alloc (found by `NOMAD_ALLOC_ID` in `/proc/<pid>/environ`, any driver) is in the namespace `/var/run/netns/<alloc ID>` names (docker: the one holding the alloc's address), and the alloc's API address is configured in it. Skipped for a partition, and per alloc for a group in host network mode (no namespace of its own)",
  judge: checkTaskNetns,
});

/** Passes when every task's processes share the alloc's namespace and that namespace holds the alloc's API address. */
export function checkTaskNetns(e: RebootEvidence): Judgement {
  return perTask(e, 'host', {
    head: (h) =>
      h.netns.map((n) => `namespace ${n.inode}${n.names.length ? ` (${n.names.join(', ')})` : ''}: ${addrsOf(n)}`),
    tasks: (a, h) => runningTasksOf(a).map((t) => judgeTask(h, a, t)),
    passed: "run in their alloc's namespace, which holds its address",
    skip: (a) => hostModeSkip(e, a),
  });
}

/** Why an alloc of a host-mode group is not judged: it shares the host's network, with no namespace of its own. */
function hostModeSkip(e: Pick<RebootEvidence, 'hostGroups'>, a: AllocSnap): string | undefined {
  return e.hostGroups?.includes(a.taskGroup)
    ? `group "${a.taskGroup}" runs in host network mode: no network namespace of its own to judge`
    : undefined;
}

/** The alloc's namespace: the one named by its ID (Nomad's own), else the one holding its address (docker's pause). */
function allocNetns(h: TaskHostState, a: AllocSnap): { ns?: NetnsRec; how: string } {
  const named = h.netns.find((n) => n.names.includes(a.id));
  if (named) return { ns: named, how: `/var/run/netns/${a.id}` };
  const holding = a.address ? h.netns.find((n) => n.addrs.some((x) => x.cidr.split('/')[0] === a.address)) : undefined;
  if (holding) return { ns: holding, how: `no /var/run/netns/${a.id}; the namespace holding ${a.address}` };
  return { how: `no /var/run/netns/${a.id} and no namespace holding ${a.address ?? '(no address)'}` };
}

const addrsOf = (ns: NetnsRec | undefined) =>
  ns?.addrs.map((x) => `${x.ifname} ${x.cidr}`).join(', ') || 'no global IPv4 address';

/** One task: all its processes in the alloc's namespace, which holds the alloc's address. */
function judgeTask(h: TaskHostState, a: AllocSnap, task: string): TaskLine {
  const { ns, how } = allocNetns(h, a);
  const procs = h.processes.filter((p) => p.allocId === a.id && p.task === task);
  if (!procs.length)
    return {
      task,
      ok: false,
      line: `no process of the task found (no NOMAD_ALLOC_ID=${a.id} with NOMAD_TASK_NAME=${task})`,
    };
  const pids = procs.map((p) => `${p.pid} ${p.comm} in ${p.netns}`).join(', ');
  if (!ns) return { task, ok: false, line: `${how}; processes ${pids}` };
  const outside = procs.filter((p) => p.netns !== ns.inode);
  const hasAddr = !!a.address && ns.addrs.some((x) => x.cidr.split('/')[0] === a.address);
  const nsLine = `alloc namespace ${ns.inode} (${how}) has ${addrsOf(ns)}`;
  if (outside.length) {
    const where = outside
      .map((p) => `${p.pid} ${p.comm} in ${p.netns} (${addrsOf(h.netns.find((n) => n.inode === p.netns))})`)
      .join(', ');
    return {
      task,
      ok: false,
      line: `${outside.length} of ${procs.length} processes outside the alloc's namespace: ${where}; ${nsLine}`,
    };
  }
  if (!hasAddr)
    return {
      task,
      ok: false,
      line: `processes ${pids}, but the API's address ${a.address ?? '(none)'} is not configured there: ${nsLine}`,
    };
  return { task, ok: true, line: `processes ${procs.map((p) => `${p.pid} ${p.comm}`).join(', ')} in ${nsLine}` };
}
