// How the process faults are done over SSH (lib/faults/docker-restart.ts, executor-kill.ts say what they are): restart
// the Docker daemon under the client's running containers, or SIGKILL the `nomad executor` of one task. The host and
// the Nomad agent keep running: same boot_id.
import { HarnessError } from '../errors.js';
import type { FaultMark, RebootRecord } from '../model/lab.js';
import { waitFor } from '../time/wait-for.js';
import { parseAgentState, rootSh, type FaultOptions } from './disrupt.js';
import type { Rebootable } from './reboot.js';

/** The Docker daemon's main PID and state as systemd sees them (parsed like the agent's: parseAgentState). */
const DOCKER_STATE_COMMAND = 'systemctl show -p MainPID -p ActiveState -p NRestarts docker';
/** The containers Nomad runs (its docker driver labels each with the alloc ID). */
const NOMAD_CONTAINERS_COMMAND = 'docker ps -q --filter label=com.hashicorp.nomad.alloc_id';
// Note: --no-block: stopping dockerd stops every container first (their stop timeouts), which under emulation took
// longer than one remote command may; the new daemon is awaited below, with the fault's deadline
const DOCKER_RESTART_COMMAND = 'systemctl restart --no-block docker';
/**
 * Every `nomad executor` process with its arguments; the bracket keeps the pattern from matching the shell that runs
 * it (its own command line holds the pattern, not the words).
 */
const EXECUTORS_COMMAND = "pgrep -a -f '[n]omad executor' || true";

/** Restart the Docker daemon while Nomad's containers run, then wait until it answers again with a new PID. */
export async function restartDocker(m: Rebootable, { deadline }: FaultOptions): Promise<RebootRecord> {
  const bootIdBefore = await m.bootId({ deadline });
  const before = parseAgentState(await rootSh(m, DOCKER_STATE_COMMAND, deadline, 'docker state'));
  if (before.active !== 'active' || before.pid <= 0)
    throw new HarnessError(
      `docker-restart on ${m.name}: the docker unit is not running (ActiveState=${before.active}, MainPID=${before.pid})`,
    );
  const containers = (await rootSh(m, NOMAD_CONTAINERS_COMMAND, deadline, 'docker ps')).split(/\s+/).filter(Boolean);
  if (!containers.length)
    throw new HarnessError(`docker-restart on ${m.name}: no container of Nomad runs there: nothing under the daemon`, {
      hint: 'run a job with task.driver docker whose allocs are placed on this client',
    });
  const requestedAt = Date.now();
  await rootSh(m, DOCKER_RESTART_COMMAND, deadline, 'docker-restart');
  const after = await waitFor(
    `the Docker daemon on ${m.name} to answer again with a new PID (was ${before.pid})`,
    async (d) => {
      const s = parseAgentState(await rootSh(m, DOCKER_STATE_COMMAND, d, 'docker state'));
      const seen = `ActiveState=${s.active} MainPID=${s.pid}`;
      if (s.active !== 'active' || s.pid <= 0 || s.pid === before.pid) return { done: false, reason: seen };
      const info = await m.exec('docker info --format {{.ServerVersion}}', { deadline: d, sudo: true });
      if (info.code !== 0) return { done: false, reason: `${seen}; docker info exited ${info.code}` };
      return { done: true, value: s };
    },
    { deadline, intervals: [250, 500, 1000] },
  );
  const backAt = Date.now();
  const marks: FaultMark[] = [
    {
      atMs: requestedAt,
      label: 'Docker daemon restart requested',
      detail: `pid ${before.pid}, ${containers.length} containers of Nomad`,
    },
    { atMs: backAt, label: 'Docker daemon restarted', detail: `pid ${after.pid}` },
  ];
  const bootIdAfter = await m.bootId({ deadline });
  const facts = {
    'docker.pid.before': String(before.pid),
    'docker.pid.after': String(after.pid),
    'docker.containers.before': containers.join(' '),
  };
  return { machine: m.name, kind: 'docker-restart', bootIdBefore, bootIdAfter, requestedAt, backAt, marks, facts };
}

/** One `nomad executor` process: its PID and the alloc and task its log file names. */
interface ExecutorProc {
  pid: number;
  allocId: string;
  task: string;
}

const ALLOC_DIR = /\/alloc\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/([^/"\s]+)\/executor\.out/;

/**
 * The executors in `pgrep -a` output whose arguments name an alloc's directory (its `LogFile`), in alloc-ID then
 * task order; other lines (no alloc directory) are left out. Pure.
 */
export function parseExecutors(text: string): ExecutorProc[] {
  const out: ExecutorProc[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    const dir = m && /\bnomad executor\b/.test(m[2]!) ? ALLOC_DIR.exec(m[2]!) : null;
    if (m && dir) out.push({ pid: Number(m[1]), allocId: dir[1]!, task: dir[2]! });
  }
  return out.sort((a, b) => a.allocId.localeCompare(b.allocId) || a.task.localeCompare(b.task));
}

/**
 * SIGKILL the executor of one task (the first in alloc-ID order), then wait until that process is gone. Restarting
 * the task is Nomad's: the checks judge it.
 */
export async function killExecutor(m: Rebootable, { deadline }: FaultOptions): Promise<RebootRecord> {
  const bootIdBefore = await m.bootId({ deadline });
  const listed = await rootSh(m, EXECUTORS_COMMAND, deadline, 'list the executors');
  const all = parseExecutors(listed);
  const victim = all[0];
  if (!victim)
    throw new HarnessError(`executor-kill on ${m.name}: no \`nomad executor\` names an alloc directory`, {
      hint: `seen:\n${listed.trim() || '(no executor)'}\nrun a job whose tasks use the exec (or raw_exec) driver on this client`,
    });
  const requestedAt = Date.now();
  // Note: `env` runs the kill program, not the shell's builtin (the same on every guest shell)
  await rootSh(m, `env kill -KILL ${victim.pid}`, deadline, 'executor-kill');
  await waitFor(
    `the executor pid ${victim.pid} on ${m.name} to be gone`,
    async (d) => {
      const r = await m.exec(`test -d /proc/${victim.pid} && cat /proc/${victim.pid}/stat`, {
        deadline: d,
        sudo: true,
      });
      // a zombie waits only for its parent to reap it: it is dead
      const gone = r.code !== 0 || /^\d+ \(.*\) Z /.test(r.stdout);
      return gone
        ? { done: true, value: true }
        : { done: false, reason: `still there: ${r.stdout.trim().slice(0, 120)}` };
    },
    { deadline, intervals: [100, 250, 500] },
  );
  const backAt = Date.now();
  const what = `alloc ${victim.allocId.slice(0, 8)} task ${victim.task}`;
  const marks: FaultMark[] = [
    { atMs: requestedAt, label: 'nomad executor SIGKILLed', detail: `pid ${victim.pid}, ${what}` },
  ];
  const bootIdAfter = await m.bootId({ deadline });
  const facts = {
    'executor.pid': String(victim.pid),
    'executor.alloc': victim.allocId,
    'executor.task': victim.task,
    'executor.others': String(all.length - 1),
  };
  return { machine: m.name, kind: 'executor-kill', bootIdBefore, bootIdAfter, requestedAt, backAt, marks, facts };
}
