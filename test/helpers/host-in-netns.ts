// A host of a test's own reached from a network namespace: a namespace made for the test with a real sshd in it,
// handed to the CLI as an existing host (`lab.provider: ssh` with `lab.hosts_netns`), so the CLI re-runs itself inside
// that namespace as it does in the lab's. The CNI plugins the hosts' preflight wants are stand-ins in the run's cache.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { cniCacheDir } from '../../lib/cluster/cni-build.js';
import { CNI_PLUGINS, CNI_PLUGINS_VERSION } from '../../lib/cluster/cni-plugins.js';
import { sshdMissing, startSshd } from './sshd.js';

/** Why a host in a namespace cannot be made here (not root, no iproute2, no OpenSSH), or undefined. */
export function hostInNetnsMissing(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root';
  const missing = sshdMissing();
  if (missing) return missing;
  try {
    execFileSync('ip', ['netns', 'list'], { stdio: 'ignore' });
  } catch {
    return 'needs iproute2 (ip netns)';
  }
  return undefined;
}

/**
 * The CNI plugins the preflight of `lab.provider: ssh` wants, found built in the cache under `xdgCacheHome` (scripts
 * that tell their version, as vms/build-cni-plugins.ts checks it): building them is not what such a test judges, and
 * cold it took 25 s of CPU (five `go install`s). Returns their folder.
 */
export function cniStandIns(xdgCacheHome: string, cwd: string): string {
  const plugins = cniCacheDir(CNI_PLUGINS_VERSION, { XDG_CACHE_HOME: xdgCacheHome }, cwd);
  mkdirSync(plugins, { recursive: true });
  for (const p of CNI_PLUGINS) {
    writeFileSync(join(plugins, p), `#!/bin/sh\necho "CNI ${p} plugin ${CNI_PLUGINS_VERSION}"\n`);
    chmodSync(join(plugins, p), 0o755);
  }
  return plugins;
}

/**
 * Namespace `ns` with a real sshd in it, both gone at the test's end; `<dir>/hosts.yaml` names it as the one client
 * host reached from `ns`, and the CNI stand-ins are in `<dir>/cache` (test/helpers/cli-tsx.ts `privateEnv(dir)`'s
 * XDG_CACHE_HOME). Returns the config's path.
 */
export async function hostInNetns(t: Test, ns: string, dir: string): Promise<string> {
  execFileSync('ip', ['netns', 'add', ns]);
  t.teardown(() => execFileSync('ip', ['netns', 'del', ns]));
  const sshd = await startSshd({ netns: ns });
  t.teardown(() => sshd.dispose());
  const config = join(dir, 'hosts.yaml');
  writeFileSync(
    config,
    `lab:\n  provider: ssh\n  hosts_netns: ${ns}\n  hosts:\n` +
      `    client: { address: 127.0.0.1, port: ${sshd.port}, user: ${sshd.target.user}, key: ${sshd.target.identityFiles[0]} }\n`,
  );
  cniStandIns(join(dir, 'cache'), dir);
  return config;
}
