// Build the CNI reference plugins Nomad's bridge mode uses (bridge, host-local, loopback, firewall, portmap) at a
// given version from the Go module proxy, with their version string set: Nomad fingerprints
// `plugins.cni.version.<plugin>` by running each plugin with no arguments, and Debian's 1.1.1 package prints
// "version unknown", so Nomad cannot place bridge-mode jobs with it.
// Part of the box's recipe: its text is in the box's recipe hash (vms/build-box.ts).
import { $, fs, os, path, which } from 'zx';
import { compareDotted } from '../lib/parse/versions.js';
import { fail, isMain, probe, refuse, runScript, type Problem, type Script } from '../tools/steps.js';

/** The version the box carries (v1.6.2: Nomad 1.9's constraints accept it); CNI_PLUGINS_VERSION overrides it. */
export const CNI_PLUGINS_DEFAULT_VERSION = 'v1.6.2';
/** The plugins Nomad's bridge networking runs, as paths under the module's plugins/ folder. */
const PLUGINS = ['main/bridge', 'ipam/host-local', 'main/loopback', 'meta/firewall', 'meta/portmap'];
/** The plugins' file names, as the box installs them into /opt/cni/bin. */
export const CNI_PLUGIN_NAMES = PLUGINS.map((p) => path.basename(p));
const MODULE = 'github.com/containernetworking/plugins';
/** The oldest Go that builds the plugins at v1.6.x (their go.mod). */
export const MIN_GO = '1.21';
/** Where Go's official tarball puts it, when `go` is not on PATH (sudo's secure_path drops /usr/local/go/bin). */
const GO_FALLBACK = '/usr/local/go/bin/go';

const USAGE = `Usage: build-cni-plugins.ts [OUT_DIR] [VERSION]
  defaults: \${XDG_CACHE_HOME:-~/.cache}/nomad-reboot-harness/cni-plugins-<version>, ${CNI_PLUGINS_DEFAULT_VERSION} (or CNI_PLUGINS_VERSION)
Builds bridge, host-local, loopback, firewall and portmap with their version string set, from the Go module proxy.
Cached: an OUT_DIR whose plugins already report VERSION is left alone. Needs Go >= ${MIN_GO}.
Exit codes: 0 built or present, 1 a step failed, 2 bad arguments or no Go.`;

/** The default cache folder of one version: ${XDG_CACHE_HOME:-~/.cache}/nomad-reboot-harness/cni-plugins-<version>. */
export function cniCacheDir(version: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env['XDG_CACHE_HOME']?.trim() || path.join(env['HOME'] || os.homedir() || '/root', '.cache');
  return path.join(base, 'nomad-reboot-harness', `cni-plugins-${version}`);
}

/** Go's binary (PATH, else /usr/local/go/bin/go) and its version (from `go env GOVERSION`), or undefined. */
export async function findGo(): Promise<{ go: string; version: string | undefined } | undefined> {
  const go = (await which('go', { nothrow: true })) ?? ((await fs.pathExists(GO_FALLBACK)) ? GO_FALLBACK : undefined);
  if (!go) return undefined;
  const r = await probe`${go} env GOVERSION`;
  const version = /^go(\d+(?:\.\d+)*)/.exec(r.stdout.trim())?.[1];
  return { go, version };
}

/** The problem when Go is missing or older than MIN_GO (for `what`), else undefined. */
export async function goProblem(what: string, skip: string): Promise<Problem | undefined> {
  const found = await findGo();
  if (found?.version && compareDotted(found.version, MIN_GO) >= 0) return undefined;
  const have = found ? `${found.go} says ${found.version ?? 'nothing'}` : 'none on PATH or in /usr/local/go/bin';
  return {
    message: `${what} needs Go >= ${MIN_GO} (found: ${have})`,
    fix: `install Go from https://go.dev/dl (or golang-${MIN_GO} from bookworm-backports)${skip}`,
  };
}

/** True when `dir`/bridge exists and reports `version` (then the folder holds this version's build). */
export async function cniPresent(dir: string, version: string): Promise<boolean> {
  const bridge = path.join(dir, 'bridge');
  if (!(await fs.pathExists(bridge))) return false;
  const r = await probe`${bridge}`;
  return new RegExp(`CNI bridge plugin ${version.replace(/\./g, '\\.')}$`, 'm').test(`${r.stdout}${r.stderr}`);
}

/** Build the plugins into `out` unless they are there at `version`; steps and timings go to `s`. */
export async function buildCniPlugins(s: Script, out: string, version: string): Promise<void> {
  if (await cniPresent(out, version)) {
    s.say(`CNI plugins ${version} present in ${out}`);
    return;
  }
  const fix = 'check that the Go module proxy answers (GOPROXY) and that Go >= 1.21 is installed';
  await s.step(
    `build the CNI plugins ${version} into ${out} (go install)`,
    async () => {
      const found = await findGo();
      if (!found) return fail(`no Go to build the CNI plugins with (not on PATH, not ${GO_FALLBACK})`, fix);
      await fs.ensureDir(out);
      const ldflags = `-s -w -X ${MODULE}/pkg/utils/buildversion.BuildVersion=${version}`;
      const env = { ...process.env, CGO_ENABLED: '0', GOBIN: out, GOFLAGS: '-trimpath' };
      for (const p of PLUGINS) {
        await $({ env })`${found.go} install -ldflags ${ldflags} ${`${MODULE}/plugins/${p}@${version}`}`;
      }
      const r = await probe`${path.join(out, 'bridge')}`;
      s.say(`${r.stdout}${r.stderr}`.split('\n')[0] ?? '');
    },
    { fix },
  );
}

if (isMain(import.meta.url)) {
  await runScript('build-cni-plugins', async (s) => {
    const args = process.argv.slice(2);
    if (args.includes('-h') || args.includes('--help')) return void console.log(USAGE);
    const problems: Problem[] = [];
    const usage = USAGE.split('\n')[0]!;
    if (args.length > 2) problems.push({ message: `too many arguments: ${args.join(' ')}`, fix: usage });
    const version = args[1] ?? process.env['CNI_PLUGINS_VERSION'] ?? CNI_PLUGINS_DEFAULT_VERSION;
    const out = args[0] ?? cniCacheDir(version);
    if (!(await cniPresent(out, version))) {
      const go = await goProblem('building the CNI plugins', '');
      if (go) problems.push(go);
    }
    refuse(problems);
    await buildCniPlugins(s, out, version);
  });
}
