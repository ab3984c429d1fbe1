// Which probe a mapped port gets: the job may say per port label with group or job meta
// `reboot_harness_probe_<label> = "http" | "tcp" | "none"`; otherwise labels starting with "http" get HTTP, others TCP. Pure.

type ProbeKind = 'http' | 'tcp' | 'none';
/** Probe kinds per task group, then per port label, as read from the job. */
export type ProbeKinds = Record<string, Record<string, ProbeKind>>;

/** The meta key prefix that chooses a port's probe. */
export const PROBE_META_PREFIX = 'reboot_harness_probe_';
const KINDS: readonly ProbeKind[] = ['http', 'tcp', 'none'];

/** The default for a label without meta: HTTP for "http", "https", "http-admin", ...; TCP otherwise. */
export function defaultProbeKind(label: string): ProbeKind {
  return /^http/i.test(label) ? 'http' : 'tcp';
}

/** The probe of port `label` in group `group`: the job's word for it, else the default. */
export function probeKindOf(kinds: ProbeKinds | undefined, group: string, label: string): ProbeKind {
  return kinds?.[group]?.[label] ?? defaultProbeKind(label);
}

/** Probe kinds from group meta over job meta; values that are not http/tcp/none are returned as problems. */
export function probeKindsFromMeta(
  jobMeta: Record<string, string> | undefined,
  groups: { name: string; meta: Record<string, string> | undefined; ports: string[] }[],
): { kinds: ProbeKinds; problems: string[] } {
  const kinds: ProbeKinds = {};
  const problems: string[] = [];
  for (const g of groups) {
    const meta = { ...(jobMeta ?? {}), ...(g.meta ?? {}) };
    const own: Record<string, ProbeKind> = {};
    for (const label of g.ports) {
      const raw = meta[`${PROBE_META_PREFIX}${label}`];
      if (raw === undefined) own[label] = defaultProbeKind(label);
      else if ((KINDS as readonly string[]).includes(raw)) own[label] = raw as ProbeKind;
      else problems.push(`meta ${PROBE_META_PREFIX}${label} = "${raw}" in group "${g.name}" must be http, tcp or none`);
    }
    kinds[g.name] = own;
  }
  return { kinds, problems };
}
