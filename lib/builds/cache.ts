// The build cache on disk: binaries by sha256 under ${XDG_CACHE_HOME:-~/.cache}/nomad-reboot-harness/builds.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The cache root for an environment: $XDG_CACHE_HOME or ~/.cache, then nomad-reboot-harness/builds. */
export function cacheRoot(env: Record<string, string | undefined>, home: string): string {
  const base = env['XDG_CACHE_HOME']?.trim() ? env['XDG_CACHE_HOME'] : join(home, '.cache');
  return join(base, 'nomad-reboot-harness', 'builds');
}

/** sha256 of a file, hex. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** sha256 of bytes, hex. */
export const sha256Of = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** Where the binary with this sha256 lives in the cache. */
export const binaryPath = (root: string, sha256: string): string => join(root, sha256, 'nomad');

/** A fresh private directory under the cache root for work in progress (same filesystem: the final move renames). */
export async function workDir(root: string, what: string): Promise<string> {
  const dir = join(root, 'tmp', `${what}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

/**
 * Move a checked binary into the cache as <sha256>/nomad (executable), with `meta` next to it as build.json; the rename
 * is atomic, so a reader sees a complete entry or none. Returns the final path.
 */
export async function commitBinary(root: string, file: string, sha256: string, meta: unknown): Promise<string> {
  const final = binaryPath(root, sha256);
  if (await cachedBinary(root, sha256)) return final;
  const staging = await workDir(root, 'commit');
  try {
    await chmod(file, 0o755);
    await rename(file, join(staging, 'nomad'));
    await writeFile(join(staging, 'build.json'), JSON.stringify(meta, null, 2) + '\n');
    await rm(join(root, sha256), { recursive: true, force: true });
    try {
      await rename(staging, join(root, sha256));
    } catch (err) {
      // Note: another process (a matrix shard on this host) committed the same binary first: that entry is as good.
      if (!(await cachedBinary(root, sha256))) throw err;
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return final;
}

/** The cached binary with this sha256 when present and intact (re-hashed: a damaged entry is removed and missed). */
export async function cachedBinary(root: string, sha256: string): Promise<string | undefined> {
  const p = binaryPath(root, sha256);
  const st = await stat(p).catch(() => undefined);
  if (!st?.isFile()) return undefined;
  if ((await sha256File(p)) === sha256) return p;
  await rm(join(root, sha256), { recursive: true, force: true });
  return undefined;
}

/** A small JSON record in the cache (what a release version or a commit resolved to), or undefined. */
export async function readRecord<T>(root: string, name: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(join(root, name), 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Write a JSON record atomically (temp file + rename). */
export async function writeRecord(root: string, name: string, value: unknown): Promise<void> {
  const p = join(root, name);
  await mkdir(join(p, '..'), { recursive: true });
  const tmp = `${p}.${randomBytes(3).toString('hex')}.tmp`;
  await writeFile(tmp, JSON.stringify(value, null, 2) + '\n');
  await rename(tmp, p);
}
