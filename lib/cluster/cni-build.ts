// The CNI reference plugins on the harness's own machine, for upload to existing hosts: built from the Go module proxy
// by vms/build-cni-plugins.ts (as for the box) into ${XDG_CACHE_HOME:-~/.cache}/nomad-reboot-harness/cni-plugins-<ver>,
// once per version. Without Go and without a cached build it is a usage error naming the fix (exit 2).
import { access, constants } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT, HarnessError } from '../errors.js';
import { runCommand, type RunCommand } from '../exec/run.js';
import type { Logger } from '../log/events.js';
import type { Deadline } from '../time/deadlines.js';
import { CNI_PLUGINS } from './cni-plugins.js';
import { tsxArgv } from '../exec/tsx.js';

/** vms/build-cni-plugins.ts in this checkout (a zx script, run by this Node with tsx's loader). */
const CNI_BUILD_SCRIPT = fileURLToPath(new URL('../../vms/build-cni-plugins.ts', import.meta.url));
/** Where the script finds Go when it is not on PATH (the official tarball's place). */
const GO_FALLBACK = '/usr/local/go/bin/go';

export interface CniBuildOptions {
  version: string;
  deadline: Deadline;
  env?: Record<string, string | undefined>;
  home?: string;
  run?: RunCommand;
  logger?: Logger;
  /** where Go is looked for after PATH (the script's own fallback) */
  fallbackGo?: string;
}

/** The cache directory of one version: $XDG_CACHE_HOME or ~/.cache, then nomad-reboot-harness/cni-plugins-<ver>. */
export function cniCacheDir(version: string, env: Record<string, string | undefined>, home: string): string {
  const base = env['XDG_CACHE_HOME']?.trim() ? env['XDG_CACHE_HOME'] : join(home, '.cache');
  return join(base, 'nomad-reboot-harness', `cni-plugins-${version}`);
}

const executable = (f: string) =>
  access(f, constants.X_OK).then(
    () => true,
    () => false,
  );

/** The Go the build script would use (PATH, then /usr/local/go), or undefined. */
export async function findGo(
  env: Record<string, string | undefined>,
  fallback: string = GO_FALLBACK,
): Promise<string | undefined> {
  const dirs = (env['PATH'] ?? '').split(delimiter).filter(Boolean);
  for (const f of [...dirs.map((d) => join(d, 'go')), fallback]) if (await executable(f)) return f;
  return undefined;
}

/**
 * A local directory holding every plugin at `version`: the cache when the script finds it complete, else a fresh
 * build. Throws exit 2 before anything is built when Go is missing and the cache is not complete.
 */
export async function ensureCniPlugins(o: CniBuildOptions): Promise<string> {
  const { version, deadline, env = process.env, home = homedir(), run = runCommand, logger, fallbackGo } = o;
  const dir = cniCacheDir(version, env, home);
  const cached = (await Promise.all(CNI_PLUGINS.map((p) => executable(join(dir, p))))).every(Boolean);
  if (!cached && !(await findGo(env, fallbackGo))) {
    const what = `the CNI plugins ${version} for the existing client are not built (${dir}) and Go is missing`;
    throw new HarnessError(what, {
      exitCode: EXIT.USAGE,
      hint:
        'install Go >= 1.21 (e.g. apt-get install golang-1.21 from bookworm-backports, or the go.dev tarball in ' +
        `/usr/local/go), or put the plugins into the client's CNI dir yourself, or run: npx tsx ${CNI_BUILD_SCRIPT}`,
    });
  }
  // Note: the script checks the cached plugins' version itself and leaves a complete cache alone
  await run(process.execPath, tsxArgv(CNI_BUILD_SCRIPT, [dir, version]), { deadline, ...(logger ? { logger } : {}) });
  return dir;
}
