// Pure: the facts people look for about a machine of the lab: its kernel (`uname -r`) and the release of each CNI
// plugin in its plugin folder. A containernetworking plugin run with no CNI_COMMAND prints its "about" line on stderr,
// "CNI bridge plugin v1.6.2" (skel's PluginMain); CNI_COMMAND=VERSION answers only the CNI spec versions it speaks, not
// its release, so the about line is what is read (cluster/cni-plugins.ts's probe prints it per plugin).

export interface HostFacts {
  /** `uname -r`, e.g. "6.1.0-37-amd64"; undefined when not read */
  kernel: string | undefined;
  /** per plugin: its release ("v1.6.2"), "absent", or its first line when that names no release */
  cni: Record<string, string>;
}

/** A release in an about line: the last word that looks like a version ("v1.6.2", "1.1.1"). */
const RELEASE = /\bv?\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?$/;

/**
 * Read `kernel <uname -r>` and the CNI probe's lines (`<plugin> present <first line>`, `<plugin> absent`).
 * Unknown lines are ignored (a login banner, a shell's warning).
 */
export function parseHostFacts(text: string): HostFacts {
  const out: HostFacts = { kernel: undefined, cni: {} };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const k = /^kernel (\S+)$/.exec(line);
    if (k) {
      out.kernel = k[1];
      continue;
    }
    const p = /^([a-z0-9-]+) (present|absent)(?: (.*))?$/.exec(line);
    if (!p) continue;
    const first = (p[3] ?? '').trim();
    // Note: Debian's containernetworking-plugins package prints "CNI bridge plugin version unknown"
    const about = /^CNI \S+ plugin (.+)$/.exec(first)?.[1];
    out.cni[p[1]!] =
      p[2] === 'absent' ? 'absent' : (about ?? RELEASE.exec(first)?.[0] ?? (first || 'no version printed'));
  }
  return out;
}

/** The facts as report properties of `machine`: `<machine>.kernel`, `<machine>.cni.plugins` ("bridge v1.6.2, …"). */
export function hostFactProperties(machine: string, f: HostFacts): Record<string, string> {
  const plugins = Object.entries(f.cni).map(([p, v]) => `${p} ${v}`);
  return {
    ...(f.kernel ? { [`${machine}.kernel`]: f.kernel } : {}),
    ...(plugins.length ? { [`${machine}.cni.plugins`]: plugins.join(', ') } : {}),
  };
}
