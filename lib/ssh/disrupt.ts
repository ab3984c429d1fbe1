// How the fault kinds that are not a reboot are done over SSH (lib/faults/agent-kill.ts, partition.ts say what they
// are): kill the Nomad agent and let systemd restart it, or cut the client off from the server with iptables for a
// while and heal. The host keeps running: same boot_id.
import { HarnessError } from '../errors.js';
import type { FaultMark, RebootRecord } from '../model/lab.js';
import type { Logger } from '../log/events.js';
import { deadlineIn, sleep, type Deadline } from '../time/deadlines.js';
import { waitFor } from '../time/wait-for.js';
import { quote } from '../shell/quote.js';
import type { Rebootable } from './reboot.js';

/** The agent's main PID and state as systemd sees them. */
export const AGENT_STATE_COMMAND = 'systemctl show -p MainPID -p ActiveState -p NRestarts nomad';
/** SIGKILL the agent only (not its executors and tasks, as a crash of the agent would): systemd restarts it. */
export const AGENT_KILL_COMMAND = 'systemctl kill -s SIGKILL --kill-whom=main nomad';
/** Nomad's HTTP and RPC ports: what the client talks to the server on. */
export const SERVER_PORTS = [4646, 4647];
/** Comment on the partition's rules, so heal removes exactly them. */
const TAG = 'nrh-partition';
/** The unit of the safety timer that heals the partition if the harness dies while it holds. */
const HEAL_UNIT = 'nrh-heal-partition';
/** How long after the planned end the safety timer heals on its own. */
const HEAL_SAFETY_S = 120;
const CMD_MS = 20_000;

/** Parse `systemctl show -p MainPID -p ActiveState -p NRestarts` output. Pure. */
export function parseAgentState(text: string): { pid: number; active: string; restarts: number } {
  const pairs = text
    .split('\n')
    .map((l) => l.trim().split('=', 2))
    .filter((p) => p.length === 2);
  const kv = Object.fromEntries(pairs) as Record<string, string>;
  return { pid: Number(kv['MainPID'] ?? 0), active: kv['ActiveState'] ?? '', restarts: Number(kv['NRestarts'] ?? 0) };
}

/** iptables commands that cut (`-I`) or heal (`-D`) traffic between this host and `serverIp` on Nomad's ports. Pure. */
export function partitionCommands(serverIp: string, op: '-I' | '-D'): string[] {
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(serverIp)) {
    throw new HarnessError(`partition: not an IPv4 address: ${JSON.stringify(serverIp)}`, { exitCode: 70 });
  }
  const ports = SERVER_PORTS.join(',');
  const c = ['-m', 'comment', '--comment', TAG, '-j', 'DROP'];
  return [
    ['iptables', '-w', op, 'OUTPUT', '-d', serverIp, '-p', 'tcp', '-m', 'multiport', '--dports', ports, ...c],
    ['iptables', '-w', op, 'INPUT', '-s', serverIp, '-p', 'tcp', '-m', 'multiport', '--sports', ports, ...c],
  ].map((argv) => argv.map(quote).join(' '));
}

/** The deadline of a fault (and a logger). */
export interface FaultOptions {
  deadline: Deadline;
  logger?: Logger;
}

async function sh(m: Rebootable, cmd: string, d: Deadline, what: string): Promise<string> {
  const r = await m.exec(cmd, { deadline: deadlineIn(CMD_MS, d), sudo: true });
  const tail = r.stderr.trim().split('\n').slice(-3).join(' ');
  if (r.code !== 0) throw new HarnessError(`${what} on ${m.name}: \`${cmd}\` exited ${r.code}: ${tail}`);
  return r.stdout;
}

/** SIGKILL the Nomad agent, then wait until systemd has it running again with a new PID; the boot_id must stay. */
export async function killAgent(m: Rebootable, { deadline }: FaultOptions): Promise<RebootRecord> {
  const bootIdBefore = await m.bootId({ deadline });
  const before = parseAgentState(await sh(m, AGENT_STATE_COMMAND, deadline, 'agent state'));
  if (before.active !== 'active' || before.pid <= 0) {
    const seen = `ActiveState=${before.active}, MainPID=${before.pid}`;
    throw new HarnessError(`agent-kill on ${m.name}: the nomad unit is not running (${seen})`);
  }
  const requestedAt = Date.now();
  await sh(m, AGENT_KILL_COMMAND, deadline, 'agent-kill');
  const marks: FaultMark[] = [{ atMs: requestedAt, label: 'Nomad agent SIGKILLed', detail: `pid ${before.pid}` }];
  const after = await waitFor(
    `systemd to restart the Nomad agent on ${m.name} (was pid ${before.pid})`,
    async (d) => {
      const s = parseAgentState(await sh(m, AGENT_STATE_COMMAND, d, 'agent state'));
      const seen = `ActiveState=${s.active} MainPID=${s.pid} NRestarts=${s.restarts}`;
      const back = s.active === 'active' && s.pid > 0 && s.pid !== before.pid;
      return back ? { done: true, value: s } : { done: false, reason: seen };
    },
    { deadline, intervals: [250, 500, 1000] },
  );
  const backAt = Date.now();
  marks.push({ atMs: backAt, label: 'Nomad agent restarted by systemd', detail: `pid ${after.pid}` });
  const bootIdAfter = await m.bootId({ deadline });
  const facts = {
    'agent.pid.before': String(before.pid),
    'agent.pid.after': String(after.pid),
    'agent.restarts': String(after.restarts - before.restarts),
  };
  return { machine: m.name, kind: 'agent-kill', bootIdBefore, bootIdAfter, requestedAt, backAt, marks, facts };
}

/**
 * Drop traffic between the client and every server of `serverIps` (one Raft cluster: all of them, or the client just
 * talks to another) on Nomad's ports for `forMs`, then heal. A systemd timer on the client heals on its own if the
 * harness dies in between; heal removes only the partition's own (commented) rules.
 */
export async function partition(
  m: Rebootable,
  serverIps: string | readonly string[],
  forMs: number,
  o: FaultOptions,
): Promise<RebootRecord> {
  const { deadline } = o;
  const ips = typeof serverIps === 'string' ? [serverIps] : serverIps;
  const serverIp = ips.join(',');
  const cut = (op: '-I' | '-D') => ips.flatMap((ip) => partitionCommands(ip, op));
  const bootIdBefore = await m.bootId({ deadline });
  const heal = cut('-D').join('; ');
  const safetyS = Math.ceil(forMs / 1000) + HEAL_SAFETY_S;
  const safety = `systemd-run --unit ${HEAL_UNIT} --on-active=${safetyS} /bin/sh -c ${quote(heal)}`;
  await sh(m, `systemctl stop ${HEAL_UNIT}.timer 2>/dev/null; ${safety}`, deadline, 'partition safety timer');
  const requestedAt = Date.now();
  await sh(m, cut('-I').join(' && '), deadline, 'partition');
  const detail = `iptables DROP to/from ${serverIp} ports ${SERVER_PORTS.join(',')} for ${(forMs / 1000).toFixed(0)} s`;
  const marks: FaultMark[] = [{ atMs: requestedAt, label: 'partition: client cut off from the server', detail }];
  // Note: a deliberate hold (the length of the partition under test), not a poll
  await sleep(forMs, deadline);
  await sh(m, `${heal}; systemctl stop ${HEAL_UNIT}.timer 2>/dev/null; true`, deadline, 'heal the partition');
  const left = await sh(m, 'iptables-save', deadline, 'iptables-save');
  if (left.includes(TAG)) {
    const rules = left
      .split('\n')
      .filter((l) => l.includes(TAG))
      .join('\n');
    throw new HarnessError(`heal the partition on ${m.name}: rules tagged ${TAG} are still there:\n${rules}`);
  }
  const backAt = Date.now();
  const seconds = ((backAt - requestedAt) / 1000).toFixed(1);
  marks.push({ atMs: backAt, label: 'partition healed', detail: `after ${seconds} s` });
  const bootIdAfter = await m.bootId({ deadline });
  const facts = { 'partition.seconds': seconds, 'partition.server_ip': serverIp };
  return { machine: m.name, kind: 'partition', bootIdBefore, bootIdAfter, requestedAt, backAt, marks, facts };
}
