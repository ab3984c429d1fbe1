// The host's VM lock (one lab at a time on a small machine): held by a `flock` child for as long as a test needs it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Test } from 'tap';

/**
 * The lock file; set HARNESS_VM_LOCK to use another, or to '' to go without (e.g. when the whole `npm test` already
 * runs under `flock /work/vm.lock`: a test waiting for a lock its own ancestor holds would wait forever).
 */
export const VM_LOCK = process.env['HARNESS_VM_LOCK'] ?? '/work/vm.lock';

/** Wait for the lock (a lab of someone else may hold it for a while) and hold it until the test ends. */
export async function holdVmLock(t: Test): Promise<void> {
  if (!VM_LOCK || !existsSync(dirname(VM_LOCK))) return;
  const child = spawn('flock', [VM_LOCK, 'sh', '-c', 'echo locked; exec cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const release = () => {
    child.stdin.end();
    if (child.exitCode === null) child.kill();
  };
  t.teardown(release);
  // Note: a test that times out may exit without its teardown; a flock still waiting must not outlive it
  process.once('exit', release);
  t.comment(`waiting for ${VM_LOCK}`);
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`flock ${VM_LOCK} exited ${code} before taking the lock`)));
  });
}
