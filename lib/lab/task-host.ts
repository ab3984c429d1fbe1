// The client host's reads of a restored alloc's insides (one command each, parsed by lib/lab/parse-*.ts): its tasks'
// directories and processes, the agent's own resources, the nat table; and `alloc exec` run on a machine of the lab.
import type { AgentSample, ExecProbeRec, NatTable, TaskHostState } from '../model/evidence.js';
import type { Machine } from '../model/lab.js';
import type { Deadline } from '../time/deadlines.js';
import { parseTaskDirs, taskDirsCommand } from '../parse/task-dir-mounts.js';
import { parseTaskProcs, TASK_PROCS_COMMAND } from '../parse/task-procs.js';
import { agentSamplesCommand, parseAgentSamples } from '../parse/agent-samples.js';
import { NAT_TABLE_COMMAND, parseNatTable } from '../parse/iptables-nat.js';
import { allocExecCommand, EXEC_PROBE_COMMAND, parseAllocExec } from '../parse/alloc-exec-output.js';
import { HarnessError } from '../errors.js';

/** A read whose command failed is no observation: say which and why, never judge an empty output. */
function failed(m: Machine, what: string, r: { code: number; stderr: string; stdout: string }): HarnessError {
  const why = (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ') || 'no output';
  return new HarnessError(`${m.name}: reading ${what} failed (exit ${r.code}): ${why}`);
}

/** Every task's secrets/ and private/ mounts, processes and network namespaces under `allocDir`, at one moment (root). */
export async function readTaskHost(m: Machine, allocDir: string, d: Deadline): Promise<TaskHostState> {
  const dirs = await m.exec(taskDirsCommand(allocDir), { deadline: d, sudo: true });
  if (dirs.code !== 0) throw failed(m, 'the task directories', dirs);
  const procs = await m.exec(TASK_PROCS_COMMAND, { deadline: d, sudo: true });
  if (procs.code !== 0) throw failed(m, 'the task processes', procs);
  const { processes, netns } = parseTaskProcs(procs.stdout);
  return { atMs: Date.now(), allocDir, taskDirs: parseTaskDirs(dirs.stdout, allocDir), processes, netns };
}

/** `count` samples of the agent's fds and plugin processes, `intervalS` apart, taken on the host in one command (root). */
export async function readAgentSamples(
  m: Machine,
  count: number,
  intervalS: number,
  d: Deadline,
): Promise<AgentSample[]> {
  const r = await m.exec(agentSamplesCommand(count, intervalS), { deadline: d, sudo: true });
  if (r.code !== 0) throw failed(m, "the agent's resources", r);
  return parseAgentSamples(r.stdout);
}

/** The nat table; undefined when iptables-save is not there to ask (the leak check then says it was not read). */
export async function readNatTable(m: Machine, d: Deadline): Promise<NatTable | undefined> {
  const r = await m.exec(NAT_TABLE_COMMAND, { deadline: d, sudo: true });
  return r.code === 0 ? parseNatTable(r.stdout) : undefined;
}

/** `nomad alloc exec` of the probe command into one task, from machine `m` (the server: its CLI reaches the API locally). */
export async function execProbe(
  m: Machine,
  o: { nomad: string; allocId: string; task: string; timeoutS: number; token?: string },
  d: Deadline,
): Promise<ExecProbeRec> {
  const t0 = Date.now();
  const cmd = allocExecCommand({
    nomad: o.nomad,
    allocId: o.allocId,
    task: o.task,
    timeoutS: o.timeoutS,
    withToken: !!o.token,
  });
  const r = await m.exec(cmd, { deadline: d, ...(o.token ? { stdin: `${o.token}\n` } : {}) });
  const p = parseAllocExec(r.stdout, o.timeoutS);
  return { allocId: o.allocId, task: o.task, command: EXEC_PROBE_COMMAND.join(' '), ...p, durationMs: Date.now() - t0 };
}
