// Small remote probes a scenario makes inside the VMs: boot identity, HTTP from inside, the client agent's log.
import type { HttpProbe } from '../model/evidence.js';
import type { Deadline } from '../time/deadlines.js';
import { quote } from '../shell/quote.js';
import type { Machine } from '../model/lab.js';
import {
  clockOffsetFrom,
  HOST_NETNS_COMMAND,
  NET_STATE_COMMAND,
  parseBootInfo,
  parseCurlProbe,
  parseHostNetns,
  parseNetState,
  type BootInfo,
  type ClockOffset,
  type HostNetns,
  type NetState,
} from '../parse/host-observe.js';

/** Seconds one HTTP probe may take inside the VM. */
export const HTTP_PROBE_TIMEOUT_S = 5;

/** The machine's boot_id and uptime, in one round trip. */
export async function readBootInfo(m: Machine, d: Deadline): Promise<BootInfo> {
  const r = await m.exec('cat /proc/sys/kernel/random/boot_id /proc/uptime', { deadline: d });
  return parseBootInfo(r.stdout);
}

/**
 * The machine's clock against this host's: the tightest of three `date +%s%N` round trips (its uncertainty is half
 * that round trip). Undefined when the machine does not answer.
 */
export async function readClockOffset(m: Machine, d: Deadline): Promise<ClockOffset | undefined> {
  let best: ClockOffset | undefined;
  for (let i = 0; i < 3; i++) {
    const sent = Date.now();
    const r = await m.exec('date +%s%N', { deadline: d }).catch(() => undefined);
    const received = Date.now();
    const ns = r?.code === 0 ? Number(r.stdout.trim()) : NaN;
    if (!Number.isFinite(ns)) continue;
    const o = clockOffsetFrom(sent, ns / 1e6, received);
    if (!best || o.uncertaintyMs < best.uncertaintyMs) best = o;
  }
  return best;
}

/** GET `url` with curl from inside machine `m`; never throws for HTTP-level failures. */
export async function httpProbe(m: Machine, url: string, d: Deadline): Promise<HttpProbe> {
  const cmd = `curl -sS -o /dev/null --max-time ${HTTP_PROBE_TIMEOUT_S} -w '%{http_code}' ${quote(url)}`;
  const r = await m.exec(cmd, { deadline: d });
  return parseCurlProbe(m.role, url, r.code, r.stdout, r.stderr);
}

/** Lines the Nomad agent logged since the current boot (journald). */
export async function readAgentLog(
  m: Machine,
  d: Deadline,
  { boot = '0' }: { boot?: '0' | '-1' } = {},
): Promise<string[]> {
  const r = await m.exec(`journalctl -u nomad -b ${boot} --no-pager -o short-iso`, { deadline: d, sudo: true });
  if (r.code !== 0) return [];
  return r.stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('-- '));
}

/** The Nomad unit's journal of one boot ("0" the current, "-1" the one before), with journald's times to the µs. */
export function agentJournalCommand(boot: string): string {
  return `journalctl -u nomad -b ${boot} --no-pager -o short-iso-precise`;
}

/** The Nomad unit's state: how often systemd restarted it this boot, how its main process last ended, since when. */
export const AGENT_UNIT_COMMAND =
  'systemctl show nomad -p ActiveState -p NRestarts -p ExecMainStatus -p ExecMainStartTimestamp';

/** The client's named network namespaces and veths (for the leak check). */
export async function readNetState(m: Machine, d: Deadline): Promise<NetState> {
  const r = await m.exec(NET_STATE_COMMAND, { deadline: d, sudo: true });
  return parseNetState(r.stdout);
}

/** Every network namespace on the machine but its own, with names, processes and addresses (root). */
export async function readHostNetns(m: Machine, d: Deadline): Promise<HostNetns[]> {
  const r = await m.exec(HOST_NETNS_COMMAND, { deadline: d, sudo: true });
  return parseHostNetns(r.stdout);
}

/** The command of tcpProbe: bash opens a TCP connection to $0:$1 and prints "connected" (no curl, no netcat needed). */
function tcpProbeCommand(host: string, port: number): string {
  return `timeout ${HTTP_PROBE_TIMEOUT_S} bash -c ${quote('exec 3<>"/dev/tcp/$0/$1" && echo connected')} ${quote(host)} ${quote(String(port))}`;
}

/** Open a TCP connection to host:port from inside machine `m` (ports that do not serve HTTP); never throws for refusals. */
export async function tcpProbe(m: Machine, host: string, port: number, d: Deadline): Promise<HttpProbe> {
  const r = await m.exec(tcpProbeCommand(host, port), { deadline: d });
  const ok = r.code === 0 && r.stdout.includes('connected');
  const error = ok
    ? undefined
    : r.code === 124
      ? `no answer within ${HTTP_PROBE_TIMEOUT_S}s`
      : r.stderr.trim().split('\n').pop() || `exit ${r.code}`;
  return { from: m.role, url: `tcp://${host}:${port}`, ok, status: undefined, error, kind: 'tcp' };
}
