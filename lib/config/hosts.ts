// lab.provider ssh: the existing hosts of each role, as lists in slot order, whichever form harness.yaml gave them in.
import type { HarnessConfig, HostSpec } from './schema.js';

export type HostRole = 'server' | 'client';
export const HOST_ROLES: readonly HostRole[] = ['server', 'client'];

/** lab.hosts in either form (tests and callers may give only one of them). */
export type HostsConfig = Partial<HarnessConfig['lab']['hosts']>;

/** Whether the older one-host form (lab.hosts.server.*, lab.hosts.client.*) was written. Pure. */
export function legacyHostGiven(h: HostSpec | undefined): h is HostSpec {
  return !!h && !!(h.address || h.user || h.key || h.jump);
}

/** The hosts of `role` in slot order: the list, or the older one-host form as a list of one. Pure. */
export function hostsOf(hosts: HostsConfig, role: HostRole): HostSpec[] {
  const list = hosts[`${role}s`] ?? [];
  const one = hosts[role];
  return list.length ? list : legacyHostGiven(one) ? [one] : [];
}

/** The key a problem about the `i`th host of `role` names: "lab.hosts.clients[1]", or "lab.hosts.client" (older form). */
export function hostField(hosts: HostsConfig, role: HostRole, i: number): string {
  const listed = (hosts[`${role}s`] ?? []).length > 0;
  return !listed && legacyHostGiven(hosts[role]) ? `lab.hosts.${role}` : `lab.hosts.${role}s[${i}]`;
}
