// lab.provider ssh's own rules of the config, pure: the hosts of lab.hosts (every missing field at once), the topology
// the host lists make, and its keys given with another provider. The resolver is handed them through the provider
// registry (lib/lab/providers.ts `labConfigRules`), so lib/config holds no provider's rules.
import type { ConfigAt } from '../../config/validate.js';
import type { HarnessConfig } from '../../config/schema.js';
import { HOST_ROLES, hostField, hostsOf, legacyHostGiven } from '../../config/hosts.js';
import type { ConfigProblem } from '../../errors.js';
import { MAX_CLIENTS, SERVER_COUNTS, type ServerCount } from '../../model/topology.js';

/**
 * The keys only lab.provider ssh reads (lab.hosts, lab.hosts_netns), given with another provider: a problem each (they
 * would be ignored). Every other provider's config rules include these.
 */
export function sshKeysGivenProblems(config: HarnessConfig, { file }: ConfigAt): ConfigProblem[] {
  const { provider, hosts } = config.lab;
  const out: ConfigProblem[] = [];
  const given = HOST_ROLES.flatMap((r) => [
    ...(legacyHostGiven(hosts[r]) ? [r] : []),
    ...(hosts[`${r}s`].length ? [`${r}s`] : []),
  ]);
  if (given.length) {
    const message = `is only used with lab.provider: ssh (provider is ${provider})`;
    const fix = 'set lab.provider: ssh, or remove lab.hosts';
    out.push({ field: `${file}: lab.hosts`, value: given, message, fix });
  }
  if (config.lab.hostsNetns) {
    const message = `is only used with lab.provider: ssh (provider is ${provider}; its VMs live in lab.netns)`;
    const fix = 'set lab.provider: ssh, or use lab.netns / --netns';
    out.push({ field: 'lab.hosts_netns', value: config.lab.hostsNetns, message, fix });
  }
  return out;
}

/**
 * lab.provider ssh: every missing host field of the roles the scenario uses at once (and of a host only partly given),
 * and the topology the host lists make (set on `config`: the lists decide lab.servers and lab.clients).
 */
export function sshConfigProblems(
  config: HarnessConfig,
  { file, roles: used, givenBy, refused }: ConfigAt,
): ConfigProblem[] {
  const { hosts } = config.lab;
  const out: ConfigProblem[] = [];
  const fixes = {
    address: 'give its host name or IP address',
    user: 'give the SSH user (root or with passwordless sudo)',
    key: 'give the private key file',
  };
  for (const r of HOST_ROLES) {
    const list = hostsOf(hosts, r);
    if (hosts[`${r}s`].length && legacyHostGiven(hosts[r])) {
      out.push({
        field: `${file}: lab.hosts.${r}s / lab.hosts.${r}`,
        value: hosts[r].address,
        message: 'give the same hosts twice (the list and the older one-host form)',
        fix: `list every ${r} under lab.hosts.${r}s and remove lab.hosts.${r}`,
      });
    }
    // Note: a role the scenario does not use may be left out (cni-ipam-reboot needs only the client); one given in
    // part is still checked whole, since a half-written host is a mistake either way.
    // Note: a list given with a bad entry is refused as a whole (told already): not "required" on top of it
    const told = refused(`lab.hosts.${r}s`) || ['address', 'user', 'key'].some((k) => refused(`lab.hosts.${r}.${k}`));
    if (used.includes(r) && !list.length && !told) {
      out.push({
        field: `${file}: lab.hosts.${r}s`,
        value: undefined,
        // Note: the provider may come from a flag or env with no file at all: the problem says where it came from
        message: `is required with lab.provider: ssh (set by ${givenBy('lab.provider') ?? 'the default'})`,
        fix:
          `list the ${r} hosts under lab.hosts, e.g. ${r}s: [{address: 10.0.0.5, user: admin, key: ~/.ssh/id_ed25519}] ` +
          `(one host may also be given as ${r}: {address, user, key})`,
      });
      continue;
    }
    list.forEach((h, i) => {
      for (const k of ['address', 'user', 'key'] as const) {
        if (h[k]) continue;
        const at = hostField(hosts, r, i);
        const message = used.includes(r)
          ? 'is required with lab.provider: ssh'
          : `is required for a host given in part (${at})`;
        out.push({ field: `${file}: ${at}.${k}`, value: undefined, message, fix: fixes[k] });
      }
    });
    if (!used.includes(r) || !list.length) continue;
    // The host lists are the topology: a count given as well must agree with them.
    const key = r === 'server' ? 'lab.servers' : 'lab.clients';
    const countGiven = givenBy(`lab.${r}s`);
    const count = config.lab[`${r}s`];
    if (countGiven && count !== list.length) {
      out.push({
        field: countGiven,
        value: count,
        message: `differs from the ${list.length} host(s) of lab.hosts.${r}s (lab.provider ssh)`,
        fix: `drop ${key} (the list decides), or list ${count} ${r} host(s)`,
      });
    } else if (r === 'server' && !(SERVER_COUNTS as readonly number[]).includes(list.length)) {
      out.push({
        field: `${file}: lab.hosts.servers`,
        value: list.map((h) => h.address),
        message: `has ${list.length} hosts; one Raft cluster takes ${SERVER_COUNTS.join(', ')} servers`,
        fix: `list ${SERVER_COUNTS.filter((n) => n !== list.length).join(', or ')} server hosts`,
      });
    } else if (r === 'client' && list.length > MAX_CLIENTS) {
      out.push({
        field: `${file}: lab.hosts.clients`,
        value: list.length,
        message: `has ${list.length} hosts; a lab has at most ${MAX_CLIENTS} clients`,
        fix: `list at most ${MAX_CLIENTS} client hosts`,
      });
    } else if (r === 'server') config.lab.servers = list.length as ServerCount;
    else config.lab.clients = list.length;
  }
  return out;
}
