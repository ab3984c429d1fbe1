// The KVM probe's answers, cached per host and box under the user's cache dir (XDG_CACHE_HOME honoured), so the
// probe runs once, not once per run. The key changes when the host kernel, its KVM modules or the box kernel change.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir, hostname, release } from 'node:os';
import { dirname, join } from 'node:path';
import { sha256File } from '../../builds/cache.js';

/** One cached answer. */
export interface KvmAnswer {
  driver: 'kvm' | 'qemu';
  reason: string;
  /** ISO time of the probe */
  probedAt: string;
}

interface CacheFile {
  version: 1;
  answers: Record<string, KvmAnswer>;
}

/** The cache file: $XDG_CACHE_HOME (or ~/.cache)/nomad-reboot-harness/kvm-probe.json. */
export function kvmCachePath(env: Record<string, string | undefined> = process.env): string {
  // Note: the XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored
  const xdg = env['XDG_CACHE_HOME'];
  const base = xdg && xdg.startsWith('/') ? xdg : join(homedir(), '.cache');
  return join(base, 'nomad-reboot-harness', 'kvm-probe.json');
}

/** What identifies one host and box for the probe. */
interface KvmCacheKeyParts {
  host: string;
  hostKernel: string;
  kvmModules: readonly string[];
  box: string;
  kernelSha256: string;
}

/** The key of one host + box: host name, host kernel, loaded KVM modules, box name and its kernel's sha256. Pure. */
export function kvmCacheKey(o: KvmCacheKeyParts): string {
  const modules = [...o.kvmModules].sort().join('+') || 'no-kvm-module';
  return [o.host, o.hostKernel, modules, o.box, o.kernelSha256.slice(0, 16)].join('|');
}

/** The key for this host and the given box kernel file. */
export async function kvmCacheKeyFor(box: string, kernel: string, modules: readonly string[]): Promise<string> {
  const kvmModules = modules.filter((m) => /^kvm/.test(m));
  const kernelSha256 = await sha256File(kernel);
  return kvmCacheKey({ host: hostname(), hostKernel: release(), kvmModules, box, kernelSha256 });
}

/** The cached answer for `key`, if any (an unreadable or foreign file counts as empty). */
export async function readKvmAnswer(path: string, key: string): Promise<KvmAnswer | undefined> {
  return (await readCache(path)).answers[key];
}

/** Store the answer for `key` (write to a temp file, then rename: a concurrent reader never sees half a file). */
export async function writeKvmAnswer(path: string, key: string, answer: KvmAnswer): Promise<void> {
  const cache = await readCache(path);
  cache.answers[key] = answer;
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(cache, null, 2) + '\n');
  await rename(tmp, path);
}

async function readCache(path: string): Promise<CacheFile> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<CacheFile>;
    const ok = parsed.version === 1 && parsed.answers && typeof parsed.answers === 'object';
    if (ok) return { version: 1, answers: parsed.answers! };
  } catch {
    // missing or unreadable: start over
  }
  return { version: 1, answers: {} };
}
