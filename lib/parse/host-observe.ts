// Pure parsers for the probes in observe.ts.
import type { HttpProbe } from '../model/evidence.js';

export interface BootInfo {
  bootId: string;
  uptimeS: number | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Parse `cat boot_id /proc/uptime`: a UUID line then "12345.67 2345.67". */
export function parseBootInfo(text: string): BootInfo {
  const [id = '', up = ''] = text.trim().split('\n');
  if (!UUID.test(id.trim()))
    throw new Error(`expected a boot_id UUID on the first line, got ${JSON.stringify(text.slice(0, 80))}`);
  // Note: a missing or garbled uptime line is "unknown", never 0 (0 would read as "uptime restarted").
  const first = up.trim().split(/\s+/)[0] ?? '';
  return { bootId: id.trim(), uptimeS: /^\d+(\.\d+)?$/.test(first) ? Number(first) : undefined };
}

/** Turn curl's exit code, `-w '%{http_code}'` output and stderr into an HttpProbe (2xx/3xx = ok). */
export function parseCurlProbe(from: string, url: string, code: number, stdout: string, stderr: string): HttpProbe {
  const status = /^\d{3}$/.test(stdout.trim()) ? Number(stdout.trim()) : undefined;
  const answered = status !== undefined && status !== 0;
  const ok = code === 0 && answered && status! < 400;
  const error = ok
    ? undefined
    : stderr.trim().split('\n').pop() ||
      (answered
        ? `HTTP ${status}`
        : code === 0
          ? `expected an HTTP status from curl -w '%{http_code}', got ${JSON.stringify(stdout.slice(0, 40))}`
          : `curl exited ${code}`);
  return { from, url, ok, status: answered ? status : undefined, error };
}

/** The client's network plumbing at one moment: named network namespaces and veth interfaces. */
import type { NetState } from '../model/evidence.js';
export type { NetState };

/** The command whose output parseNetState reads: one netns name per line, a separator, then `ip -o link show type veth`. */
export const NET_STATE_COMMAND = 'ls -1 /var/run/netns 2>/dev/null; echo ---; ip -o link show type veth';

/** Parse NET_STATE_COMMAND's output; lines like `5: veth6e18ae6a@if2: <…> mtu 1500 qdisc noqueue master nomad state UP …`. */
export function parseNetState(text: string): NetState {
  const [ns = '', links = ''] = text.split(/^---$/m);
  const netns = ns
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const veths: NetState['veths'] = [];
  for (const line of links.split('\n')) {
    const name = /^\d+:\s+([^@:\s]+)/.exec(line.trim())?.[1];
    if (name) veths.push({ name, master: /\smaster\s+(\S+)/.exec(line)?.[1] });
  }
  return { netns, veths };
}

/** One network namespace on a host other than the host's own: how it is known (a name, processes) and its IPv4 addresses. */
export interface HostNetns {
  /** the namespace's inode (`net:[inode]`), its identity */
  inode: string;
  /** names under /var/run/netns bound to it (Nomad: the alloc ID) */
  names: string[];
  /** processes inside it */
  pids: { pid: number; comm: string }[];
  /** global-scope IPv4 addresses: interface and CIDR */
  addrs: { ifname: string; cidr: string }[];
}

/**
 * Lists every network namespace but the host's: the named ones (/var/run/netns) and the ones only processes hold
 * (an executor's task keeps its namespace alive after Nomad unmounted or replaced its name). Lines:
 * `N <inode> <name>`, `P <inode> <pid> <comm>`, `A <inode> <ifname> <cidr>` (addresses once per namespace). Needs root.
 */
export const HOST_NETNS_COMMAND = [
  'h=$(stat -L -c %i /proc/$$/ns/net); seen=" "',
  'for n in $(ls /var/run/netns 2>/dev/null); do i=$(stat -L -c %i "/var/run/netns/$n" 2>/dev/null) || continue; echo "N $i $n";' +
    ' case "$seen" in *" $i "*) ;; *) seen="$seen$i "; ip -n "$n" -o -4 addr show scope global | awk -v i="$i" \'{print "A", i, $2, $4}\';; esac; done',
  'for d in /proc/[0-9]*; do i=$(stat -L -c %i "$d/ns/net" 2>/dev/null) || continue; [ "$i" = "$h" ] && continue; echo "P $i ${d#/proc/} $(tr -d \' \' < "$d/comm" 2>/dev/null)";' +
    ' case "$seen" in *" $i "*) ;; *) seen="$seen$i "; nsenter --net="$d/ns/net" ip -o -4 addr show scope global | awk -v i="$i" \'{print "A", i, $2, $4}\';; esac; done',
].join('\n');

/** Parse HOST_NETNS_COMMAND's output into namespaces, in order of first mention. */
export function parseHostNetns(text: string): HostNetns[] {
  const by = new Map<string, HostNetns>();
  const get = (inode: string): HostNetns =>
    by.get(inode) ?? by.set(inode, { inode, names: [], pids: [], addrs: [] }).get(inode)!;
  for (const line of text.split('\n')) {
    const [kind, inode, a, b] = line.trim().split(/\s+/);
    if (!inode || !/^\d+$/.test(inode)) continue;
    if (kind === 'N' && a) get(inode).names.push(a);
    else if (kind === 'P' && a && /^\d+$/.test(a)) get(inode).pids.push({ pid: Number(a), comm: b ?? '' });
    else if (kind === 'A' && a && b) get(inode).addrs.push({ ifname: a.replace(/@.*$/, ''), cidr: b });
  }
  return [...by.values()];
}

/** A guest clock against the harness's: guest minus host (ms), and how uncertain that is (half the round trip). */
export interface ClockOffset {
  offsetMs: number;
  uncertaintyMs: number;
}

/** From one guest clock sample taken between `sentAtMs` and `receivedAtMs` (host clock) reading `guestMs`. */
export function clockOffsetFrom(sentAtMs: number, guestMs: number, receivedAtMs: number): ClockOffset {
  const mid = (sentAtMs + receivedAtMs) / 2;
  return { offsetMs: Math.round(guestMs - mid), uncertaintyMs: Math.ceil((receivedAtMs - sentAtMs) / 2) };
}
