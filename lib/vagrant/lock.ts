// A cross-process lock file per provider: vagrant-libvirt races when two `vagrant up`s create networks/volumes at once.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { waitFor, type Probe } from '../time/wait-for.js';
import type { Deadline } from '../time/deadlines.js';
import type { Logger } from '../log/events.js';

/** Where lock files live; /tmp is shared by every run on the host. */
export const DEFAULT_LOCK_DIR = '/tmp';

/** Path of the lock file serializing `up`/`destroy` for one provider. */
export function lockPath(provider: string, dir: string = DEFAULT_LOCK_DIR): string {
  return path.join(dir, `nomad-reboot-harness-vagrant-${provider.replace(/[^A-Za-z0-9_-]/g, '_')}.lock`);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readHolder(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** One attempt: put the file in place with our PID in it (fails when it exists), or take over a lock whose PID is dead. */
async function tryAcquire(file: string, logger?: Logger): Promise<Probe<void>> {
  // Note: the file appears with our PID in it at once (written aside, then hard-linked into place, which fails when
  // it exists): created empty and written after, a second process could read it empty in between, call it a dead
  // holder's and take it over (two `vagrant up`s at once; seen once in the integration tier)
  const aside = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    await fs.writeFile(aside, `${process.pid}\n`, { mode: 0o644 });
    await fs.link(aside, file);
    return { done: true, value: undefined };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await fs.unlink(aside).catch(() => {});
  }
  const holder = await readHolder(file);
  if (holder === undefined) return { done: false, reason: `lock ${file} vanished, retrying` };
  const pid = Number.parseInt(holder, 10);
  if (Number.isInteger(pid) && pid > 0 && pidAlive(pid))
    return { done: false, reason: `lock ${file} held by PID ${pid}` };
  // Note: re-read right before unlinking so a lock just re-created by another waiter is not stolen (narrow race left).
  if ((await readHolder(file)) === holder) {
    await fs.unlink(file).catch(() => {});
    logger?.({
      kind: 'warn',
      t: Math.round(performance.now()),
      message: `took over stale lock ${file} of dead PID ${holder.trim() || '(empty)'}`,
    });
  }
  return { done: false, reason: `stale lock ${file} removed, retrying` };
}

/** How often a waiter looks at the lock again: soon at first, then once a second (a `vagrant up` holds it minutes). */
const LOCK_POLL_MS: readonly number[] = [100, 250, 500, 1000];

/** Run `fn` while holding the provider's lock; waiting for it is bounded by `deadline` and named in the TimeoutError. */
export async function withLock<T>(
  file: string,
  fn: () => Promise<T>,
  opts: { deadline: Deadline; logger?: Logger; intervals?: readonly number[] },
): Promise<T> {
  await waitFor(`lock ${file}`, () => tryAcquire(file, opts.logger), {
    deadline: opts.deadline,
    intervals: opts.intervals ?? LOCK_POLL_MS,
    onReason: (reason) =>
      opts.logger?.({ kind: 'wait', t: Math.round(performance.now()), what: `lock ${file}`, reason }),
  });
  try {
    return await fn();
  } finally {
    if ((await readHolder(file))?.trim() === String(process.pid)) await fs.unlink(file).catch(() => {});
  }
}

/**
 * Take the lock without waiting: `release` when it is ours now (a dead holder's lock is taken over), else who holds it.
 * Warm labs (lib/lab/warm/warm-lab.ts) use one per key: a second run does not wait for the first, it runs cold.
 */
export async function tryLock(
  file: string,
  logger?: Logger,
): Promise<{ release: () => Promise<void> } | { heldBy: string }> {
  let probe = await tryAcquire(file, logger);
  // Note: a stale lock was just removed; one more attempt takes it (or sees the run that took it first)
  if (!probe.done && probe.reason.startsWith('stale lock')) probe = await tryAcquire(file, logger);
  if (!probe.done) {
    const holder = (await readHolder(file))?.trim();
    return { heldBy: holder ? `PID ${holder}` : probe.reason };
  }
  return {
    release: async () => {
      if ((await readHolder(file))?.trim() === String(process.pid)) await fs.unlink(file).catch(() => {});
    },
  };
}
