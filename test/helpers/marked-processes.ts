// Processes a test started, found by an argument of their own (a marker no other process carries): what is left of
// a command the harness stopped, and the only processes the test's teardown may kill.
import { readdirSync, readFileSync } from 'node:fs';

/** A `sleep` argument that adds nothing measurable and names this test's sleeps alone (`sleep 30 <marker>`). */
export function sleepMarker(): string {
  return `0.0000${process.pid}${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
}

/** The PIDs of the processes whose argv has `marker` as one of its arguments (read from /proc). */
export function pidsWithArg(marker: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').includes(marker);
      } catch {
        return false; // it ended while we looked
      }
    })
    .map(Number);
}

/** SIGKILL the processes carrying `marker` (a teardown's: they are the test's own); how many there were. */
export function killMarked(marker: string): number {
  const pids = pidsWithArg(marker);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  return pids.length;
}
