// lab.provider ssh: one machine listed twice (as a server and a client, or as two clients) would get two agents that
// bind the same ports, and a reboot of one role would reboot the other: refused before anything is reached (Q334).
import type { ConfigProblem } from '../errors.js';
import { HOST_ROLES, hostField, hostsOf } from '../config/hosts.js';
import type { HarnessConfig } from '../config/schema.js';

/** A problem per host entry that names a machine an earlier entry named (address, port and jump alike). Pure. */
export function sameHostTwiceProblems(config: HarnessConfig): ConfigProblem[] {
  if (config.lab.provider !== 'ssh') return [];
  const hosts = config.lab.hosts;
  const seen = new Map<string, string>();
  return HOST_ROLES.flatMap((role) =>
    hostsOf(hosts, role).flatMap((h, i) => {
      if (!h.address) return [];
      const key = `${h.address.toLowerCase()}:${h.port}:${h.jump ?? ''}`;
      const field = hostField(hosts, role, i);
      const first = seen.get(key);
      if (first === undefined) {
        seen.set(key, field);
        return [];
      }
      return [
        {
          field: `${field}.address`,
          value: h.address,
          message: `names the machine ${first} names (${h.address}, port ${h.port}): each host runs one agent, and a reboot of one would reboot both`,
          fix: `give each of lab.hosts.servers and lab.hosts.clients a machine of its own`,
        },
      ];
    }),
  );
}
