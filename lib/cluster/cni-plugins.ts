// Pure: the CNI reference plugins on an existing client host (lab.provider: ssh). What to look for, how to read what
// is there, the root script that installs the missing ones (recording each step in a manifest on the host before it
// acts), and the script that undoes exactly that at teardown: plugins the harness added go, plugins it replaced come
// back, everything that was there before and is not in the manifest stays.
import { quote } from '../shell/quote.js';

/** The version the box bakes in (vms/build-cni-plugins.ts); Nomad's bridge mode fingerprints each plugin's version. */
export const CNI_PLUGINS_VERSION = 'v1.6.2';
/** The CNI plugins Nomad's bridge mode runs. */
export const CNI_PLUGINS = ['bridge', 'firewall', 'host-local', 'loopback', 'portmap'] as const;
/** cni_path in vms/templates/client.hcl. */
export const CNI_DIR = '/opt/cni/bin';
/** The harness's own state on an existing host: the manifest and the plugins it replaced. */
const HOST_STATE_DIR = '/var/lib/nomad-reboot-harness';
/** The manifest in the state dir, one line per install step:
 * `added <path>`, `replaced <path> <backup>`, `created <dir>`. */
export const manifestOf = (stateDir: string): string => `${stateDir}/cni-manifest`;
const backupDirOf = (stateDir: string): string => `${stateDir}/cni-replaced`;

/** What one plugin on the host is: absent, the wanted version, or something else (its first line). */
export interface PluginState {
  plugin: string;
  state: 'absent' | 'ok' | 'other';
  /** the first line it printed when run without arguments ("CNI bridge plugin v1.6.2") */
  got: string;
}

/** Shell that prints `<plugin> absent` or `<plugin> present <first line>` for each plugin in `dir`. */
export function cniProbeCommand(dir: string, plugins: readonly string[] = CNI_PLUGINS): string {
  return plugins
    .map((p) => {
      const f = quote(`${dir}/${p}`);
      return `if [ -x ${f} ]; then echo "${p} present $(${f} </dev/null 2>&1 | head -n 1)"; else echo "${p} absent"; fi`;
    })
    .join('\n');
}

/** Read cniProbeCommand's output; a plugin counts as right when its first line ends with `version`. Pure. */
export function parseCniProbe(text: string, version: string, plugins: readonly string[] = CNI_PLUGINS): PluginState[] {
  const lines = new Map(
    text.split('\n').map((l) => {
      const [name = '', ...rest] = l.trim().split(' ');
      return [name, rest] as const;
    }),
  );
  return plugins.map((plugin) => {
    const rest = lines.get(plugin);
    if (!rest || rest[0] !== 'present') return { plugin, state: 'absent', got: '' };
    const got = rest.slice(1).join(' ');
    return { plugin, state: got.split(' ').at(-1) === version ? 'ok' : 'other', got };
  });
}

/**
 * Root script: put `plugins` (uploaded into `from`) into `dir`. A plugin already there is moved aside first; every
 * step is appended to the manifest before it is taken, so a teardown after a failure halfway still undoes it.
 */
export function cniInstallScript(
  dir: string,
  from: string,
  plugins: readonly string[],
  stateDir: string = HOST_STATE_DIR,
): string {
  const m = quote(manifestOf(stateDir));
  const lines = [
    'set -eu',
    `install -d -m 0755 ${quote(stateDir)} ${quote(backupDirOf(stateDir))}`,
    // each missing level of dir on its own line, so teardown removes only the levels the harness made
    ...ancestors(dir).map((d) => `if [ ! -d ${quote(d)} ]; then echo "created ${d}" >> ${m}; mkdir ${quote(d)}; fi`),
  ];
  for (const p of plugins) {
    const [f, b] = [`${dir}/${p}`, `${backupDirOf(stateDir)}/${p}`];
    lines.push(
      `if [ -e ${quote(f)} ]; then echo "replaced ${f} ${b}" >> ${m}; mv -f ${quote(f)} ${quote(b)}; ` +
        `else echo "added ${f}" >> ${m}; fi`,
      `install -m 0755 ${quote(`${from}/${p}`)} ${quote(f)}`,
    );
  }
  lines.push(`rm -rf ${quote(from)}`);
  return lines.join('\n');
}

/**
 * Root script: undo the manifest, last step first, then remove the harness's state dir. Idempotent; without a
 * manifest it does nothing to any plugin. Note: paths are the harness's own (no spaces), read back with `read`.
 */
export function cniUninstallScript(stateDir: string = HOST_STATE_DIR): string {
  const m = quote(manifestOf(stateDir));
  return [
    `if [ -f ${m} ]; then`,
    `  tac ${m} | while read -r what path backup; do`,
    '    case $what in',
    '      added) rm -f "$path";;',
    '      replaced) [ -e "$backup" ] && mv -f "$backup" "$path";;',
    '      created) rmdir --ignore-fail-on-non-empty "$path" 2>/dev/null || true;;',
    '    esac',
    '  done',
    'fi',
    `rm -rf ${quote(stateDir)}`,
  ].join('\n');
}

/** "/opt/cni/bin" -> ["/opt", "/opt/cni", "/opt/cni/bin"]. Pure. */
function ancestors(dir: string): string[] {
  const parts = dir.split('/').filter(Boolean);
  return parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`);
}

/** The one-line summary of a probe: what is missing or of another version, for logs and errors. Pure. */
export function describeCniProbe(states: readonly PluginState[], version: string): string {
  const absent = states.filter((s) => s.state === 'absent').map((s) => s.plugin);
  const other = states.filter((s) => s.state === 'other').map((s) => `${s.plugin} (${s.got || 'no version'})`);
  return (
    [absent.length ? `missing ${absent.join(', ')}` : '', other.length ? `not ${version}: ${other.join(', ')}` : '']
      .filter(Boolean)
      .join('; ') || `all at ${version}`
  );
}
