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
const AGENT_STATE_COMMAND = 'systemctl show -p MainPID -p ActiveState -p NRestarts nomad';
/** SIGKILL the agent only (not its executors and tasks, as a crash of the agent would): systemd restarts it. */
const AGENT_KILL_COMMAND = 'systemctl kill -s SIGKILL --kill-whom=main nomad';
/**
 * Printed right before the kill: the host's uptime, the agent's start in clock ticks after boot, the tick rate and
 * the host's clock. The agent's age at the kill is on the host's own monotonic clock, which a restored snapshot keeps,
 * so it places the kill in the agent's own periods (its state snapshot every 60 s) where the wall clock cannot.
 */
const agentAgeCommand = (pid: number) =>
  `echo "nrh-age $(cut -d' ' -f1 /proc/uptime) $(cut -d' ' -f22 /proc/${pid}/stat 2>/dev/null) $(getconf CLK_TCK) $(date +%s%N)"`;
/** Nomad's HTTP and RPC ports: what the client talks to the server on. */
export const SERVER_PORTS = [4646, 4647];
/** Comment on the partition's rules, so heal removes exactly them. */
export const PARTITION_TAG = 'nrh-partition';
const TAG = PARTITION_TAG;
/** The unit of the safety timer that heals the partition if the harness dies while it holds. */
export const PARTITION_HEAL_UNIT = 'nrh-heal-partition';
const HEAL_UNIT = PARTITION_HEAL_UNIT;
/** How long after the planned end the safety timer heals on its own. */
const HEAL_SAFETY_S = 120;
const CMD_MS = 20_000;

/**
 * The agent's age at the kill (seconds, two decimals) and the host's clock then (ms), from `agentAgeCommand`'s line;
 * undefined when a part is missing (a host without /proc of that PID). Pure.
 */
function parseAgentAge(text: string): { ageS: string; atMs: string } | undefined {
  const m = /^nrh-age (\d+(?:\.\d+)?) (\d+) (\d+) (\d{10,})$/m.exec(text);
  if (!m || Number(m[3]) <= 0) return undefined;
  const age = Number(m[1]) - Number(m[2]) / Number(m[3]);
  return age >= 0 ? { ageS: age.toFixed(2), atMs: String(Math.round(Number(m[4]) / 1e6)) } : undefined;
}

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
  return dropCommands(serverIp, op, TAG, SERVER_PORTS);
}

/**
 * iptables commands that drop (`-I`) or stop dropping (`-D`) traffic to and from `ip`, tagged with `tag` (so a heal
 * removes exactly them): on TCP `ports` only, or every packet when no ports are given. Pure.
 */
export function dropCommands(ip: string, op: '-I' | '-D', tag: string, ports?: readonly number[]): string[] {
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) {
    throw new HarnessError(`partition: not an IPv4 address: ${JSON.stringify(ip)}`, { exitCode: 70 });
  }
  const c = ['-m', 'comment', '--comment', tag, '-j', 'DROP'];
  const on = (dir: '--dports' | '--sports') =>
    ports?.length ? ['-p', 'tcp', '-m', 'multiport', dir, ports.join(',')] : [];
  return [
    ['iptables', '-w', op, 'OUTPUT', '-d', ip, ...on('--dports'), ...c],
    ['iptables', '-w', op, 'INPUT', '-s', ip, ...on('--sports'), ...c],
  ].map((argv) => argv.map(quote).join(' '));
}

/** The deadline of a fault (and a logger). */
export interface FaultOptions {
  deadline: Deadline;
  logger?: Logger;
}

export async function rootSh(m: Rebootable, cmd: string, d: Deadline, what: string): Promise<string> {
  const r = await m.exec(cmd, { deadline: deadlineIn(CMD_MS, d), sudo: true });
  const tail = r.stderr.trim().split('\n').slice(-3).join(' ');
  if (r.code !== 0) throw new HarnessError(`${what} on ${m.name}: \`${cmd}\` exited ${r.code}: ${tail}`);
  return r.stdout;
}

/** SIGKILL the Nomad agent, then wait until systemd has it running again with a new PID; the boot_id must stay. */
export async function killAgent(m: Rebootable, { deadline }: FaultOptions): Promise<RebootRecord> {
  const bootIdBefore = await m.bootId({ deadline });
  const before = parseAgentState(await rootSh(m, AGENT_STATE_COMMAND, deadline, 'agent state'));
  if (before.active !== 'active' || before.pid <= 0) {
    const seen = `ActiveState=${before.active}, MainPID=${before.pid}`;
    throw new HarnessError(`agent-kill on ${m.name}: the nomad unit is not running (${seen})`);
  }
  const requestedAt = Date.now();
  const age = parseAgentAge(
    await rootSh(m, `${agentAgeCommand(before.pid)}; ${AGENT_KILL_COMMAND}`, deadline, 'agent-kill'),
  );
  const marks: FaultMark[] = [{ atMs: requestedAt, label: 'Nomad agent SIGKILLed', detail: `pid ${before.pid}` }];
  const after = await waitFor(
    `systemd to restart the Nomad agent on ${m.name} (was pid ${before.pid})`,
    async (d) => {
      const s = parseAgentState(await rootSh(m, AGENT_STATE_COMMAND, d, 'agent state'));
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
    ...(age ? { 'agent.age_at_kill_s': age.ageS, 'agent.killed_at_host_ms': age.atMs } : {}),
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
  const ips = typeof serverIps === 'string' ? [serverIps] : serverIps;
  const serverIp = ips.join(',');
  const cut = (op: '-I' | '-D') => ips.flatMap((ip) => partitionCommands(ip, op));
  const detail = `iptables DROP to/from ${serverIp} ports ${SERVER_PORTS.join(',')} for ${(forMs / 1000).toFixed(0)} s`;
  const r = await holdCut(m, {
    cut: cut('-I'),
    heal: cut('-D'),
    tag: TAG,
    healUnit: HEAL_UNIT,
    forMs,
    what: 'the partition',
    cutMark: { label: 'partition: client cut off from the server', detail },
    healLabel: 'partition healed',
    deadline: o.deadline,
  });
  const facts = { 'partition.seconds': r.seconds, 'partition.server_ip': serverIp };
  return { ...r.record, kind: 'partition', facts };
}

/** One cut held and healed: the rules, their tag and safety unit, how long, and what the timeline calls it. */
interface CutSpec {
  cut: readonly string[];
  heal: readonly string[];
  tag: string;
  healUnit: string;
  forMs: number;
  /** "the partition", for errors */
  what: string;
  cutMark: { label: string; detail: string };
  healLabel: string;
  deadline: Deadline;
}

/**
 * Schedule the safety heal (a systemd timer on the machine, if the harness dies meanwhile), insert the rules, hold
 * them for `forMs`, heal, and check that no rule tagged `tag` is left. The record's kind is the caller's to set.
 */
export async function holdCut(
  m: Rebootable,
  c: CutSpec,
): Promise<{ record: Omit<RebootRecord, 'kind'>; seconds: string }> {
  const { deadline, forMs } = c;
  const bootIdBefore = await m.bootId({ deadline });
  await scheduleHeal(m, c.healUnit, c.heal, forMs, deadline);
  const requestedAt = Date.now();
  await rootSh(m, c.cut.join(' && '), deadline, c.what);
  const marks: FaultMark[] = [{ atMs: requestedAt, ...c.cutMark }];
  // Note: a deliberate hold (the length of the cut under test), not a poll
  await sleep(forMs, deadline);
  await healCut(m, c, deadline);
  const backAt = Date.now();
  const seconds = ((backAt - requestedAt) / 1000).toFixed(1);
  marks.push({ atMs: backAt, label: c.healLabel, detail: `after ${seconds} s` });
  const bootIdAfter = await m.bootId({ deadline });
  return { record: { machine: m.name, bootIdBefore, bootIdAfter, requestedAt, backAt, marks }, seconds };
}

/** A systemd timer on the machine that runs `heal` HEAL_SAFETY_S after `forMs`, should the harness die first. */
export async function scheduleHeal(
  m: Rebootable,
  unit: string,
  heal: readonly string[],
  forMs: number,
  deadline: Deadline,
): Promise<void> {
  const safetyS = Math.ceil(forMs / 1000) + HEAL_SAFETY_S;
  const safety = `systemd-run --unit ${unit} --on-active=${safetyS} /bin/sh -c ${quote(heal.join('; '))}`;
  await rootSh(m, `systemctl stop ${unit}.timer 2>/dev/null; ${safety}`, deadline, `${unit} safety timer`);
}

/**
 * Remove the cut's rules and stop its safety timer (unless `keepTimer`: more cuts follow), and fail naming any rule
 * tagged `tag` still there.
 */
export async function healCut(
  m: Rebootable,
  c: Pick<CutSpec, 'heal' | 'tag' | 'healUnit' | 'what'>,
  deadline: Deadline,
  keepTimer = false,
): Promise<void> {
  const stop = keepTimer ? '' : `; systemctl stop ${c.healUnit}.timer 2>/dev/null`;
  await rootSh(m, `${c.heal.join('; ')}${stop}; true`, deadline, `heal ${c.what}`);
  const left = await rootSh(m, 'iptables-save', deadline, 'iptables-save');
  if (left.includes(c.tag)) {
    const rules = left
      .split('\n')
      .filter((l) => l.includes(c.tag))
      .join('\n');
    throw new HarnessError(`heal ${c.what} on ${m.name}: rules tagged ${c.tag} are still there:\n${rules}`);
  }
}
