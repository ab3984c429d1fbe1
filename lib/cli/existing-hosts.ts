// lab.provider ssh: the problems of the existing hosts told with the rest of the input, before any host is reached or
// anything is built: a key ssh cannot use (lib/lab/ssh), and one machine named by two host entries (Q334). A machine
// listed as a server and a client, or as two clients, would get two agents binding the same ports, count as two hosts
// of the topology, and a fault to one role would hit the other.
import { HOST_ROLES, hostField, hostsOf } from '../config/hosts.js';
import { splitJump } from '../config/network-fields.js';
import type { HarnessConfig, HostSpec } from '../config/schema.js';
import type { ConfigProblem } from '../errors.js';
import { hostKeyProblems } from '../lab/ssh/ssh-preflight.js';

/** The port ssh reaches a jump host on when its spec names none. */
const JUMP_PORT = 22;

/** Every problem of the configs' existing hosts told before any is reached ([] for the other providers). */
export async function existingHostProblems(configs: readonly HarnessConfig[], cwd: string): Promise<ConfigProblem[]> {
  const keys = await Promise.all(configs.map((c) => hostKeyProblems(c, cwd)));
  return [...keys.flat(), ...configs.flatMap(sameMachineTwiceProblems)];
}

/**
 * A problem per host entry that names the machine an earlier entry named: the same address (as `machineAddress`
 * writes it), port and jump host. A user or key of its own does not make it another machine. Pure.
 * Note: names are never resolved here (DNS may answer otherwise on the hosts' side, or not at all from this
 * machine), so a machine given once by name and once by IP address, or by two names, is not found.
 */
export function sameMachineTwiceProblems(config: HarnessConfig): ConfigProblem[] {
  if (config.lab.provider !== 'ssh') return [];
  const { hosts } = config.lab;
  const named = new Map<string, string>();
  return HOST_ROLES.flatMap((role) =>
    hostsOf(hosts, role).flatMap((h, i) => {
      if (!h.address) return [];
      const key = machineKey(h);
      const field = hostField(hosts, role, i);
      const first = named.get(key);
      if (first === undefined) {
        named.set(key, field);
        return [];
      }
      const through = h.jump ? `, through ${h.jump}` : '';
      return [
        {
          field: `${field}.address`,
          value: h.address,
          message:
            `names the machine ${first} names (${h.address}, port ${h.port}${through}): each host is a machine of ` +
            'its own (one Nomad agent each, and a reboot of one would reboot both)',
          fix: `list each machine once: give ${field} another machine (address or port), or remove it`,
        },
      ];
    }),
  );
}

/** What makes a host one machine: its address, port and the jump host in front of it (not the jump's user). Pure. */
function machineKey(h: HostSpec): string {
  const jump = h.jump ? splitJump(h.jump) : undefined;
  const via = !h.jump ? '' : jump ? ` via ${machineAddress(jump.host)}:${jump.port ?? JUMP_PORT}` : ` via ${h.jump}`;
  return `${machineAddress(h.address ?? '')}:${h.port}${via}`;
}

/**
 * An address as ssh reaches it, in one form: lower case, without brackets or a trailing dot; an IP address in its
 * canonical form (IPv6 compressed, `::ffff:a.b.c.d` as a.b.c.d, IPv4 as getaddrinfo reads `127.1` or `0x7f.0.0.1`).
 * A name stays a name (never resolved); anything else is compared as written. Pure.
 */
export function machineAddress(raw: string): string {
  const a = raw
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (a.includes(':')) {
    // Note: a zone (fe80::1%eth0) is kept as written: the WHATWG parser takes none
    const [ip = '', zone] = a.split('%', 2);
    const v6 = hostOfUrl(`[${ip}]`)?.slice(1, -1);
    if (v6 === undefined) return a;
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
    if (mapped && zone === undefined) {
      const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
      return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
    }
    return zone === undefined ? v6 : `${v6}%${zone}`;
  }
  const name = a.replace(/\.$/, '');
  // Note: only a plain ASCII name or number goes to the URL parser (which reads IPv4 forms as inet_aton does); a
  // user@ or a non-ASCII name would be taken apart or rewritten by it
  return /^[a-z0-9._-]+$/.test(name) ? (hostOfUrl(name) ?? name) : name;
}

/** The host of http://<host>/ as the WHATWG URL parser writes it, or undefined when it refuses it. Pure. */
function hostOfUrl(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}
